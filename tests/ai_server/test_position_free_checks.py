"""Checks that need no position run before a search is admitted or queued (issue 42,
item 7.4).

EstimateScores without a state waited for a search worker before it answered
MISSING_FIELD: the check ran in the worker, with the position's.  A request a client
can fix without any game work is answered at once, whatever the search pool is doing:
every worker busy (the call would queue) or the client at its quota (the call would be
refused RESOURCE_EXHAUSTED, which advises a retry that cannot help).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from ai_server import errors
from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info, wait_for

#: How long each search that holds the pool runs: the test's calls must be answered
#: well before it ends, so their deadline is a fraction of it.
HOLD_MS = 60_000
DEADLINE = 10.0


@pytest.fixture(scope="module")
def srv() -> Iterator[BackgroundServer]:
    with BackgroundServer(workers=1, call_workers=1, max_time=120.0, max_queue=4,
                          max_searches_per_client=2, max_queue_wait=100.0) as server:
        yield server


@pytest.fixture(scope="module")
def stub(srv: BackgroundServer) -> Iterator[pb_grpc.FurnaceServiceStub]:
    with grpc.insecure_channel(srv.address) as channel:
        yield pb_grpc.FurnaceServiceStub(channel)


def hold(stub: pb_grpc.FurnaceServiceStub, state: pb.GameState) -> Any:
    return stub.BestMove.future(pb.BestMoveRequest(
        state=state, budget=pb.SearchBudget(time_limit_ms=HOLD_MS)), timeout=HOLD_MS / 1000)


def ask(stub: pb_grpc.FurnaceServiceStub, method: str, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        reply = getattr(stub, method)(request, timeout=DEADLINE)
        if method in ("Analyze", "ReviewGame"):
            list(reply)
    return caught.value


CASES = [
    ("EstimateScores", pb.EstimateScoresRequest(), "state", errors.MISSING_FIELD),
    ("EstimateScores", pb.EstimateScoresRequest(state=pb.GameState()), "state",
     errors.MISSING_FIELD),
    ("BestMove", pb.BestMoveRequest(), "state", errors.MISSING_FIELD),
    ("Analyze", pb.AnalyzeRequest(), "state", errors.MISSING_FIELD),
    ("ReviewGame", pb.ReviewGameRequest(), "state.record", errors.MISSING_FIELD),
]


@pytest.mark.parametrize("holders", [1, 2], ids=["every-worker-busy", "client-at-quota"])
def test_a_request_without_a_state_is_answered_at_once(srv: BackgroundServer,
                                                       stub: pb_grpc.FurnaceServiceStub,
                                                       holders: int) -> None:
    """One long search holds the only worker (a further search would queue behind it for
    a minute), or two hold the client's quota of two (a further one would be refused
    CLIENT_QUOTA): a request without a state is INVALID_ARGUMENT, MISSING_FIELD, within
    a deadline far shorter than the searches that hold the pool."""
    assert srv.server is not None
    pool = srv.server.pool
    state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1)).state
    running = [hold(stub, state) for _ in range(holders)]
    try:
        wait_for(lambda: pool.searching_pids() and pool.outstanding == holders,
                 what="the searches hold the pool")
        for method, request, field, reason in CASES:
            error = ask(stub, method, request)
            assert rpc_error_info(error) == (grpc.StatusCode.INVALID_ARGUMENT, [field],
                                             reason), (method, error.details())
    finally:
        for call in running:
            call.cancel()
    wait_for(lambda: pool.outstanding == 0, timeout=30, what="the searches stop")


def test_position_free_ranges_are_checked_before_admission(srv: BackgroundServer,
                                                           stub: pb_grpc.FurnaceServiceStub
                                                           ) -> None:
    """EstimateScores' playouts and Analyze's update interval need no position either."""
    assert srv.server is not None
    pool = srv.server.pool
    state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1)).state
    running = [hold(stub, state) for _ in range(2)]
    try:
        wait_for(lambda: pool.outstanding == 2, what="the searches hold the quota")
        error = ask(stub, "EstimateScores", pb.EstimateScoresRequest(
            state=state, playouts=10**9))
        assert rpc_error_info(error) == (grpc.StatusCode.INVALID_ARGUMENT, ["playouts"],
                                         errors.OUT_OF_RANGE), error.details()
        error = ask(stub, "Analyze", pb.AnalyzeRequest(state=state, update_interval_ms=1))
        assert rpc_error_info(error) == (grpc.StatusCode.INVALID_ARGUMENT,
                                         ["update_interval_ms"], errors.OUT_OF_RANGE), \
            error.details()
    finally:
        for call in running:
            call.cancel()
    wait_for(lambda: pool.outstanding == 0, timeout=30, what="the searches stop")


def _with_state(request: Any, state: pb.GameState) -> Any:
    request.state.CopyFrom(state)
    return request


#: Fields that need no position, out of range: each refused at once, whatever the pool
#: is doing (the budget, level and exploration were read in the worker, after the wait).
RANGE_CASES = [
    ("BestMove", pb.BestMoveRequest(budget=pb.SearchBudget(iterations=-1)),
     "budget.iterations"),
    ("BestMove", pb.BestMoveRequest(budget=pb.SearchBudget(time_limit_ms=10**9)),
     "budget.time_limit_ms"),
    ("BestMove", pb.BestMoveRequest(level=99), "level"),
    ("BestMove", pb.BestMoveRequest(exploration=float("nan")), "exploration"),
    ("BestMove", pb.BestMoveRequest(max_candidates=-1), "max_candidates"),
    ("Analyze", pb.AnalyzeRequest(budget=pb.SearchBudget(iterations=10**12)),
     "budget.iterations"),
    ("Analyze", pb.AnalyzeRequest(level=-2), "level"),
    ("Analyze", pb.AnalyzeRequest(exploration=11.0), "exploration"),
    ("ReviewGame", pb.ReviewGameRequest(budget=pb.SearchBudget(iterations=1)),
     "budget.iterations"),
    ("ReviewGame", pb.ReviewGameRequest(budget=pb.SearchBudget(time_limit_ms=-5)),
     "budget.time_limit_ms"),
]


@pytest.mark.parametrize("holders", [1, 2], ids=["every-worker-busy", "client-at-quota"])
def test_a_bad_budget_level_or_exploration_is_refused_at_once(
        srv: BackgroundServer, stub: pb_grpc.FurnaceServiceStub, holders: int) -> None:
    """With the only worker busy (a search would queue) or the client at its quota (it
    would be refused CLIENT_QUOTA, a reason to retry), a request whose budget, level,
    exploration or max_candidates is out of range is INVALID_ARGUMENT, OUT_OF_RANGE."""
    assert srv.server is not None
    pool = srv.server.pool
    game = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1))
    record = stub.ApplyMove(pb.ApplyMoveRequest(
        state=game.state, move=pb.Move(id=stub.LegalMoves(pb.LegalMovesRequest(
            state=game.state)).moves[0].id), state_format=pb.STATE_FORMAT_RECORD)).state
    running = [hold(stub, game.state) for _ in range(holders)]
    try:
        wait_for(lambda: pool.searching_pids() and pool.outstanding == holders,
                 what="the searches hold the pool")
        for method, request, field in RANGE_CASES:
            state = record if method == "ReviewGame" else game.state
            error = ask(stub, method, _with_state(request, state))
            assert rpc_error_info(error) == (grpc.StatusCode.INVALID_ARGUMENT, [field],
                                             errors.OUT_OF_RANGE), (method, error.details())
    finally:
        for call in running:
            call.cancel()
    wait_for(lambda: pool.outstanding == 0, timeout=30, what="the searches stop")
