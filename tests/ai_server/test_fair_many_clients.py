"""Fair shares under many clients, over the wire (ai_server.pool through the service).

Before: two tokens flooding 8 s BestMoves held both search workers and a third
client's BestMove(100 ms) was refused QUEUE_TIMEOUT 195 times in 201; eight loopback
addresses without tokens did the same; and one client's three concurrent 4 s searches
on two workers ran one at a time (the second got 78 iterations, the third was
refused), because a client was held to its share while a worker idled.

The bounds here are what the tests control: the calls' own deadlines and budgets.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server.security import SecurityConfig, parse_tokens
from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info
from tests.ai_server.test_no_stall import costly_positions

FLOODERS = ("flood-one-0123456789abcdef012", "flood-two-0123456789abcdef012")
OTHER = "bystander-fedcba9876543210fedc"
#: The bystander's calls' deadline: waiting behind an 8 s search would miss it.
BYSTANDER_DEADLINE = 3.0


def auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def samara(stub: pb_grpc.FurnaceServiceStub, metadata: Any = ()) -> pb.GameState:
    return stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=3),
                        metadata=metadata).state


def short_searches(stub: pb_grpc.FurnaceServiceStub, state: pb.GameState, count: int,
                   metadata: Any = ()) -> list[pb.BestMoveResponse]:
    """``count`` BestMove(100 ms) calls, one after the other, each under its deadline."""
    answers = []
    for _ in range(count):
        try:
            answers.append(stub.BestMove(pb.BestMoveRequest(
                state=state, budget=pb.SearchBudget(time_limit_ms=100)),
                timeout=BYSTANDER_DEADLINE, metadata=metadata))
        except grpc.RpcError as error:
            raise AssertionError(f"the bystander was refused: {rpc_error_info(error)}") \
                from None
    return answers


def test_one_clients_three_searches_run_two_at_a_time() -> None:
    """On two search workers, a lone client's three concurrent 4 s searches: the first
    two run at once, each for its whole 4 s; the third waits and is answered (not
    refused), saying it waited."""
    with BackgroundServer(workers=2, max_queue=4, max_time=30.0) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = samara(stub)
        request = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=4000))
        futures = [stub.BestMove.future(request, timeout=30) for _ in range(3)]
        answers = sorted((f.result() for f in futures),
                         key=lambda reply: reply.analysis.queued_seconds)
        for reply in answers[:2]:
            # Each started at once and searched until its budget's end (TIME_LIMIT: not
            # cut short, and not spent waiting, which would be QUEUE_WAIT).
            assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
            assert reply.analysis.queued_seconds < 2.0
        last = answers[2].analysis
        assert last.stop_reason == pb.SEARCH_STOP_REASON_QUEUE_WAIT
        assert last.queued_seconds >= 2.0 and answers[2].move.text


@pytest.fixture(scope="module")
def three_identities() -> Iterator[BackgroundServer]:
    tokens = parse_tokens("".join(f"flood{i}:{t}\n" for i, t in enumerate(FLOODERS))
                          + f"other:{OTHER}\n", "test tokens")
    with BackgroundServer(workers=2, max_queue=16, max_time=30.0, http_port=0,
                          max_searches_per_client=8,
                          security=SecurityConfig(tokens=tokens)) as srv:
        yield srv


def flood(target: Any, threads: int) -> tuple[threading.Event, list[threading.Thread],
                                               list[str]]:
    """``threads`` threads calling ``target()`` until told to stop; their statuses."""
    stop = threading.Event()
    seen: list[str] = []

    def loop() -> None:
        while not stop.is_set():
            seen.append(target())
            time.sleep(0.02)

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for thread in workers:
        thread.start()
    return stop, workers, seen


def test_two_flooding_identities_do_not_hold_back_a_third(three_identities) -> None:
    srv = three_identities
    with grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = samara(stub, auth(OTHER))
        long_search = pb.BestMoveRequest(state=state,
                                         budget=pb.SearchBudget(time_limit_ms=8000))

        def flooder(token: str) -> Any:
            def call() -> str:
                try:
                    stub.BestMove(long_search, timeout=30, metadata=auth(token))
                    return "OK"
                except grpc.RpcError as error:
                    return error.code().name
            return call

        floods = [flood(flooder(token), 6) for token in FLOODERS]
        pool = srv.server.pool  # type: ignore[union-attr]
        try:
            deadline = time.monotonic() + 60
            while pool.state()["queued"] < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert pool.state()["queued"] >= 2, "the flood did not fill the pool"
            answers = short_searches(stub, state, 10, auth(OTHER))
            for reply in answers:
                assert reply.move.text
                assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
        finally:
            for stop, _threads, _seen in floods:
                stop.set()
            for _stop, threads, _seen in floods:
                for thread in threads:
                    thread.join(60)


def test_eight_addresses_without_tokens_do_not_hold_back_another() -> None:
    """Eight loopback addresses flood 8 s searches over the HTTP door, each its own
    client (the default grouping counts IPv4 addresses apart); a ninth address's
    short searches are all answered in time: the short lane takes them."""
    with BackgroundServer(workers=2, max_queue=16, max_time=30.0, http_port=0) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = samara(stub)
        body = json.dumps(json_format.MessageToDict(pb.BestMoveRequest(
            state=state, budget=pb.SearchBudget(time_limit_ms=8000)))).encode()
        path = "/furnace.v1.FurnaceService/BestMove"

        def from_address(host: str) -> Any:
            def call() -> str:
                import http.client
                connection = http.client.HTTPConnection(
                    "127.0.0.1", srv.server.http_port, timeout=60,  # type: ignore[union-attr]
                    source_address=(host, 0))
                try:
                    connection.request("POST", path, body, {
                        "Content-Type": "application/json", "Connect-Timeout-Ms": "30000"})
                    return str(connection.getresponse().status)
                except OSError as error:
                    return type(error).__name__
                finally:
                    connection.close()
            return call

        floods = [flood(from_address(f"127.0.0.{i}"), 1) for i in range(2, 10)]
        pool = srv.server.pool  # type: ignore[union-attr]
        try:
            deadline = time.monotonic() + 60
            while pool.state()["queued"] < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert pool.state()["queued"] >= 2, \
                f"the flood did not fill the pool: {[seen for _, _, seen in floods]}"
            for reply in short_searches(stub, state, 10):
                assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
        finally:
            for stop, _threads, _seen in floods:
                stop.set()
            for _stop, threads, _seen in floods:
                for thread in threads:
                    thread.join(60)


def test_costly_calls_killed_in_a_loop_do_not_hold_back_cheap_ones() -> None:
    """A client whose over-time LegalMoves are killed one after the other: a spare
    call worker takes over from each killed one at once, so a bystander's cheap calls
    never wait for a replacement to start (which took 11 s on a loaded machine)."""
    attacker = "attacker-0123456789abcdef0123"
    tokens = parse_tokens(f"attacker:{attacker}\nother:{OTHER}\n", "test tokens")
    with BackgroundServer(workers=1, call_workers=2, max_queue=4, max_time=30.0,
                          security=SecurityConfig(tokens=tokens)) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = samara(stub, auth(OTHER))
        # The costliest position (seventeen workers: about 8 s of game work, kernel or
        # not), so that every attack call outlives its deadline and is killed.  The
        # thirteen-worker one takes 0.5 s on a quiet machine: its calls were answered
        # inside the deadline and never killed.
        costly = pb.LegalMovesRequest(state=pb.GameState(json=costly_positions()[1]))
        attack_deadline = 1.0

        def attack() -> str:
            try:
                stub.LegalMoves(costly, timeout=attack_deadline, metadata=auth(attacker))
                return "OK"
            except grpc.RpcError as error:
                return error.code().name

        stop, threads, seen = flood(attack, 2)
        call_pool = srv.server.call_pool  # type: ignore[union-attr]
        took: list[float] = []
        try:
            end = time.monotonic() + 8.0
            while time.monotonic() < end:
                started = time.monotonic()
                reply = stub.LegalMoves(pb.LegalMovesRequest(state=state),
                                        timeout=BYSTANDER_DEADLINE, metadata=auth(OTHER))
                took.append(time.monotonic() - started)
                assert reply.moves
                time.sleep(0.05)
        finally:
            stop.set()
            for thread in threads:
                thread.join(60)
        assert call_pool.kills >= 2, seen  # the attack was killed again and again
        # Every bystander call was answered within its deadline (above): none waited
        # for a killed worker's replacement to start.  (Its latency on a quiet machine:
        # `furnace fair-check kills`.)
        assert took
