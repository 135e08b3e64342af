"""The worker pool and the server's life: full queue, crashed workers, graceful shutdown."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small() -> Iterator[BackgroundServer]:
    """One worker and no waiting room (no short lane either).  A search may wait a
    minute for a worker: a replacement's start takes seconds on a loaded machine."""
    srv = BackgroundServer(workers=1, max_queue=0, max_time=5.0, short_search_workers=0,
                           max_queue_wait=60.0)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


@pytest.fixture(scope="module")
def small_channel(small: BackgroundServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(small.address) as channel:
        yield channel


@pytest.fixture(scope="module")
def small_stub(small_channel: grpc.Channel) -> pb_grpc.FurnaceServiceStub:
    return pb_grpc.FurnaceServiceStub(small_channel)


def _state(stub: pb_grpc.FurnaceServiceStub) -> pb.GameState:
    state: pb.GameState = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2,
                                                         seed=3)).state
    return state


def _in_background(fn, *args, **kwargs) -> tuple[threading.Thread, list]:
    box: list = []

    def run() -> None:
        try:
            box.append(fn(*args, **kwargs))
        except grpc.RpcError as error:
            box.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def _wait_for(predicate, timeout: float = 5.0) -> None:
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


def test_full_queue_answers_resource_exhausted(small, small_stub) -> None:
    state = _state(small_stub)
    long = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=1200))
    thread, box = _in_background(small_stub.BestMove, long, timeout=10)
    _wait_for(lambda: small.server.pool.outstanding == 1)
    with pytest.raises(grpc.RpcError) as info:
        small_stub.BestMove(pb.BestMoveRequest(state=state, budget=pb.SearchBudget(iterations=5)))
    code, _fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "QUEUE_FULL"
    # Cheap RPCs do not queue behind searches.
    assert small_stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves
    thread.join()
    assert isinstance(box[0], pb.BestMoveResponse)
    _wait_for(lambda: small.server.pool.outstanding == 0)


def test_idle_worker_crash_is_survived(small, small_stub) -> None:
    """An idle worker's death fails no call: the next search waits for its replacement."""
    state = _state(small_stub)
    pool = small.server.pool
    pids = pool.worker_pids()
    assert pids
    os.kill(pids[0], signal.SIGKILL)
    request = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(iterations=10))
    assert small_stub.BestMove(request, timeout=60).move.text
    _wait_for(lambda: pool.worker_pids() and pool.worker_pids() != pids, timeout=60)


def test_worker_crash_during_search(small, small_stub, small_channel) -> None:
    state = _state(small_stub)
    pool = small.server.pool
    restarts = pool.restarts
    thread, box = _in_background(
        small_stub.BestMove,
        pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=3000)), timeout=10)
    _wait_for(lambda: pool.outstanding == 1 and pool.worker_pids())
    time.sleep(0.2)
    os.kill(pool.worker_pids()[0], signal.SIGKILL)
    thread.join()
    error = box[0]
    assert isinstance(error, grpc.RpcError)
    code, _fields, reason = rpc_error_info(error)
    assert code == grpc.StatusCode.UNAVAILABLE and reason == "WORKER_FAILED"
    assert pool.restarts == restarts + 1
    # The replacement's start takes seconds on a loaded machine: the next search is
    # asked once it is up (a search sent earlier waits for it, at most the queue wait).
    _wait_for(lambda: len(pool.worker_pids()) == pool.processes, timeout=120)
    reply = small_stub.BestMove(pb.BestMoveRequest(state=state,
                                                   budget=pb.SearchBudget(iterations=10)))
    assert reply.move.text
    health = health_pb2_grpc.HealthStub(small_channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == \
        health_pb2.HealthCheckResponse.SERVING


def test_graceful_stop_finishes_in_flight_calls() -> None:
    srv = BackgroundServer(workers=1, max_time=5.0)
    srv.start()
    try:
        with grpc.insecure_channel(srv.address) as channel:
            stub = pb_grpc.FurnaceServiceStub(channel)
            state = _state(stub)
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service="furnace.v1.FurnaceService"))
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            thread, box = _in_background(
                stub.BestMove,
                pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=800)),
                timeout=10)
            # In flight means a worker runs it: a search still queued when the stop
            # begins is refused (SHUTTING_DOWN), which a loaded machine's slow worker
            # start made this test see.  Bounded by the call's own deadline.
            _wait_for(lambda: len(srv.server.pool.busy_pids()) == 1, timeout=10)
            stopper = threading.Thread(target=srv.stop, kwargs={"grace": 5.0})
            stopper.start()
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()  # an open Watch stream would hold the stop for the whole grace
            thread.join()
            stopper.join()
            assert isinstance(box[0], pb.BestMoveResponse), box[0]
            assert box[0].analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
    finally:
        srv.stop()


def test_serve_command_stops_gracefully_on_sigterm() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(
        [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--workers", "1",
         "--log-level", "WARNING"],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"listening on [\d.]+:(\d+)", line)
        assert match, line
        with grpc.insecure_channel(f"127.0.0.1:{match.group(1)}") as channel:
            stub = pb_grpc.FurnaceServiceStub(channel)
            state = _state(stub)
            # A search that would run 30 s; its first update says it is running (no
            # guess at how long starting takes), then SIGTERM: it stops with its best
            # move so far, and the server exits cleanly within its grace period.
            stream = stub.Analyze(pb.AnalyzeRequest(
                state=state, budget=pb.SearchBudget(time_limit_ms=30_000),
                update_interval_ms=100), timeout=60)
            first = next(stream)
            assert not first.final
            process.send_signal(signal.SIGTERM)
            rest = list(stream)
            assert rest and rest[-1].final
            assert rest[-1].analysis.stop_reason == pb.SEARCH_STOP_REASON_SHUTDOWN
            assert rest[-1].analysis.best_move.text
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
