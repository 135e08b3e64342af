"""Fitting and measuring forecasts (``furnace calibration``)."""

from __future__ import annotations

import bisect
import json
import random

import pytest

from engine import registry
from engine.forecast import INPUTS, SourceModel, logit
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
    segment_edges,
)


def _sample(stage, wins, scores, current, playouts) -> Sample:
    return Sample(stage, 0, tuple(current), tuple(wins), tuple(scores), tuple(wins),
                  tuple(scores), tuple(wins), tuple(playouts))


def model(score, win=(1.0, 0.0, 0.0), scale=10.0, edges=()) -> SourceModel:
    """A search's model: ``score`` rows over 1, the search's, the playouts' and the
    current scores (each: the seat's and the others' mean); ``win`` the win map of every
    segment."""
    return SourceModel(INPUTS["search"][1], tuple(edges), tuple(tuple(r) for r in score),
                       (tuple(win),) * (len(edges) + 1), scale)


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
        playouts = [rng.uniform(20, 60) for _ in range(players)]
        current = [rng.uniform(0, 30) for _ in range(players)]
        f = truth.forecast(wins, {"search": scores, "playouts": playouts, "current": current},
                           target)
        finals = tuple(e + rng.gauss(0, 2) for e in f.expected_scores)
        if players == 1:
            outcome = (1.0 if rng.random() < f.win_probabilities[0] else 0.0,)
        else:
            winner = rng.choices(range(players), f.win_probabilities)[0]
            outcome = tuple(1.0 if p == winner else 0.0 for p in range(players))
        records.append(GameRecord((_sample(0, wins, scores, current, playouts),), finals,
                                  outcome, target))
    return records


def test_the_score_fit_recovers_a_linear_map() -> None:
    truth = model([(4.0, 0.7, -0.2, 0.3, 0.1, 0.4, -0.3)])
    edges, fitted = fit_scores(synthetic(truth, 3000, 1), "search", truth.inputs)
    assert len(fitted) == len(edges) + 1 > 1  # segments of the banked share
    for row in fitted:  # each segment's own line (its intercept the least sure)
        assert row[0] == pytest.approx(truth.score[0][0], abs=1.5)
        assert row[1:] == pytest.approx(truth.score[0][1:], abs=0.1)


def test_a_search_model_reads_the_playouts_only_if_asked() -> None:
    truth = model([(4.0, 0.7, -0.2, 0.3, 0.1, 0.4, -0.3)])
    records = synthetic(truth, 500, 4)
    assert fit_source(records, "search").inputs == ("search", "current")
    assert fit_source(records, "search", INPUTS["search"][1]).inputs == truth.inputs
    with pytest.raises(ValueError, match="reads one of"):
        fit_source(records, "playouts", truth.inputs)


def test_the_score_fit_finds_coefficients_that_change_with_the_banked_share() -> None:
    truth = model([(10.0, 0.2, 0.0, 0.5, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.2, 0.0, 1.0, 0.0)],
                  edges=(0.5,))
    records = synthetic(truth, 4000, 8)
    edges, score = fit_scores(records, "search", truth.inputs)
    fitted = model(score, edges=edges)
    held_out = synthetic(truth, 500, 9)
    errors = [abs(a - b) for r in held_out for s in r.samples
              for a, b in zip(fitted.expected_scores({"search": s.best_scores,
                                                      "playouts": s.playout_scores,
                                                      "current": s.current}),
                              truth.expected_scores({"search": s.best_scores,
                                                     "playouts": s.playout_scores,
                                                     "current": s.current}), strict=True)]
    assert sum(errors) / len(errors) < 1.5  # one line through both would miss by ~5


def test_segments_keep_enough_rows_for_their_coefficients() -> None:
    shares = [0.0] * 500 + [i / 1000 for i in range(1000)]
    edges = segment_edges(shares, width=7)
    counts = [sum(1 for x in shares if bisect.bisect_left(edges, x) == i)
              for i in range(len(edges) + 1)]
    # The quantile cut at 0.1 left 100 rows (under 40 per coefficient): merged.
    assert edges == pytest.approx((0.0, 0.4, 0.7), abs=0.001)
    assert min(counts) >= 40 * 7 and sum(counts) == len(shares)
    assert segment_edges([i / 100 for i in range(100)], width=7) == ()  # too few for two
    assert segment_edges([0.5] * 2000, width=7) == ()  # one value: one segment


@pytest.mark.parametrize("players", [2, 3])
def test_the_win_fit_recovers_a_conditional_logit(players) -> None:
    truth = model([(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)], (0.6, 0.8, 0.0))
    records = synthetic(truth, 6000, 2, players)
    ((u, v, k),) = fit_wins(records, "search", truth.inputs, truth.edges, truth.score,
                            truth.scale)
    assert (u, v) == pytest.approx((0.6, 0.8), abs=0.12)
    assert k == 0.0


def test_the_win_fit_recovers_a_map_per_segment() -> None:
    """Two segments of the banked share with different maps: each is found from its own
    positions (one map for both would sit between them)."""
    truth = SourceModel(INPUTS["search"][1], (0.5,),
                        ((0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0),) * 2,
                        ((0.3, 0.4, 0.0), (1.0, 2.0, 0.0)), 10.0)
    records = synthetic(truth, 8000, 6)
    segments = {truth.segment_of({"playouts": r.samples[0].playout_scores,
                                  "current": r.samples[0].current}) for r in records}
    assert segments == {0, 1}
    early, late = fit_wins(records, "search", truth.inputs, truth.edges, truth.score,
                           truth.scale)
    assert early[:2] == pytest.approx((0.3, 0.4), abs=0.15)
    assert late[:2] == pytest.approx((1.0, 2.0), abs=0.25)


def test_the_solo_fit_recovers_its_intercept() -> None:
    truth = model([(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)], (0.5, 1.5, -0.7))
    records = synthetic(truth, 6000, 3, players=1, target=50.0)
    (fitted,) = fit_wins(records, "search", truth.inputs, truth.edges, truth.score,
                         truth.scale)
    assert fitted == pytest.approx((0.5, 1.5, -0.7), abs=0.2)


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
    truth = model([(10.0, 0.5, 0.1, 0.2, 0.0, 0.6, 0.0)], (0.5, 0.5, 0.0))
    fitting, held_out = synthetic(truth, 3000, 6), synthetic(truth, 2000, 7)
    report = measure(held_out, {"search": fit_source(fitting, "search", INPUTS["search"][1]),
                                "playouts": fit_source(fitting, "playouts")},
                     Constant.of(fitting))
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
