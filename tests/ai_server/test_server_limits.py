"""Bounds: every search stops at the server's maximum time and memory cap; queue waits,
per-client quotas and concurrent RPCs are limited; refusals say when to retry.

Checks are about behaviour (which answer, which stop reason, which error): timeouts
are generous and only keep a broken build from hanging.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import sys
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from ai_server import cli, errors, identity, service
from ai_server.server import BackgroundServer
from clients.furnace_client import describe_error, error_details
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info, wait_for

#: Time cap of the ``capped`` server, seconds.
CAP = 1.0
#: Deadline of the calls to it: a search that ignored the cap would run until
#: shortly before it (and say DEADLINE).
DEADLINE = 20.0


@contextlib.contextmanager
def running(**settings: Any) -> Iterator[tuple[BackgroundServer, pb_grpc.FurnaceServiceStub]]:
    srv = BackgroundServer(**settings)
    srv.start()
    try:
        with grpc.insecure_channel(srv.address) as channel:
            yield srv, pb_grpc.FurnaceServiceStub(channel)
    finally:
        srv.stop(grace=0.5)


def new_state(stub: pb_grpc.FurnaceServiceStub) -> pb.GameState:
    state: pb.GameState = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2,
                                                         seed=11)).state
    return state


def timed(state: pb.GameState, ms: int) -> pb.BestMoveRequest:
    return pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=ms))


def retry_info(error: grpc.RpcError) -> tuple[float, float]:
    """(RetryInfo delay, grpc-retry-pushback-ms) of a refusal, in seconds."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    delays = []
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            delays.append(info.retry_delay.ToMilliseconds() / 1000)
    assert len(delays) == 1, "no RetryInfo detail"
    pushback = dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms")  # type: ignore[attr-defined]
    assert pushback is not None, "no grpc-retry-pushback-ms trailer"
    return delays[0], int(pushback) / 1000


def refused(call: Any, request: Any, **kwargs: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(request, **kwargs)
    return info.value


# -- the time cap ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def capped() -> Iterator[tuple[BackgroundServer, pb_grpc.FurnaceServiceStub]]:
    with running(workers=2, max_queue=2, max_time=CAP, max_iterations=10_000_000,
                 max_playouts=10_000_000, default_playouts=50) as pair:
        yield pair


def test_iteration_budget_stops_at_max_time(capped) -> None:
    _srv, stub = capped
    state = new_state(stub)
    reply = stub.BestMove(pb.BestMoveRequest(state=state,
                                             budget=pb.SearchBudget(iterations=10_000_000)),
                          timeout=DEADLINE)
    assert reply.move.text
    assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
    assert 0 < reply.analysis.iterations < 10_000_000


def test_analyze_stream_ends_at_max_time(capped) -> None:
    _srv, stub = capped
    updates = list(stub.Analyze(pb.AnalyzeRequest(
        state=new_state(stub), budget=pb.SearchBudget(iterations=10_000_000),
        update_interval_ms=100), timeout=DEADLINE))
    assert [u.final for u in updates].count(True) == 1 and updates[-1].final
    assert updates[-1].analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT


def test_estimate_stops_at_max_time(capped) -> None:
    _srv, stub = capped
    reply = stub.EstimateScores(pb.EstimateScoresRequest(state=new_state(stub),
                                                         playouts=10_000_000),
                                timeout=DEADLINE)
    assert 0 < reply.playouts < 10_000_000
    # Stopped by the cap, not by the deadline (which would be after about 19 s).
    assert reply.elapsed_seconds < DEADLINE / 2


def test_limits_are_listed(capped) -> None:
    _srv, stub = capped
    limits = stub.ListGames(pb.ListGamesRequest()).limits
    assert limits.max_time_ms == int(CAP * 1000)
    assert limits.max_queue_wait_ms == 10_000
    assert limits.max_searches_per_client == 8
    assert limits.max_search_memory_bytes == 1 << 30
    assert limits.max_concurrent_rpcs == 256


# -- memory ---------------------------------------------------------------------------------
def test_memory_cap_stops_a_search_with_its_best_move() -> None:
    with running(workers=1, max_search_memory_bytes=1 << 20, max_time=30.0) as (srv, stub):
        state = new_state(stub)
        reply = stub.BestMove(timed(state, 20_000), timeout=60)
        assert reply.move.text and reply.analysis.iterations > 0
        assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_MEMORY
        final = list(stub.Analyze(pb.AnalyzeRequest(
            state=state, budget=pb.SearchBudget(time_limit_ms=20_000)), timeout=60))[-1]
        assert final.final and final.analysis.stop_reason == pb.SEARCH_STOP_REASON_MEMORY
        assert stub.ListGames(pb.ListGamesRequest()).limits.max_search_memory_bytes == 1 << 20


# -- the queue --------------------------------------------------------------------------------
def test_a_search_that_waits_past_the_max_queue_wait_is_refused_not_run_late() -> None:
    with running(workers=1, max_queue=2, max_queue_wait=0.5, max_time=30.0) as (srv, stub):
        state = new_state(stub)
        pool = srv.server.pool
        first = stub.BestMove.future(timed(state, 20_000), timeout=60)
        wait_for(lambda: len(pool.busy_pids()) == 1, what="the first search runs")
        error = refused(stub.BestMove, pb.BestMoveRequest(
            state=state, budget=pb.SearchBudget(iterations=50)), timeout=60)
        code, _fields, reason = rpc_error_info(error)
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "QUEUE_TIMEOUT")
        delay, pushback = retry_info(error)
        assert 0 < delay <= 20 and pushback == delay
        assert len(pool.busy_pids()) == 1 and pool.state()["queued"] == 0
        first.cancel()


def test_time_waiting_for_a_worker_counts_against_the_time_budget_and_says_so() -> None:
    with running(workers=1, max_queue=2, max_time=30.0) as (srv, stub):
        state = new_state(stub)
        pool = srv.server.pool
        first = stub.BestMove.future(timed(state, 3_000), timeout=60)
        wait_for(lambda: len(pool.busy_pids()) == 1, what="the first search runs")
        # Asks for 4 s but waits for the first search (up to 3 s): it searches for what
        # is left of its 4 s, not 4 s more, and its answer says that it waited.
        reply = stub.BestMove(timed(state, 4_000), timeout=60)
        assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_QUEUE_WAIT
        assert reply.analysis.queued_seconds > 2.0
        assert reply.analysis.elapsed_seconds < 3.9  # 4 s or more, had the wait not counted
        assert first.result().analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT


# -- quotas -----------------------------------------------------------------------------------
def test_client_quota_and_full_queue_refusals_carry_retry_advice(monkeypatch) -> None:
    # No short lane: the queue's bounds alone.
    with running(workers=1, max_queue=2, max_searches_per_client=1, max_time=30.0,
                 short_search_workers=0) as (srv, stub):
        state = new_state(stub)
        pool = srv.server.pool
        first = stub.BestMove.future(timed(state, 20_000), timeout=60)
        wait_for(lambda: len(pool.busy_pids()) == 1, what="the first search runs")
        # Same client (same address): over its quota.
        error = refused(stub.EstimateScores, pb.EstimateScoresRequest(state=state), timeout=60)
        code, _fields, reason = rpc_error_info(error)
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "CLIENT_QUOTA")
        delay, pushback = retry_info(error)
        assert 0 < delay <= 20 and pushback == delay
        details = error_details(error)
        assert details["retry_delay"] == delay
        assert "retry after" in describe_error(error)
        assert pool.outstanding == 1

        # Other clients are not held back by it, until the queue is full.
        def by_metadata(context: Any, *grouping: Any) -> str:
            return dict(context.invocation_metadata()).get("test-client", "first")

        monkeypatch.setattr(service, "client_identity", by_metadata)
        waiting = [stub.BestMove.future(pb.BestMoveRequest(
            state=state, budget=pb.SearchBudget(iterations=20)),
            metadata=(("test-client", name),), timeout=60) for name in ("b", "c")]
        wait_for(lambda: pool.state()["queued"] == 2, what="two searches wait")
        error = refused(stub.BestMove, pb.BestMoveRequest(state=state),
                        metadata=(("test-client", "d"),), timeout=60)
        code, _fields, reason = rpc_error_info(error)
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "QUEUE_FULL")
        delay, pushback = retry_info(error)
        assert 0 < delay <= 20 and pushback == delay
        first.cancel()
        assert all(call.result().move.text for call in waiting)


def test_concurrent_rpcs_are_limited() -> None:
    with running(workers=1, max_concurrent_rpcs=1, max_time=30.0) as (_srv, stub):
        state = new_state(stub)
        opened: list[Any] = []

        def analysis_streams() -> bool:
            # gRPC counts a finished call out a moment after its answer: on a loaded
            # machine the NewGame above still held the one slot (a CI run was refused).
            stream = stub.Analyze(pb.AnalyzeRequest(
                state=state, budget=pb.SearchBudget(time_limit_ms=20_000),
                update_interval_ms=100), timeout=60)
            try:
                assert not next(stream).final
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                return False
            opened.append(stream)
            return True

        wait_for(analysis_streams, what="the Analyze stream holds the one slot")
        stream = opened[0]
        error = refused(stub.ListGames, pb.ListGamesRequest(), timeout=60)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        stream.cancel()
        wait_for(lambda: _answers(stub), what="calls are served again")


def _answers(stub: pb_grpc.FurnaceServiceStub) -> bool:
    try:
        return bool(stub.ListGames(pb.ListGamesRequest(), timeout=60).games)
    except grpc.RpcError:
        return False


# -- pieces -----------------------------------------------------------------------------------
class _Context:
    def __init__(self, peer: str) -> None:
        self._peer = peer

    def peer(self) -> str:
        return self._peer


def test_client_identity_is_the_peer_without_its_port() -> None:
    assert identity.client_identity(_Context("ipv4:10.0.0.7:41234")) == "ipv4:10.0.0.7"
    assert identity.client_identity(_Context("ipv4:10.0.0.7:5")) == \
        identity.client_identity(_Context("ipv4:10.0.0.7:60001"))
    # An IPv6 client is its /64 (one host or site holds a whole one).
    assert identity.client_identity(_Context("ipv6:[2001:db8::1]:443")) == "ipv6:[2001:db8::]/64"
    assert identity.client_identity(_Context("ipv6:[2001:db8::2]:443")) == "ipv6:[2001:db8::]/64"
    assert identity.client_identity(_Context("ipv6:[2001:db8:0:1::1]:443")) == \
        "ipv6:[2001:db8:0:1::]/64"
    assert identity.client_identity(_Context("ipv6:[::ffff:10.0.0.7]:1")) == "ipv4:10.0.0.7"
    eight = identity.AddressGrouping(ipv4_prefix=8, ipv6_prefix=128)
    assert identity.client_identity(_Context("ipv4:127.0.0.5:41234"), eight) == \
        "ipv4:127.0.0.0/8"
    assert identity.client_identity(_Context("ipv6:[2001:db8::1]:443"), eight) == \
        "ipv6:[2001:db8::1]"
    assert identity.client_identity(_Context("unix:/tmp/s")) == "unix:/tmp/s"


def test_client_identity_prefers_the_authenticated_token(monkeypatch) -> None:
    var: contextvars.ContextVar[str | None] = contextvars.ContextVar("test_client", default=None)
    monkeypatch.setattr(identity, "_client_var", var)
    context = _Context("ipv4:10.0.0.7:41234")
    assert identity.client_identity(context) == "ipv4:10.0.0.7"  # no token: the address
    token = var.set("alice")
    try:
        assert identity.client_identity(context) == "token:alice"
    finally:
        var.reset(token)


def test_client_identity_reads_the_security_module_variable(monkeypatch) -> None:
    monkeypatch.setattr(identity, "_client_var", identity._UNSET)
    security = sys.modules.get("ai_server.security")
    if security is None:
        try:
            from ai_server import security
        except ImportError:
            assert identity._security_client_var() is None
            return
    assert identity._security_client_var() is getattr(security, "CLIENT", None)


def test_retry_advice_in_status_and_trailers() -> None:
    error = errors.RequestError(grpc.StatusCode.RESOURCE_EXHAUSTED, "busy",
                                reason=errors.QUEUE_FULL, retry_after=1.2341)
    status = errors.to_grpc_status(error)
    assert ("grpc-retry-pushback-ms", "1235") in status.trailing_metadata
    proto = errors.to_status_proto(error)
    infos = [d for d in proto.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    assert len(infos) == 1
    info = error_details_pb2.RetryInfo()
    infos[0].Unpack(info)
    assert info.retry_delay.ToMilliseconds() == 1235
    plain = errors.to_grpc_status(errors.invalid("bad", "seat", errors.SEAT_OUT_OF_RANGE))
    assert all(key != "grpc-retry-pushback-ms" for key, _ in plain.trailing_metadata)


def test_serve_flags_set_the_limits() -> None:
    parser = argparse.ArgumentParser(prog="furnace")
    cli.add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", "--workers", "1", "--max-queue-wait", "2.5",
                              "--max-searches-per-client", "3", "--max-search-memory-mb", "256",
                              "--max-concurrent-rpcs", "40"])
    config = cli.config_from_args(args)
    assert config.max_queue_wait == 2.5 and config.max_searches_per_client == 3
    assert config.max_search_memory_bytes == 256 << 20 and config.max_concurrent_rpcs == 40
    for bad in (["--max-queue-wait", "0"], ["--max-searches-per-client", "-1"],
                ["--max-search-memory-mb", "0"], ["--max-concurrent-rpcs", "0"]):
        with pytest.raises(ValueError):
            cli.config_from_args(parser.parse_args(["serve", *bad]))
