"""No request stalls the server: costly positions run where they can be stopped.

A validator-accepted Stephens position with 13 (or 17) of one seat's workers in one
row at its activation decision made every state-carrying call run the reference
rules' exhaustive plan search on the event loop: LegalMoves took 13 s, health on
both ports and every other client's calls answered nothing meanwhile.  Now every
call's game work runs in a worker process under the call's deadline.

The checks hold on a loaded machine (the house rule: a bound comes from what the
test controls, never from a guess of the machine's speed): the event loop is watched
by the server's loop watchdog, which tells code holding the loop (the plan search
run on it: seconds of CPU on the loop's thread) from a loop thread waiting for a
core; the costly calls are bounded by the server's own limits (``max_time``,
``max_call_time``), which only a call whose work was not stopped at its deadline
reaches (the 17-worker position's plan search takes minutes); and every probe and
every other client's call must be answered, each within its own deadline.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ai_server.security import SecurityConfig, parse_tokens
from ai_server.server import BackgroundServer
from engine import registry
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info

POSITIONS = Path(__file__).resolve().parents[1] / "stephens" / "positions"
ATTACKER = "attacker-0123456789abcdef0123"
OTHER = "other-fedcba9876543210fedcba98"
#: The costly calls' deadline.
DEADLINE = 2.0
#: The server's own limits for a call's work and a search (``max_call_time``,
#: ``max_time``): only work that was not stopped at its deadline runs that long (the
#: 17-worker position's plan search takes minutes).
MAX_TIME = 30.0
#: The deadline of the health probes' and the other client's calls: a ceiling (they
#: fail past it), not a latency bound.
PATIENT = 20.0


def costly_positions() -> list[str]:
    return [(POSITIONS / name).read_text() for name in
            ("activation_of_thirteen_workers.json", "activation_of_seventeen_workers.json")]


@pytest.fixture(scope="module")
def guarded() -> Iterator[BackgroundServer]:
    tokens = parse_tokens(f"attacker:{ATTACKER}\nother:{OTHER}\n", "test tokens")
    with BackgroundServer(workers=2, call_workers=2, max_queue=8, http_port=0,
                          health_port=0, max_time=MAX_TIME, max_call_time=MAX_TIME,
                          security=SecurityConfig(tokens=tokens)) as srv:
        yield srv


def auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def grpc_call(stub: pb_grpc.FurnaceServiceStub, method: str, request: Any) -> str:
    """The status name of one costly call over gRPC (OK for an answer)."""
    try:
        reply = getattr(stub, method)(request, timeout=DEADLINE, metadata=auth(ATTACKER))
    except grpc.RpcError as error:
        code, _fields, reason = rpc_error_info(error)
        return f"{code.name}/{reason}" if reason else code.name
    if method == "BestMove":
        assert reply.move.text
    return "OK"


def http_call(srv: BackgroundServer, method: str, request: Any) -> str:
    """The status of one costly call over the HTTP door (Connect, JSON)."""
    from google.protobuf import json_format

    body = json.dumps(json_format.MessageToDict(request)).encode()
    url = f"http://127.0.0.1:{srv.server.http_port}/furnace.v1.FurnaceService/{method}"
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {ATTACKER}",
               "Connect-Timeout-Ms": str(int(DEADLINE * 1000))}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, body, headers),
                                    timeout=60) as reply:
            reply.read()
            return "OK"
    except urllib.error.HTTPError as error:
        return str(json.loads(error.read()).get("code", error.code)).upper()


def requests_for(text: str) -> dict[str, Any]:
    state = pb.GameState(json=text)
    move = pb.Move(text="activate nothing")
    return {
        "LegalMoves": pb.LegalMovesRequest(state=state),
        "CheckMove": pb.CheckMoveRequest(state=state, move=move),
        "ApplyMove": pb.ApplyMoveRequest(state=state, move=move),
        "BestMove": pb.BestMoveRequest(state=state, budget=pb.SearchBudget(iterations=50)),
        "EstimateScores": pb.EstimateScoresRequest(state=state, playouts=20),
    }


def timed(fn: Callable[[], Any], into: list[float]) -> Any:
    started = time.monotonic()
    try:
        return fn()
    finally:
        into.append(time.monotonic() - started)


def test_costly_positions_stall_nothing(guarded: BackgroundServer) -> None:
    """While one client sends the 13- and 17-worker positions to every state-carrying
    call on both doors, code never holds the event loop (its watchdog), health on both
    ports answers every probe SERVING, another client's LegalMoves are all answered,
    and each costly call ends with a clear status, stopped at its deadline rather than
    run until the server's own limits."""
    srv = guarded.server
    assert srv is not None
    assert srv.watchdog is not None, "the test needs the server's loop watchdog"
    held_before, stalls_before = srv.watchdog.held, srv.watchdog.count
    main = grpc.insecure_channel(guarded.address)
    probe_only = grpc.insecure_channel(f"127.0.0.1:{srv.health_port}")
    stub = pb_grpc.FurnaceServiceStub(main)
    health = [health_pb2_grpc.HealthStub(main), health_pb2_grpc.HealthStub(probe_only)]
    samara = pb.GameState(json=json.dumps(
        registry.get_game("samara").new_game(1, num_players=2).to_json()))

    done = threading.Event()
    probes: list[float] = []
    others: list[float] = []
    failures: list[str] = []

    def probe() -> None:
        while not done.is_set():
            for check in health:
                try:
                    reply = timed(lambda c=check: c.Check(health_pb2.HealthCheckRequest(),
                                                           timeout=PATIENT), probes)
                except grpc.RpcError as error:
                    failures.append(f"health {error.code().name}")
                    continue
                if reply.status != health_pb2.HealthCheckResponse.SERVING:
                    failures.append(f"health {reply.status}")
            time.sleep(0.05)

    def other_client() -> None:
        while not done.is_set():
            try:
                reply = timed(lambda: stub.LegalMoves(pb.LegalMovesRequest(state=samara),
                                                      timeout=PATIENT,
                                                      metadata=auth(OTHER)), others)
            except grpc.RpcError as error:
                failures.append(f"the other client's LegalMoves: {rpc_error_info(error)}")
                continue
            if not reply.moves:
                failures.append("the other client got no moves")
            time.sleep(0.1)

    costly: list[tuple[str, str, str, float]] = []
    lock = threading.Lock()

    def attacker(jobs: list[tuple[str, str, Any]]) -> None:
        for door, method, request in jobs:
            started = time.monotonic()
            status = grpc_call(stub, method, request) if door == "grpc" else \
                http_call(guarded, method, request)
            with lock:
                costly.append((door, method, status, time.monotonic() - started))

    jobs = [(door, method, request) for text in costly_positions()
            for method, request in requests_for(text).items() for door in ("grpc", "http")]
    watchers = [threading.Thread(target=probe), threading.Thread(target=other_client)]
    attackers = [threading.Thread(target=attacker, args=(jobs[i::4],)) for i in range(4)]
    try:
        for thread in watchers + attackers:
            thread.start()
        for thread in attackers:
            thread.join(180)
    finally:
        done.set()
        for thread in watchers:
            thread.join(60)
        main.close()
        probe_only.close()

    # Nothing held the loop: the plan search run on it would have held it for seconds
    # of its thread's CPU (a loop thread merely waiting for a core is not "held").
    seen = srv.watchdog.stalls[-(srv.watchdog.count - stalls_before):] \
        if srv.watchdog.count > stalls_before else []
    assert srv.watchdog.held == held_before, \
        [stall.describe() for stall in seen if stall.held_by_code]
    assert not failures, failures
    assert probes and others, (len(probes), len(others))
    assert len(costly) == len(jobs) == 20
    for door, method, status, seconds in costly:
        # Stopped at its deadline (or refused), not run until the server's own limit.
        assert seconds < MAX_TIME, (door, method, status, seconds)
        # An answer, or the work stopped at the deadline, or refused as the attacker's
        # calls waited for its share of the workers past their deadline.
        # Or stopped for another client's call, beyond the attacker's fair share.
        assert status in ("OK", "DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED/TOO_EXPENSIVE",
                          "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED/QUEUE_TIMEOUT",
                          "UNAVAILABLE", "UNAVAILABLE/PREEMPTED",
                          "INVALID_ARGUMENT/ILLEGAL_MOVE", "INVALID_ARGUMENT"), \
            (door, method, status)
