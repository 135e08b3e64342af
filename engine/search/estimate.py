"""Score estimates by random playouts, from one seat's information.

Each playout starts from a fresh determinization of the observer's view
(``determinize(observer, rng)``; observer ``None`` is the host, who sees every
hand but not the deck order or the generator of future draws) and plays random
moves to the end (``State.rollout``), so an estimate never uses what the
observer cannot see, and two playouts never share one secret future.

Determinism: every random choice comes from ``random.Random(seed)``; the kernel
twins determinize and play out exactly like the reference rules, so the same
position, observer, seed and number of playouts give the same estimate on both
engine paths.

>>> from engine import registry
>>> state = registry.new_game("samara", seed=7, num_players=2)
>>> estimate = estimate_scores(state, playouts=20, seed=1)
>>> estimate.playouts, len(estimate.seats)
(20, 2)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.game import State


@dataclass(frozen=True)
class SeatEstimate:
    """One seat's results over the playouts of an :class:`Estimate`."""

    seat: int
    #: Mean share of first place (ties split); a lone seat with a target: the share of
    #: playouts that reached it.  Once forecast (:func:`engine.forecast.forecast_estimate`)
    #: the forecast probability, the playouts' own share kept in ``playout_win_share``.
    win_probability: float
    score_mean: float
    #: Sample standard deviation (n - 1) of the final score; 0 for one playout.
    score_stddev: float
    score_min: float
    score_max: float
    #: Once forecast: the playouts' own mean win share and mean final score, which
    #: ``win_probability`` and ``score_mean`` then no longer are; None before.
    playout_win_share: float | None = None
    playout_score_mean: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "win_probability": self.win_probability,
            "score_mean": self.score_mean,
            "score_stddev": self.score_stddev,
            "score_min": self.score_min,
            "score_max": self.score_max,
            **({} if self.playout_win_share is None else {
                "playout_win_share": self.playout_win_share,
                "playout_score_mean": self.playout_score_mean}),
        }


@dataclass(frozen=True)
class Estimate:
    """Every seat's prospects from random playouts of one position."""

    observer: int | None
    seats: tuple[SeatEstimate, ...]
    #: Playouts run: fewer than asked only when ``should_stop`` ended the run early.
    playouts: int
    elapsed: float

    def to_json(self) -> dict[str, Any]:
        return {
            "observer": self.observer,
            "seats": [s.to_json() for s in self.seats],
            "playouts": self.playouts,
            "elapsed": self.elapsed,
        }


def estimate_scores(
    state: State,
    observer: int | None = None,
    *,
    playouts: int,
    seed: int,
    should_stop: Callable[[], bool] | None = None,
) -> Estimate:
    """Run ``playouts`` random playouts of ``state`` (not modified) as ``observer`` sees it.

    ``should_stop`` is asked before every playout but the first; when it answers
    true the estimate covers the playouts run so far.  A finished position gives
    its final result.  Raises ``ValueError`` for a bad observer or playout count.
    """
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise ValueError(f"playouts must be a positive integer, not {playouts!r}")
    k = state.num_players
    if observer is not None and not (isinstance(observer, int) and 0 <= observer < k):
        raise ValueError(f"observer must be a seat of 0-{k - 1} or None")
    base = state.search_state()
    target = state.solo_target() if k == 1 else None
    rng = random.Random(seed)
    wins = [0.0] * k
    sums = [0.0] * k
    squares = [0.0] * k
    lows = [math.inf] * k
    highs = [-math.inf] * k
    start = time.perf_counter()
    done = 0
    for _ in range(playouts):
        if done and should_stop is not None and should_stop():
            break
        world = base.determinize(observer, rng).search_state()
        outcome = world.rollout(rng.getrandbits(64))
        for p in range(k):
            score = float(outcome.scores[p])
            # A lone seat always "wins": its chance is of reaching the target.
            wins[p] += float(outcome.rewards[p]) if target is None else float(score >= target)
            sums[p] += score
            squares[p] += score * score
            lows[p] = min(lows[p], score)
            highs[p] = max(highs[p], score)
        done += 1
    seats = []
    for p in range(k):
        mean = sums[p] / done
        variance = (squares[p] - done * mean * mean) / (done - 1) if done > 1 else 0.0
        seats.append(SeatEstimate(
            seat=p,
            win_probability=wins[p] / done,
            score_mean=mean,
            score_stddev=math.sqrt(max(variance, 0.0)),
            score_min=lows[p],
            score_max=highs[p],
        ))
    return Estimate(observer, tuple(seats), done, time.perf_counter() - start)
