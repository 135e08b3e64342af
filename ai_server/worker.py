"""Jobs run in the search worker processes (spawned, so this module must import cleanly).

Each job rebuilds the position from the game's JSON (validated again by the
game), calls the engine (``make_tree(...).search`` or ``estimate_scores``) for
the request's observer, and returns plain picklable data.  Nothing here knows a
game or holds search logic: it goes through :mod:`engine.registry`,
:mod:`engine.search` and the :class:`engine.game.State` protocol only.

Cancellation: the server passes a shared byte array at pool start; job ``slot``
stops as soon as ``flags[slot]`` is non-zero (checked between iterations).
Progress (Analyze): ``on_progress`` puts a result dict on a Manager queue.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, MutableSequence
from typing import Any

#: Set in each worker by :func:`init_worker`: one cancel flag per job slot.
_FLAGS: MutableSequence[int] | None = None

ITERATIONS = "ITERATIONS"
TIME_LIMIT = "TIME_LIMIT"
DEADLINE = "DEADLINE"
CANCELLED = "CANCELLED"


def init_worker(flags: MutableSequence[int]) -> None:
    """Pool initializer: keep the cancel flags, ignore Ctrl-C, import the engine up front."""
    global _FLAGS
    _FLAGS = flags
    ignore_signals()
    from engine import registry
    from engine.search import dispatch  # noqa: F401

    registry.list_games()


def ignore_signals() -> None:
    """Leave SIGINT/SIGTERM to the server process, which shuts workers down itself.

    (A Ctrl-C or a SIGTERM sent to the whole process group must not kill searches
    that the graceful shutdown lets finish.)
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def warm_up(pause: float = 0.05) -> int:
    """A no-op job that makes the pool start (and import) every worker process."""
    time.sleep(pause)
    return os.getpid()


def crash() -> None:  # pragma: no cover - runs in a worker that dies
    """Kill this worker process abruptly (tests of pool recovery)."""
    os._exit(13)


def _cancelled(slot: int | None) -> bool:
    return slot is not None and _FLAGS is not None and _FLAGS[slot] != 0


def _rebuild(data: dict[str, Any]) -> Any:
    from engine import registry

    return registry.get_game(data["game"]).state_from_json(data)


def _stopper(slot: int | None, deadline: float | None = None) -> Callable[[], bool] | None:
    """A ``should_stop`` for the engine: job ``slot`` was cancelled, or ``deadline`` passed."""
    flags, index = (_FLAGS, slot) if slot is not None and _FLAGS is not None else (None, 0)
    if flags is None and deadline is None:
        return None

    def should_stop() -> bool:
        if flags is not None and flags[index] != 0:
            return True
        return deadline is not None and time.time() >= deadline

    return should_stop


def _time_budget(time_limit: float | None, deadline: float | None) -> tuple[float | None, bool]:
    """The search's time limit in seconds, and whether the call's deadline set it."""
    if deadline is None:
        return time_limit, False
    remaining = max(deadline - time.time(), 1e-3)
    if time_limit is None or remaining < time_limit:
        return remaining, True
    return time_limit, False


def _encode_analysis(tree: Any, analysis: Any, stop_reason: str = "") -> dict[str, Any]:
    """Plain data of an :class:`engine.search.Analysis` plus every seat's win share per move."""
    stats = tree.root_stats()
    k = stats.num_players
    per_move: dict[int, list[float]] = {}
    for move, n, totals in zip(stats.moves, stats.move_visits, stats.move_totals, strict=True):
        inv = 1.0 / n if n else 0.0  # the engine's own formula, so values match exactly
        per_move[move] = [t * inv for t in totals[:k]]
    return {
        "player": analysis.player,
        "best": (analysis.best_move, analysis.best_move_text),
        "iterations": analysis.iterations,
        "elapsed": analysis.elapsed,
        "win_probabilities": list(analysis.win_probability),
        "expected_scores": list(analysis.expected_scores),
        "moves": [
            {
                "id": m.move,
                "text": m.text,
                "visits": m.visits,
                "win_probability": m.win_probability,
                "win_probabilities": per_move.get(m.move, [0.0] * k),
                "expected_scores": list(m.expected_scores),
            }
            for m in analysis.moves
        ],
        "pv": list(zip(analysis.principal_variation_moves, analysis.principal_variation,
                       strict=False)),
        "stop_reason": stop_reason,
    }


def search_job(
    data: dict[str, Any],
    *,
    iterations: int | None,
    time_limit: float | None,
    deadline: float | None,
    seed: int,
    c: float | None,
    observer: int | None = None,
    slot: int | None = None,
    progress_queue: Any = None,
    progress_interval: float = 0.5,
) -> dict[str, Any] | None:
    """Search ``data`` (the game's JSON) for the seat to move; None if cancelled before it ran.

    ``observer`` is whose information the search may use (``None``: the host;
    the engine's ``make_tree`` refuses a seat that cannot know the mover's moves).
    ``deadline`` is a wall-clock time (``time.time()``) the search must stop by;
    ``iterations``/``time_limit`` are the request's budget (at least one is set,
    or ``deadline`` is).
    """
    from engine.search.dispatch import make_tree

    if _cancelled(slot):
        return None
    state = _rebuild(data)
    limit, by_deadline = _time_budget(time_limit, deadline)
    tree = make_tree(state, c, seed, observer)
    should_stop = _stopper(slot)

    on_progress = None
    if progress_queue is not None:

        broken = False

        def on_progress(analysis: Any) -> None:
            nonlocal broken
            if broken:
                return
            try:
                progress_queue.put(_encode_analysis(tree, analysis))
            except (OSError, EOFError):
                broken = True  # the server stopped listening: search on, quietly

    if iterations is None and limit is None:  # pragma: no cover - the server always sets one
        raise ValueError("no budget")
    analysis = tree.search(iterations, limit, should_stop=should_stop, on_progress=on_progress,
                           progress_interval=progress_interval)
    if iterations is not None and tree.iterations >= iterations:
        reason = ITERATIONS
    elif _cancelled(slot):
        reason = CANCELLED
    elif by_deadline:
        reason = DEADLINE
    else:
        reason = TIME_LIMIT
    return _encode_analysis(tree, analysis, reason)


def estimate_job(
    data: dict[str, Any],
    *,
    playouts: int,
    seed: int,
    deadline: float | None,
    observer: int | None = None,
    slot: int | None = None,
) -> dict[str, Any] | None:
    """``engine.search.estimate_scores`` of ``data`` as ``observer`` sees it (None: the host).

    Returns per-seat win share, score mean, sample standard deviation, min and
    max, and the number of playouts run (fewer only when the job was cancelled
    or the deadline was near); None if cancelled before it ran.
    """
    from engine.search import estimate_scores

    if _cancelled(slot):
        return None
    state = _rebuild(data)
    estimate = estimate_scores(state, observer, playouts=playouts, seed=seed,
                               should_stop=_stopper(slot, deadline))
    return {
        "seats": [seat.to_json() for seat in estimate.seats],
        "playouts": estimate.playouts,
        "elapsed": estimate.elapsed,
    }
