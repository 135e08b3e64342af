"""The search pool's jobs: a search, an estimate, one decision of a review.

Each runs in a worker process (:mod:`ai_server.worker`) on a position the game has
already validated, calls :mod:`engine.search` and returns plain picklable data;
:mod:`ai_server.calls` and :mod:`ai_server.reviews` turn it into the answer.  A job
stops through the worker's :class:`~ai_server.worker.Stopper` and says why in the
server's vocabulary (:mod:`ai_server.stops`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ai_server import stops
from ai_server.worker import FLAG_CANCEL, Stopper, drop_after_reply, flag
from engine.forecast import (
    forecast_analysis,
    forecast_estimate,
    needs_playouts,
    playouts_within,
)
from engine.search import estimate_scores
from engine.search.analysis import Analysis
from engine.search.config import config_for
from engine.search.dispatch import make_tree
from engine.search.levels import choice_rng
from engine.search.review import review_decision
from engine.search.review_settings import review_settings_for


@dataclass(frozen=True)
class SearchResult:
    """A search job's answer: the forecast analysis and how the search went."""

    analysis: Analysis
    #: Why it stopped (:mod:`ai_server.stops`).
    stop_reason: str
    #: How long the job waited for a worker.
    queued_seconds: float = 0.0
    #: A level's choice of a move (id, text); None without a level.
    chosen: tuple[int, str] | None = None


def _ends(time_end: float, deadline: float | None) -> tuple[tuple[float, str], ...]:
    """A job's end times and the reason each stands for."""
    ends = ((time_end, stops.TIME_LIMIT),)
    return ends + ((deadline, stops.DEADLINE),) if deadline is not None else ends


def run_search(
    state: Any,
    *,
    iterations: int | None,
    time_end: float,
    deadline: float | None,
    seed: int,
    c: float | None,
    observer: int | None = None,
    level: int = 0,
    slot: int | None = None,
    report: Callable[[Analysis], None] | None = None,
    progress_interval: float = 0.5,
    received: float | None = None,
    queued: float = 0.0,
) -> SearchResult | None:
    """Search ``state`` for the seat to move; None if cancelled before it ran.

    ``observer`` is whose information the search may use (``None``: the host;
    the engine's ``make_tree`` refuses a seat that cannot know the mover's moves).
    With a ``level`` (``engine.search.levels``) the result's ``chosen`` is the level's
    choice of a move, drawn from the final analysis with a generator derived from
    ``seed``; the analysis itself is the search's, whatever the level.
    ``time_end`` (the time budget's end, the server's cap included) and ``deadline``
    (a little before the call's deadline) are ``time.monotonic()`` times; the
    search stops at the first of them, at ``iterations``, on its flag or at the
    memory cap.  ``report`` receives progress every ``progress_interval`` seconds.
    ``queued`` is how long the job waited for a worker (the result's
    ``queued_seconds``) and ``received`` (``time.monotonic()``) when the server
    received the call: a search whose time budget, counted from then, ran out
    mostly in the wait stops with :data:`ai_server.stops.QUEUE_WAIT`.
    """
    if flag(slot) == FLAG_CANCEL:
        return None
    tree = make_tree(state, config_for(state).overridden(c=c), seed=seed, observer=observer)
    drop_after_reply(tree)
    end, end_reason = time_end, stops.TIME_LIMIT
    if deadline is not None and deadline < time_end:
        end, end_reason = deadline, stops.DEADLINE
    playouts = None
    limit = max(end - time.monotonic(), 1e-3)
    if needs_playouts(state, "search"):
        # The forecast reads the position's random playouts, run first and within the
        # budget (fewer playouts on a short one); the rest of the time searches.
        playouts, left = playouts_within(state, observer, seed, iterations, limit,
                                         Stopper(slot).should_stop)
        limit = left if left is not None else limit
    stopper = Stopper(slot)

    on_progress = None
    if report is not None:
        send = report

        def on_progress(analysis: Any) -> None:
            send(forecast_analysis(state, analysis, observer, playouts=playouts))

    analysis = tree.search(iterations, limit, should_stop=stopper.should_stop,
                           on_progress=on_progress, progress_interval=progress_interval)
    analysis = forecast_analysis(state, analysis, observer, playouts=playouts)
    reason = stops.job_stop_reason(analysis.stop_reason, stopper.why, end_reason)
    if reason == stops.TIME_LIMIT and received is not None \
            and queued > (time_end - received) / 2:
        reason = stops.QUEUE_WAIT
    chosen = None
    if level:
        move = config_for(state).level(level).choose(analysis, choice_rng(seed))
        chosen = (move, next(m.text for m in analysis.moves if m.move == move))
    return SearchResult(analysis, reason, queued, chosen)


def run_estimate(
    state: Any,
    *,
    playouts: int,
    seed: int,
    time_end: float,
    deadline: float | None,
    observer: int | None = None,
    slot: int | None = None,
) -> dict[str, Any] | None:
    """``engine.search.estimate_scores`` of ``state`` as ``observer`` sees it (None: the host).

    Returns per-seat win share, score mean, sample standard deviation, min and
    max, and the number of playouts run (fewer when the job was stopped, its time
    ran out or the deadline was near); None if cancelled before it ran.
    """
    if flag(slot) == FLAG_CANCEL:
        return None
    ends = _ends(time_end, deadline)
    estimate = estimate_scores(state, observer, playouts=playouts, seed=seed,
                               should_stop=Stopper(slot, ends).should_stop)
    return {
        "seats": [seat.to_json() for seat in forecast_estimate(state, estimate).seats],
        "playouts": estimate.playouts,
        "elapsed": estimate.elapsed,
    }


def run_review_decision(
    state: Any,
    played: int,
    turn: int,
    *,
    iterations: int | None,
    time_limit: float | None,
    seed: int,
    time_end: float,
    deadline: float | None,
    slot: int | None = None,
) -> tuple[Any, str] | None:
    """One decision of a game review (``engine.search.review.review_decision``): the
    move ``played`` in ``state``, the ``turn``-th move of its game, judged from the
    mover's information with ``iterations`` per search and ``time_limit`` for the
    whole decision.  Returns the engine's ``Decision`` and the stop reason of its
    searches (the first that ended otherwise than by its iterations); None if
    cancelled before it ran.
    """
    if flag(slot) == FLAG_CANCEL:
        return None
    ends = _ends(time_end, deadline)
    stopper = Stopper(slot, ends)
    # A search runs at least one iteration however soon it is stopped, so a decision
    # stopped early still measures both moves (on fewer iterations: its stop reason).
    decision = review_decision(state, played, turn, budget=iterations, seed=seed,
                               settings=review_settings_for(state), time_limit=time_limit,
                               should_stop=stopper.should_stop)
    return decision, stops.job_stop_reason(decision.stop_reason, stopper.why, stops.TIME_LIMIT)
