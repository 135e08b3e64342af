"""Judging a proposed move (engine.move_checks) through the State protocol alone: the
move resolved from its id and/or text, then the checks in order (notation, id, game
over, turn, what the observer may know, the rules), on toy games of every kind."""

from __future__ import annotations

import pytest

from engine.game import CHANCE, TERMINAL
from engine.move_checks import (
    MoveFault,
    MoveVerdict,
    hidden_moves_reason,
    judge_move,
    move_code_text,
)
from tests.search.hidden_toy_games import deal
from tests.search.toy_games import LotteryState, race


def test_a_legal_move_by_id_text_or_both_resolves_to_both() -> None:
    state = race(2, target=10, total=4)
    for move, text in [(2, ""), (None, " +2 "), (2, "+2"), (None, "2")]:
        verdict = judge_move(state, move, text)
        assert verdict == MoveVerdict(True, 0, 2, "+2")
        assert not verdict.chance


@pytest.mark.parametrize("move, text, fault, resolved, resolved_text", [
    (None, "", MoveFault.EMPTY, None, None),
    (None, "   ", MoveFault.EMPTY, None, None),
    (None, "jump", MoveFault.UNPARSEABLE, None, "jump"),
    (-1, "", MoveFault.NOT_A_MOVE, -1, None),
    (-1, "+1", MoveFault.NOT_A_MOVE, -1, None),
    (2, "+3", MoveFault.ID_TEXT_MISMATCH, 2, "+3"),
    (None, "+9", MoveFault.RULES, 9, "+9"),
])
def test_a_fault_keeps_what_could_be_worked_out(move: int | None, text: str,
                                               fault: MoveFault, resolved: int | None,
                                               resolved_text: str | None) -> None:
    verdict = judge_move(race(2, target=10, total=4), move, text)
    assert not verdict.legal and verdict.fault is fault and verdict.reason
    assert (verdict.move, verdict.text) == (resolved, resolved_text)


def test_the_reasons_are_the_games_and_name_the_seats() -> None:
    state = race(2, target=10, total=4)
    assert judge_move(state, None, "jump").reason == "not a race move: 'jump'"
    assert judge_move(state, -1).reason == "move id -1 is not a move of Race to N"
    assert judge_move(state, 2, "+3").reason == "move.id 2 is '+2' but move.text '+3' is move 3"
    assert judge_move(state, 9).reason == "a move adds 1 to 3"
    assert judge_move(state, 1, seat=1).reason == "it is the turn of P1 (seat 0), not of P2 (seat 1)"


def test_game_over_comes_before_the_turn_and_the_notation_before_both() -> None:
    over = race(2, target=3)
    over.apply(3)
    assert over.current_player() == TERMINAL
    verdict = judge_move(over, 1, seat=1)
    assert verdict.fault is MoveFault.GAME_OVER and verdict.reason == "the game is over"
    assert judge_move(over, -5, seat=1).fault is MoveFault.NOT_A_MOVE
    assert judge_move(race(2), None, "?", seat=1).fault is MoveFault.UNPARSEABLE


def test_chance_moves_are_judged_as_its_outcomes() -> None:
    state = LotteryState(lottery=1)
    assert state.current_player() == CHANCE
    verdict = judge_move(state, 2)
    assert verdict.legal and verdict.chance and verdict.text == "ball-2"
    off = judge_move(state, 3)
    assert off.fault is MoveFault.RULES and off.reason == "not a chance outcome of this position"
    not_a_seat = judge_move(state, 2, seat=0)
    assert not_a_seat.fault is MoveFault.NOT_YOUR_TURN
    assert not_a_seat.reason == "chance moves next, not of P1 (seat 0)"


def test_a_seat_that_cannot_know_the_movers_moves_gets_no_judgement() -> None:
    state = deal(2, seed=1)  # seat 0 to move, its hand private
    held = state.hands[0][0]
    for observer in (None, 0):
        assert judge_move(state, held, observer=observer).legal
    hidden = judge_move(state, held, observer=1)
    assert hidden.fault is MoveFault.HIDDEN and hidden.text == state.move_to_text(held)
    assert hidden.reason == hidden_moves_reason(state, 1) == (
        "P2 (seat 1) cannot judge the moves of P1 (seat 0): they depend on what P2 cannot see")
    # A card seat 0 does not hold is not judged either: the answer would tell its hand.
    assert judge_move(state, state.hands[1][0], observer=1).fault is MoveFault.HIDDEN
    # What reveals nothing is still said: the turn, the notation.
    assert judge_move(state, held, seat=1, observer=1).fault is MoveFault.NOT_YOUR_TURN
    assert judge_move(state, None, "Z9", observer=1).fault is MoveFault.UNPARSEABLE


def test_move_code_text_never_raises() -> None:
    state = deal(2, seed=1)
    assert move_code_text(state, 0) == "A1"
    for odd in (-1, 18, 2**70):
        assert move_code_text(state, odd) is None
    assert judge_move(state, 2**70).fault is MoveFault.NOT_A_MOVE
