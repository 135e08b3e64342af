"""``furnace check-search``: the compiled trees proven equal to the Python trees."""

from __future__ import annotations

import pytest

from checks.search import check_search, search_variants
from engine import registry
from engine.game import FurnaceError
from engine.search import SearchConfig, config_for
from engine.search.compiled import core_module
from engine.search.mast import MastEvaluator
from engine.search.move_prior import PriorPlayoutEvaluator

needs_core = pytest.mark.skipif(core_module() is None,
                                reason="the compiled search is not built (or pure Python)")


@needs_core
@pytest.mark.parametrize("name", ["samara", "oh-my-goods"])
def test_the_trees_agree(name: str) -> None:
    report = check_search(registry.get_game(name), positions=8, seed=3, iterations=120)
    assert report["mismatches"] == 0, report["examples"]
    assert report["compared"] >= 6


@needs_core
def test_a_compiled_tree_that_differs_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.search.compiled as compiled

    real = compiled.compiled_leaf

    def full_playouts(evaluator, state):  # the wrong leaf: MAST replaced by random playouts
        spec = real(evaluator, state)
        return ("rollout",) if spec and spec[0] == "mast" else spec

    monkeypatch.setattr(compiled, "compiled_leaf", full_playouts)
    report = check_search(registry.get_game("oh-my-goods"), positions=4, seed=1,
                          iterations=100)
    assert report["mismatches"] >= 1
    assert "Python" in report["examples"][0]
    # The trees' own statistics are compared first, through their one interface.
    assert "root statistics" in report["examples"][0]


def test_the_variants_cover_every_leaf_kind() -> None:
    names = [name for name, _ in search_variants(config_for("oh-my-goods"))]
    assert names[0] == "game settings" and len(set(names)) == len(names) == 9
    for game in ("samara", "oh-my-goods", "stephens"):
        variants = dict(search_variants(config_for(game)))
        learned = variants["learned leaf after MAST playouts"]
        assert learned.leaf_value == "learned" and learned.learned_playouts == "mast"
        assert isinstance(learned.evaluator(2), MastEvaluator)
        prior = variants["learned move prior"]
        assert prior.move_prior_model() is not None and prior.prior_weight == 0.0
        both = variants["move prior and progressive bias"]
        assert both.move_prior_model() is not None and both.prior_weight > 0.0
        playouts = variants["prior playouts"]
        assert isinstance(playouts.evaluator(2), PriorPlayoutEvaluator)
    full = dict(search_variants(config_for("oh-my-goods")))["full random playouts"]
    assert full.playout_depth == 0 and full.mast_epsilon is None
    # a game without a value model or a move prior compares the first four
    assert len(search_variants(SearchConfig())) == 4


def test_bad_arguments_are_refused() -> None:
    game = registry.get_game("samara")
    with pytest.raises(FurnaceError):
        check_search(game, positions=-1, seed=1)
    with pytest.raises(FurnaceError):
        check_search(game, positions=1, seed=1, iterations=0)


def test_without_the_core_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    with pytest.raises(FurnaceError, match="not built"):
        check_search(registry.get_game("samara"), positions=1, seed=1)
