"""Every seat's win share per root move comes from the search itself
(``MoveStats.win_probabilities``), the tree's sums over its visits, for MCTS and
ISMCTS alike, and the kernel and the pure-Python engine give the same shares."""

from __future__ import annotations

import pytest

from engine import registry
from engine.game import State
from engine.search import make_tree
from engine.search.mcts import MCTS

from .hidden_toy_games import deal
from .toy_games import race


def _searched(state: State, iterations: int, seed: int):  # type: ignore[no-untyped-def]
    tree = make_tree(state, seed=seed)
    return tree, tree.search(iterations)


@pytest.mark.parametrize("kind, state", [("mcts", race(3, target=12)),
                                         ("ismcts", deal(3, seed=4))],
                         ids=["mcts", "ismcts"])
def test_each_move_carries_every_seats_mean_share(kind: str, state: State) -> None:
    tree, analysis = _searched(state, 300, seed=5)
    assert isinstance(tree, MCTS) == (kind == "mcts")
    stats = tree.root_stats()
    k = stats.num_players
    sums = {move: (n, totals[:k]) for move, n, totals
            in zip(stats.moves, stats.move_visits, stats.move_totals, strict=True)}
    assert len(analysis.moves) > 1
    for m in analysis.moves:
        n, totals = sums[m.move]
        assert m.win_probabilities == tuple(t * (1.0 / n) for t in totals)
        assert m.win_probabilities[analysis.player] == m.win_probability
        assert sum(m.win_probabilities) == pytest.approx(1.0)  # one win shared per playout
        assert m.to_json()["win_probabilities"] == list(m.win_probabilities)


def _shares(game: str, players: int, pure: bool, monkeypatch: pytest.MonkeyPatch
            ) -> list[tuple[str, int, tuple[float, ...]]]:
    with monkeypatch.context() as patch:
        if pure:
            patch.setenv("FURNACE_PURE_PYTHON", "1")
        state = registry.new_game(game, 3, players)
        while state.current_player() < 0:
            state.apply(state.chance_outcomes()[0][0])
        _, analysis = _searched(state, 60, seed=2)
    return [(m.text, m.visits, m.win_probabilities) for m in analysis.moves]


@pytest.mark.parametrize("game", ["samara", "oh-my-goods", "stephens"])
def test_kernel_and_pure_engine_give_the_same_shares(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not registry.get_game(game).kernel_available():
        pytest.skip("kernel not built (or FURNACE_PURE_PYTHON set)")
    kernel = _shares(game, 2, False, monkeypatch)
    pure = _shares(game, 2, True, monkeypatch)
    assert [(text, n) for text, n, _ in kernel] == [(text, n) for text, n, _ in pure]
    for (_, _, a), (_, _, b) in zip(kernel, pure, strict=True):
        assert a == pytest.approx(b, abs=1e-12)
