"""ReviewGame's game side, run in the server's worker processes.

The servicer (:mod:`ai_server.service`) schedules a review as one job of the call
pool, :func:`plan_call` (the record replayed and checked, the decisions to review
listed and counted against the server's ``max_review_decisions``, the budget
checked against its limits), then one job of the search pool per decision,
:func:`decision_call`, each admitted, queued, stopped and counted as one search.
The judging is the engine's (:func:`engine.search.review.review_decision`, through
:func:`ai_server.jobs.run_review_decision`), seeded by the decision's index in
the record, so judging the decisions one job at a time gives the review
:func:`engine.search.review.review_game` gives for the same seed and budget.

A game is given as a record, or as the sealed state of its last position
(:mod:`ai_server.sealing`), which carries the game's record when the game started
from NewGame's seed: the holder of a sealed state never sees the other seats' hidden
moves, so it could not send the record itself.  The server then reviews the seat the
state was sealed for, and only it: each decision is judged from that seat's
observation, as every review is, so the server's knowing the whole record shows the
holder nothing.  Each decision's message then carries the position before the move
as the seat saw it (its ``view`` and status), which the holder cannot rebuild.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ai_server import calls, errors, jobs, messages, records, sealing
from ai_server.calls import Answer
from ai_server.config import ServerConfig
from ai_server.errors import invalid
from ai_server.observe import note
from ai_server.search_requests import ReviewBudget
from engine import records as engine_records
from engine.game import FurnaceError, State
from engine.search.review import (
    Decision,
    Interlude,
    KeyMoment,
    decisions_of,
    interludes,
    key_moments,
    swing,
)
from engine.search.review_settings import ReviewSettings, review_settings_for
from engine.seats import seat_label
from furnace_proto.furnace.v1 import furnace_pb2 as pb


@dataclass(frozen=True)
class ReviewPlan:
    """What a ReviewGame request asks, checked: the record, the decisions to judge and
    the budget of each."""

    record: engine_records.GameRecord
    seats: tuple[int, ...]
    #: ``(index in the record's moves, seat)`` of every decision to review, in order.
    decisions: tuple[tuple[int, int], ...]
    #: Iterations of each search of a decision (None: time only).
    iterations: int | None
    #: Seconds one decision may take (None: iterations only).
    time_limit: float | None
    seed: int
    #: Whether each decision's message shows the position before it as the seat saw
    #: it (a review of a sealed state, whose holder cannot rebuild the positions).
    views: bool = False
    #: What came between each decision and its seat's previous one
    #: (:func:`engine.search.review.interludes`), in the order of ``decisions``.
    interludes: tuple[Interlude | None, ...] = ()
    #: The game's review settings (the swings' and key moments' thresholds).
    settings: ReviewSettings | None = None

    def with_swing(self, index: int, decision: Decision, judged: Sequence[Decision]
                   ) -> Decision:
        """Decision ``index`` judged, with the forecast's swing since its seat's previous
        decision among those ``judged`` before it."""
        gap = self.interludes[index] if index < len(self.interludes) else None
        earlier = None if gap is None else \
            next((d for d in reversed(judged) if d.turn == gap.since_turn), None)
        if gap is None or earlier is None or self.settings is None:
            return decision
        return replace(decision, swing=swing(earlier, decision, gap, self.settings))

    def key_moments(self, seat: int, judged: Sequence[Decision]) -> list[KeyMoment]:
        """``seat``'s key moments among the decisions ``judged``."""
        return [] if self.settings is None else key_moments(seat, judged, self.settings)


@dataclass(frozen=True)
class ReviewStep:
    """One judged decision as a search-pool job hands it back."""

    decision: Decision
    #: The stop reason of its searches (:mod:`ai_server.stops`).
    stop_reason: str
    #: The position before the move as the deciding seat saw it (its observation),
    #: and that position's status, when the plan asks for them.
    view: dict[str, Any] | None = None
    status: pb.GameStatus | None = None


def review_form(request: pb.ReviewGameRequest) -> str:
    """The form of a ReviewGame request's state, which must carry the game's moves: a
    record or a sealed state (a check that needs no game code, run before the call is
    admitted)."""
    form = request.state.WhichOneof("state") if request.HasField("state") else None
    if form not in (records.RECORD, calls.SEALED):
        raise invalid("a review needs the game's moves: the game as a record (state.record: "
                      "its setup and the moves played), or the sealed state of its last "
                      "position (state.sealed, which carries them)", "state.record",
                      errors.MISSING_FIELD)
    return str(form)


def plan_review(request: pb.ReviewGameRequest, budget: ReviewBudget,
                config: ServerConfig) -> ReviewPlan:
    """The checked plan of a ReviewGame request whose ``budget`` the servicer read (every
    fault a status naming its field)."""
    form = review_form(request)
    loaded = calls.load(request.state, True)
    state = loaded.state
    seat = calls.seat_of(request, state)
    observer = loaded.decoded.observer_seat
    if form == calls.SEALED:
        return _plan_sealed(request, budget, config, loaded, seat)
    if observer is not None and state.info.private_information:
        # A seat's judged decisions show what it held (its options reflect its hand).
        if seat is not None and seat != observer:
            raise invalid(f"state.observer_seat is {seat_label(observer)}: in this game a "
                          f"review of {seat_label(seat)}'s decisions would show what "
                          f"{seat_label(observer)} cannot see; review seat {observer}, or "
                          f"leave observer_seat unset (the host)", "seat",
                          errors.OBSERVER_CANNOT_SEE_MOVER)
        seat = observer
    seats = tuple(range(state.num_players)) if seat is None else (seat,)
    record = records.engine_record(request.state.record, state)
    found = tuple((turn, position.current_player())
                  for turn, position, _ in decisions_of(record, seats))
    whose = "of every seat" if seat is None else f"of {seat_label(seat)}"
    return _plan(request, budget, config, state, record, seats, found, whose,
                 "state.record.moves")


def _plan_sealed(request: pb.ReviewGameRequest, budget: ReviewBudget, config: ServerConfig,
                 loaded: calls.Loaded, seat: int | None) -> ReviewPlan:
    """The plan of a review of a sealed state: its record, its seat's decisions only."""
    sealed_for = loaded.decoded.observer_seat
    assert sealed_for is not None  # a sealed state is sealed for a seat
    if seat != sealed_for:
        asked = "every seat's decisions (seat unset)" if seat is None else \
            f"{seat_label(seat)}'s decisions"
        raise invalid(f"the state is sealed for {seat_label(sealed_for)}: a seat may only "
                      f"review its own decisions from a sealed game, not {asked}; set seat "
                      f"to {sealed_for}", "seat", errors.SEAL_MISMATCH)
    record = calls.history_of(loaded)
    if record is None:
        raise invalid("the sealed state carries no record of its game (it was sealed by an "
                      "older server, or its game did not start from NewGame's seed, or ran "
                      "past the record's length limit): it cannot be reviewed",
                      "state.sealed", errors.MISSING_FIELD)
    try:
        found = tuple((turn, sealed_for)
                      for turn, _, _ in decisions_of(record, (sealed_for,)))
    except FurnaceError:  # its words could quote a move the holder did not see
        raise invalid("the sealed state's record does not replay in this server's version "
                      "of the game", "state.sealed", errors.INVALID_STATE) from None
    return _plan(request, budget, config, loaded.state, record, (sealed_for,), found,
                 f"of {seat_label(sealed_for)}", "state.sealed", views=True)


def _plan(request: pb.ReviewGameRequest, budget: ReviewBudget, config: ServerConfig,
          state: State, record: engine_records.GameRecord, seats: tuple[int, ...],
          found: tuple[tuple[int, int], ...], whose: str, moves_field: str,
          views: bool = False) -> ReviewPlan:
    """The plan of the decisions ``found``, their number and budget checked."""
    iterations, time_limit = budget.iterations_for(state, config), budget.time_limit
    note(budget_iterations=iterations or 0,
         budget_ms=int(round(time_limit * 1000)) if time_limit else 0)
    if len(found) > config.max_review_decisions:
        raise invalid(f"the record holds {len(found)} decisions {whose} to review; this "
                      f"server reviews at most {config.max_review_decisions} in one call "
                      f"(max_review_decisions): review one seat, or part of the game",
                      moves_field, errors.TOO_MANY_DECISIONS,
                      max_review_decisions=str(config.max_review_decisions),
                      decisions=str(len(found)))
    # The call pool's work: the swings need to know whose moves came between, and
    # whether the seat's own moves dealt it anything (game code, off the event loop).
    return ReviewPlan(record=record, seats=seats, decisions=found, iterations=iterations,
                      time_limit=time_limit, seed=int(request.seed), views=views,
                      interludes=tuple(interludes(record, found)),
                      settings=review_settings_for(state))


def plan_call(request: pb.ReviewGameRequest, budget: ReviewBudget, config: ServerConfig, *,
              slot: int | None = None) -> Answer:
    """The call pool's job of a ReviewGame call: its :class:`ReviewPlan`."""
    with sealing.using(config.sealer):  # a sealed game is opened with the server's keys
        return calls.answer("ReviewGame", lambda: plan_review(request, budget, config))


def decision_call(plan: ReviewPlan, index: int, *, time_end: float, deadline: float | None,
                  slot: int | None = None) -> Answer:
    """The search pool's job of the ``index``-th decision of ``plan``: a
    :class:`ReviewStep` (None if cancelled before it ran).  ``time_end`` and
    ``deadline`` are ``time.monotonic()`` times (see :func:`ai_server.jobs.run_search`)."""
    def work() -> ReviewStep | None:
        turn, seat = plan.decisions[index]
        moves = plan.record.moves
        # The plan's record replayed without fault: the prefix replays alike.
        state = engine_records.replay_from(engine_records.start_state(plan.record),
                                           moves[:turn])
        played = engine_records.resolve_move(state, turn, moves[turn])
        view = status = None
        if plan.views:
            view = state.observation(seat)
            status = messages.status_message(state)
        result = jobs.run_review_decision(
            state, played, turn, iterations=plan.iterations, time_limit=plan.time_limit,
            seed=plan.seed, time_end=time_end, deadline=deadline, slot=slot)
        if result is None:
            return None
        decision, reason = result
        note(iterations=decision.iterations, stop_reason=reason)
        return ReviewStep(decision, reason, view, status)

    return calls.answer("ReviewGame", work)
