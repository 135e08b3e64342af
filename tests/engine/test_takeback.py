"""engine.takeback: ``undo`` goes back to exactly the position before the seat's last
move, deals and all, and refuses when the moves taken back showed the seat anything
hidden."""

from __future__ import annotations

import random

import pytest

from engine import records, registry
from engine.records import GameRecord
from engine.takeback import TakeBackRefused, reveals, take_back


@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("oh-my-goods", 2),
                                               ("oh-my-goods", 3), ("stephens", 2),
                                               ("stephens", 1)])
def test_a_take_back_is_the_earlier_position_and_its_deals(game: str, players: int) -> None:
    state = registry.get_game(game).new_game(7, players)
    record = GameRecord(game, players, seed=7)
    rng = random.Random(3)
    before_own: dict[int, dict] = {}  # the position before each of seat 0's moves
    taken = refused = 0
    for _ in range(90):
        if state.is_terminal():
            break
        if state.current_player() == 0 and record.moves:
            try:
                back = take_back(record, 0)
            except TakeBackRefused as exc:
                refused += 1
                assert "cannot be taken back" in str(exc)
            else:
                taken += 1
                cut = len(back.record.moves)
                assert back.record.moves == record.moves[:cut]
                assert back.state.to_json() == before_own[cut]
                assert back.state.current_player() == 0
                # The moves taken back, played again, deal what they dealt: the same game.
                again = records.replay_from(back.state.clone(), record.moves[cut:])
                assert again.to_json() == state.to_json()
        if state.current_player() == 0:
            before_own[len(record.moves)] = state.to_json()
        move = rng.choice(state.legal_moves())
        record.moves.append(move)
        state.apply(move)
    assert taken
    info = state.info
    # Only a game that hides something can refuse.
    assert refused == 0 if info.perfect_information and not info.has_chance else refused


def test_nothing_of_ones_own_to_take_back() -> None:
    record = GameRecord("samara", 2, seed=1)
    with pytest.raises(TakeBackRefused, match="you have not moved yet"):
        take_back(record, 0)
    state = records.replay(record)
    record.moves.append(state.legal_moves()[0])  # P1's move: P2 has still none
    with pytest.raises(TakeBackRefused, match="you have not moved yet"):
        take_back(record, 1)


def test_sunset_shows_cards_so_a_plan_before_it_stays() -> None:
    """Oh My Goods!: the plan is P1's last move of phase II; the bot's secret choices
    follow, then Sunset turns up market cards P1 could not know. Undoing the plan would
    let P1 plan again knowing them."""
    state = registry.get_game("oh-my-goods").new_game(3, 2)
    record = GameRecord("oh-my-goods", 2, seed=3)
    work = state.legal_moves()[0]
    record.moves.append(work)
    state.apply(work)
    assert not reveals(records.replay(GameRecord("oh-my-goods", 2, seed=3)), [work], 0)
    plan = state.legal_moves()[0]
    before = state.clone()
    record.moves.append(plan)
    state.apply(plan)
    while state.current_player() != 0:
        move = state.legal_moves()[0]
        record.moves.append(move)
        state.apply(move)
    assert reveals(before, record.moves[1:], 0)  # type: ignore[arg-type]
    with pytest.raises(TakeBackRefused, match=r"your move 'plan .+' cannot be taken back"):
        take_back(record, 0)
