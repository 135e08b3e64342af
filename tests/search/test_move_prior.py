"""Learned move priors (:mod:`engine.search.move_prior`): the model, its rows, its effect on
both trees (Python and compiled alike), the settings and bot options, and the ``classic``
spec that keeps today's search."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import pytest

from engine import registry
from engine.game import CHANCE, TERMINAL, State
from engine.search import make_tree
from engine.search.bots import BotSpecError, ClassicBot, make_bot
from engine.search.compiled import core_module
from engine.search.config import (
    CLASSIC_CONFIGS,
    SEARCH_CONFIGS,
    SearchConfig,
    classic_config,
    config_for,
)
from engine.search.move_prior import (
    PriorModel,
    PriorPlayoutEvaluator,
    move_bias,
    move_rows,
    seat_row,
    softmax,
)
from engine.search.tree import Selection


def _names(game: str) -> tuple[str, ...]:
    import importlib

    package = importlib.import_module(f"engine.{game.replace('-', '_')}")
    return tuple(package.FEATURE_NAMES)


def _prior_file(tmp_path: Path, game: str, weights: list[float] | None = None,
                seed: int = 5, name: str = "prior") -> str:
    """A prior file (a file is read once per process: each model gets its own name)."""
    names = _names(game)
    rng = random.Random(seed)
    model = PriorModel(game, names, weights or [rng.uniform(-0.5, 0.5) for _ in names])
    path = tmp_path / f"{name}-{game}.json"
    path.write_text(json.dumps(model.to_json()), encoding="utf-8")
    return str(path)


def _position(game: str, players: int, seed: int, plies: int) -> State:
    state = registry.get_game(game).new_game(seed, players, None)
    rng = random.Random(seed)
    for _ in range(plies):
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.apply(rng.choice([m for m, _ in state.chance_outcomes()]))
            continue
        state.apply(rng.choice(state.legal_moves()))
    assert state.current_player() >= 0
    return state


#: The compiled tree against the Python one: nothing to compare on the pure-Python path.
needs_compiled = pytest.mark.skipif(core_module() is None,
                                    reason="the compiled search is not built (or pure Python)")


def _visits(analysis) -> list[tuple[int, int, tuple[float, ...]]]:
    return [(m.move, m.visits, m.expected_scores) for m in analysis.moves]


# -- the model ------------------------------------------------------------------------------
def test_a_prior_round_trips_and_rejects_what_is_no_prior() -> None:
    model = PriorModel("samara", ("a", "b"), (0.5, -1.0), {"seed": 3})
    again = PriorModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again == model and again.meta == {"seed": 3}
    with pytest.raises(ValueError, match="furnace-move-prior"):
        PriorModel.from_json({"format": "furnace-value-model", "version": 1})
    with pytest.raises(ValueError, match="2 weights for 3 features"):
        PriorModel("samara", ("a", "b", "c"), (1.0, 2.0))
    with pytest.raises(ValueError, match="finite"):
        PriorModel("samara", ("a",), (math.nan,))
    with pytest.raises(ValueError, match="a row of 1 features"):
        model.logit((1.0,))


def test_a_logit_is_clipped_so_that_no_probability_overflows() -> None:
    model = PriorModel("toy", ("x",), (1.0,))
    assert model.logit((1e6,)) == 30.0 and model.logit((-1e6,)) == -30.0
    assert sum(softmax([30.0, -30.0, 0.0])) == pytest.approx(1.0)


def test_a_row_is_the_movers_features_less_the_others_mean() -> None:
    vectors = [[1.0, 2.0], [3.0, 6.0], [5.0, 4.0]]
    assert seat_row(vectors, 0) == [1.0 - 4.0, 2.0 - 5.0]
    assert seat_row(vectors, 2) == [5.0 - 2.0, 4.0 - 4.0]
    assert seat_row([[7.0, 1.0]], 0) == [7.0, 1.0]  # a lone seat: its own features


def test_move_rows_leave_the_position_as_it_was() -> None:
    state = _position("samara", 2, 3, 6)
    before = state.to_json()
    moves = state.legal_moves()[:4]
    rows = move_rows(state, state.current_player(), moves)
    assert state.to_json() == before and len(rows) == len(moves)
    for move, row in zip(moves, rows, strict=True):
        after = state.clone()
        after.apply(move)
        assert row == seat_row(after.features(), state.current_player())


# -- the trees -----------------------------------------------------------------------------
@needs_compiled
@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("oh-my-goods", 2),
                                               ("oh-my-goods", 3), ("stephens", 2)])
def test_a_prior_search_runs_compiled_as_the_python_tree(tmp_path, game, players) -> None:
    path = _prior_file(tmp_path, game)
    for seed, heuristic_weight in ((1, 0.0), (2, 1.0)):
        state = _position(game, players, seed, 15 + 7 * seed)
        config = replace(config_for(game), move_prior=path, move_prior_weight=3.0,
                         prior_weight=heuristic_weight)
        tree = make_tree(state, config, seed=seed)
        python = make_tree(state, config, seed=seed, compiled=False)
        assert not python.compiled
        assert tree.compiled, tree.python_reason
        assert _visits(tree.search(iterations=200)) == _visits(python.search(iterations=200))


def test_a_prior_leads_the_search_to_the_moves_it_favours(tmp_path) -> None:
    """A prior that loves a large hand against one that hates it: the same search with
    the same seed spends its visits otherwise, towards the moves each prior favours."""
    names = _names("oh-my-goods")
    hand = names.index("hand")
    loves = [0.0] * len(names)
    loves[hand] = 4.0
    hates = [0.0] * len(names)
    hates[hand] = -4.0
    for plies in range(60):  # the first position whose moves leave hands of two sizes
        state = _position("oh-my-goods", 2, 4, plies)
        player = state.current_player()
        moves = state.legal_moves()
        world = state.determinize(player, random.Random(1)).search_state()
        sizes = [row[hand] for row in move_rows(world, player, moves)]
        larger = {m for m, size in zip(moves, sizes, strict=True) if size == max(sizes)}
        if len(larger) < len(moves):
            break
    assert 0 < len(larger) < len(moves)

    def share(weights: list[float]) -> float:
        path = _prior_file(tmp_path, "oh-my-goods", weights, name=f"hand{weights[hand]}")
        config = replace(config_for("oh-my-goods"), move_prior=path, move_prior_weight=20.0)
        analysis = make_tree(state, config, seed=7).search(iterations=300)
        return sum(m.visits for m in analysis.moves if m.move in larger) / 300

    plain = make_tree(state, config_for("oh-my-goods"), seed=7).search(iterations=300)
    neutral = sum(m.visits for m in plain.moves if m.move in larger) / 300
    assert share(loves) > neutral > share(hates)


def test_the_tree_keeps_exp_of_the_logit_per_child() -> None:
    state = _position("samara", 2, 2, 5)
    model = PriorModel("samara", _names("samara"), [0.1] * len(_names("samara")))
    after = state.clone()
    after.apply(state.legal_moves()[0])
    row = seat_row(after.features(), state.current_player())
    assert move_bias(model, after, state.current_player()) == math.exp(model.logit(row))


def test_the_selection_rule_names_the_prior() -> None:
    model = PriorModel("samara", ("a",), (1.0,))
    assert Selection().rule == "UCT"
    assert Selection(move_weight=2.0, move_prior=model).rule.endswith("(learned move prior)")
    assert Selection(move_weight=2.0).move_bias == 0.0  # no model: no bias
    assert Selection(move_weight=0.0, move_prior=model).move_bias == 0.0


def test_a_prior_of_other_features_keeps_the_tree_in_python(tmp_path) -> None:
    if core_module() is None:
        pytest.skip("the compiled search is not built (or pure Python)")
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(PriorModel("samara", ("x",) * 3, (0.1,) * 3).to_json()))
    config = replace(config_for("samara"), move_prior=str(path), move_prior_weight=1.0)
    tree = make_tree(_position("samara", 2, 1, 4), config, seed=1)
    assert not tree.compiled and "move prior of 3 features" in tree.python_reason


# -- settings and bot specs -----------------------------------------------------------------
def test_the_settings_check_the_weight() -> None:
    with pytest.raises(ValueError, match="move_prior_weight"):
        SearchConfig(move_prior_weight=-1.0)
    assert SearchConfig(move_prior="x.json").move_prior_model() is None  # weight 0: off


def test_bot_options_mp_and_mpw(tmp_path) -> None:
    path = _prior_file(tmp_path, "oh-my-goods")
    state = _position("oh-my-goods", 2, 1, 3)
    bot = make_bot(f"mcts:50:mp={path}")
    config = bot._config(state)  # type: ignore[attr-defined]
    assert config.move_prior == path and config.move_prior_weight == 1.0
    config = make_bot(f"mcts:50:mp={path}:mpw=4")._config(state)  # type: ignore[attr-defined]
    assert config.move_prior_weight == 4.0
    assert make_bot("mcts:50:mp=off")._config(state).move_prior is None  # type: ignore[attr-defined]
    for spec, message in ((f"mcts:mpw=-1:mp={path}", "mpw= needs"),
                          ("mcts:mp=/no/such/prior.json", "mp= needs a move prior"),
                          ("uct:mp=off", "baseline has no prior"),
                          ("uct:mpw=1", "baseline has no prior")):
        with pytest.raises(BotSpecError, match=message):
            make_bot(spec)
    other = _prior_file(tmp_path, "samara")
    with pytest.raises(ValueError, match="fitted for samara, not oh-my-goods"):
        make_bot(f"mcts:20:mp={other}").choose(state, random.Random(1))


def test_classic_is_the_search_of_2026_11_30() -> None:
    """The classic settings never move: each game's entry as it stood."""
    samara = CLASSIC_CONFIGS["samara"]
    assert (samara.c, samara.mast_epsilon, samara.leaf_value, samara.learned_margin_scale,
            samara.value_model, samara.learned_depth) == \
        (0.7, 0.3, "learned", 5.0, "engine.samara:value-model.json", 10)
    omg = CLASSIC_CONFIGS["oh-my-goods"]
    assert (omg.margin_scale, omg.playout_depth, omg.mast_epsilon, omg.leaf_value) == \
        (3.0, 20, 0.3, "heuristic")
    stephens = CLASSIC_CONFIGS["stephens"]
    assert (stephens.margin_scale, stephens.playout_depth, stephens.leaf_value,
            stephens.value_model) == (20.0, 20, "learned", "engine.stephens:value-model.json")
    for config in CLASSIC_CONFIGS.values():
        assert config.move_prior is None and config.move_prior_weight == 0.0
        assert config.prior_weight == 0.0
    assert classic_config("chess") == SearchConfig()


def test_a_classic_bot_searches_with_the_classic_settings(monkeypatch) -> None:
    state = _position("samara", 2, 1, 4)
    monkeypatch.setitem(SEARCH_CONFIGS, "samara", replace(SEARCH_CONFIGS["samara"], c=3.0))
    bot = make_bot("classic:30", seed=1)
    assert isinstance(bot, ClassicBot) and bot.name == "classic:30"
    assert bot._config(state).c == 0.7  # type: ignore[attr-defined]
    assert make_bot("classic:30:c=1.5")._config(state).c == 1.5  # type: ignore[attr-defined]
    first = make_bot("classic:t=5:i=40", seed=2).choose(state, random.Random(0))
    assert first == make_bot("classic:40", seed=2).choose(state, random.Random(0))


# -- prior playouts --------------------------------------------------------------------------
@needs_compiled
@pytest.mark.parametrize(("game", "players"), [("oh-my-goods", 2), ("oh-my-goods", 3),
                                               ("samara", 2), ("stephens", 2)])
def test_prior_playouts_run_compiled_as_the_python_tree(tmp_path, game, players) -> None:
    path = _prior_file(tmp_path, game)
    for seed, (weight, epsilon) in enumerate(((0.0, 0.2), (2.0, 0.0), (1.0, 1.0))):
        state = _position(game, players, seed, 12 + 9 * seed)
        config = replace(config_for(game), leaf_value="heuristic", move_prior=path,
                         move_prior_weight=weight, prior_playouts=epsilon,
                         playout_depth=12)
        tree = make_tree(state, config, seed=seed)
        python = make_tree(state, config, seed=seed, compiled=False)
        assert isinstance(python.settings.evaluator, PriorPlayoutEvaluator)
        assert tree.compiled, tree.python_reason
        assert _visits(tree.search(iterations=120)) == _visits(python.search(iterations=120))


def test_a_prior_playout_plays_the_moves_the_prior_likes() -> None:
    """With no uniform moves, a prior that loves a large hand keeps cards where one that
    hates it plays them; the same seed gives the same playout."""
    names = _names("oh-my-goods")
    hand = names.index("hand")
    state = _position("oh-my-goods", 2, 3, 4)

    def hands(weight: float) -> float:
        weights = [0.0] * len(names)
        weights[hand] = weight
        evaluator = PriorPlayoutEvaluator(12, PriorModel("oh-my-goods", names, weights), 0.0)
        total = 0.0
        for seed in range(20):
            world = state.clone()
            evaluator.evaluate(world, seed)
            total += sum(len(p.hand) for p in world.players)  # type: ignore[attr-defined]
        return total

    assert hands(5.0) > hands(0.0) > hands(-5.0)
    evaluator = PriorPlayoutEvaluator(12, PriorModel("oh-my-goods", names, [0.1] * 11), 0.3)
    first, second = state.clone(), state.clone()
    assert evaluator.evaluate(first, 9) == evaluator.evaluate(second, 9)
    assert first.to_json() == second.to_json()
    with pytest.raises(ValueError, match="positive depth"):
        PriorPlayoutEvaluator(0, evaluator.model, 0.1)


def test_the_bot_option_pp(tmp_path) -> None:
    path = _prior_file(tmp_path, "oh-my-goods")
    state = _position("oh-my-goods", 2, 1, 3)
    config = make_bot(f"mcts:20:mp={path}:pp=0.25")._config(state)  # type: ignore[attr-defined]
    assert config.prior_playouts == 0.25
    assert isinstance(config.evaluator(2), PriorPlayoutEvaluator)
    config = make_bot(f"mcts:20:mp={path}:pp=off")._config(state)  # type: ignore[attr-defined]
    assert config.prior_playouts is None
    with pytest.raises(BotSpecError, match="pp= needs"):
        make_bot(f"mcts:mp={path}:pp=2")
    with pytest.raises(ValueError, match="need a move prior"):
        make_bot("mcts:20:mp=off:pp=0.1")._config(state)  # type: ignore[attr-defined]
    shipped = make_bot("mcts:20:pp=0.1")._config(state)  # type: ignore[attr-defined]
    assert shipped.move_prior == "engine.oh_my_goods:move-prior.json"
    assert isinstance(shipped.evaluator(2), PriorPlayoutEvaluator)
    # with a learned leaf the model values the leaf after its own random moves
    samara = _position("samara", 2, 1, 3)
    other = _prior_file(tmp_path, "samara")
    config = make_bot(f"mcts:20:mp={other}:pp=0.1")._config(samara)  # type: ignore[attr-defined]
    assert not isinstance(config.evaluator(2), PriorPlayoutEvaluator)
