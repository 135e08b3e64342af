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
    logit,
    shipped_model,
    softmax,
)
from engine.search import estimate_scores, search_for

#: Models whose forecasts differ plainly from the statistics they map (two segments of
#: the banked share each).
SKEWED = SourceModel(inputs=("playouts", "current"), edges=(0.5,),
                     score=((5.0, 0.5, 0.1, 0.5, -0.1), (1.0, 0.3, 0.0, 1.0, 0.0)),
                     win=((0.5, 1.0, 0.3), (1.0, 2.0, -0.2)), scale=10.0)
SKEWED_SEARCH = SourceModel(inputs=("search", "playouts", "current"), edges=(0.5,),
                            score=((5.0, 0.4, 0.1, 0.2, 0.0, 0.5, -0.1),
                                   (1.0, 0.2, 0.0, 0.2, 0.0, 0.9, 0.0)),
                            win=((0.5, 1.0, 0.3), (1.0, 2.0, -0.2)), scale=10.0)


@pytest.fixture
def skewed(monkeypatch):
    """Every game and player count forecasts with :data:`SKEWED_SEARCH` and
    :data:`SKEWED`; the search's model is answered."""
    def model(name: str) -> ForecastModel:
        return ForecastModel(name, {n: PlayerCountModel(n, {"search": SKEWED_SEARCH,
                                                            "playouts": SKEWED})
                                    for n in range(1, 6)})
    monkeypatch.setattr(forecast, "shipped_model", model)
    return SKEWED_SEARCH


def identity(win: tuple[float, float, float], scale: float) -> SourceModel:
    """A model whose expected scores are the playouts' means."""
    return SourceModel(("playouts", "current"), (), ((0.0, 1.0, 0.0, 0.0, 0.0),), (win,),
                       scale)


def test_win_probabilities_sum_to_one_and_follow_the_statistics() -> None:
    model = identity((1.2, 0.8, 0.0), 5.0)
    for wins in ([0.2, 0.5, 0.3], [0.0, 1.0, 0.0], [1 / 3] * 3):
        probs = model.win_probabilities(wins, [10.0, 12.0, 11.0], None)
        assert sum(probs) == pytest.approx(1.0)
        assert all(0 < p < 1 for p in probs)
    low, high = model.win_probabilities([0.3, 0.7], [10.0, 10.0], None)
    assert low < 0.5 < high


def test_a_lone_seat_forecasts_its_chance_of_the_target() -> None:
    model = identity((0.0, 2.0, 0.0), 10.0)
    (below,) = model.win_probabilities([1.0], [150.0], 160.0)
    (above,) = model.win_probabilities([1.0], [170.0], 160.0)
    (at,) = model.win_probabilities([1.0], [160.0], 160.0)
    assert below < at < above
    assert at == pytest.approx(0.5)
    assert above == pytest.approx(1 / (1 + math.exp(-2.0)))


def test_the_expected_score_changes_coefficients_with_the_banked_share() -> None:
    early = {"playouts": [40.0, 60.0], "current": [10.0, 10.0]}  # banked 0.2
    late = {"playouts": [40.0, 60.0], "current": [30.0, 40.0]}  # banked 0.7
    assert forecast.banked_share(early["playouts"], early["current"]) == pytest.approx(0.2)
    assert SKEWED.segment(0.2) == 0 and SKEWED.segment(0.7) == 1
    assert SKEWED.expected_scores(early) == pytest.approx(
        [5 + 0.5 * 40 + 0.1 * 60 + 0.5 * 10 - 0.1 * 10, 5 + 0.5 * 60 + 0.1 * 40 + 0.5 * 10 - 0.1 * 10])
    assert SKEWED.expected_scores(late) == pytest.approx([1 + 0.3 * 40 + 30, 1 + 0.3 * 60 + 40])
    assert forecast.banked_share([0.0, 0.0], [5.0, 5.0]) == 0.0  # nothing expected yet
    assert forecast.banked_share([10.0], [50.0]) == forecast.BANKED_MAX


def test_model_files_round_trip_and_bad_ones_are_refused() -> None:
    model = ForecastModel("samara", {2: PlayerCountModel(
        2, {"search": SKEWED_SEARCH, "playouts": SKEWED}, {"command": "furnace calibration"})})
    again = ForecastModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again.source(2, "search") == SKEWED_SEARCH
    assert again.source(2, "playouts") == SKEWED
    assert again.counts[2].provenance == {"command": "furnace calibration"}
    assert again.source(3, "search") is None
    good = SKEWED.to_json()

    def file(source: str = "playouts", **change) -> dict:
        return {"version": 3, "players": {"2": {"sources": {source: {**good, **change}}}}}

    ForecastModel.from_json(file())
    for bad in ({"version": 1, "players": {}}, file("x"),
                file("search"),  # a search's model reads the search's figures too
                file(score=[[0, 1]]), file(edges=[0.2, 0.5]), file(edges=[0.8, 0.2],
                                                              score=good["score"] * 3),
                file(win=[1, 0]), file(win=[[1, 0, 0]]),  # two segments, one win map
                file(win=[[1, 0, 0], [1, 0]]), file(scale=0), file(inputs=["current"]),
                file(score=[[math.nan, 1, 0, 0, 0], good["score"][1]])):
        with pytest.raises(ForecastModelError):
            ForecastModel.from_json(bad)


def test_a_version_2_file_has_one_win_map_for_every_segment() -> None:
    """Version 2 files had one win map for the whole game: read, it serves every
    segment, and the model answers what it answered then."""
    old = {**SKEWED.to_json(), "win": [0.5, 1.0, 0.3]}
    model = ForecastModel.from_json({"version": 2, "players": {"2": {"sources": {
        "playouts": old}}}}).source(2, "playouts")
    assert model is not None and model.win == ((0.5, 1.0, 0.3), (0.5, 1.0, 0.3))
    for segment in (0, 1):
        assert model.win_probabilities([0.3, 0.7], [10.0, 14.0], None, segment) == \
            pytest.approx(softmax([0.5 * logit(0.3) + 1.0 * -0.4,
                                   0.5 * logit(0.7) + 1.0 * 0.4]))
    with pytest.raises(ForecastModelError):  # a version 3 file has a map per segment
        ForecastModel.from_json({"version": 3, "players": {"2": {"sources": {
            "playouts": old}}}})


def test_each_segment_has_its_own_win_map() -> None:
    early = {"playouts": [40.0, 60.0], "current": [10.0, 10.0]}  # banked 0.2: segment 0
    late = {"playouts": [40.0, 60.0], "current": [30.0, 40.0]}  # banked 0.7: segment 1
    for series, (u, v, _) in ((early, SKEWED.win[0]), (late, SKEWED.win[1])):
        f = SKEWED.expected_scores(series)
        lead = (f[0] - f[1]) / SKEWED.scale
        assert SKEWED.forecast([0.4, 0.6], series, None).win_probabilities == \
            pytest.approx(softmax([u * logit(0.4) + v * lead, u * logit(0.6) - v * lead]))


@pytest.mark.parametrize("name", ["samara", "oh-my-goods", "stephens"])
def test_shipped_models_load_and_name_their_command(name) -> None:
    model = shipped_model(name)
    for players, entry in model.counts.items():
        registry.get_game(name).info.check_players(players)
        assert set(entry.sources) == set(forecast.SOURCES)
        assert entry.provenance["command"].startswith(f"furnace calibration {name} ")
        fitted_on = [s["seed"] for s in entry.provenance["fit_sets"]]
        assert fitted_on and entry.provenance["held_out_seed"] not in fitted_on


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
    told = forecast_analysis(state, raw, seat, seed=3)
    # As many playouts as a quarter of the search's 60 iterations: a small search
    # does not pay for 200.
    assert forecast.playouts_for(60) == 15 and forecast.playouts_for(5000) == 200
    assert forecast.playouts_for(None) == forecast.FORECAST_PLAYOUTS
    playouts = [s.score_mean for s in estimate_scores(state, seat, playouts=15, seed=3).seats]
    assert forecast.position_playouts(state, seat, 3, count=15) == playouts
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
        # ...and the forecast is the model's map of them, beside the position's random
        # playouts (EstimateScores' means, seeded like the analysis) and the scores so far.
        want = skewed.forecast(before.win_probabilities, {
            "search": before.expected_scores, "playouts": playouts,
            "current": forecast.current_scores(state, seat)}, state.solo_target())
        assert after.win_probabilities == pytest.approx(want.win_probabilities)
        assert after.expected_scores == pytest.approx(want.expected_scores)
    assert told.to_json()["search_statistics"] == {
        "win_shares": list(raw.win_probability), "mean_scores": list(raw.expected_scores)}
    assert forecast_analysis(state, told, seat) is told  # forecast once
    # Given the playouts, the same forecast without running them again.
    assert forecast_analysis(state, raw, seat, playouts=playouts) == told


def test_a_search_model_without_the_playouts_runs_none(monkeypatch) -> None:
    """Only a model that reads the position's playouts runs them (a search's, in a game
    whose model file says so): the others' BestMoves cost no more than their search."""
    plain = SourceModel(("search", "current"), (), ((1.0, 0.9, 0.0, 0.2, 0.0),),
                        ((0.5, 1.0, 0.0),), 10.0)
    monkeypatch.setattr(forecast, "shipped_model", lambda name: ForecastModel(
        name, {2: PlayerCountModel(2, {"search": plain, "playouts": SKEWED})}))

    def no_playouts(*args, **kwargs):
        raise AssertionError("playouts run for a model that does not read them")

    monkeypatch.setattr(forecast, "position_playouts", no_playouts)
    state = _position("samara", 2)
    raw = search_for(state, 0, iterations=30, seed=1)
    assert not forecast.needs_playouts(state, "search")
    told = forecast_analysis(state, raw, 0)
    best = next(m for m in raw.moves if m.move == raw.best_move)
    now = forecast.current_scores(state, 0)
    assert told.expected_scores == pytest.approx(plain.expected_scores(
        {"search": best.expected_scores, "current": now}))
    # Its segments are cut on the search's own expectation.
    assert plain.expectation == "search" and SKEWED_SEARCH.expectation == "playouts"


def test_a_search_forecast_reads_the_positions_playouts(skewed) -> None:
    state = _position("samara", 2)
    raw = search_for(state, 0, iterations=30, seed=1)
    low = forecast_analysis(state, raw, 0, playouts=[20.0, 80.0])
    high = forecast_analysis(state, raw, 0, playouts=[80.0, 20.0])
    assert low.expected_scores[0] < high.expected_scores[0]
    assert low.win_probability[0] < high.win_probability[0]


def test_the_solo_target_chance_is_the_calibrated_probability(skewed) -> None:
    state = _position("stephens", 1)
    told = forecast_analysis(state, search_for(state, 0, iterations=40, seed=2), 0)
    best = next(m for m in told.moves if m.move == told.best_move)
    (chance,) = told.win_probability
    score = skewed.expected_scores({
        "search": best.search_expected_scores,
        "playouts": forecast.position_playouts(state, 0, 0, count=forecast.playouts_for(40)),
        "current": forecast.current_scores(state, 0)})[0]
    assert chance == pytest.approx(skewed.win_probabilities(
        best.search_win_probabilities, [score], state.solo_target())[0])
    assert told.target == state.solo_target()


def test_estimates_answer_the_forecast_and_keep_the_playouts(skewed) -> None:
    state = _position("oh-my-goods", 2)
    raw = estimate_scores(state, 1, playouts=30, seed=4)
    told = forecast_estimate(state, raw)
    want = SKEWED.forecast([s.win_probability for s in raw.seats],
                           {"playouts": [s.score_mean for s in raw.seats],
                            "current": forecast.current_scores(state, 1)}, None)
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


def test_playouts_within_a_time_limit_take_their_share_and_say_what_is_left(
        monkeypatch) -> None:
    """A search and a review run the forecast's playouts alike: before the search, as
    many as its iterations warrant, stopped at their share of the time or by the caller,
    and the search gets the rest of the time."""
    import time

    ran: list[tuple[int, float]] = []

    def playouts(state, observer, seed, should_stop, count=0):
        started = time.monotonic()
        while not should_stop() and time.monotonic() < started + 10:  # no hang
            time.sleep(0.002)
        ran.append((count, time.monotonic() - started))
        return [1.0, 2.0]

    monkeypatch.setattr(forecast, "position_playouts", playouts)
    state = _position("samara", 2)
    means, left = forecast.playouts_within(state, 0, 3, None, 0.4)
    (count, took), = ran
    assert means == [1.0, 2.0] and count == forecast.FORECAST_PLAYOUTS
    assert took >= 0.4 * forecast.PLAYOUT_SHARE - 0.002
    assert left is not None and 1e-3 <= left <= max(0.4 - took, 1e-3)
    # An iteration budget alone: fewer playouts, no time to share; the caller's stop.
    means, left = forecast.playouts_within(state, 0, 3, 40, None, lambda: True)
    assert left is None and ran[-1][0] == forecast.playouts_for(40) == 10
