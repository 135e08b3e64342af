"""The search pool's jobs (:mod:`ai_server.jobs`), run in this process."""

from __future__ import annotations

import time
from typing import Any

import pytest

import engine.forecast as forecast
from ai_server import jobs, stops
from engine import registry


def test_a_searchs_forecast_reads_playouts_seeded_by_the_call_within_its_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """BestMove's forecast reads the position's random playouts: run once, before the
    search, with the call's seed, and stopped at a quarter of the time budget."""
    calls: list[tuple[int | None, int, float, int]] = []
    real = forecast.position_playouts

    def playouts(state: Any, observer: int | None, seed: int, should_stop: Any,
                 count: int = 0) -> Any:
        started = time.monotonic()
        # Playouts that would run past their share (for 10 s at most: no hang).
        while not should_stop() and time.monotonic() < started + 10:
            time.sleep(0.005)
        calls.append((observer, seed, time.monotonic() - started, count))
        return real(state, observer, seed, lambda: True)  # one playout: a valid estimate

    monkeypatch.setattr(forecast, "position_playouts", playouts)
    state = registry.get_game("samara").new_game(5, num_players=2)
    budget = 2.0
    result = jobs.run_search(state, iterations=None, time_end=time.monotonic() + budget,
                             deadline=None, seed=9, c=None, observer=0)
    assert result is not None and result.stop_reason == stops.TIME_LIMIT
    [(observer, seed, took, count)] = calls
    assert (observer, seed, count) == (0, 9, forecast.FORECAST_PLAYOUTS)  # a time budget
    # Stopped at its share (a quarter of the budget), neither before nor at the end.
    assert budget * forecast.PLAYOUT_SHARE - 0.01 <= took < budget
    assert result.analysis.iterations >= 1  # the rest of the budget searched
    # An iteration budget: a quarter of it in playouts, at most 200.
    jobs.run_search(state, iterations=40, time_end=time.monotonic() + 0.4,
                    deadline=None, seed=9, c=None, observer=0)
    assert calls[-1][3] == forecast.playouts_for(40) == 10
