"""A hint's budget is the game's own (engine.search.hints), whatever bots the table has,
and its move is the search's best, never one drawn with a level's temperature."""

from __future__ import annotations

import pytest

from engine import registry
from engine.search.config import config_for
from engine.search.hints import hint_iterations, hint_search
from engine.search.levels import MAX_LEVEL, get_level

GAMES = ("samara", "oh-my-goods", "stephens")


@pytest.mark.parametrize("game", GAMES)
def test_the_hint_budget_is_the_strongest_levels(game: str) -> None:
    """A hint lights the move the strongest level plays: that level's budget, and a level
    that plays the most visited move (docs/api.md, "Hints and reviews")."""
    strongest = get_level(MAX_LEVEL, config_for(game).levels)
    assert hint_iterations(game) == strongest.iterations
    assert strongest.temperature == 0
    # Far above the weakest level's, which is what a hint searched at level 1 before.
    assert hint_iterations(game) >= 10 * get_level(1, config_for(game).levels).iterations


def test_a_hint_answers_the_most_visited_move_at_any_seed() -> None:
    """Never a draw over the visits: with the budget a level-1 bot searches (whose
    level draws at temperature 0.5) the hint is still the most visited move, every seed."""
    state = registry.new_game("samara", seed=3, num_players=2)
    weak = get_level(1, config_for(state).levels)
    for seed in range(8):
        analysis = hint_search(state, seed, weak.iterations)
        most = max(analysis.moves, key=lambda m: m.visits).visits
        best = next(m for m in analysis.moves if m.move == analysis.best_move)
        assert best.visits == most
        assert analysis.iterations == weak.iterations
