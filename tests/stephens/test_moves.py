"""Moves and positions: the words of every kind of move, refusals in words, plans too
long for one move, the decision stack the decoder accepts, and reveals in a turn."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.game import InvalidStateError, MoveParseError
from engine.stephens.codec import state_from_json
from engine.stephens.frames import Frame
from engine.stephens.moves import ACTIVATE_PART, PLAN_STEPS, kind_of
from engine.stephens.rules import StephensGame
from engine.stephens.state import StephensState
from tests.stephens.helpers import (
    attach,
    blank,
    contract,
    cubes,
    on_display,
    play,
    round_trip,
    settle_disks,
    turn_of,
)


# -- words ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "glass FN-LR", "products SF-UR orange pink pink", "create glass-cutter SF-UL",
    "reinforce sand-digger", "discard blue", "discard-cheapest investment",
    "contract uk-03", "investment theatre black", "skip", "unlock C2", "columns 1 3",
    "columns none", "supply b7", "fulfil uk-03 white black", "fulfil crown-02 white +mould",
    "effect FN-UR", "effect SF-LL", "cubes -white blue blue", "cubes keep",
    "accessories -shears mould",
])
def test_every_kind_of_move_has_words_that_parse_back(text: str) -> None:
    state = blank(2)
    move = state.parse_move(text)
    assert move < 2**63 and state.move_to_text(move) == text
    assert isinstance(state.why_illegal(move), str) or move in state.legal_moves()


@pytest.mark.parametrize(("text", "expected"), [
    ("", "empty move"),
    ("fly", "expected one of"),
    ("glass FN-ZZ", "a furnace"),
    ("create glass-cutter", "'create CARD PLACE'"),
    ("investment theatre purple", "an investment row"),
    ("columns 2 2", "distinct column numbers"),
    ("activate miller:1", "an activation only when a row is activated"),
    ("cubes", r"'cubes \[-\]NAME\.\.\.'"),
])
def test_words_that_are_no_move_are_refused(text: str, expected: str) -> None:
    with pytest.raises(MoveParseError, match=expected):
        blank(2).parse_move(text)


def test_a_move_of_another_decision_says_whose_decision_it_is() -> None:
    state = blank(2)
    assert state.why_illegal(state.parse_move("skip")) == \
        "it is P1's decision: choose the turn's action"
    assert state.why_illegal(state.parse_move("glass FN-UL")) is None
    state.furnaces[0] = 0
    state.touched()
    assert state.why_illegal(state.parse_move("glass FN-UL")) == "FN-UL is empty"


# -- a plan longer than one move ---------------------------------------------------------------
def test_a_plan_of_more_than_seven_steps_is_played_in_parts() -> None:
    state = blank(2)
    names = ["stoker", "woodcutter", "weaver", "chair-caner", "miller", "mason", "carter",
             "fishwife", "potter"]
    for name in names:
        attach(state, name, "FN-UL", 0)
    settle_disks(state)
    state.players[0].coins = 10
    state.touched()
    round_trip(state)
    play(state, "glass FN-UL")
    moves = state.legal_moves()
    parts = [m for m in moves if kind_of(m) == ACTIVATE_PART]
    assert parts and all(len(state.move_to_text(m).split()) == 1 + PLAN_STEPS for m in parts)
    longest = max(parts, key=lambda m: state.move_to_text(m))
    play(state, state.move_to_text(longest))
    frame = state.decisions[-1]
    assert frame.kind in ("activation", "cubes")
    while state.current_player() == 0 and state.decisions[-1].kind != "action":
        if state.decisions[-1].kind == "activation":
            assert bin(state.decisions[-1].num("used")).count("1") == PLAN_STEPS
        state.apply(state.legal_moves()[-1])
    assert state.players[0].vp == 1  # the miller, one of the last steps
    round_trip(state)


# -- reveals in a turn (analysis N10) ----------------------------------------------------------
def test_a_card_revealed_in_a_turn_comes_from_the_hidden_deck() -> None:
    state = turn_of(blank(2), 0)
    grant_disks = ["C3"]
    attach(state, "stoker", "FN-UL", 0)
    settle_disks(state, {0: grant_disks})
    state.touched()
    play(state, "glass FN-LL")
    revealed = set()
    for k in range(6):
        twin = state.determinize(0, random.Random(k))
        assert twin.legal_moves() == state.legal_moves()  # the decision is public
        play(twin, "discard-cheapest contract")
        assert twin.current_player() == 0  # the same player decides after the reveal
        revealed.add(twin.contract_display[-1])
    assert len(revealed) > 1


# -- the decision stack the decoder accepts ----------------------------------------------------
def reset_in_progress() -> StephensState:
    state = turn_of(blank(3), 1)
    state.army = 50
    state.furnaces = [0, 2, 3, 1]
    attach(state, "stoker", "FN-UL", 2)
    settle_disks(state)
    state.players[2].contracts = [contract(state, "crown-01")]  # 1 pink
    state.players[2].cubes = cubes(pink=1)
    state.touched()
    play(state, "glass FN-LR", "skip")
    assert [f.kind for f in state.decisions] == ["turn", "reset", "fulfil"]
    return round_trip(state)


def broken(state: StephensState, change: Any) -> dict[str, Any]:
    data = copy.deepcopy(state.to_json())
    change(data)
    return data


def _frame(kind: str, seat: int, **context: int) -> dict[str, Any]:
    return Frame.make(kind, seat, **context).to_json()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["decisions"].append(_frame("turn", 0, stage=0)),
     r"decisions\[\d\]: the top frame must be a decision"),
    (lambda d: d["decisions"].__setitem__(0, _frame("action", 1, discarded=0)),
     r"decisions\[0\]: the bottom frame is the turn or the final reset"),
    (lambda d: d["decisions"][1]["context"].update(step=9),
     r"decisions\[1\]: context.step of the 'reset' frame must be an integer in 1..8"),
    (lambda d: d["decisions"].append(_frame("supply", 0, last=-1, accessories=0, influence=0,
                                            assign=0, acquire=0)),
     r"decisions\[3\]: a 'supply' frame cannot come here"),
    (lambda d: d["decisions"].__setitem__(2, _frame("fulfil", 0, type=0)),
     r"decisions\[2\]: the 'fulfil' decision on top must offer a choice"),
    (lambda d: d.update(end_round=2),
     r"end_round: the end is triggered \(end_round > 0\) exactly when"),
    (lambda d: d["furnaces"].update({"FN-UR": 0}), r"the reset refilled the empty furnaces"),
    (lambda d: d["decisions"].append(_frame("cubes", 2, paid=1, gained=0)),
     r"decisions\[3\]: a 'cubes' frame cannot come here"),
    (lambda d: d["players"][0]["reserved"].update(black=1),
     r"players\[0\]\.reserved(\.black: no black investment|: cubes are reserved)"),
])
def test_impossible_stacks_are_refused_naming_the_frame(change: Any, message: str) -> None:
    state = reset_in_progress()
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(broken(state, change))


def test_a_finished_game_and_a_setup_are_stacks_too() -> None:
    state = StephensGame().new_game(seed=5, num_players=2)
    round_trip(state)
    data = state.to_json()
    data["decisions"] = data["decisions"][:3] + data["decisions"][4:]  # P2's tile skipped
    with pytest.raises(InvalidStateError, match="setup decisions are every player's"):
        state_from_json(data)
    over = blank(2).to_json()
    over["decisions"] = []
    with pytest.raises(InvalidStateError, match="the game is over only after the final reset"):
        state_from_json(over)


def test_an_acquisition_hole_must_be_on_the_display() -> None:
    state = blank(2)
    attach(state, "stoker", "FN-UL", 0)
    attach(state, "woodcutter", "FN-UL", 0)
    settle_disks(state, {0: ["C1", "C2"]})
    state.players[0].influence = 4
    on_display(state, "contract", "crown-01", 0)
    state.touched()
    play(state, "glass FN-LL", "contract crown-01")  # C2: a second card may follow
    assert state.decisions[-1].num("first") == 0
    twin = round_trip(state)
    assert twin.legal_moves() == state.legal_moves()
    data = state.to_json()
    data["contracts"]["display"][0] = data["contracts"]["deck"].pop()
    with pytest.raises(InvalidStateError, match="the first card taken left its space empty"):
        state_from_json(data)


def test_disk_names_do_not_read_like_players() -> None:
    """Issue 37: the profession abilities' disks were P1 and P2 ("P2 unlocks P2"); they
    are PR1 and PR2, and moves, states and records written with the old names still
    read (a record stores move texts beside their ids)."""
    state = StephensGame().new_game(0, 2)
    cat = state.catalogue
    players = {f"P{k}" for k in range(1, 6)}
    assert not players & {d.id for d in cat.disks}
    for old, new in (("P1", "PR1"), ("P2", "PR2")):
        move = state.parse_move(f"unlock {old}")
        assert move == state.parse_move(f"unlock {new}")
        assert state.move_to_text(move) == f"unlock {new}"
    # A position saved before the renaming (the rulebook's example, P2 unlocked by both).
    example = json.loads((Path(__file__).with_name("positions") / "start_of_turn.json")
                         .read_text(encoding="utf-8"))
    renamed = [p["unlocked"] for p in example["players"]]
    assert all("PR2" in row for row in renamed)
    for player in example["players"]:
        player["unlocked"] = ["P2" if d == "PR2" else d for d in player["unlocked"]]
    loaded = state_from_json(example).to_json()
    assert [p["unlocked"] for p in loaded["players"]] == renamed


def test_an_unlock_event_names_the_player_and_the_disk_apart() -> None:
    state = StephensGame().new_game(0, 2)
    events = []
    while not any(e.text.startswith("P1 unlocks ") for e in events):
        moves = state.legal_moves()
        texts = [state.move_to_text(m) for m in moves]
        pick = next((m for m, t in zip(moves, texts, strict=True)
                     if t in ("unlock PR1", "unlock PR2")), None)
        events = state.apply(pick if pick is not None else moves[0])
    text = next(e.text for e in events if e.text.startswith("P1 unlocks "))
    assert text in ("P1 unlocks PR1", "P1 unlocks PR2")


def test_the_board_says_what_every_ability_does_before_it_is_unlocked() -> None:
    board = StephensGame().new_game(0, 2).render(0)
    abilities = next(line for line in board.splitlines() if line.startswith("key: abilities: "))
    assert "PR1 = may discard 2 face-up professions" in abilities
    assert "S3 = take up to 4 cubes from a small factory" in abilities
    assert "V5 = 5 VP per set of 3 different accessories" in abilities
    assert "reset-vp" not in board and "unlocked: -" in board
