"""A bot's choice depends only on what its seat can see (Oh My Goods!)."""

from __future__ import annotations

import random

import pytest

from engine.oh_my_goods import GAME
from engine.search import GreedyBot, MctsBot, search_for


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


def _positions(seed: int, players: int, every: int = 7, plies: int = 160):
    """Positions of a seeded random game, every ``every`` plies."""
    state = GAME.new_game(seed, players)
    rng = random.Random(seed)
    for ply in range(plies):
        if state.is_terminal():
            return
        if ply % every == 0:
            yield state.clone()
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (3, 3), (4, 4)])
def test_greedy_bot_ignores_what_its_seat_cannot_see(seed: int, players: int) -> None:
    """Issue 8, item 1: greedy scored moves on the true state, opponents' plans included."""
    bot = GreedyBot()
    for state in _positions(seed, players):
        me = state.current_player()
        for k in range(3):
            other = state.determinize(me, random.Random(k))
            assert bot.choose(other, random.Random(5)) == bot.choose(state, random.Random(5))


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (6, 4)])
def test_a_seats_board_shows_only_what_it_sees(seed: int, players: int) -> None:
    """Issue 8, item 2: the bare hand size told whether an opponent planned a card."""
    for state in _positions(seed, players, every=3):
        for seat in range(players):
            for k in range(2):
                other = state.determinize(seat, random.Random(k))
                assert other.render(seat) == state.render(seat)
        # the host (no observer) sees every hand but not the deck order or the future
        assert state.determinize(None, random.Random(1)).render() == state.render()
