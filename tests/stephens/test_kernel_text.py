"""The words of moves on the Stephens kernel: from the catalogue and a few bytes of the
position (``text_context``), never from a rebuilt reference state, and exactly the
reference's words in the position those bytes were taken from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.game import MoveParseError, State
from engine.stephens import GAME, fast
from engine.stephens.moves import ACTIVATE, ACTIVATE_PART, SHIFT, encode, pack
from tests.kernel_twins import kernel_state_or_skip, random_positions

KernelState = kernel_state_or_skip(fast, "Stephens")
TEXT_CONTEXT_BYTES = fast.kernel_module().TEXT_CONTEXT_BYTES
POSITIONS = Path(__file__).parent / "positions"


def codes_that_are_no_legal_move(state: State) -> list[Any]:
    """Move codes beside the legal ones: plans naming steps beyond the row's pairs,
    with a gap, of 7 steps; other kinds with unknown cards; and codes that are no
    Stephens move at all."""
    plans = [pack(codes) for codes in ([1], [2, 1], [1, 0, 2], [7, 6, 5, 4, 3, 2, 1],
                                       [40], [255], [1, 2, 3])]
    return ([encode(kind, plan) for plan in plans for kind in (ACTIVATE, ACTIVATE_PART)]
            + [encode(ACTIVATE), encode(3, 99), encode(11, 250), encode(8, pack([3, 9])),
               encode(1, 1 << 40), encode(16, 0), encode(17, 99), encode(18, 0xFFFFFF)]
            + [0, -1, 5, 20 << SHIFT, 1 << 63, (1 << 63) + 5, True])


def words(state: State, move: Any) -> str:
    try:
        return state.move_to_text(move)
    except MoveParseError as exc:
        return f"MoveParseError: {exc}"


def context(k: Any, move: Any) -> bytes | None:
    try:
        return k.text_context_of(move)
    except MoveParseError:
        return None


@pytest.mark.parametrize("players", (2, 3, 4))
def test_the_kernels_words_are_the_references_in_every_position(players: int) -> None:
    """Seeded random games: every legal move and codes that are none, in every
    position; and each context, read on a position of another game of the same
    catalogue, gives the same words."""
    samples: list[tuple[Any, bytes, str]] = []
    positions = activations = 0
    for seed in (3 * players, 3 * players + 1):
        for state in random_positions(GAME, seed, players, {}):
            k = state.search_state()
            assert isinstance(k, KernelState)
            activations += bool(state.decisions) and state.decisions[-1].kind == "activation"
            for move in state.legal_moves() + codes_that_are_no_legal_move(state):
                expected = words(state, move)
                assert words(k, move) == expected, move
                found = context(k, move)
                if found is None:
                    assert expected.startswith("MoveParseError"), move
                    continue
                assert len(found) == TEXT_CONTEXT_BYTES
                if move >> SHIFT not in (ACTIVATE, ACTIVATE_PART):
                    assert found == bytes(TEXT_CONTEXT_BYTES)
                samples.append((move, found, expected))
            positions += 1
    assert positions > 200 and activations > 10
    elsewhere = GAME.new_game(99, 2 if players != 2 else 4).search_state()
    for move, found, expected in samples:
        assert elsewhere.move_text_in_context(move, found) == expected


@pytest.mark.parametrize("workers", ("thirteen", "eighteen"))
def test_the_words_of_plans_in_rows_of_many_workers(workers: str) -> None:
    """Plans whose steps name the later workers of a long row (18 workers of one seat:
    the reference's words need only the row, not its plans)."""
    text = POSITIONS / f"activation_of_{workers}_workers.json"
    state = GAME.state_from_json(json.loads(text.read_text()))
    k = state.search_state()
    moves = k.legal_moves()
    named = [words(k, m) for m in moves]
    assert named == [words(state, m) for m in moves]
    assert all(" #" not in text and text != "activate nothing" for text in named[1:])
    for move in codes_that_are_no_legal_move(state):
        assert words(k, move) == words(state, move), move


def test_the_context_of_a_move_that_names_no_row_and_of_no_move() -> None:
    k = GAME.new_game(1, 2).search_state()
    plan = encode(ACTIVATE, pack([1, 2]))
    assert k.text_context_of(plan) == bytes(TEXT_CONTEXT_BYTES)  # no row is activated
    assert k.move_to_text(plan) == "activate #1 #2"
    for move, error in ((-1, MoveParseError), (20 << SHIFT, MoveParseError),
                        (1 << 64, MoveParseError), ("skip", TypeError)):
        with pytest.raises(error):
            k.text_context_of(move)
        with pytest.raises(error):
            k.move_text_in_context(move, bytes(TEXT_CONTEXT_BYTES))
    with pytest.raises(ValueError, match="bytes"):
        k.move_text_in_context(plan, b"\x01")
