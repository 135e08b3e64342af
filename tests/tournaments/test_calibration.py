"""Fitting and measuring forecasts (``furnace calibration``)."""

from __future__ import annotations

import json
import random

import pytest

from engine import registry
from engine.forecast import SourceModel, logit
from tournaments.calibration import (
    Constant,
    GameRecord,
    Sample,
    calibration_slope,
    ece,
    fit_scores,
    fit_source,
    fit_wins,
    measure,
    record_game,
    reliability,
)


def _sample(stage, wins, scores, current) -> Sample:
    return Sample(stage, 0, tuple(current), tuple(wins), tuple(scores), tuple(wins),
                  tuple(scores), tuple(wins), tuple(scores))


def synthetic(truth: SourceModel, games: int, seed: int, players: int = 2,
              target: float | None = None) -> list[GameRecord]:
    """Games whose outcomes are drawn from ``truth``'s forecasts of random statistics."""
    rng = random.Random(seed)
    records = []
    for _ in range(games):
        wins = [rng.uniform(0.05, 0.95) for _ in range(players)]
        total = sum(wins)
        wins = [w / total for w in wins] if players > 1 else wins
        scores = [rng.uniform(20, 60) for _ in range(players)]
        current = [rng.uniform(0, 30) for _ in range(players)]
        f = truth.forecast(wins, scores, current, target)
        finals = tuple(e + rng.gauss(0, 2) for e in f.expected_scores)
        if players == 1:
            outcome = (1.0 if rng.random() < f.win_probabilities[0] else 0.0,)
        else:
            winner = rng.choices(range(players), f.win_probabilities)[0]
            outcome = tuple(1.0 if p == winner else 0.0 for p in range(players))
        records.append(GameRecord((_sample(0, wins, scores, current),), finals, outcome, target))
    return records


def test_the_score_fit_recovers_a_linear_map() -> None:
    truth = SourceModel((4.0, 0.7, 0.4, 0.2, -0.3), (1.0, 0.0, 0.0), 10.0)
    fitted = fit_scores(synthetic(truth, 3000, 1), "search")
    assert fitted == pytest.approx(truth.score, abs=0.3)


@pytest.mark.parametrize("players", [2, 3])
def test_the_win_fit_recovers_a_conditional_logit(players) -> None:
    truth = SourceModel((0.0, 1.0, 0.0, 0.0, 0.0), (0.6, 0.8, 0.0), 10.0)
    records = synthetic(truth, 6000, 2, players)
    u, v, k = fit_wins(records, "search", truth.score, truth.scale)
    assert (u, v) == pytest.approx((0.6, 0.8), abs=0.12)
    assert k == 0.0


def test_the_solo_fit_recovers_its_intercept() -> None:
    truth = SourceModel((0.0, 1.0, 0.0, 0.0, 0.0), (0.5, 1.5, -0.7), 10.0)
    records = synthetic(truth, 6000, 3, players=1, target=50.0)
    assert fit_wins(records, "search", truth.score, truth.scale) == \
        pytest.approx((0.5, 1.5, -0.7), abs=0.2)


def test_calibration_figures_of_known_forecasts() -> None:
    rng = random.Random(5)
    predictions = [rng.random() for _ in range(20000)]
    calibrated = [1.0 if rng.random() < p else 0.0 for p in predictions]
    table = reliability(predictions, calibrated)
    assert len(table) == 10 and sum(r["count"] for r in table) == 20000
    assert ece(table) < 0.02
    assert calibration_slope(predictions, calibrated) == pytest.approx(1.0, abs=0.08)
    # Overconfident forecasts: the truth is half as far from even as they say.
    overconfident = [1.0 if rng.random() < 0.5 + (p - 0.5) / 2 else 0.0 for p in predictions]
    assert ece(reliability(predictions, overconfident)) > 0.1
    assert calibration_slope(predictions, overconfident) < 0.7
    assert ece([]) == 0.0


def test_a_fitted_model_beats_the_raw_statistics_it_maps() -> None:
    truth = SourceModel((10.0, 0.5, 0.6, 0.1, 0.0), (0.5, 0.5, 0.0), 10.0)
    fitting, held_out = synthetic(truth, 3000, 6), synthetic(truth, 2000, 7)
    model = fit_source(fitting, "search")
    report = measure(held_out, {"search": model, "playouts": model}, Constant.of(fitting))
    for key in ("ece", "slope", "brier", "brier_constant", "score_mae", "score_bias",
                "score_mae_playouts", "score_mae_constant", "games", "positions"):
        assert key in report
    assert report["games"] == report["positions"] == 2000
    assert report["score_mae"] < report["score_mae_playouts"]
    assert report["score_mae"] < report["score_mae_constant"]
    assert abs(report["score_bias"]) < 0.5
    assert report["ece"] < 0.05 and 0.8 < report["slope"] < 1.2
    assert report["brier"] < report["brier_constant"]
    assert [s["stage"] for s in report["stages"]] == ["first", "middle", "last"]
    json.dumps(report)  # the --json line


def test_a_recorded_game_is_what_its_seed_says() -> None:
    game = registry.get_game("oh-my-goods")
    first = record_game(game, 2, 1, seed=3, g=0, options=None, every=7, playouts=5)
    again = record_game(game, 2, 1, seed=3, g=0, options=None, every=7, playouts=5)
    assert first == again
    assert GameRecord.from_json(json.loads(json.dumps(first.to_json()))) == first
    assert first.samples and sum(first.wins) == pytest.approx(1.0)
    assert [s.stage for s in first.samples] == sorted(s.stage for s in first.samples)
    assert {s.stage for s in first.samples} == {0, 1, 2}
    for s in first.samples:
        assert len(s.best_wins) == len(s.playout_scores) == len(s.current) == 2
        assert 0 <= s.seat < 2
    assert logit(0.5) == 0.0
