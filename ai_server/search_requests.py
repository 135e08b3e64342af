"""A search request read once: every field that needs no position, checked and typed.

The servicer reads a BestMove, Analyze, EstimateScores or ReviewGame request here before
the call is admitted or queued: a budget, level, exploration, ``max_candidates``, update
interval or playout count out of range is refused at once (``INVALID_ARGUMENT``,
``OUT_OF_RANGE``), whatever the pools are doing, and the job in the worker gets the
typed request (:class:`SearchRequest`, :class:`ReviewBudget`, a playout count) and
checks only what needs the position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ai_server import errors
from ai_server.config import ServerConfig
from ai_server.errors import invalid
from engine.game import State
from engine.search.config import config_for
from engine.search.levels import MAX_LEVEL, MIN_LEVEL
from engine.search.review_settings import review_settings_for
from furnace_proto.furnace.v1 import furnace_pb2 as pb

#: The largest exploration constant a request may set.
MAX_EXPLORATION = 10.0
#: Longest Analyze update interval accepted, in milliseconds.
MAX_UPDATE_INTERVAL_MS = 60_000


def _time_limit(budget: pb.SearchBudget, config: ServerConfig) -> float | None:
    """``budget.time_limit_ms`` in seconds (None: no time budget), checked."""
    max_ms = int(config.max_time * 1000)
    if not 0 <= budget.time_limit_ms <= max_ms:
        raise invalid(f"budget.time_limit_ms must be in 0..{max_ms} "
                      f"(0: no time budget), got {budget.time_limit_ms}",
                      "budget.time_limit_ms", errors.OUT_OF_RANGE)
    return budget.time_limit_ms / 1000 if budget.time_limit_ms else None


@dataclass(frozen=True)
class SearchRequest:
    """What a BestMove or Analyze request asks of the search, position aside."""

    analyze: bool
    #: The iteration budget asked for (None: none).
    iterations: int | None
    #: The time budget in seconds: the one asked for, else Analyze's default when
    #: nothing else bounds the search (None: none).
    time_limit: float | None
    #: Strength level (``engine.search.levels``); 0: none, the most visited move.
    level: int
    #: The exploration constant (None: the search's own default).
    c: float | None
    max_candidates: int
    seed: int

    @property
    def timed(self) -> bool:
        """Whether the search most likely runs its whole time budget."""
        return self.time_limit is not None and self.iterations is None

    def iterations_for(self, state: State, config: ServerConfig) -> int | None:
        """The search's iteration budget in ``state``: the one asked for; with neither
        budget, the level's (capped by the server's, rather than refused: the client
        asked for a level, not a number) or the server's default."""
        if self.iterations is not None or self.time_limit is not None:
            return self.iterations
        if self.level:
            return min(config_for(state).level(self.level).iterations, config.max_iterations)
        return config.default_iterations


def read_search(request: Any, config: ServerConfig, analyze: bool) -> SearchRequest:
    """The :class:`SearchRequest` of a BestMove (``analyze`` False) or Analyze request."""
    level = int(request.level)
    if level and not MIN_LEVEL <= level <= MAX_LEVEL:
        raise invalid(f"level must be in {MIN_LEVEL}..{MAX_LEVEL} ({MIN_LEVEL} weakest; "
                      f"0: no level), got {level}", "level", errors.OUT_OF_RANGE)
    budget = request.budget
    if not 0 <= budget.iterations <= config.max_iterations:
        raise invalid(f"budget.iterations must be in 0..{config.max_iterations} "
                      f"(0: no iteration budget), got {budget.iterations}",
                      "budget.iterations", errors.OUT_OF_RANGE)
    iterations = int(budget.iterations) or None
    time_limit = _time_limit(budget, config)
    if analyze and iterations is None and time_limit is None and not level:
        time_limit = min(config.default_analyze_time, config.max_time)
    exploration = float(request.exploration)
    if exploration != 0 and not (math.isfinite(exploration)
                                 and 0 < exploration <= MAX_EXPLORATION):
        raise invalid(f"exploration must be in (0, {MAX_EXPLORATION}] (0: default), "
                      f"got {exploration}", "exploration", errors.OUT_OF_RANGE)
    if request.max_candidates < 0:
        raise invalid("max_candidates must not be negative", "max_candidates",
                      errors.OUT_OF_RANGE)
    return SearchRequest(analyze=analyze, iterations=iterations, time_limit=time_limit,
                         level=level, c=exploration or None,
                         max_candidates=int(request.max_candidates), seed=int(request.seed))


@dataclass(frozen=True)
class ReviewBudget:
    """A ReviewGame request's budget per decision, position aside."""

    #: The iterations of a decision's searches asked for (None: none).
    iterations: int | None
    #: The seconds one decision may take (None: none).
    time_limit: float | None

    def iterations_for(self, state: State, config: ServerConfig) -> int | None:
        """The iterations in ``state``'s game: the ones asked for; with neither budget,
        the game's review budget, capped by the server's ``max_iterations``."""
        if self.iterations is None and self.time_limit is None:
            return min(review_settings_for(state).budget, config.max_iterations)
        return self.iterations


def read_review_budget(budget: pb.SearchBudget, config: ServerConfig) -> ReviewBudget:
    """The :class:`ReviewBudget` of a ReviewGame request's ``budget``."""
    if budget.iterations == 1 or not 0 <= budget.iterations <= config.max_iterations:
        raise invalid(f"budget.iterations must be 0 (the game's review budget) or in "
                      f"2..{config.max_iterations} (a decision searches the best and the "
                      f"played move), got {budget.iterations}", "budget.iterations",
                      errors.OUT_OF_RANGE)
    return ReviewBudget(iterations=int(budget.iterations) or None,
                        time_limit=_time_limit(budget, config))


def read_update_interval(request: pb.AnalyzeRequest, config: ServerConfig) -> float:
    """An Analyze request's seconds between two updates (0: the server's default)."""
    interval_ms = request.update_interval_ms or int(config.default_update_interval * 1000)
    min_ms = int(round(config.min_update_interval * 1000))
    if not min_ms <= interval_ms <= MAX_UPDATE_INTERVAL_MS:
        raise invalid(f"update_interval_ms must be in {min_ms}..{MAX_UPDATE_INTERVAL_MS} "
                      f"(0: {int(config.default_update_interval * 1000)}), got {interval_ms}",
                      "update_interval_ms", errors.OUT_OF_RANGE)
    return interval_ms / 1000


def read_playouts(request: pb.EstimateScoresRequest, config: ServerConfig) -> int:
    """An EstimateScores request's playouts (0: the server's default), checked against
    the server's limit."""
    playouts = request.playouts or config.default_playouts
    if not 1 <= playouts <= config.max_playouts:
        raise invalid(f"playouts must be in 0..{config.max_playouts} "
                      f"(0: {config.default_playouts}), got {request.playouts}",
                      "playouts", errors.OUT_OF_RANGE)
    return int(playouts)
