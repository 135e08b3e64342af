"""The learned leaf value: the model file, the evaluator, the bot option and the
configuration setting, and the features it reads."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from importlib import import_module

import pytest

from engine import registry
from engine.game import TERMINAL, play_random_moves
from engine.search import SearchConfig, make_bot, make_tree
from engine.search.bots import BotSpecError
from engine.search.compiled import core_module
from engine.search.config import config_for, shipped_model
from engine.search.evaluate import (
    MODEL_FORMAT,
    LearnedEvaluator,
    ValueModel,
    learned_scores,
    values_outcome,
)
from engine.stephens import FEATURE_NAMES
from engine.stephens.setup import new_state


def model_of(weights: dict[str, float]) -> ValueModel:
    return ValueModel("stephens", FEATURE_NAMES,
                      [weights.get(name, 0.0) for name in FEATURE_NAMES])


def test_the_model_values_are_the_weighted_features() -> None:
    state = new_state(seed=4, num_players=2)
    play_random_moves(state, 9, 40)
    vectors = state.features()
    coins = FEATURE_NAMES.index("coins")
    score = FEATURE_NAMES.index("score")
    model = model_of({"coins": 0.5, "score": 2.0})
    assert model.values(vectors) == [0.5 * v[coins] + 2.0 * v[score] for v in vectors]


def test_the_evaluator_plays_then_values_by_the_model() -> None:
    state = new_state(seed=4, num_players=2)
    play_random_moves(state, 9, 30)
    model = model_of({"vp": 1.0, "coins": 0.25})
    played = state.clone()
    play_random_moves(played, 77, 5)
    expected = values_outcome(learned_scores(model, played))
    assert LearnedEvaluator(5, model).evaluate(state.clone(), 77) == expected
    # Without a playout the position itself is valued.
    assert LearnedEvaluator(0, model).evaluate(state.clone(), 77) == \
        values_outcome(learned_scores(model, state))


def test_a_finished_game_gives_its_real_outcome() -> None:
    state = new_state(seed=4, num_players=2)
    play_random_moves(state, 3)
    assert state.current_player() == TERMINAL
    assert LearnedEvaluator(5, model_of({"coins": 1.0})).evaluate(state, 1) == state.outcome()


def test_values_outcome_shares_the_win_between_leaders() -> None:
    outcome = values_outcome([3.0, 7.5, 7.5])
    assert outcome.scores == (3.0, 7.5, 7.5) and outcome.rewards == (0.0, 0.5, 0.5)


def test_a_model_round_trips_and_rejects_other_formats() -> None:
    model = ValueModel("stephens", FEATURE_NAMES, [0.5] * len(FEATURE_NAMES), {"seed": 3})
    data = json.loads(json.dumps(model.to_json()))
    assert data["format"] == MODEL_FORMAT and ValueModel.from_json(data) == model
    with pytest.raises(ValueError, match="not a"):
        ValueModel.from_json({**data, "version": 99})
    with pytest.raises(ValueError, match="weights for"):
        ValueModel("stephens", FEATURE_NAMES, [1.0])
    with pytest.raises(ValueError, match="features for a model"):
        ValueModel("stephens", ["a"], [1.0]).values([[1.0, 2.0]])


def test_the_shipped_stephens_model_reads_the_declared_features() -> None:
    model = shipped_model(config_for("stephens").value_model)
    assert model.game == "stephens" and model.feature_names == FEATURE_NAMES


def test_stephens_is_searched_with_the_learned_leaf_and_the_heuristic_is_a_setting() -> None:
    config = config_for("stephens")
    assert config.leaf_value == "learned"
    learned = config.evaluator(2)
    assert isinstance(learned, LearnedEvaluator) and learned.depth == 20
    heuristic = replace(config, leaf_value="heuristic").evaluator(2)
    assert type(heuristic).__name__ == "TruncatedPlayoutEvaluator"
    assert make_bot("mcts:30:v=heuristic")._config(new_state(1, 2)).leaf_value == "heuristic"  # type: ignore[attr-defined]
    assert config_for("oh-my-goods").leaf_value == "heuristic"
    samara = config_for("samara")
    assert samara.leaf_value == "learned" and isinstance(samara.evaluator(2), LearnedEvaluator)
    with pytest.raises(ValueError, match="leaf_value"):
        SearchConfig(leaf_value="neural")
    with pytest.raises(ValueError, match="value_model"):
        SearchConfig(leaf_value="learned")


def test_the_bot_option_v() -> None:
    assert make_bot("mcts:300:v=learned").overrides.leaf_value == "learned"
    assert make_bot("ismcts:300:v=heuristic").overrides.leaf_value == "heuristic"
    assert make_bot("mcts:300").overrides.leaf_value is None
    for bad in ("mcts:300:v=neural", "uct:300:v=learned", "mcts:v=learned:v=heuristic"):
        with pytest.raises(BotSpecError):
            make_bot(bad)


def test_the_bot_option_model_names_a_model_file(tmp_path) -> None:
    shipped = shipped_model(config_for("stephens").value_model)
    copy, coins = tmp_path / "copy.json", tmp_path / "coins.json"
    copy.write_text(json.dumps(shipped.to_json()), encoding="utf-8")
    coins.write_text(json.dumps(model_of({"coins": 1.0}).to_json()), encoding="utf-8")
    state = registry.get_game("stephens").new_game(4, 2)

    def analysis(spec: str):
        bot = make_bot(spec, seed=2)
        bot.choose(state.clone(), random.Random(0))
        return bot.last_analysis.moves, bot.last_analysis.win_probability

    # The same weights from a file search as the game's model; other weights otherwise.
    assert analysis(f"mcts:60:model={copy}") == analysis("mcts:60:v=learned")
    assert analysis(f"mcts:60:v=learned:model={copy}") == analysis("mcts:60:v=learned")
    assert analysis(f"mcts:60:model={coins}") != analysis("mcts:60:v=learned")
    bot = make_bot(f"ismcts:60:model={coins}")
    assert bot.overrides.value_model == str(coins)
    for bad in (f"mcts:60:model={tmp_path / 'missing.json'}", f"uct:60:model={coins}",
                f"mcts:60:v=heuristic:model={coins}", f"mcts:60:model={coins}:model={copy}"):
        with pytest.raises(BotSpecError):
            make_bot(bad)
    not_a_model = tmp_path / "other.json"
    not_a_model.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    with pytest.raises(BotSpecError, match="value model"):
        make_bot(f"mcts:60:model={not_a_model}")
    # A model is its game's: another game's search refuses it.
    with pytest.raises(ValueError, match="fitted for stephens"):
        make_bot(f"mcts:60:model={copy}", seed=1).choose(
            registry.get_game("samara").new_game(1, 2), random.Random(0))


def test_a_learned_search_runs_compiled_and_answers_as_the_python_tree() -> None:
    state = registry.get_game("stephens").new_game(5, 2)
    config = SearchConfig(margin_scale=20.0, playout_depth=20, leaf_value="learned",
                          value_model=config_for("stephens").value_model)
    python = make_tree(state, seed=3, config=config, compiled=False).search(iterations=60)
    tree = make_tree(state, seed=3, config=config)
    assert tree.compiled == (core_module() is not None)
    analysis = tree.search(iterations=60)
    assert analysis.best_move in state.legal_moves()
    assert (analysis.moves, analysis.win_probability, analysis.principal_variation) == \
        (python.moves, python.win_probability, python.principal_variation)


def test_a_model_of_other_features_keeps_a_learned_leaf_in_python() -> None:
    if core_module() is None:
        pytest.skip("the compiled search is not built (or pure Python)")
    state = registry.get_game("oh-my-goods").new_game(5, 2)
    config = SearchConfig(margin_scale=3.0, playout_depth=0, leaf_value="learned",
                          value_model=config_for("stephens").value_model)
    tree = make_tree(state, seed=3, config=config)
    assert not tree.compiled and "features" in tree.python_reason


GAMES = ("samara", "oh-my-goods", "stephens")


@pytest.mark.parametrize("name", GAMES)
def test_each_shipped_model_reads_its_games_declared_features(name: str) -> None:
    model = shipped_model(config_for(name).value_model)
    package = import_module(f"engine.{name.replace('-', '_')}")
    assert model.game == name and model.feature_names == package.FEATURE_NAMES


@pytest.mark.parametrize("name", GAMES)
def test_a_learned_search_of_each_game_runs_compiled_as_the_python_tree(name: str) -> None:
    state = registry.get_game(name).new_game(5, 2)
    play_random_moves(state, 5, 12)
    config = replace(config_for(name), leaf_value="learned")
    python = make_tree(state, seed=3, config=config, compiled=False).search(iterations=80)
    tree = make_tree(state, seed=3, config=config)
    assert tree.compiled == (core_module() is not None)
    analysis = tree.search(iterations=80)
    assert (analysis.moves, analysis.win_probability, analysis.expected_scores) == \
        (python.moves, python.win_probability, python.expected_scores)


def test_a_learned_leaf_plays_random_moves_where_the_game_plays_mast() -> None:
    """v=learned is the model after uniformly random moves, whatever MAST setting the
    game has; Samara, searched with full playouts, values its learned leaf after
    learned_depth moves, and an explicit depth sets both."""
    omg = replace(config_for("oh-my-goods"), leaf_value="learned")
    assert omg.mast_epsilon is not None
    assert omg.evaluator() == LearnedEvaluator(20, shipped_model(omg.value_model))
    samara = replace(config_for("samara"), leaf_value="learned")
    assert samara.playout_depth == 0 and samara.learned_depth == 10
    assert samara.evaluator() == LearnedEvaluator(10, shipped_model(samara.value_model))
    assert samara.overridden(playout_depth=4).evaluator().depth == 4  # type: ignore[attr-defined]
    assert type(replace(config_for("samara"), leaf_value="heuristic").evaluator()).__name__ \
        == "MastEvaluator"
    state = registry.get_game("samara").new_game(1, 2)
    bot = make_bot("mcts:30:v=learned", seed=2)
    bot.choose(state, random.Random(0))
    assert isinstance(bot._tree(state, 1).settings.evaluator, LearnedEvaluator)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="learned_depth"):
        SearchConfig(learned_depth=-1)


def test_a_learned_bot_plays_a_legal_move_reproducibly() -> None:
    state = registry.get_game("stephens").new_game(2, 2)
    first = make_bot("mcts:40:v=learned", seed=1).choose(state.clone(), random.Random(0))
    again = make_bot("mcts:40:v=learned", seed=1).choose(state.clone(), random.Random(0))
    assert first == again and first in state.legal_moves()


def test_the_evaluator_values_a_kernel_twin_as_its_reference() -> None:
    state = registry.get_game("stephens").new_game(6, 2)
    play_random_moves(state, 5, 60)
    model = shipped_model(config_for("stephens").value_model)
    evaluator = LearnedEvaluator(7, model)
    assert evaluator.evaluate(state.clone().search_state(), 11) == \
        evaluator.evaluate(state.clone(), 11)


def test_a_one_seat_game_keeps_the_heuristic_leaf() -> None:
    """A model predicts margins between seats; solo Stephens, with a learned leaf asked
    for, is searched with the heuristic leaf, and two seats with the model."""
    learned = replace(config_for("stephens"), leaf_value="learned")
    assert isinstance(learned.evaluator(2), LearnedEvaluator)
    assert not isinstance(learned.evaluator(1), LearnedEvaluator)
    solo, duel = new_state(seed=3, num_players=1), new_state(seed=3, num_players=2)
    assert not isinstance(make_tree(solo, seed=1, config=learned).settings.evaluator, LearnedEvaluator)
    assert isinstance(make_tree(duel, seed=1, config=learned).settings.evaluator, LearnedEvaluator)
    heuristic = replace(learned, leaf_value="heuristic")
    assert make_tree(solo, seed=1, config=learned).search(60).to_json()["moves"] \
        == make_tree(solo, seed=1, config=heuristic).search(60).to_json()["moves"]


def test_a_model_without_a_level_scores_at_the_heuristics_level() -> None:
    """The model fits margins (no intercept): its values say who leads and by how much;
    a model file of version 1 has no level, and the heuristic says how many points the
    seats are at, so an analysis reports scores in the game's points, not the model's
    bare values."""
    state = new_state(seed=3, num_players=3)
    play_random_moves(state, 5, 60)
    shipped = shipped_model(config_for("stephens").value_model)
    model = ValueModel(shipped.game, shipped.feature_names, shipped.weights)
    assert model.to_json()["version"] == 1 and model.level(state.features()) is None
    scores, values, levels = (learned_scores(model, state), model.values(state.features()),
                              state.heuristic())
    assert sum(scores) / 3 == pytest.approx(sum(levels) / 3)
    for a in range(3):
        for b in range(3):
            assert scores[a] - scores[b] == pytest.approx(values[a] - values[b])
    assert scores != pytest.approx(values)


def test_a_models_level_is_the_seats_mean_score_it_predicts() -> None:
    """With level weights (one per feature over the seats' mean vector, then a
    constant) the scores' mean is the model's level, their differences its margins."""
    state = new_state(seed=3, num_players=3)
    play_random_moves(state, 5, 60)
    vectors = state.features()
    coins, score = FEATURE_NAMES.index("coins"), FEATURE_NAMES.index("score")
    level = [0.0] * (len(FEATURE_NAMES) + 1)
    level[coins], level[score], level[-1] = 2.0, 1.0, 30.0
    model = ValueModel("stephens", FEATURE_NAMES,
                       [1.0 if name == "vp" else 0.0 for name in FEATURE_NAMES],
                       level_weights=level)
    expected = 30.0 + sum(2.0 * v[coins] + v[score] for v in vectors) / 3
    assert model.level(vectors) == pytest.approx(expected)
    scores, values = learned_scores(model, state), model.values(vectors)
    assert sum(scores) / 3 == pytest.approx(expected)
    assert scores[0] - scores[1] == pytest.approx(values[0] - values[1])
    data = json.loads(json.dumps(model.to_json()))
    assert data["version"] == 2 and ValueModel.from_json(data) == model
    assert ValueModel.from_json({**data, "level_weights": None}) != model
    with pytest.raises(ValueError, match="level weights"):
        ValueModel("stephens", FEATURE_NAMES, [0.0] * len(FEATURE_NAMES), level_weights=[1.0])


def test_samaras_learned_search_reports_scores_at_the_final_scores_level() -> None:
    """Samara's heuristic is the present prestige (0 at the opening, where games end
    near 70): its model carries a level, and a learned search from the opening reports
    expected scores near the final ones (it reported 4.7 and 10.5 at the heuristic's)."""
    model = shipped_model(config_for("samara").value_model)
    assert model.level_weights is not None
    state = registry.get_game("samara").new_game(7, 2)
    analysis = make_tree(state, seed=1, config=config_for("samara")).search(iterations=200)
    assert min(analysis.expected_scores) > 40 > max(state.heuristic())
