"""The compiled Samara kernel (ext/samara_kernel.pyx) against the reference rules.

Only what is Samara's own is here; the checks every kernel must pass are in
tests/test_kernel_protocol.py.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from engine.samara import GAME, SamaraGame, fast
from engine.samara.catalogue import default_catalogue
from engine.samara.state import Decision, SamaraState
from engine.samara.vocabulary import BUILD
from tests.kernel_twins import assert_same, kernel_state_or_skip

KernelState = kernel_state_or_skip(fast, "Samara")


def twin(state: SamaraState) -> Any:
    return KernelState.from_reference(state)


# -- the protocol -------------------------------------------------------------------------------

def test_powers_flag_and_determinize() -> None:
    """The twin carries the powers option, and determinize (perfect information) only copies."""
    state = GAME.new_game(21, 3)
    k: Any = state.search_state()
    assert isinstance(k, KernelState)
    assert k.powers
    assert not twin(GAME.new_game(21, 3, {"powers": False})).powers
    det = k.determinize(0, random.Random(0))
    assert det is not k and det.to_json() == k.to_json()


# -- special-power decisions --------------------------------------------------------------------

def test_pending_decisions() -> None:
    """Positions waiting for a Barracks/Hospital/Prison/Ruin/Tombstone choice."""
    wanted = ("barracks", "hospital", "prison", "ruin", "tombstone")
    found: dict[str | None, int] = {}
    for g in range(400):
        seed = 7000 + g
        state = GAME.new_game(seed, 2 + g % 4, {"powers": True})
        rng = random.Random(seed)
        power: str | None = None  # of the last building taken: it asked for the pending decisions
        while not state.is_terminal():
            if state.pending:
                found[power] = found.get(power, 0) + 1
                k = twin(state)
                assert k.pending_count == len(state.pending)
                assert_same(state, k)
                for move in state.legal_moves():  # every choice leads to the same position
                    ref, fast_twin = state.clone(), k.clone()
                    ref.apply(move)
                    fast_twin.apply(move)
                    assert_same(ref, fast_twin)
            move = rng.choice(state.legal_moves())
            if move >> 16 == BUILD:
                tile = state.spot_tile[(move >> 10) & 63]
                assert tile is not None
                power = state.catalogue.tiles[tile].power
            state.apply(move)
        if all(found.get(p, 0) >= 3 for p in wanted):
            break
    assert all(found.get(p, 0) >= 3 for p in wanted), found


# -- catalogues ---------------------------------------------------------------------------------

def test_other_catalogue() -> None:
    """The kernel plays from the catalogue it is given, not a compiled-in default."""
    base = default_catalogue()
    tiles = tuple(dataclasses.replace(t, prestige=(i * 7) % 13 - 2)
                  for i, t in enumerate(base.tiles))
    spots = tuple(dataclasses.replace(s, col=max(1, s.col - 1)) for s in base.spots)
    catalogue = dataclasses.replace(base, tiles=tiles, spots=spots)
    game = SamaraGame(catalogue)
    for g in range(6):
        state = game.new_game(g, 2 + g % 4)
        k = twin(state)
        assert k.catalogue is catalogue
        rng = random.Random(g)
        while True:
            assert_same(state, k)
            moves = state.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            state.apply(move)
            k.apply(move)
        assert k.outcome() == state.outcome()


def test_catalogue_too_big_for_the_kernel() -> None:
    """A catalogue beyond the kernel's fixed bounds is refused."""
    catalogue = dataclasses.replace(default_catalogue(), pawn_men=4)
    with pytest.raises(ValueError, match="at most 5 pawns"):
        twin(SamaraGame(catalogue).new_game(1, 2))


def test_states_that_do_not_fit_are_refused() -> None:
    """Hand-made states the kernel cannot represent are refused, not mangled."""
    state = GAME.new_game(1, 2)
    state.track[state.month][0].owner = 4  # no such seat in a 2-player game
    with pytest.raises(ValueError, match="seat must be an integer in 0..1"):
        twin(state)
    state = GAME.new_game(1, 2)
    state.track[state.month + 20] = state.track.pop(state.month)
    with pytest.raises(ValueError, match="outside the 12 months"):
        twin(state)


# -- entry checks: nothing out of bounds reaches the struct ------------------------------

def _with(change: Any) -> SamaraState:
    state = GAME.new_game(1, 2)
    change(state)
    return state


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # 7 pawns: recruits would give the seat more workers than a move's 5-bit mask
        # names (and more than a month of the track holds with 5 players)
        (lambda s: setattr(s.foremen[0], "pawn_men", 5), "at most 5 pawns per player"),
        (lambda s: setattr(s.foremen[1], "pawn_women", -1), "women must be"),
        (lambda s: s.spot_tools[0].__setitem__(0, 200), "tools must be"),
        (lambda s: s.foremen[0].tools.__setitem__(4, -3), "tools must be"),
        (lambda s: setattr(s.track[s.month][0], "women", 0), "has no pawn"),
        (lambda s: setattr(s.track[s.month][1], "men", 9), "men must be"),
        (lambda s: setattr(s, "month", -1), "month must be"),
        (lambda s: s.track.__setitem__(s.month + 3, s.track.pop(s.month)), "no worker stands"),
        (lambda s: s.spot_tile.__setitem__(0, 99), "tile must be"),
        (lambda s: s.foremen[0].buildings.append(-1), "building must be"),
        (lambda s: s.pending.append(Decision("give", 0, 0, 0, 0)), "does not fit"),
        (lambda s: s.pending.append(Decision("give", 0, 0, -1)), "does not fit"),
        (lambda s: s.pending.append(Decision("bury", 0, 3)), "does not fit"),
    ],
)
def test_values_beyond_the_struct_are_refused(change: Any, message: str) -> None:
    """Issue: the kernel is compiled without bounds checks; from_reference let pawn
    counts, tool counts beyond a signed char (OverflowError), pawnless workers and a
    current month without workers through."""
    with pytest.raises(ValueError, match=message):
        twin(_with(change))


def test_rollout_seeds_are_integers() -> None:
    k = twin(GAME.new_game(1, 2))
    with pytest.raises(TypeError, match="seed"):
        k.clone().rollout(1.5)
    assert k.clone().rollout(True) == GAME.new_game(1, 2).rollout(True)
