"""The compiled search trees (ext/search_core.pyx) against the Python trees, the oracle."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.game import play_random_moves
from engine.registry import new_game
from engine.search import make_tree
from engine.search.compiled import core_module
from engine.search.evaluate import TruncatedPlayoutEvaluator
from engine.search.ismcts import ISMCTS

needs_core = pytest.mark.skipif(core_module() is None,
                                reason="the compiled search is not built (or pure Python)")

POSITIONS = [("samara", 2, 11), ("samara", 4, 40), ("oh-my-goods", 2, 30),
             ("oh-my-goods", 4, 75), ("stephens", 2, 25), ("stephens", 3, 90)]


def _position(name: str, players: int, plies: int):
    state = new_game(name, seed=plies, num_players=players)
    play_random_moves(state, plies, plies)
    assert state.current_player() >= 0
    return state


@needs_core
@pytest.mark.parametrize(("name", "players", "plies"), POSITIONS)
def test_both_trees_grow_the_same_tree(name: str, players: int, plies: int) -> None:
    state = _position(name, players, plies)
    python = make_tree(state, seed=5, compiled=False)
    compiled = make_tree(state, seed=5, compiled=True)
    assert compiled.compiled and not python.compiled
    a = python.search(iterations=400)
    b = compiled.search(iterations=400)
    assert a.moves == b.moves and a.best_move == b.best_move
    assert a.win_probability == b.win_probability
    assert a.expected_scores == b.expected_scores
    assert a.principal_variation_moves == b.principal_variation_moves
    # Draw for draw: the compiled generator ends where random.Random does.
    assert compiled.tree.generator_state()[1] == python.rng.getstate()[1]
    # A second search call keeps growing the same tree on both.
    assert python.search(iterations=50).moves == compiled.search(iterations=50).moves


@needs_core
def test_the_mast_table_learns_the_same_values() -> None:
    state = _position("oh-my-goods", 3, 20)
    python = make_tree(state, seed=9, compiled=False)
    compiled = make_tree(state, seed=9)
    python.search(iterations=300)
    compiled.search(iterations=300)
    assert np.array_equal(python.settings.evaluator.values, compiled.settings.evaluator.values)
    assert np.array_equal(python.settings.evaluator.counts, compiled.settings.evaluator.counts)


@needs_core
def test_availability_is_counted_alike() -> None:
    state = _position("oh-my-goods", 2, 12)
    python = ISMCTS(state, seed=3, compiled=False)
    compiled = ISMCTS(state, seed=3, compiled=True)
    python.search(iterations=300)
    compiled.search(iterations=300)
    for move in state.legal_moves():
        assert python.availability(move) == compiled.availability(move)
    with pytest.raises(KeyError):
        compiled.availability(-12345)


@needs_core
def test_one_node_per_iteration_and_no_python_objects_per_node() -> None:
    state = _position("stephens", 2, 30)
    tree = ISMCTS(state, seed=1, compiled=True)
    tree.search(iterations=500)
    assert tree.tree.nodes <= 501
    assert tree.tree.node_bytes > 0


@needs_core
@pytest.mark.parametrize(("name", "players", "plies"), POSITIONS[:4])
def test_truncated_playouts_run_compiled_in_every_kernel(name: str, players: int,
                                                         plies: int) -> None:
    """Samara's and Oh My Goods!' kernels stop a playout after so many moves too."""
    state = _position(name, players, plies)
    python = make_tree(state, seed=5, compiled=False, evaluator=TruncatedPlayoutEvaluator(6))
    compiled = make_tree(state, seed=5, compiled=True, evaluator=TruncatedPlayoutEvaluator(6))
    a, b = python.search(iterations=200), compiled.search(iterations=200)
    assert (a.moves, a.win_probability, a.expected_scores) == \
        (b.moves, b.win_probability, b.expected_scores)


@needs_core
def test_compiled_true_says_why_it_cannot_run() -> None:
    samara = _position("samara", 2, 5)

    class Coin:
        def evaluate(self, state, seed):
            return state.rollout(seed)

    with pytest.raises(ValueError, match="does not know the evaluator"):
        make_tree(samara, compiled=True, evaluator=Coin())
    # None falls back to the Python tree with the same reason.
    tree = make_tree(samara, evaluator=Coin())
    assert not tree.compiled and "evaluator" in tree.python_reason


@needs_core
def test_checked_determinizations_keep_the_python_tree() -> None:
    state = _position("oh-my-goods", 2, 8)
    assert not ISMCTS(state, check_determinizations=True).compiled
    with pytest.raises(ValueError, match="determinizations are checked"):
        ISMCTS(state, check_determinizations=True, compiled=True)


@needs_core
def test_the_switch_keeps_every_tree_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _position("samara", 3, 9)
    monkeypatch.setenv("FURNACE_PYTHON_TREE", "1")
    tree = make_tree(state)
    assert not tree.compiled and "FURNACE_PYTHON_TREE" in tree.python_reason
    assert make_tree(state, compiled=True).compiled  # an explicit request still wins


def test_without_a_kernel_the_tree_is_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    state = new_game("samara", seed=1, num_players=2)
    tree = make_tree(state)
    assert not tree.compiled
    with pytest.raises(ValueError, match="no compiled MCTS"):
        make_tree(state, compiled=True)


@needs_core
def test_generator_state_matches_random_for_many_seeds() -> None:
    # The compiled tree loads random.Random(seed)'s state and steps it in C.
    state = _position("samara", 2, 3)
    for seed in (0, 1, 2**40 + 7, None):
        tree = make_tree(state, seed=seed, compiled=True)
        before = tree.rng.getstate()
        assert tree.tree.generator_state()[1] == before[1]
        tree.search(iterations=20)
        copy = random.Random()
        copy.setstate(tree.tree.generator_state())
        # The Python generator was not advanced: the compiled one holds the stream.
        assert tree.rng.getstate() == before
        assert isinstance(copy.random(), float)
