"""Running a tree search under its budgets: iterations, a time limit, a stop request.

:class:`BudgetedSearch` is the part MCTS and ISMCTS share: it checks the budget
arguments, runs iterations until one runs out, calls ``on_progress`` on the
way and keeps the ``iterations``/``elapsed`` counters right even when an
iteration raises.  A search supplies one iteration as a function
(:meth:`BudgetedSearch._iteration`), built once per :meth:`~BudgetedSearch.search`
call so that its hot state lives in local variables, and its :meth:`analysis`.

Only a ``time_limit`` or ``on_progress`` makes the loop read the clock, so an
iteration budget alone never depends on timing.  The garbage collector's full
passes wait while a search runs (:mod:`engine.collector`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import replace

from engine.collector import without_full_collections
from engine.search.analysis import Analysis

#: Default seconds between two ``on_progress`` calls.
DEFAULT_PROGRESS_INTERVAL = 0.5

#: Why a search stopped (``Analysis.stop_reason``): its iteration budget ran out,
#: its time limit did, or ``should_stop`` asked it to.
STOP_ITERATIONS = "iterations"
STOP_TIME_LIMIT = "time_limit"
STOP_REQUESTED = "stopped"

ProgressCallback = Callable[[Analysis], None]
StopCallback = Callable[[], bool]


def check_budget(iterations: int | None, time_limit: float | None) -> None:
    """Raise ``ValueError`` unless this is a usable budget (at least one of the two)."""
    if iterations is None and time_limit is None:
        raise ValueError("give an iteration budget, a time limit, or both")
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
    ):
        raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, not {time_limit!r}")


class BudgetedSearch(ABC):
    """A search tree that grows by iterations; :meth:`search` may be called repeatedly."""

    #: Iterations run so far, over every :meth:`search` call.
    iterations: int = 0
    #: Seconds spent searching so far, over every :meth:`search` call.
    elapsed: float = 0.0
    #: Why the last :meth:`search` call stopped (a ``STOP_*`` constant).
    stop_reason: str = ""

    @abstractmethod
    def _iteration(self) -> Callable[[], None]:
        """A function that runs one iteration of the search each time it is called."""

    @abstractmethod
    def analysis(self) -> Analysis:
        """The :class:`Analysis` of the tree so far."""

    def search(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        *,
        should_stop: StopCallback | None = None,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
    ) -> Analysis:
        """Run up to ``iterations`` more iterations and/or for ``time_limit`` seconds.

        Stops at whichever budget runs out first, or as soon as ``should_stop()``
        returns true (checked before every iteration but the first: at least one
        iteration is always run).  At least one budget is required.  ``on_progress``
        receives the current :class:`Analysis` every ``progress_interval`` seconds.
        """
        check_budget(iterations, time_limit)
        if on_progress is not None and not progress_interval > 0:
            raise ValueError(f"progress_interval must be positive, not {progress_interval!r}")
        with without_full_collections():
            self._run(iterations, time_limit, should_stop, on_progress, progress_interval)
        return replace(self.analysis(), stop_reason=self.stop_reason)

    def _run(
        self,
        iterations: int | None,
        time_limit: float | None,
        should_stop: StopCallback | None,
        on_progress: ProgressCallback | None,
        progress_interval: float,
    ) -> None:
        clock = time.perf_counter
        start = clock()
        deadline = start + time_limit if time_limit is not None else None
        next_progress = start + progress_interval if on_progress is not None else None
        use_clock = deadline is not None or next_progress is not None
        limit = iterations if iterations is not None else -1
        base_iterations = self.iterations
        base_elapsed = self.elapsed
        iterate = self._iteration()
        done = 0
        self.stop_reason = ""
        try:
            while True:
                if done:
                    if done == limit:
                        self.stop_reason = STOP_ITERATIONS
                        break
                    if should_stop is not None and should_stop():
                        self.stop_reason = STOP_REQUESTED
                        break
                    if use_clock:
                        now = clock()
                        if deadline is not None and now >= deadline:
                            self.stop_reason = STOP_TIME_LIMIT
                            break
                        if next_progress is not None and now >= next_progress:
                            assert on_progress is not None
                            self.iterations = base_iterations + done
                            self.elapsed = base_elapsed + (now - start)
                            on_progress(self.analysis())
                            next_progress = clock() + progress_interval
                iterate()
                done += 1
        finally:
            self.iterations = base_iterations + done
            self.elapsed = base_elapsed + (clock() - start)
