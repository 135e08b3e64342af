"""A bot's choice depends only on what its seat can see (Oh My Goods!)."""

from __future__ import annotations

import random

import pytest

from engine.oh_my_goods import GAME
from engine.search import MctsBot, search_for


def _after_first_hidden_choice(seed: int, players: int):
    """A position where seat 1 is to move and seat 0 has made hidden phase II choices."""
    state = GAME.new_game(seed, players)
    rng = random.Random(seed)
    while state.current_player() == 0:
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    assert state.current_player() == 1
    return state


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (5, 4)])
def test_search_is_blind_to_what_the_seat_cannot_see(seed: int, players: int) -> None:
    state = _after_first_hidden_choice(seed, players)
    other = state.determinize(1, random.Random(99))  # same view, other hidden cards/choices
    assert other.observation(1) == state.observation(1)
    assert other.to_json() != state.to_json()
    hidden = [(p["hand"], p.get("plan"), p.get("work")) for p in state.to_json()["players"][:1]]
    hidden_other = [(p["hand"], p.get("plan"), p.get("work"))
                    for p in other.to_json()["players"][:1]]
    assert hidden != hidden_other  # seat 0's hand or pending choice really differs

    first = search_for(state, iterations=150, seed=4).to_json()
    second = search_for(other, iterations=150, seed=4).to_json()
    first.pop("elapsed")
    second.pop("elapsed")
    assert first == second

    bot_a, bot_b = MctsBot(iterations=80, seed=2), MctsBot(iterations=80, seed=2)
    assert bot_a.choose(state, random.Random(0)) == bot_b.choose(other, random.Random(0))
