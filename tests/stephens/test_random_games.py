"""Seeded random games never dead-end: they end with valid scores, and every position
on the way passes the protocol checks and the game's own audit (21 disks per player
accounted for, at most 3 contracts to fulfil, the placement rule, influence within
its cap, every card in one place, JSON round trip, legal moves agreeing with
``why_illegal``).  The full run is ``furnace check-games stephens --players N
--games 1000``; this is a bounded one."""

from __future__ import annotations

import random

import pytest

from engine.stephens.rules import StephensGame
from engine.stephens.state import StephensState
from furnace_cli.checkgames import check_one_game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_with_every_position_sound(players: int) -> None:
    for seed in (11, 12):
        result = check_one_game("stephens", players, seed)
        assert result["problems"] == [], result["problems"][:5]
        assert result["finished"] and len(result["scores"]) == players
        assert 100 < result["plies"] < 1000


def test_the_audit_finds_what_is_wrong() -> None:
    state = StephensGame().new_game(seed=2, num_players=2)
    rng = random.Random(2)
    for _ in range(60):
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    assert state.audit() == []
    broken: StephensState = state.clone()
    broken.players[0].unlocked = [0] * len(broken.catalogue.disks)
    broken.players[1].influence = 30
    broken.players[1].contracts = [broken.contract_deck.pop() for _ in range(3)] + [
        broken.contract_display[0]]  # also still on the display
    broken.touched()
    problems = broken.audit()
    assert any(p.startswith("P1:") and "disks" in p for p in problems)
    assert any("P2: influence 30 outside" in p for p in problems)
    assert any("P2 holds 4 contracts" in p for p in problems)
    assert any(p.startswith("contracts:") for p in problems)
