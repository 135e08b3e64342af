"""Forecasts: the fitted maps, and what an analysis and an estimate answer once forecast."""

from __future__ import annotations

import json
import math

import pytest

from engine import forecast, registry
from engine.forecast import (
    ForecastModel,
    ForecastModelError,
    PlayerCountModel,
    SourceModel,
    forecast_analysis,
    forecast_estimate,
    shipped_model,
)
from engine.search import estimate_scores, search_for

#: A model whose forecasts differ plainly from the statistics it maps.
SKEWED = SourceModel(score=(5.0, 0.5, 0.5, 0.1, -0.1), win=(0.5, 1.0, 0.3), scale=10.0)


@pytest.fixture
def skewed(monkeypatch):
    """Every game and player count forecasts with :data:`SKEWED`."""
    def model(name: str) -> ForecastModel:
        return ForecastModel(name, {n: PlayerCountModel(n, {"search": SKEWED,
                                                            "playouts": SKEWED})
                                    for n in range(1, 6)})
    monkeypatch.setattr(forecast, "shipped_model", model)
    return SKEWED


def test_win_probabilities_sum_to_one_and_follow_the_statistics() -> None:
    model = SourceModel(score=(0.0, 1.0, 0.0, 0.0, 0.0), win=(1.2, 0.8, 0.0), scale=5.0)
    for wins in ([0.2, 0.5, 0.3], [0.0, 1.0, 0.0], [1 / 3] * 3):
        probs = model.win_probabilities(wins, [10.0, 12.0, 11.0], None)
        assert sum(probs) == pytest.approx(1.0)
        assert all(0 < p < 1 for p in probs)
    low, high = model.win_probabilities([0.3, 0.7], [10.0, 10.0], None)
    assert low < 0.5 < high


def test_a_lone_seat_forecasts_its_chance_of_the_target() -> None:
    model = SourceModel(score=(0.0, 1.0, 0.0, 0.0, 0.0), win=(0.0, 2.0, 0.0), scale=10.0)
    (below,) = model.win_probabilities([1.0], [150.0], 160.0)
    (above,) = model.win_probabilities([1.0], [170.0], 160.0)
    (at,) = model.win_probabilities([1.0], [160.0], 160.0)
    assert below < at < above
    assert at == pytest.approx(0.5)
    assert above == pytest.approx(1 / (1 + math.exp(-2.0)))


def test_model_files_round_trip_and_bad_ones_are_refused() -> None:
    model = ForecastModel("samara", {2: PlayerCountModel(2, {"search": SKEWED},
                                                         {"command": "furnace calibration"})})
    again = ForecastModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again.source(2, "search") == SKEWED
    assert again.counts[2].provenance == {"command": "furnace calibration"}
    assert again.source(3, "search") is None
    for bad in ({"version": 7}, {"version": 1, "players": {"2": {"sources": {"x": {
            "score": [0, 1, 0, 0, 0], "win": [1, 0, 0], "scale": 1}}}}},
            {"version": 1, "players": {"2": {"sources": {"search": {
                "score": [0, 1], "win": [1, 0, 0], "scale": 1}}}}},
            {"version": 1, "players": {"2": {"sources": {"search": {
                "score": [0, 1, 0, 0, 0], "win": [1, 0, 0], "scale": 0}}}}}):
        with pytest.raises(ForecastModelError):
            ForecastModel.from_json(bad)


@pytest.mark.parametrize("name", ["samara", "oh-my-goods", "stephens"])
def test_shipped_models_load_and_name_their_command(name) -> None:
    model = shipped_model(name)
    for players, entry in model.counts.items():
        registry.get_game(name).info.check_players(players)
        assert set(entry.sources) == set(forecast.SOURCES)
        assert entry.provenance["command"].startswith(f"furnace calibration {name} ")
        assert entry.provenance["fit_seed"] != entry.provenance["held_out_seed"]


def _position(name: str, players: int, moves: int = 6):
    state = registry.new_game(name, seed=11, num_players=players)
    for k in range(moves):
        if state.is_terminal():
            break
        legal = state.legal_moves() if state.current_player() >= 0 else \
            [m for m, _ in state.chance_outcomes()]
        state.apply(legal[k % len(legal)])
    return state


@pytest.mark.parametrize(("name", "players"), [("samara", 2), ("oh-my-goods", 3),
                                               ("stephens", 1)])
def test_the_headline_is_the_recommended_moves_forecast(skewed, name, players) -> None:
    state = _position(name, players)
    seat = state.current_player()
    raw = search_for(state, seat, iterations=60, seed=3)
    told = forecast_analysis(state, raw, seat)
    best = next(m for m in told.moves if m.move == told.best_move)
    assert told.win_probability == best.win_probabilities
    assert told.expected_scores == best.expected_scores
    assert all(m.win_probability == m.win_probabilities[seat] for m in told.moves)
    # The search's own figures stay reachable under their own names...
    assert told.search_win_probabilities == raw.win_probability
    assert told.search_expected_scores == raw.expected_scores
    for before, after in zip(raw.moves, told.moves, strict=True):
        assert after.search_win_probabilities == before.win_probabilities
        assert after.search_expected_scores == before.expected_scores
        # ...and the forecast is the model's map of them.
        now = forecast.current_scores(state, seat)
        want = skewed.forecast(before.win_probabilities, before.expected_scores, now,
                               state.solo_target())
        assert after.win_probabilities == pytest.approx(want.win_probabilities)
        assert after.expected_scores == pytest.approx(want.expected_scores)
    assert told.to_json()["search_statistics"] == {
        "win_shares": list(raw.win_probability), "mean_scores": list(raw.expected_scores)}
    assert forecast_analysis(state, told, seat) is told  # forecast once


def test_the_solo_target_chance_is_the_calibrated_probability(skewed) -> None:
    state = _position("stephens", 1)
    told = forecast_analysis(state, search_for(state, 0, iterations=40, seed=2), 0)
    best = next(m for m in told.moves if m.move == told.best_move)
    (chance,) = told.win_probability
    score = skewed.expected_scores(best.search_expected_scores,
                                   forecast.current_scores(state, 0))[0]
    assert chance == pytest.approx(skewed.win_probabilities(
        best.search_win_probabilities, [score], state.solo_target())[0])
    assert told.target == state.solo_target()


def test_estimates_answer_the_forecast_and_keep_the_playouts(skewed) -> None:
    state = _position("oh-my-goods", 2)
    raw = estimate_scores(state, 1, playouts=30, seed=4)
    told = forecast_estimate(state, raw)
    want = skewed.forecast([s.win_probability for s in raw.seats],
                           [s.score_mean for s in raw.seats],
                           forecast.current_scores(state, 1), None)
    assert [s.win_probability for s in told.seats] == pytest.approx(want.win_probabilities)
    assert [s.score_mean for s in told.seats] == pytest.approx(want.expected_scores)
    assert [s.playout_win_share for s in told.seats] == [s.win_probability for s in raw.seats]
    assert [s.playout_score_mean for s in told.seats] == [s.score_mean for s in raw.seats]
    assert [s.score_stddev for s in told.seats] == [s.score_stddev for s in raw.seats]
    assert forecast_estimate(state, told) is told


def test_a_solo_playout_share_counts_the_target_reached() -> None:
    state = _position("stephens", 1)
    estimate = estimate_scores(state, 0, playouts=8, seed=1)
    (seat,) = estimate.seats
    target = state.solo_target()
    assert 0.0 <= seat.win_probability <= 1.0
    if seat.score_max < target:
        assert seat.win_probability == 0.0


def test_a_finished_game_forecasts_its_result(skewed) -> None:
    state = _position("oh-my-goods", 2, moves=10_000)
    assert state.is_terminal()
    told = forecast.forecast_from(state, 0, "search", [0.5, 0.5], [0.0, 0.0])
    outcome = state.outcome()
    assert told.win_probabilities == tuple(outcome.rewards)
    assert told.expected_scores == tuple(float(x) for x in outcome.scores)


def test_without_a_model_the_statistics_are_answered(monkeypatch) -> None:
    monkeypatch.setattr(forecast, "shipped_model", lambda name: ForecastModel(name, {}))
    state = _position("samara", 2)
    raw = search_for(state, None, iterations=30, seed=1)
    told = forecast_analysis(state, raw, None)
    best = next(m for m in raw.moves if m.move == raw.best_move)
    assert told.win_probability == best.win_probabilities
    assert not forecast.is_fitted(state, "search")
