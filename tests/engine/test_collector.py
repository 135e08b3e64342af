"""Holding off the garbage collector's full passes while a search runs."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.collector import without_full_collections
from engine.search.analysis import Analysis
from engine.search.budget import BudgetedSearch


@pytest.fixture
def full_passes() -> Iterator[list[int]]:
    """Generations of the collector passes that run while the test does."""
    generations: list[int] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield generations
    finally:
        gc.callbacks.remove(record)


class Hoarder(BudgetedSearch):
    """A search whose iterations keep what they allocate, as a growing tree does."""

    def __init__(self) -> None:
        self.kept: list[list[int]] = []

    def _iteration(self) -> Callable[[], None]:
        kept = self.kept

        def iterate() -> None:
            kept.extend([i] for i in range(1000))

        return iterate

    def analysis(self) -> Analysis:
        return Analysis(0, 0, "x", self.iterations, self.elapsed, (0.0,), (0.0,))


def test_a_growing_search_runs_no_full_collection(full_passes: list[int]) -> None:
    # Each full pass walks the whole tree: up to 0.2 s at a time in a 5 s Samara
    # search (a tenth of its time), and a pause that can carry it past a deadline.
    gc.collect()
    full_passes.clear()
    search = Hoarder()
    search.search(iterations=1500)
    assert len(search.kept) == 1_500_000
    assert full_passes.count(0) > 100
    assert 2 not in full_passes
    search.kept.clear()


def test_young_passes_still_collect_cycles() -> None:
    # An iteration's cyclic garbage must not pile up over a long search.
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    gc.collect()
    with without_full_collections():
        before = len(gc.get_objects())
        for _ in range(200_000):
            Cycle()
        assert len(gc.get_objects()) - before < 50_000


def test_thresholds_come_back_after_nested_threaded_and_failing_uses() -> None:
    original = gc.get_threshold()
    entered = threading.Barrier(2)
    leave = threading.Event()

    def hold() -> None:
        with without_full_collections():
            entered.wait()
            leave.wait()

    other = threading.Thread(target=hold)
    other.start()
    with pytest.raises(RuntimeError):
        with without_full_collections():
            entered.wait()
            with without_full_collections():
                assert gc.get_threshold()[:2] == original[:2]
                assert gc.get_threshold()[2] > original[2]
            assert gc.get_threshold()[2] > original[2]
            raise RuntimeError("an iteration failed")
    assert gc.get_threshold()[2] > original[2]  # the other thread's search still runs
    leave.set()
    other.join()
    assert gc.get_threshold() == original
