"""A Stephens position written without its decision stack is the start of a turn
(issue 23): a site that deals its own cards writes the board and leaves ``decisions``
out; the loader puts in the stack the engine itself has there
(docs/rules/stephens.md, "Writing a position at the start of a turn")."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.game import InvalidStateError
from engine.stephens import GAME, fast
from engine.stephens.codec import OPTIONAL_FIELDS, STATE_FIELDS
from engine.stephens.flow import turn_start
from engine.stephens.frames import Frame
from engine.stephens.state import StephensState
from tests.kernel_twins import assert_same, random_positions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).with_name("positions") / "start_of_turn.json"
DOC = ROOT / "docs" / "rules" / "stephens.md"
SECTION = "## Writing a position at the start of a turn"
#: Seeded random games per player count (solo games are short: more of them).
SEEDS = {1: range(6), 2: range(2), 3: range(2), 4: range(2)}


def without_stack(state: StephensState) -> dict[str, Any]:
    return {k: v for k, v in state.to_json().items() if k != "decisions"}


def at_start(state: StephensState) -> bool:
    return state.decisions == turn_start(state.active)


def positions(players: int) -> Iterator[StephensState]:
    for seed in SEEDS[players]:
        yield from random_positions(GAME, 300 + 10 * players + seed, players, {})


def test_the_stack_is_the_only_optional_field() -> None:
    assert OPTIONAL_FIELDS == ("decisions",)
    assert set(OPTIONAL_FIELDS) <= set(STATE_FIELDS)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_start_of_a_turn_loads_without_its_stack(players: int) -> None:
    """At every start of a turn reached in seeded random games, the JSON without
    ``decisions`` loads to the same position: the same JSON (the stack written back),
    the same legal moves, the same seat to move.  Any other position without its
    stack is refused, or loads as the start of the active seat's turn with every
    other field as written: never as anything else."""
    starts = refused = 0
    for state in positions(players):
        written = without_stack(state)
        if at_start(state):
            loaded = GAME.state_from_json(written)
            assert loaded.to_json() == state.to_json()
            assert loaded.legal_moves() == state.legal_moves()
            assert loaded.current_player() == state.current_player() == state.active
            starts += 1
            continue
        try:
            loaded = GAME.state_from_json(written)
        except InvalidStateError as exc:
            assert "a state without 'decisions' is the start of" in str(exc), exc
            refused += 1
            continue
        assert loaded.decisions == turn_start(state.active)
        assert without_stack(loaded) == written
    assert starts >= 25 * len(SEEDS[players]) and refused > 0


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_kernel_loads_it_alike(players: int) -> None:
    """The kernel builds its states from the reference loader's (``from_reference``
    of ``Game.state_from_json``): the twin of a start of a turn loaded without its
    stack is the twin of the position reached in play, and both play the same
    random moves alike, move for move, as ``furnace check-kernel`` compares them."""
    kernel = fast.kernel_module()
    if kernel is None:
        pytest.skip("Stephens kernel not built (or FURNACE_PURE_PYTHON set)")
    checked = 0
    for i, state in enumerate(positions(players)):
        if not at_start(state) or i % 3:
            continue
        loaded = GAME.state_from_json(without_stack(state))
        twin = loaded.search_state()
        assert isinstance(twin, kernel.KernelState)
        assert_same(loaded, twin)
        assert_same(state, kernel.KernelState.from_reference(state))
        rng = random.Random(i)
        for _ in range(12):
            moves = loaded.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            loaded.apply(move)
            twin.apply(move)
            assert_same(loaded, twin)
        checked += 1
    assert checked >= 10


def first(players: int, found: Any) -> StephensState:
    """The first position of the seeded games of ``players`` satisfying ``found``."""
    for state in positions(players):
        if found(state):
            return state.clone()
    raise AssertionError("no such position in the seeded games")


def refusal(state: StephensState) -> str:
    with pytest.raises(InvalidStateError) as caught:
        GAME.state_from_json(without_stack(state))
    message = str(caught.value)
    assert message.endswith(f"(a state without 'decisions' is the start of "
                            f"P{state.active + 1}'s turn, no other decision pending; "
                            f"write 'decisions' for any other moment)"), message
    return message


def _empty(state: StephensState) -> int:
    return sum(n == 0 for n in state.furnaces)


@pytest.mark.parametrize("players", [1, 3])
def test_a_turn_that_emptied_two_furnaces_is_no_start(players: int) -> None:
    """Two empty furnaces: the turn that emptied the second one is still running (a
    reset phase follows it), so no turn starts so."""
    state = first(players, lambda s: s.decisions and s.decisions[0].kind == "turn"
                  and s.decisions[0].num("stage") == 1 and _empty(s) == 2)
    message = refusal(state)
    assert re.match(r"furnaces: FN-\w\w and FN-\w\w are empty: a turn leaving two furnaces "
                    r"empty ends with a reset phase", message), message


@pytest.mark.parametrize("players", [1, 2])
def test_reserved_cubes_are_no_start(players: int) -> None:
    """Cubes reserved on investments: a reset phase is running."""
    state = first(players, lambda s: any(any(p.reserved) for p in s.players))
    seat = next(k for k, p in enumerate(state.players) if any(p.reserved))
    state.furnaces = [max(n, 1) for n in state.furnaces]  # so that the furnaces pass
    assert refusal(state).startswith(f"players[{seat}].reserved: cubes are reserved on "
                                     f"investments only during a reset phase")


def test_a_disk_to_unlock_is_no_start() -> None:
    """A worker placed whose disk is still on the board: its unlock is pending (as
    in round 1 before the setup decisions)."""
    state = first(4, lambda s: s.decisions and s.decisions[-1].kind == "unlock"
                  and s.round > 1 and _empty(s) < 2)
    seat = state.decisions[-1].seat
    assert refusal(state).startswith(f"players[{seat}].unlocked: ")
    fresh = GAME.new_game(5, 2)  # the setup decisions: every starting disk to unlock
    assert fresh.decisions[-1].kind == "accessory"
    assert refusal(fresh).startswith("players[0].unlocked: 1 workers on profession cards, "
                                     "but 0 disks are off the board and 0 unlock")


def test_a_card_being_acquired_is_no_start() -> None:
    """A hole in a display while its deck holds cards: an acquisition is under way."""
    state = first(3, lambda s: s.decisions and s.decisions[-1].kind == "acquire"
                  and s.decisions[-1].num("first") >= 0 and _empty(s) < 2)
    pile = ("contracts", "investments")[state.decisions[-1].num("pile")]
    assert refusal(state).startswith(f"{pile}.display: the cards slide to the cheapest "
                                     f"spaces")


def test_an_empty_stack_is_the_end_not_a_start() -> None:
    """``"decisions": []`` (a finished game) is not the same as leaving it out."""
    state = first(2, at_start)
    data = state.to_json()
    data["decisions"] = []
    with pytest.raises(InvalidStateError, match="^decisions: the game is over only after"):
        GAME.state_from_json(data)
    assert GAME.state_from_json(without_stack(state)).to_json() == state.to_json()


def test_a_written_stack_is_read_as_written() -> None:
    """With ``decisions`` the loader reads and checks the stack given, mid-turn too,
    and ``to_json`` keeps writing it: answers round-trip exactly."""
    state = first(2, lambda s: s.decisions and s.decisions[-1].kind == "acquire")
    data = state.to_json()
    assert GAME.state_from_json(data).to_json() == data
    data["decisions"][-1]["seat"] = 1 - data["decisions"][-1]["seat"]
    with pytest.raises(InvalidStateError, match=r"^decisions\[1\]"):
        GAME.state_from_json(data)


# -- the documented example -------------------------------------------------------------------
def doc_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```json\n(.*?)```", section, re.S)
    assert found, f"no ```json block in {SECTION!r}"
    return found.group(1)


def test_the_doc_shows_the_example_verbatim() -> None:
    assert doc_example() == EXAMPLE.read_text(encoding="utf-8")


def test_the_documented_example_loads() -> None:
    """The example a site could write: no ``decisions``; it loads as the start of P2's
    turn, and writes back the same with the engine's stack."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert "decisions" not in data and data["active"] == 1
    state = GAME.state_from_json(data)
    assert state.decisions == [Frame.make("turn", 1, stage=1),
                               Frame.make("action", 1, discarded=0)]
    written = state.to_json()
    assert written["decisions"] == [{"kind": "turn", "seat": 1, "context": {"stage": 1}},
                                    {"kind": "action", "seat": 1,
                                     "context": {"discarded": 0}}]
    assert {k: v for k, v in written.items() if k != "decisions"} == data
    assert state.current_player() == 1 and state.audit() == []
    moves = state.legal_moves_text()
    assert "glass FN-UL" in moves and len(moves) > 4
