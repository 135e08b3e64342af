"""The budget loop shared by the tree searches (engine/search/budget.py)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from engine.search import budget
from engine.search.analysis import Analysis
from engine.search.budget import BudgetedSearch, check_budget


class Counter(BudgetedSearch):
    """Counts its iterations; optionally sleeps in each or fails at iteration ``fail_at``."""

    def __init__(self, sleep: float = 0.0, fail_at: int | None = None) -> None:
        self.calls = 0
        self.sleep = sleep
        self.fail_at = fail_at
        self.snapshots: list[int] = []

    def _iteration(self) -> Callable[[], None]:
        def iterate() -> None:
            if self.fail_at is not None and self.calls == self.fail_at:
                raise RuntimeError("boom")
            self.calls += 1
            if self.sleep:
                time.sleep(self.sleep)

        return iterate

    def analysis(self) -> Analysis:
        self.snapshots.append(self.iterations)
        return Analysis(0, 0, "x", self.iterations, self.elapsed, (0.0,), (0.0,))


def test_iteration_budget_is_exact_and_accumulates() -> None:
    search = Counter()
    assert search.search(7).iterations == 7
    assert search.search(5).iterations == 12
    assert search.calls == 12 and search.elapsed >= 0.0


def test_should_stop_is_checked_after_the_first_iteration() -> None:
    search = Counter()
    search.search(100, should_stop=lambda: True)
    assert search.calls == 1
    seen: list[int] = []

    def stop_at_four() -> bool:
        seen.append(search.calls)
        return search.calls >= 4

    search.search(100, should_stop=stop_at_four)
    assert search.calls == 4 and seen[0] == 2  # one iteration ran before the first check


def test_time_limit_and_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a clock that each iteration moves 10 ms on (a real sleep would count the
    machine's load, not the loop's logic): 0.2 s are 20 iterations, with a report every
    50 ms of them."""
    now = [100.0]

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return now[0]

    class Ticking(Counter):
        def _iteration(self) -> Callable[[], None]:
            count = super()._iteration()

            def iterate() -> None:
                count()
                now[0] += 0.01

            return iterate

    monkeypatch.setattr(budget, "time", Clock)
    search = Ticking()
    reports: list[int] = []
    analysis = search.search(time_limit=0.2, on_progress=lambda a: reports.append(a.iterations),
                             progress_interval=0.05)
    assert 20 <= search.calls <= 21 and analysis.stop_reason == budget.STOP_TIME_LIMIT
    assert reports in ([5, 10, 15], [5, 10, 15, 20], [6, 11, 16], [6, 11, 16, 21]), reports
    assert search.elapsed == pytest.approx(search.calls * 0.01)


def test_a_time_limit_stops_a_real_search() -> None:
    search = Counter(sleep=0.01)
    started = time.perf_counter()
    search.search(time_limit=0.2)
    assert 1 <= search.calls <= 21 and time.perf_counter() - started >= 0.2


def test_counters_survive_a_failing_iteration() -> None:
    search = Counter(fail_at=3)
    with pytest.raises(RuntimeError):
        search.search(10)
    assert search.iterations == 3


@pytest.mark.parametrize(
    ("iterations", "time_limit"),
    [(None, None), (0, None), (True, None), (2.5, None), (None, 0), (None, -1.0)],
)
def test_bad_budgets_are_rejected(iterations: object, time_limit: object) -> None:
    with pytest.raises(ValueError):
        check_budget(iterations, time_limit)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Counter().search(iterations, time_limit)  # type: ignore[arg-type]


def test_bad_progress_interval_is_rejected() -> None:
    with pytest.raises(ValueError, match="progress_interval"):
        Counter().search(3, on_progress=lambda a: None, progress_interval=0)
