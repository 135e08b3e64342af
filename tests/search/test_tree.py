"""The one interface of the search trees (engine.search.tree): both trees of a search
answer through it, are built from one TreeSettings, and the search chooses once."""

from __future__ import annotations

import inspect
import random
from typing import Any

import pytest

from engine import registry
from engine.game import Outcome, State, play_random_moves
from engine.search.compiled import compiled_leaf, core_module
from engine.search.config import SearchConfig, config_for
from engine.search.dispatch import make_tree
from engine.search.evaluate import (
    LearnedEvaluator,
    RolloutEvaluator,
    TruncatedPlayoutEvaluator,
)
from engine.search.ismcts import ISMCTS, PythonISMCTSTree
from engine.search.mast import MastEvaluator
from engine.search.mcts import MCTS, PythonMCTSTree
from engine.search.tree import InformationSetTree, SearchTree, Selection, TreeSettings

needs_core = pytest.mark.skipif(core_module() is None, reason="the compiled search is not built")


def _members(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items()
            if inspect.isfunction(value) and not name.startswith("_")]


def _position(name: str, players: int, plies: int) -> State:
    state = registry.new_game(name, plies, players)
    play_random_moves(state, plies, plies)
    assert state.current_player() >= 0
    return state


def _answers(search: MCTS | ISMCTS) -> tuple[Any, ...]:
    tree = search.tree
    return tree.root_statistics(), search.principal_variation()


@pytest.mark.parametrize(("name", "kind"), [("samara", MCTS), ("oh-my-goods", ISMCTS),
                                            ("stephens", ISMCTS)])
def test_the_python_tree_offers_the_interface(name: str, kind: type) -> None:
    search = kind(_position(name, 2, 9), seed=1, compiled=False)
    protocol = SearchTree if kind is MCTS else InformationSetTree
    python_tree = PythonMCTSTree if kind is MCTS else PythonISMCTSTree
    assert type(search.tree) is python_tree and not search.compiled
    search.search(40)
    for member in _members(protocol):
        assert callable(getattr(search.tree, member)), member
    visits, totals, rows = search.tree.root_statistics()
    assert visits == 40 and len(totals) == 4 and sum(n for _m, n, _s in rows) == 40


@needs_core
@pytest.mark.parametrize(("name", "kind"), [("samara", MCTS), ("oh-my-goods", ISMCTS),
                                            ("stephens", ISMCTS)])
def test_the_compiled_tree_offers_the_same_interface(name: str, kind: type) -> None:
    state = _position(name, 2, 9)
    python, compiled = kind(state, seed=4, compiled=False), kind(state, seed=4, compiled=True)
    assert compiled.compiled and not compiled.python_reason
    protocol = SearchTree if kind is MCTS else InformationSetTree
    for member in _members(protocol):
        assert callable(getattr(compiled.tree, member)), member
    python.search(120)
    compiled.search(120)
    assert _answers(python) == _answers(compiled)
    if kind is ISMCTS:
        move = python.principal_variation()[0]
        texts = [search.tree.text_in_context(move, search.tree.child_context(move))
                 for search in (python, compiled)]
        assert texts[0] == texts[1]


@needs_core
def test_both_trees_read_every_setting_from_one_object() -> None:
    """The settings object is all a tree knows: two searches that differ only in one
    field of it grow different trees, and each pair of trees is equal."""
    state = _position("samara", 2, 7)
    answers = []
    for config in (SearchConfig(), SearchConfig(c=3.0), SearchConfig(prior_weight=4.0),
                   SearchConfig(margin_scale=2.0)):
        pair = [make_tree(state, config, seed=2, compiled=flag) for flag in (False, True)]
        assert pair[0].settings == pair[1].settings
        for search in pair:
            search.search(150)
        assert _answers(pair[0]) == _answers(pair[1]), config
        answers.append(_answers(pair[0]))
    assert len({repr(answer) for answer in answers}) == len(answers)


def test_settings_come_from_the_configuration() -> None:
    state = _position("oh-my-goods", 3, 11)
    config = config_for(state).overridden(c=0.4, prior_weight=2.0, margin_scale=None)
    settings = make_tree(state, config, seed=1, root_moves=state.legal_moves()[:1]).settings
    assert isinstance(settings, TreeSettings)
    assert (settings.c, settings.margin_scale, settings.num_players) == (0.4, None, 3)
    assert settings.selection == Selection(2.0, None)
    assert settings.selection.rule == "progressive bias"
    assert Selection().rule == "UCT"
    assert settings.root_moves == tuple(state.legal_moves()[:1])
    assert settings.observer == state.current_player() and settings.width == 9


def test_each_evaluator_describes_its_own_leaf() -> None:
    state = _position("oh-my-goods", 2, 5).search_state()
    assert compiled_leaf(RolloutEvaluator(), state) == ("rollout",)
    assert compiled_leaf(TruncatedPlayoutEvaluator(7), state) == ("truncated", 7)
    learned = config_for("stephens").evaluator(2)
    assert isinstance(learned, LearnedEvaluator)
    leaf = compiled_leaf(learned, state)
    assert leaf is not None and leaf[:2] == ("learned", learned.depth)
    mast = MastEvaluator(0.3, 4)
    leaf = compiled_leaf(mast, state)
    assert leaf is not None and leaf[:3] == ("mast", 0.3, 4)
    assert mast.values is not None  # the table the core will update in place

    class Coin:
        def evaluate(self, state: State, seed: int) -> Outcome:
            return Outcome((1.0, 0.0), (float(random.Random(seed).random() < 0.5), 0.0))

    class Tweaked(RolloutEvaluator):
        def evaluate(self, state: State, seed: int) -> Outcome:
            return Outcome((0.0, 0.0), (0.5, 0.5))

    # A leaf the core does not know keeps the tree in Python, whatever its base class.
    assert compiled_leaf(Coin(), state) is None
    assert compiled_leaf(Tweaked(), state) is None
    samara = _position("samara", 2, 3)
    tree = make_tree(samara, evaluator=Tweaked())
    assert not tree.compiled and type(tree.tree) is PythonMCTSTree
    if core_module() is not None:
        assert "evaluator" in tree.python_reason
