"""ReviewGame: a game record reviewed decision by decision over the API (issue 24, item 3).

The stream is the engine's review (:func:`engine.search.review.review_game`) for the
same seed and budget, one message per decision of the seat that had a choice, then a
summary per seat; the server caps the decisions of one call; cancelling stops the
worker's search; each decision is admitted and counted as one search; Connect and
gRPC-Web carry the stream as they carry Analyze.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server import errors, messages, reviews
from ai_server.pool import exhausted
from ai_server.server import BackgroundServer
from clients.furnace_client import error_details
from engine import registry
from engine.records import GameRecord, record_from_json, replay, start_state
from engine.search.review import (
    Decision,
    KeyMoment,
    MoveFigures,
    SeatSummary,
    Swing,
    decisions_of,
    key_moments,
    review_decision,
    review_game,
    summarize,
)
from engine.search.review_settings import LABELS, review_settings_for
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info, wait_for
from tests.ai_server.helpers_http import envelope, frames, grpc_web_trailers, post, url

#: The server's cap of decisions per call, and its queue wait (a refused decision of a
#: review under way retries for that long).
MAX_DECISIONS = 12
MAX_QUEUE_WAIT = 2.0
BUDGET = 24

Stub = pb_grpc.FurnaceServiceStub


@pytest.fixture(scope="module")
def srv() -> Iterator[BackgroundServer]:
    with BackgroundServer(workers=2, call_workers=1, http_port=0, max_time=60.0,
                          max_searches_per_client=1, max_review_decisions=MAX_DECISIONS,
                          max_queue_wait=MAX_QUEUE_WAIT,
                          # The sealed games below are dealt from the tests' seeds.
                          allow_sealed_seeds=True) as server:
        yield server


@pytest.fixture(scope="module")
def stub(srv: BackgroundServer) -> Iterator[pb_grpc.FurnaceServiceStub]:
    with grpc.insecure_channel(srv.address) as channel:
        yield pb_grpc.FurnaceServiceStub(channel)


def played_record(game: str, players: int, seed: int, moves: int) -> GameRecord:
    """The first ``moves`` moves of a game played at random (seeded), as a record."""
    state = registry.get_game(game).new_game(seed=seed, num_players=players, options={})
    rng = random.Random(seed)
    played: list[Any] = []
    while len(played) < moves and not state.is_terminal():
        move = rng.choice(state.legal_moves())
        played.append(move)
        state.apply(move)
    return GameRecord(game, players, seed=seed, moves=played)


def move_ids(record: GameRecord) -> list[int]:
    """The moves of a record of :func:`played_record` (ids, every one)."""
    ids = [m for m in record.moves if isinstance(m, int)]
    assert len(ids) == len(record.moves)
    return ids


def wire_record(record: GameRecord, observer: int | None = None) -> pb.GameState:
    state = pb.GameState(record=pb.GameRecord(game=record.game, num_players=record.num_players,
                                              seed=record.seed,
                                              moves=[pb.Move(id=m) for m in move_ids(record)]))
    if observer is not None:
        state.observer_seat = observer
    return state


def choices_of(record: GameRecord, seats: set[int]) -> list[int]:
    """Indices of the moves of ``seats`` made with more than one legal move."""
    assert record.seed is not None
    state = registry.get_game(record.game).new_game(seed=record.seed,
                                                    num_players=record.num_players, options={})
    found = []
    for turn, move in enumerate(move_ids(record)):
        if state.current_player() in seats and len(state.legal_moves()) > 1:
            found.append(turn)
        state.apply(move)
    return found


def figures(message: pb.ReviewedMove) -> MoveFigures:
    return MoveFigures(move=message.move.id, text=message.move.text, visits=message.visits,
                       win_probability=message.win_probability,
                       expected_scores=tuple(message.expected_scores), margin=message.margin)


def as_decision(message: pb.ReviewedDecision) -> Decision:
    labels = {v: k for k, v in messages.REVIEW_LABELS.items()}
    return Decision(
        turn=message.turn, seat=message.seat, choices=message.choices,
        played=figures(message.played), best=figures(message.best),
        win_probability_loss=message.win_probability_loss, score_loss=message.score_loss,
        label=labels[message.label], accuracy=message.accuracy,
        principal_variation=tuple(m.text for m in message.principal_variation),
        target=message.target if message.HasField("target") else None,
        principal_variation_moves=tuple(m.id for m in message.principal_variation),
        iterations=message.iterations,
        swing=as_swing(message.swing) if message.HasField("swing") else None)


def as_swing(message: pb.ForecastSwing) -> Swing:
    return Swing(since_turn=message.since_turn, win_probability=message.win_probability,
                 margin=message.margin, opponents=message.opponents, chance=message.chance,
                 notable=message.notable, drop=message.drop)


def key_moments_of(summaries: list[pb.ReviewSummary], decided: list[pb.ReviewedDecision]
                   ) -> list[KeyMoment]:
    """The summaries' key moments as the engine's, each checked to point at its decision."""
    reasons = {v: k for k, v in messages.KEY_MOMENT_REASONS.items()}
    found = []
    for summary in summaries:
        for moment in summary.key_moments:
            assert decided[moment.index].turn == moment.turn
            assert decided[moment.index].seat == summary.seat
            found.append(KeyMoment(moment.turn, summary.seat,
                                   tuple(reasons[r] for r in moment.reasons)))
    return sorted(found, key=lambda k: k.turn)


def as_summary(message: pb.ReviewSummary) -> SeatSummary:
    return SeatSummary(seat=message.seat, decisions=message.decisions,
                       counts={label: getattr(message.counts, label) for label in LABELS},
                       average_win_probability_loss=message.average_win_probability_loss,
                       average_score_loss=message.average_score_loss,
                       accuracy=message.accuracy)


def request_of(record: GameRecord, seat: int | None = None, *, iterations: int = BUDGET,
               seed: int = 7, observer: int | None = None) -> pb.ReviewGameRequest:
    request = pb.ReviewGameRequest(state=wire_record(record, observer),
                                   budget=pb.SearchBudget(iterations=iterations), seed=seed)
    if seat is not None:
        request.seat = seat
    return request


def searches_counted(srv: BackgroundServer, game: str) -> tuple[float, float]:
    assert srv.server is not None and srv.server.metrics is not None
    registry_ = srv.server.metrics.registry
    searches = registry_.get_sample_value("furnace_searches_total",
                                          {"method": "ReviewGame", "game": game}) or 0.0
    iterations = registry_.get_sample_value("furnace_search_iterations_total",
                                            {"game": game}) or 0.0
    return searches, iterations


# -- the stream is the engine's review ---------------------------------------------------------
@pytest.mark.parametrize("game,players,seat,moves", [
    ("samara", 2, 0, 14),
    ("samara", 2, None, 10),
    ("oh-my-goods", 2, 1, 22),
    ("stephens", 1, 0, 8),
])
def test_the_stream_is_the_engines_review(srv: BackgroundServer, stub: Stub, game: str,
                                          players: int, seat: int | None, moves: int) -> None:
    record = played_record(game, players, seed=3, moves=moves)
    seats = set(range(players)) if seat is None else {seat}
    turns = choices_of(record, seats)
    assert 2 <= len(turns) <= MAX_DECISIONS, "the record should hold a few decisions"
    before = searches_counted(srv, game)

    replies = list(stub.ReviewGame(request_of(record, seat), timeout=300))

    decided = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    summaries = [r.summary for r in replies if r.WhichOneof("item") == "summary"]
    # Every decision with a choice, in order, then the summaries: nothing else.
    assert [r.WhichOneof("item") for r in replies] == \
        ["decision"] * len(turns) + ["summary"] * len(seats)
    assert [d.turn for d in decided] == turns
    assert [d.index for d in decided] == list(range(len(turns)))
    assert {d.total for d in decided} == {len(turns)}
    assert all(d.stop_reason == pb.SEARCH_STOP_REASON_ITERATIONS for d in decided)

    expected = review_game(record, None if seat is None else seat, budget=BUDGET, seed=7)
    assert [as_decision(d) for d in decided] == expected.decisions
    assert [as_summary(s) for s in summaries] == expected.summaries
    assert key_moments_of(summaries, decided) == expected.key_moments
    assert all(s.complete for s in summaries)

    # Counted as one search per decision, with every iteration of its searches.
    wait_for(lambda: searches_counted(srv, game)[0] == before[0] + len(turns),
             what="the review is counted")
    assert searches_counted(srv, game)[1] == before[1] + sum(d.iterations for d in decided)


def test_the_same_seed_gives_the_same_review(stub: Stub) -> None:
    record = played_record("samara", 2, seed=5, moves=12)
    first = list(stub.ReviewGame(request_of(record, 0, seed=1), timeout=300))
    again = list(stub.ReviewGame(request_of(record, 0, seed=1), timeout=300))
    assert first == again


def test_a_time_budget_judges_each_decision_within_it(stub: Stub) -> None:
    record = played_record("samara", 2, seed=5, moves=8)
    request = pb.ReviewGameRequest(state=wire_record(record), seat=1,
                                   budget=pb.SearchBudget(time_limit_ms=150))
    replies = list(stub.ReviewGame(request, timeout=300))
    decided = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    assert len(decided) == len(choices_of(record, {1}))
    assert all(d.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT and d.iterations > 0
               for d in decided)
    assert replies[-1].summary.complete


def test_the_calls_deadline_ends_the_review_with_the_summaries_so_far(stub: Stub) -> None:
    """Eight decisions or more of a second each and a deadline of four seconds: the
    review stops when the deadline nears, and the summaries still arrive, marked
    incomplete."""
    record = played_record("samara", 2, seed=3, moves=20)
    turns = choices_of(record, {0})
    assert len(turns) >= 8
    request = pb.ReviewGameRequest(state=wire_record(record), seat=0,
                                   budget=pb.SearchBudget(time_limit_ms=1000))
    replies = list(stub.ReviewGame(request, timeout=4))
    decided = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    assert replies[-1].WhichOneof("item") == "summary"
    summary = replies[-1].summary
    assert not summary.complete and summary.decisions == len(decided) < len(turns)
    # Every decision before the last ran its time budget; the last was stopped by the
    # deadline (or ended by its own budget just as the deadline came).
    assert all(d.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT for d in decided[:-1])
    assert decided[-1].stop_reason in (pb.SEARCH_STOP_REASON_DEADLINE,
                                       pb.SEARCH_STOP_REASON_TIME_LIMIT)


# -- limits and errors -----------------------------------------------------------------------------
def test_a_review_over_the_decision_cap_is_refused_with_the_limit(stub: Stub) -> None:
    record = played_record("samara", 2, seed=3, moves=60)
    decisions = len(choices_of(record, {0, 1}))
    assert decisions > MAX_DECISIONS
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(request_of(record), timeout=120))
    code, fields, reason = rpc_error_info(caught.value)
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["state.record.moves"],
                                      errors.TOO_MANY_DECISIONS)
    details = error_details(caught.value)
    assert details["metadata"] == {"max_review_decisions": str(MAX_DECISIONS),
                                   "decisions": str(decisions)}
    assert f"at most {MAX_DECISIONS}" in caught.value.details()
    limits = stub.ListGames(pb.ListGamesRequest()).limits
    assert limits.max_review_decisions == MAX_DECISIONS


@pytest.mark.parametrize("change,field,reason", [
    (lambda r: r.budget.__setattr__("iterations", 1), "budget.iterations",
     errors.OUT_OF_RANGE),
    (lambda r: r.budget.__setattr__("iterations", 10**9), "budget.iterations",
     errors.OUT_OF_RANGE),
    (lambda r: r.budget.__setattr__("time_limit_ms", 10**8), "budget.time_limit_ms",
     errors.OUT_OF_RANGE),
    (lambda r: r.__setattr__("seat", 2), "seat", errors.SEAT_OUT_OF_RANGE),
    (lambda r: r.state.record.moves[3].__setattr__("text", "fly away"),
     "state.record.moves[3].text", errors.INVALID_MOVE),
    (lambda r: r.state.CopyFrom(pb.GameState(json='{"game": "samara"}')), "state.record",
     errors.MISSING_FIELD),
])
def test_bad_requests_name_their_field(stub: Stub, change: Any, field: str, reason: str) -> None:
    request = request_of(played_record("samara", 2, seed=3, moves=10), 0)
    change(request)
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(request, timeout=120))
    code, fields, got = rpc_error_info(caught.value)
    assert (code, fields, got) == (grpc.StatusCode.INVALID_ARGUMENT, [field], reason)


def test_an_observer_reviews_only_its_own_seat_where_hands_are_hidden(stub: Stub) -> None:
    record = played_record("oh-my-goods", 2, seed=3, moves=16)
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(request_of(record, 1, observer=0), timeout=120))
    assert rpc_error_info(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT, ["seat"],
                                            errors.OBSERVER_CANNOT_SEE_MOVER)
    # Without a seat: the observer's own decisions.
    replies = list(stub.ReviewGame(request_of(record, observer=0), timeout=300))
    assert {r.decision.seat for r in replies if r.WhichOneof("item") == "decision"} == {0}
    assert [r.summary.seat for r in replies if r.WhichOneof("item") == "summary"] == [0]


# -- a sealed game: the seat it was sealed for reviews its own decisions -------------------------
def sealed_game(stub: Stub, seed: int, human_moves: int) -> pb.GameState:
    """An Oh My Goods! game of two played as the web table plays it: sealed for seat 0,
    the human's moves (chosen at random, seeded) by ApplyMove, the bot's by BestMove
    ``play`` (which withholds its hidden choices); the last sealed position."""
    reply = stub.NewGame(pb.NewGameRequest(game="oh-my-goods", num_players=2, seed=seed,
                                           observer_seat=0,
                                           state_format=pb.STATE_FORMAT_SEALED))
    state, status = reply.state, reply.status
    rng = random.Random(seed)
    hidden = 0
    for _ in range(200):
        if status.terminal or human_moves == 0:
            break
        if status.current_player == 0:
            moves = stub.LegalMoves(pb.LegalMovesRequest(state=state, seat=0)).moves
            answer: Any = stub.ApplyMove(pb.ApplyMoveRequest(
                state=state, move=pb.Move(id=rng.choice(moves).id), seat=0))
            human_moves -= 1
        else:
            answer = stub.BestMove(pb.BestMoveRequest(
                state=state, play=True, budget=pb.SearchBudget(iterations=10), seed=seed))
            hidden += answer.record.move_hidden
        state, status = answer.state, answer.status
    assert state.WhichOneof("state") == "sealed" and hidden, "the bot should hide a move"
    return state


def opened_record(srv: BackgroundServer, state: pb.GameState) -> GameRecord:
    """The record a sealed state carries, opened with the server's key (what only the
    server can do), checked to replay to the sealed position."""
    assert srv.server is not None
    opened = srv.server.config.sealer.unseal(state.sealed)
    assert opened.record is not None, "the sealed state carries no record"
    record = record_from_json(opened.record)
    assert replay(record).to_json() == opened.state
    return record


def sealed_request(state: pb.GameState, seat: int | None = 0) -> pb.ReviewGameRequest:
    request = pb.ReviewGameRequest(state=state, budget=pb.SearchBudget(iterations=BUDGET),
                                   seed=7)
    if seat is not None:
        request.seat = seat
    return request


@pytest.fixture(scope="module")
def sealed(stub: Stub) -> pb.GameState:
    return sealed_game(stub, seed=4, human_moves=7)


def test_a_sealed_game_reviews_its_seat_as_the_engine_does(srv: BackgroundServer, stub: Stub,
                                                           sealed: pb.GameState) -> None:
    record = opened_record(srv, sealed)
    replies = list(stub.ReviewGame(sealed_request(sealed), timeout=300))
    decided = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    summaries = [r.summary for r in replies if r.WhichOneof("item") == "summary"]
    expected = review_game(record, 0, budget=BUDGET, seed=7)
    assert len(expected.decisions) >= 2
    assert [as_decision(d) for d in decided] == expected.decisions
    assert [as_summary(s) for s in summaries] == expected.summaries
    assert key_moments_of(summaries, decided) == expected.key_moments
    # the swings between seat 0's decisions, its own draws among their causes
    assert any(d.HasField("swing") for d in decided)
    assert [s.seat for s in summaries] == [0] and summaries[0].complete
    # Each decision shows the position before it as seat 0 saw it, and its status.
    for d in decided:
        before = replay(GameRecord(record.game, 2, seed=record.seed,
                                   moves=record.moves[:d.turn]))
        assert json_format.MessageToDict(d.view) == before.observation(0)
        assert d.status.current_player == 0 and list(d.status.scores) == before.scores()


def test_a_sealed_review_shows_nothing_of_the_other_hands(srv: BackgroundServer, stub: Stub,
                                                          sealed: pb.GameState) -> None:
    """Every decision message is what the engine judges from a position dealt afresh
    where seat 0 cannot see (the other hand, the deck): the same whatever the hidden
    cards, so it shows nothing of them."""
    record = opened_record(srv, sealed)
    replies = list(stub.ReviewGame(sealed_request(sealed), timeout=300))
    decided = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    settings = review_settings_for(start_state(record))
    redealt = 0
    for turn, position, played in decisions_of(record, (0,)):
        other = position.determinize(0, random.Random(turn))
        assert other.observation(0) == position.observation(0)
        redealt += other.to_json() != position.to_json()
        message, = (d for d in decided if d.turn == turn)
        # The swing is between two such decisions, across what came between them seen
        # from seat 0 (tests/search/test_review.py: the same for a game dealt otherwise).
        assert dataclasses.replace(as_decision(message), swing=None) == review_decision(
            other, played, turn, budget=BUDGET, seed=7, settings=settings)
        assert json_format.MessageToDict(message.view) == other.observation(0)
    assert redealt, "no position was dealt otherwise"


@pytest.mark.parametrize("seat", [1, None])
def test_a_sealed_game_reviews_no_other_seat(stub: Stub, sealed: pb.GameState,
                                             seat: int | None) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(sealed_request(sealed, seat), timeout=120))
    assert rpc_error_info(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT, ["seat"],
                                            errors.SEAL_MISMATCH)
    assert "may only review its own decisions" in caught.value.details()


def test_a_tampered_sealed_game_is_refused(stub: Stub, sealed: pb.GameState) -> None:
    blob = bytearray(sealed.sealed)
    blob[-20] ^= 1
    tampered = pb.GameState(sealed=bytes(blob), observer_seat=0)
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(sealed_request(tampered), timeout=120))
    assert rpc_error_info(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT,
                                            ["state.sealed"], errors.INVALID_SEAL)


def test_a_sealed_state_without_a_record_is_refused(srv: BackgroundServer,
                                                    stub: Stub) -> None:
    """A position sealed from a whole state has no known past: nothing to review."""
    position = registry.get_game("oh-my-goods").new_game(seed=2, num_players=2, options={})
    reply = stub.ApplyMove(pb.ApplyMoveRequest(
        state=pb.GameState(json=json.dumps(position.to_json()), observer_seat=0),
        move=pb.Move(id=position.legal_moves()[0]), state_format=pb.STATE_FORMAT_SEALED))
    assert srv.server is not None
    assert srv.server.config.sealer.unseal(reply.state.sealed).record is None
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ReviewGame(sealed_request(reply.state), timeout=120))
    assert rpc_error_info(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT,
                                            ["state.sealed"], errors.MISSING_FIELD)


def test_a_sealed_game_reviews_over_connect(srv: BackgroundServer, stub: Stub,
                                            sealed: pb.GameState) -> None:
    request = sealed_request(sealed)
    native = [json_format.MessageToDict(r) for r in stub.ReviewGame(request, timeout=300)]
    body = json.dumps(json_format.MessageToDict(request)).encode()
    status, _, reply = post(url(srv, "ReviewGame"), envelope(body), "application/connect+json")
    *streamed, end = frames(reply)
    assert status == 200 and end == (2, b"{}")
    assert [json.loads(data) for _, data in streamed] == native
    assert all("view" in item["decision"] for item in native[:-1])
    # Another seat, over Connect too: refused in the end-of-stream frame.
    body = json.dumps(json_format.MessageToDict(sealed_request(sealed, 1))).encode()
    _, _, reply = post(url(srv, "ReviewGame"), envelope(body), "application/connect+json")
    (flags, data), = frames(reply)
    error = json.loads(data)["error"]
    assert flags == 2 and error["code"] == "invalid_argument"
    assert "may only review its own decisions" in error["message"]


# -- cancel and quotas ------------------------------------------------------------------------------
@pytest.fixture
def submitted(srv: BackgroundServer, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The decision indices the server queues in its search pool, in order."""
    assert srv.server is not None
    pool = srv.server.pool
    seen: list[int] = []
    submit = pool.submit

    def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is reviews.decision_call:
            seen.append(args[1])
        return submit(fn, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", counting)
    return seen


def test_cancel_stops_the_worker_and_the_review(srv: BackgroundServer, stub: Stub,
                                                submitted: list[int]) -> None:
    """A decision searched for a million iterations (a minute's work, up to the server's
    max_time) while the client's quota is one search: a BestMove meanwhile is refused;
    cancelled, the worker stops searching (not killed) and no further decision is
    queued."""
    assert srv.server is not None
    pool = srv.server.pool
    record = played_record("samara", 2, seed=3, moves=20)
    workers, kills = pool.worker_pids(), pool.kills
    call = stub.ReviewGame(request_of(record, 0, iterations=1_000_000), timeout=300)
    wait_for(lambda: pool.searching_pids(), what="the first decision is searched")
    state = wire_record(record)
    with pytest.raises(grpc.RpcError) as caught:
        stub.BestMove(pb.BestMoveRequest(state=state, budget=pb.SearchBudget(iterations=10)),
                      timeout=60)
    assert rpc_error_info(caught.value)[2] == errors.CLIENT_QUOTA
    call.cancel()
    wait_for(lambda: pool.outstanding == 0, timeout=30,
             what="the cancelled decision's search stops")
    assert submitted == [0]
    # The worker stopped its search itself: the pool killed none (it kills a worker that
    # does not stop within a grace), and the same workers serve on.
    assert pool.kills == kills and pool.worker_pids() == workers
    with pytest.raises(grpc.RpcError) as ended:
        next(call)
    assert ended.value.code() == grpc.StatusCode.CANCELLED
    assert submitted == [0], "a decision was queued after the cancel"


def test_a_review_is_refused_at_once_when_the_client_is_at_its_quota(srv: BackgroundServer,
                                                                     stub: Stub) -> None:
    assert srv.server is not None
    pool = srv.server.pool
    record = played_record("samara", 2, seed=3, moves=10)
    running = stub.BestMove.future(pb.BestMoveRequest(
        state=wire_record(record), budget=pb.SearchBudget(time_limit_ms=20_000)), timeout=60)
    try:
        wait_for(lambda: pool.searching_pids(), what="the search runs")
        replies = stub.ReviewGame(request_of(record, 0), timeout=60)
        with pytest.raises(grpc.RpcError) as caught:
            next(replies)
        assert rpc_error_info(caught.value)[0::2] == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                     errors.CLIENT_QUOTA)
        assert error_details(caught.value)["retry_delay"] > 0
    finally:
        running.cancel()
    wait_for(lambda: pool.outstanding == 0, timeout=30, what="the search stops")


def refuse(srv: BackgroundServer, monkeypatch: pytest.MonkeyPatch, index: int,
           times: int) -> list[int]:
    """Make the pool refuse decision ``index`` ``times`` times (CLIENT_QUOTA, as when the
    client's own searches hold its quota); the refusals made."""
    assert srv.server is not None
    pool = srv.server.pool
    submit = pool.submit
    refused: list[int] = []

    def refusing(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is reviews.decision_call and args[1] == index and len(refused) < times:
            refused.append(index)
            raise exhausted("too many searches from this client", errors.CLIENT_QUOTA, 0.2)
        return submit(fn, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", refusing)
    return refused


def test_a_later_decision_refused_by_the_quota_waits_its_turn(
        srv: BackgroundServer,
        stub: Stub,
        monkeypatch: pytest.MonkeyPatch) -> None:
    record = played_record("samara", 2, seed=3, moves=10)
    refused = refuse(srv, monkeypatch, index=1, times=2)
    replies = list(stub.ReviewGame(request_of(record, 0), timeout=120))
    assert refused == [1, 1]
    assert len([r for r in replies if r.WhichOneof("item") == "decision"]) == \
        len(choices_of(record, {0}))
    assert replies[-1].summary.complete


def until_error(replies: Any) -> tuple[list[pb.ReviewGameResponse], grpc.RpcError]:
    """The messages of a stream that ends with an error status, and the error."""
    received = []
    with pytest.raises(grpc.RpcError) as caught:
        for reply in replies:
            received.append(reply)
    return received, caught.value


def test_a_later_decision_refused_past_the_queue_wait_ends_the_stream(
        srv: BackgroundServer,
        stub: Stub,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The review stops at the refusal; the decisions judged are summed up first
    (``complete`` false), as when the deadline stops it, then the stream ends with the
    refusal (issue 42, item 7.2: it ended without summaries)."""
    record = played_record("samara", 2, seed=3, moves=10)
    refused = refuse(srv, monkeypatch, index=1, times=1000)
    replies, error = until_error(stub.ReviewGame(request_of(record, 0), timeout=120))
    assert [r.WhichOneof("item") for r in replies] == ["decision", "summary"]
    assert replies[0].decision.index == 0
    summary = replies[-1].summary
    assert (summary.seat, summary.decisions, summary.complete) == (0, 1, False)
    judged = [as_decision(replies[0].decision)]
    assert summary == messages.review_summary_message(
        summarize(0, judged), complete=False,
        key_moments=key_moments(0, judged, review_settings_for("samara")), indices={0: 0})
    assert rpc_error_info(error)[0::2] == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                           errors.CLIENT_QUOTA)
    assert error_details(error)["retry_delay"] > 0
    # Asked again every 0.2 s for the server's max_queue_wait, then given up.
    assert len(refused) == int(MAX_QUEUE_WAIT / 0.2) + 1


def test_an_interrupted_review_ends_alike_over_connect(
        srv: BackgroundServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    record = played_record("samara", 2, seed=3, moves=10)
    refuse(srv, monkeypatch, index=1, times=1000)
    body = json.dumps(json_format.MessageToDict(request_of(record, 0))).encode()
    status, _, reply = post(url(srv, "ReviewGame"), envelope(body), "application/connect+json")
    *streamed, (flags, end) = frames(reply)
    assert status == 200 and flags == 2
    assert [next(iter(json.loads(data))) for _, data in streamed] == ["decision", "summary"]
    assert json.loads(streamed[-1][1])["summary"].get("complete", False) is False
    error = json.loads(end)["error"]
    assert error["code"] == "resource_exhausted"


def test_a_worker_killed_mid_review_ends_with_the_summaries_then_worker_failed(
        srv: BackgroundServer,
        stub: Stub,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second decision is searched for a million iterations (a minute) and its
    worker is killed meanwhile: the first decision's summary comes, incomplete, then
    UNAVAILABLE, WORKER_FAILED (a retry may help)."""
    assert srv.server is not None
    pool = srv.server.pool
    submit = pool.submit
    second: list[int] = []

    def long_second(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is reviews.decision_call and args[1] == 1:
            second.append(1)
            args = (dataclasses.replace(args[0], iterations=1_000_000, time_limit=None), 1)
        return submit(fn, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", long_second)
    record = played_record("samara", 2, seed=3, moves=10)
    replies = stub.ReviewGame(request_of(record, 0), timeout=120)
    first = next(replies)
    assert first.decision.index == 0
    wait_for(lambda: second and pool.searching_pids(), what="the second decision runs")
    os.kill(pool.searching_pids()[0], signal.SIGKILL)
    rest, error = until_error(replies)
    assert [r.WhichOneof("item") for r in rest] == ["summary"]
    assert (rest[0].summary.decisions, rest[0].summary.complete) == (1, False)
    assert rpc_error_info(error)[0::2] == (grpc.StatusCode.UNAVAILABLE, errors.WORKER_FAILED)
    wait_for(lambda: pool.outstanding == 0, timeout=30, what="the pool is idle again")


# -- Connect and gRPC-Web -------------------------------------------------------------------------
def test_the_review_streams_over_connect_and_grpc_web(srv: BackgroundServer, stub: Stub) -> None:
    record = played_record("samara", 2, seed=4, moves=10)
    request = request_of(record, 1)
    native = [json_format.MessageToDict(r) for r in stub.ReviewGame(request, timeout=300)]

    body = json.dumps(json_format.MessageToDict(request)).encode()
    status, headers, reply = post(url(srv, "ReviewGame"), envelope(body),
                                  "application/connect+json")
    assert status == 200 and headers["content-type"] == "application/connect+json"
    *streamed, end = frames(reply)
    assert end == (2, b"{}")  # the end of the stream, no error
    assert [json.loads(data) for _, data in streamed] == native

    kind = "application/grpc-web+proto"
    status, _, reply = post(url(srv, "ReviewGame"), envelope(request.SerializeToString()),
                            kind)
    *streamed, (flags, trailer) = frames(reply)
    assert status == 200 and flags == 0x80 and grpc_web_trailers(trailer)["grpc-status"] == "0"
    assert [json_format.MessageToDict(pb.ReviewGameResponse.FromString(data))
            for _, data in streamed] == native


def test_connect_carries_the_cap_error(srv: BackgroundServer) -> None:
    record = played_record("samara", 2, seed=3, moves=60)
    body = json.dumps(json_format.MessageToDict(request_of(record))).encode()
    _, _, reply = post(url(srv, "ReviewGame"), envelope(body), "application/connect+json")
    (flags, data), = frames(reply)
    error = json.loads(data)["error"]
    assert flags == 2 and error["code"] == "invalid_argument"
    assert f"at most {MAX_DECISIONS}" in error["message"]


def test_every_label_has_its_wire_name() -> None:
    assert set(messages.REVIEW_LABELS) == set(LABELS)
    assert {pb.ReviewLabel.Name(v) for v in messages.REVIEW_LABELS.values()} == \
        {f"REVIEW_LABEL_{label.upper()}" for label in LABELS}
    assert [f.name for f in pb.ReviewLabelCounts.DESCRIPTOR.fields] == list(LABELS)
