"""Search settings per game (engine/search/config.py): lookup, defaults, overrides."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import registry
from engine.game import GameInfo
from engine.search import (
    DEFAULT_C,
    DEFAULT_CONFIG,
    DEFAULT_ISMCTS_C,
    FULL_PLAYOUT,
    GAME_MARGIN,
    SEARCH_CONFIGS,
    SearchConfig,
    TruncatedPlayoutEvaluator,
    config_for,
    make_bot,
    make_tree,
    parallel_search,
    search_for,
)
from engine.search.analysis import build_analysis, merge_root_stats
from engine.search.config import (
    CLASSIC_CONFIGS,
    OH_MY_GOODS_LEVELS,
    SAMARA_LEVELS,
    STEPHENS_LEVELS,
)
from engine.search.ismcts import ISMCTS
from engine.search.levels import LEVELS
from engine.search.mcts import MCTS
from engine.search.parallel import split_iterations, worker_seed

from .hidden_toy_games import deal
from .toy_games import race, rebuild


def _stable(analysis):  # type: ignore[no-untyped-def]
    data = analysis.to_json()
    del data["elapsed"]
    return data


# -- the table and its lookup ---------------------------------------------------------


def test_games_get_their_entry_or_the_defaults() -> None:
    omg = registry.get_game("oh-my-goods")
    samara = registry.get_game("samara")
    assert config_for("oh-my-goods") == SearchConfig(margin_scale=3.0, playout_depth=20,
                                                     mast_epsilon=0.3,
                                                     levels=OH_MY_GOODS_LEVELS,
                                                     value_model=(
                                                         "engine.oh_my_goods:value-model.json"),
                                                     move_prior=(
                                                         "engine.oh_my_goods:move-prior.json"))
    assert config_for(omg.info) is config_for(omg.new_game(1, 2)) is config_for("oh-my-goods")
    assert config_for(samara.info) == SearchConfig(
        c=0.7, mast_epsilon=0.3, levels=SAMARA_LEVELS, leaf_value="learned",
        learned_margin_scale=5.0, value_model="engine.samara:value-model.json",
        learned_depth=10, move_prior="engine.samara:move-prior.json")
    assert config_for("stephens") == SearchConfig(
        margin_scale=20.0, playout_depth=20, levels=STEPHENS_LEVELS, leaf_value="learned",
        value_model="engine.stephens:value-model.json",
        move_prior="engine.stephens:move-prior.json")
    for name in ("oh-my-goods", "samara", "stephens"):
        # shipped, off: the default search is the classic one
        assert config_for(name).move_prior_model() is None
        assert dataclasses.replace(config_for(name), move_prior=None) == CLASSIC_CONFIGS[name]
    assert config_for("a-game-nobody-made") is DEFAULT_CONFIG
    assert DEFAULT_CONFIG == SearchConfig(margin_scale=None, playout_depth=0, c=None,
                                          levels=LEVELS)
    assert DEFAULT_CONFIG.evaluator() is FULL_PLAYOUT
    assert SearchConfig(playout_depth=12).evaluator() == TruncatedPlayoutEvaluator(12)


def test_the_margin_scale_left_game_info() -> None:
    assert "score_margin_scale" not in {f.name for f in dataclasses.fields(GameInfo)}
    for name in ("samara", "oh-my-goods"):
        assert not hasattr(registry.get_game(name).info, "score_margin_scale")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"margin_scale": 0}, "margin_scale"),
        ({"margin_scale": -1.0}, "margin_scale"),
        ({"margin_scale": float("inf")}, "margin_scale"),
        ({"margin_scale": "5"}, "margin_scale"),
        ({"playout_depth": -1}, "playout_depth"),
        ({"playout_depth": 2.5}, "playout_depth"),
        ({"playout_depth": None}, "playout_depth"),
        ({"c": -0.1}, "c must"),
        ({"c": float("nan")}, "c must"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig(**kwargs)  # type: ignore[arg-type]


def test_overrides() -> None:
    base = SearchConfig(margin_scale=5, playout_depth=30, c=0.9)
    assert base.margin_scale == 5.0 and isinstance(base.margin_scale, float)
    assert base.overridden() is base
    assert base.overridden(margin_scale=None) == SearchConfig(None, 30, 0.9)
    assert base.overridden(margin_scale=2.0, playout_depth=0) == SearchConfig(2.0, 0, 0.9)
    with pytest.raises(ValueError, match="margin_scale"):
        base.overridden(margin_scale="yes")
    with pytest.raises(ValueError, match="playout_depth"):
        base.overridden(playout_depth=-3)


def test_a_learned_leaf_is_searched_at_its_own_margin_scale() -> None:
    """learned_margin_scale is the margin scale of a search whose leaves the model
    values: not of a heuristic leaf's, not of a one-seat game's (which keeps the
    heuristic leaf), and a caller's scale sets both."""
    learned = SearchConfig(None, 10, leaf_value="learned", value_model="engine.samara:value-model.json",
                           learned_margin_scale=5)
    assert learned.learned_margin_scale == 5.0
    resolved = learned.overridden(num_players=2)
    assert (resolved.margin_scale, resolved.learned_margin_scale) == (5.0, None)
    assert resolved.overridden(num_players=2) == resolved
    assert learned.overridden(num_players=1).margin_scale is None
    heuristic = dataclasses.replace(learned, leaf_value="heuristic")
    assert heuristic.overridden(num_players=2).margin_scale is None
    for given in (None, 2.0):
        assert learned.overridden(margin_scale=given, num_players=2).margin_scale == given
    state = registry.new_game("samara", 1, 2)
    assert make_tree(state, config=learned).settings.margin_scale == 5.0
    win_share = learned.overridden(margin_scale=None)
    assert make_tree(state, config=win_share).settings.margin_scale is None
    assert make_tree(state, config=heuristic).settings.margin_scale is None
    with pytest.raises(ValueError, match="learned_margin_scale"):
        SearchConfig(learned_margin_scale=0)


# -- the trees pick it up --------------------------------------------------------------


def test_trees_read_their_games_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    omg = registry.new_game("oh-my-goods", 4, 2)
    assert make_tree(omg).settings.margin_scale == 3.0
    samara = make_tree(registry.new_game("samara", 4, 2)).settings
    assert (samara.margin_scale, samara.c) == (5.0, 0.7)  # its learned leaf's margin scale
    mast = make_tree(registry.new_game("samara", 4, 2),
                     config=dataclasses.replace(config_for("samara"), leaf_value="heuristic"))
    assert mast.settings.margin_scale is None
    # a toy game without an entry, then with one
    assert (make_tree(race(2, 20, 3)).settings.c, make_tree(deal(2, seed=1)).settings.c) == (
        DEFAULT_C, DEFAULT_ISMCTS_C)
    monkeypatch.setitem(SEARCH_CONFIGS, "toy-race", SearchConfig(1.5, 6, 0.3))
    tree = make_tree(race(2, 20, 3))
    assert isinstance(tree, MCTS)
    settings = tree.settings
    assert (settings.margin_scale, settings.evaluator, settings.c) == (
        1.5, TruncatedPlayoutEvaluator(6), 0.3)
    # a caller's settings win over the entry
    own = config_for("toy-race").overridden(c=2.0, margin_scale=None, playout_depth=0)
    settings = make_tree(race(2, 20, 3), own).settings
    assert (settings.margin_scale, settings.evaluator, settings.c) == (None, FULL_PLAYOUT, 2.0)
    settings = MCTS(race(2, 20, 3), config=DEFAULT_CONFIG).settings
    assert (settings.margin_scale, settings.evaluator, settings.c) == (
        None, FULL_PLAYOUT, DEFAULT_C)
    forced = ISMCTS(race(2, 20, 3)).settings  # ISMCTS on the same game: the same entry
    assert (forced.margin_scale, forced.evaluator, forced.c) == (
        1.5, TruncatedPlayoutEvaluator(6), 0.3)


def test_bots_read_their_games_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    state = race(2, 30, 3)
    plain = make_bot("mcts:200", seed=3)
    plain.choose(state, random.Random(0))
    assert plain.last_analysis is not None  # type: ignore[attr-defined]
    full = _stable(plain.last_analysis)  # type: ignore[attr-defined]
    monkeypatch.setitem(SEARCH_CONFIGS, "toy-race", SearchConfig(playout_depth=3))
    truncated = make_bot("mcts:200", seed=3)
    truncated.choose(state, random.Random(0))
    assert _stable(truncated.last_analysis) != full  # type: ignore[attr-defined]
    expected = search_for(state, iterations=200, seed=random.Random(3).getrandbits(63))
    assert _stable(truncated.last_analysis) == _stable(expected)  # type: ignore[attr-defined]
    # d=0 in the spec: full playouts again, whatever the entry says
    overridden = make_bot("mcts:200:d=0", seed=3)
    overridden.choose(state, random.Random(0))
    assert _stable(overridden.last_analysis) == full  # type: ignore[attr-defined]


def test_the_search_never_branches_on_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # Oh My Goods!' settings under another name give the same search as its own name.
    omg = registry.new_game("oh-my-goods", 6, 2)
    own = search_for(omg, iterations=40, seed=5)
    monkeypatch.setitem(SEARCH_CONFIGS, "oh-my-goods", DEFAULT_CONFIG)
    assert _stable(search_for(omg, iterations=40, seed=5)) != _stable(own)
    assert _stable(search_for(omg, iterations=40, seed=5,
                              config=SearchConfig(margin_scale=3.0, playout_depth=20,
                                                  mast_epsilon=0.3))) == _stable(own)


def test_the_moved_margin_gives_the_same_search() -> None:
    """Oh My Goods!' margin scale, read from the search configuration, steers the
    search exactly as the same explicit ``margin_scale`` does."""
    omg = registry.new_game("oh-my-goods", 6, 2)
    default = search_for(omg, iterations=40, seed=5)
    explicit = ISMCTS(omg, config=SearchConfig(mast_epsilon=0.3).overridden(
        margin_scale=3.0, playout_depth=20), seed=5).search(40)
    assert _stable(default) == _stable(explicit)
    win_share = ISMCTS(omg, config=config_for(omg).overridden(margin_scale=None),
                       seed=5).search(40)
    game_margin = config_for(omg).overridden(margin_scale=GAME_MARGIN)
    assert ISMCTS(omg, config=game_margin).settings.margin_scale == 3.0
    bot = make_bot("ismcts:40:m=5")
    assert bot.overrides.margin_scale == 5.0  # type: ignore[attr-defined]
    assert bot._tree(omg, 0).settings.margin_scale == 5.0  # type: ignore[attr-defined]
    assert _stable(win_share) != _stable(default)


def test_parallel_search_hands_the_settings_to_its_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The entry exists only in this process: spawned workers see it because
    # parallel_search sends it along.
    config = SearchConfig(playout_depth=3, margin_scale=2.0)
    monkeypatch.setitem(SEARCH_CONFIGS, "toy-race", config)
    state = race(2, 40, 3)
    merged = parallel_search(state, 2, iterations=300, seed=7, rebuild=rebuild)
    parts = []
    for i, share in enumerate(split_iterations(300, 2)):
        tree = make_tree(state, config, seed=worker_seed(7, i))
        tree.search(share)
        parts.append(tree.root_stats())
    expected = build_analysis(state, merge_root_stats(parts))
    assert [(m.move, m.visits) for m in merged.moves] == [
        (m.move, m.visits) for m in expected.moves]
    assert merged.expected_scores == pytest.approx(expected.expected_scores)
    one = parallel_search(state, 1, iterations=300, seed=7)
    assert _stable(one) == _stable(search_for(state, iterations=300, seed=7))
