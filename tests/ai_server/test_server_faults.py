"""Faults: a worker killed mid-search, a caller that leaves, the server killed or stopped.

Every check is about behaviour (who gets which answer, which processes are left),
never about how fast something happened: timeouts are generous and only keep a
broken build from hanging.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info, wait_for

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads processes from /proc")


# -- helpers -------------------------------------------------------------------------------


def in_background(fn: Callable[..., Any], *args: Any, **kwargs: Any
                  ) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn(*args, **kwargs))
        except grpc.RpcError as error:
            box.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the state on


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for its parent to reap it)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    assert fields is not None, f"process {pid} is gone"
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def children(pid: int) -> list[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return sorted(found)


def worker_processes(pid: int, pool: str = "search") -> list[int]:
    """The workers of one pool (``search`` or ``call``) among ``pid``'s children: each
    names itself ``furnace-<pool>``."""
    workers = []
    for child in children(pid):
        try:
            name = Path(f"/proc/{child}/comm").read_text().strip()
        except OSError:
            continue
        if name == f"furnace-{pool}":
            workers.append(child)
    return workers


def new_state(stub: pb_grpc.FurnaceServiceStub) -> pb.GameState:
    state: pb.GameState = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2,
                                                         seed=5)).state
    return state


def long_search(state: pb.GameState, ms: int) -> pb.BestMoveRequest:
    return pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=ms))


def serve_process(*flags: str) -> tuple[subprocess.Popen[str], int]:
    """``python -m ai_server serve --port 0 ...`` and its port."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(
        [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--log-level", "WARNING",
         *flags],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.search(r"listening on [\d.]+:(\d+)", line)
    if not match:
        process.kill()
        process.wait()
        raise AssertionError(f"the server did not start: {line}")
    return process, int(match.group(1))


@pytest.fixture(scope="module")
def two() -> Iterator[BackgroundServer]:
    # Searches stop 1 s (plus 5% of the time left) before a call's deadline: the search
    # workers run at nice 10 below two busy test processes, and their answers must still
    # come back in time.
    # One client here runs two searches at once: no per-client share of the workers.
    srv = BackgroundServer(workers=2, max_queue=2, max_time=150.0, deadline_margin=1.0,
                           max_worker_share=1.0)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


@pytest.fixture(scope="module")
def two_channel(two: BackgroundServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(two.address) as channel:
        yield channel


# -- a worker killed, a caller gone ---------------------------------------------------------
def test_killed_worker_fails_only_its_own_call(two, two_channel) -> None:
    stub = pb_grpc.FurnaceServiceStub(two_channel)
    pool = two.server.pool
    state = new_state(stub)
    restarts = pool.restarts
    # The doomed search must still run when its worker is killed, however slowly the
    # second one starts on a loaded machine: give it far more time than the test needs
    # (killing its worker answers it at once).
    doomed, doomed_box = in_background(stub.BestMove, long_search(state, 120_000), timeout=180)
    # Started, not only assigned: a worker killed before it starts its job hands the job
    # back to the queue (a 120 s search run again), which is not what this test is about.
    wait_for(lambda: len(pool.searching_pids()) == 1, what="the first search runs")
    victim = pool.searching_pids()[0]
    other, other_box = in_background(stub.BestMove, long_search(state, 4_000), timeout=60)
    wait_for(lambda: len(pool.searching_pids()) == 2, what="both searches run")

    os.kill(victim, signal.SIGKILL)
    doomed.join(60)
    other.join(60)
    error = doomed_box[0]
    assert isinstance(error, grpc.RpcError)
    code, _fields, reason = rpc_error_info(error)
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "WORKER_FAILED")
    # The search on the other worker was not touched.
    assert isinstance(other_box[0], pb.BestMoveResponse), other_box[0]
    assert other_box[0].analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT

    # The pool heals: a replacement worker, new searches work, health never changed.
    wait_for(lambda: len(pool.worker_pids()) == pool.processes and victim not in pool.worker_pids(),
             what="a replacement worker")
    assert pool.restarts == restarts + 1
    reply = stub.BestMove(pb.BestMoveRequest(state=state, budget=pb.SearchBudget(iterations=30)),
                          timeout=60)
    assert reply.move.text
    health = health_pb2_grpc.HealthStub(two_channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == \
        health_pb2.HealthCheckResponse.SERVING
    # Nothing keeps searching for a call that is over.
    wait_for(lambda: not pool.busy_pids(), what="every worker idle")


def assert_idle(pid: int) -> None:
    """No search worker of process ``pid`` uses the CPU."""
    workers = worker_processes(pid)
    before = sum(cpu_seconds(w) for w in workers if alive(w))
    time.sleep(0.5)
    after = sum(cpu_seconds(w) for w in workers if alive(w))
    assert after - before < 0.2, "a worker is still searching"


def test_no_worker_keeps_searching_for_a_call_that_is_over(two, two_channel) -> None:
    stub = pb_grpc.FurnaceServiceStub(two_channel)
    pool = two.server.pool
    state = new_state(stub)

    # A caller that leaves: its worker stops, and is reused (not killed).
    call = stub.BestMove.future(long_search(state, 25_000), timeout=60)
    wait_for(lambda: len(pool.busy_pids()) == 1, what="the search runs")
    pid = pool.busy_pids()[0]
    call.cancel()
    wait_for(lambda: not pool.busy_pids(), what="the worker stops searching")
    assert pid in pool.worker_pids()
    assert_idle(os.getpid())

    # A caller whose deadline passes gets the best move so far; its worker stops.  The
    # server's margin leaves the answer 1.3 s to come back (the default, 0.38 s here, was
    # too short once for a CI machine running the suite on both cores).
    reply = stub.BestMove(pb.BestMoveRequest(state=state,
                                             budget=pb.SearchBudget(iterations=1_000_000)),
                          timeout=6.0)
    assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_DEADLINE
    wait_for(lambda: not pool.busy_pids(), what="the worker stops after the deadline")

    # A worker dies beside another search: once both calls are over, nothing searches.
    calls = [stub.BestMove.future(long_search(state, 25_000), timeout=60) for _ in range(2)]
    wait_for(lambda: len(pool.searching_pids()) == 2, what="both searches run")
    os.kill(pool.searching_pids()[0], signal.SIGKILL)
    wait_for(lambda: any(c.done() for c in calls), what="the killed search is answered")
    for c in calls:
        c.cancel()
    wait_for(lambda: not pool.busy_pids() and pool.state()["starting"] == 0
             and len(pool.worker_pids()) == pool.processes, what="the pool is whole and idle")
    assert_idle(os.getpid())


# -- the server stopped or killed ----------------------------------------------------------
def test_graceful_stop_answers_running_searches_and_refuses_queued_ones() -> None:
    srv = BackgroundServer(workers=1, max_queue=2, max_time=30.0)
    srv.start()
    try:
        with grpc.insecure_channel(srv.address) as channel:
            stub = pb_grpc.FurnaceServiceStub(channel)
            state = new_state(stub)
            pool = srv.server.pool
            running, running_box = in_background(stub.BestMove, long_search(state, 25_000),
                                                 timeout=60)
            wait_for(lambda: len(pool.busy_pids()) == 1, what="the first search runs")
            queued, queued_box = in_background(
                stub.BestMove, pb.BestMoveRequest(state=state,
                                                  budget=pb.SearchBudget(iterations=50)),
                timeout=60)
            wait_for(lambda: pool.state()["queued"] == 1, what="the second one waits")
            srv.stop(grace=1.0)
            running.join(60)
            queued.join(60)
        reply = running_box[0]
        assert isinstance(reply, pb.BestMoveResponse), reply
        assert reply.move.text and reply.analysis.iterations > 0
        assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_SHUTDOWN
        error = queued_box[0]
        assert isinstance(error, grpc.RpcError)
        code, _fields, reason = rpc_error_info(error)
        assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")
    finally:
        srv.stop()


def test_sigterm_answers_a_long_search_with_its_best_move() -> None:
    process, port = serve_process("--workers", "1", "--short-search-workers", "0", "--grace", "1")
    try:
        workers = worker_processes(process.pid)
        assert len(workers) == 1
        idle_cpu = cpu_seconds(workers[0])
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.FurnaceServiceStub(channel)
            state = new_state(stub)
            thread, box = in_background(stub.BestMove, long_search(state, 30_000), timeout=60)
            wait_for(lambda: cpu_seconds(workers[0]) > idle_cpu + 0.3,
                     what="the worker searches")
            process.send_signal(signal.SIGTERM)
            thread.join(60)
        reply = box[0]
        assert isinstance(reply, pb.BestMoveResponse), reply
        assert reply.move.text
        assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_SHUTDOWN
        assert process.wait(timeout=60) == 0
        wait_for(lambda: not alive(workers[0]), timeout=10, what="the worker exits")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_no_worker_outlives_a_killed_server() -> None:
    process, port = serve_process("--workers", "2", "--call-workers", "2")
    workers = worker_processes(process.pid) + worker_processes(process.pid, "call")
    try:
        # Two search workers, the short lane's, two call workers and their spare.
        assert len(workers) == 6
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.FurnaceServiceStub(channel)
            stream = stub.Analyze(pb.AnalyzeRequest(
                state=new_state(stub), budget=pb.SearchBudget(time_limit_ms=40_000),
                update_interval_ms=100), timeout=60)
            assert not next(stream).final  # a worker is searching
            process.kill()
            process.wait()
            stream.cancel()
        end = time.monotonic() + 5.0
        while any(alive(pid) for pid in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert not [pid for pid in workers if alive(pid)], "workers outlived the server"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in workers:  # leave nothing behind, even when the test failed
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
