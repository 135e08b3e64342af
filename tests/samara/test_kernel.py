"""The compiled Samara kernel (ext/samara_kernel.pyx) against the reference rules."""

from __future__ import annotations

import dataclasses
import pickle
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.game import IllegalMoveError, State
from engine.playout_rng import PlayoutRng
from engine.samara import GAME, SamaraGame, fast
from engine.samara.catalogue import default_catalogue
from engine.samara.rules import BUILD, INFO, SamaraState, state_from_json

kernel = fast.kernel_module()
if kernel is None:
    pytest.skip("Samara kernel not built (or FURNACE_PURE_PYTHON set)", allow_module_level=True)
KernelState = kernel.KernelState


def twin(state: SamaraState) -> Any:
    return KernelState.from_reference(state)


def assert_same(ref: SamaraState, k: Any) -> None:
    assert k.legal_moves() == ref.legal_moves()
    assert k.current_player() == ref.current_player()
    assert k.is_terminal() == ref.is_terminal()
    assert k.to_json() == ref.to_json()


def game_setups(games: int) -> Iterator[tuple[int, int, bool]]:
    """(seed, players, powers): every player count with and without powers."""
    for g in range(games):
        yield 100 + g, 2 + g % 4, (g // 4) % 2 == 0


def play(seed: int, players: int, powers: bool) -> Iterator[SamaraState]:
    """The positions of one seeded random game, the final one included."""
    state = GAME.new_game(seed, players, {"powers": powers})
    rng = random.Random(seed)
    while True:
        yield state
        moves = state.legal_moves()
        if not moves:
            return
        state.apply(rng.choice(moves))


# -- move for move ------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("powers", [True, False])
def test_random_games_move_for_move(players: int, powers: bool) -> None:
    for g in range(6):
        seed = 1000 * players + g
        state = GAME.new_game(seed, players, {"powers": powers})
        k = twin(state)
        rng = random.Random(seed)
        steps = 0
        while True:
            assert_same(state, k)
            moves = k.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            state.apply(move)
            assert k.apply(move) == []
            steps += 1
        assert steps > 20
        assert k.scores() == state.scores()
        assert k.ranking() == state.ranking()
        assert k.outcome() == state.outcome()
        assert k.heuristic() == state.heuristic()


def test_heuristic_scores_and_ranking_mid_game() -> None:
    for seed, players, powers in game_setups(8):
        for i, state in enumerate(play(seed, players, powers)):
            if i % 9 == 0:
                k = twin(state)
                assert k.heuristic() == state.heuristic()
                assert k.scores() == state.scores()
                assert k.ranking() == state.ranking()


# -- playouts --------------------------------------------------------------------------------------

def test_rollout_matches_python_rollout() -> None:
    for seed, players, powers in game_setups(24):
        for i, state in enumerate(play(seed, players, powers)):
            if i % 25 != 0:
                continue
            ref, k = state.clone(), twin(state)
            rollout_seed = seed * 31 + i
            assert k.rollout(rollout_seed) == ref.rollout(rollout_seed)
            assert k.to_json() == ref.to_json()
            assert k.is_terminal()


def test_rollout_seeds_wrap_like_playout_rng() -> None:
    state = GAME.new_game(5, 3)
    for seed in (0, -1, 2**64 + 7, 2**70 - 3, 12345678901234567890):
        ref, k = state.clone(), twin(state)
        assert k.rollout(seed) == ref.rollout(seed)
        assert k.to_json() == ref.to_json()


def test_rollout_step_count() -> None:
    state = GAME.new_game(9, 4)
    k = twin(state)
    rng = PlayoutRng(77)
    replay, steps = state.clone(), 0
    while not replay.is_terminal():
        moves = replay.legal_moves()
        replay.apply(moves[rng.below(len(moves))])
        steps += 1
    assert k.playout_steps(77) == steps
    assert k.to_json() == state.to_json()  # playout_steps leaves the state alone
    k.rollout(77)
    assert k.last_rollout_steps == steps
    assert k.to_json() == replay.to_json()
    fresh = twin(state)
    assert fresh.benchmark(3, seed=77) == sum(fresh.playout_steps(s) for s in (77, 78, 79))


def test_rollout_of_finished_game_is_its_outcome() -> None:
    state = GAME.new_game(2, 2)
    state.rollout(4)
    k = twin(state)
    assert k.rollout(99) == state.outcome()
    assert k.last_rollout_steps == 0


def test_search_answers_the_same_with_and_without_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.search import mcts_search

    state = GAME.new_game(3, 3)
    fast_answer = mcts_search(state, iterations=300, seed=5).to_json()
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    assert state.search_state() is state
    pure_answer = mcts_search(state, iterations=300, seed=5).to_json()
    fast_answer.pop("elapsed")
    pure_answer.pop("elapsed")
    assert fast_answer == pure_answer


# -- copies and conversions ---------------------------------------------------------------------

def test_clone_is_independent() -> None:
    state = GAME.new_game(11, 3)
    k = twin(state)
    before = k.to_json()
    copy = k.clone()
    rng = random.Random(1)
    for _ in range(15):
        copy.apply(rng.choice(copy.legal_moves()))
    assert k.to_json() == before
    assert k.legal_moves() == state.legal_moves()
    copy.rollout(3)
    assert copy.is_terminal() and not k.is_terminal()
    assert k.to_json() == before


def test_reference_round_trip() -> None:
    for seed, players, powers in game_setups(12):
        for i, state in enumerate(play(seed, players, powers)):
            if i % 11:
                continue
            k = twin(state)
            ref = k.to_reference()
            assert isinstance(ref, SamaraState)
            assert ref.to_json() == state.to_json()
            assert ref.legal_moves() == state.legal_moves()
            assert twin(ref).to_json() == state.to_json()
            # through JSON too
            assert twin(state_from_json(k.to_json())).to_json() == state.to_json()


def test_pickle_round_trip() -> None:
    state = GAME.new_game(4, 5)
    state.apply(state.legal_moves()[0])
    k = pickle.loads(pickle.dumps(twin(state)))
    assert isinstance(k, KernelState)
    assert_same(state, k)


# -- the protocol -------------------------------------------------------------------------------

def test_protocol_surface() -> None:
    state = GAME.new_game(21, 3)
    k: Any = state.search_state()
    assert isinstance(k, KernelState)
    assert GAME.kernel_available()
    assert issubclass(KernelState, State)  # registered as a virtual subclass
    assert k.info is INFO and KernelState.info is INFO
    assert k.num_players == 3 and k.powers and k.catalogue is state.catalogue
    assert k.search_state() is k
    assert k.chance_outcomes() == []
    assert k.observation(1) == state.observation(1)
    assert k.render() == state.render()
    det = k.determinize(0, random.Random(0))
    assert det is not k and det.to_json() == k.to_json()
    for move in k.legal_moves():
        text = k.move_to_text(move)
        assert text == state.move_to_text(move)
        assert k.parse_move(text) == move
        assert k.why_illegal(move) is None
    assert k.legal_moves_text() == state.legal_moves_text()
    first = k.legal_moves_text()[0]
    k.apply_text(first)
    state.apply_text(first)
    assert_same(state, k)


def test_illegal_moves_raise() -> None:
    state = GAME.new_game(8, 2)
    k = twin(state)
    legal = set(k.legal_moves())
    before = k.to_json()
    bad = [m for m in range(1 << 17) if m not in legal][:200:7]
    odd: list[Any] = [-1, 1 << 40, True, "wait", None, 2.0]
    for move in bad + odd:
        with pytest.raises(IllegalMoveError):
            k.apply(move)
        assert k.why_illegal(move) == state.why_illegal(move)
    assert k.to_json() == before
    state.rollout(1)
    k = twin(state)
    with pytest.raises(IllegalMoveError, match="game is over"):
        k.apply(0)


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
    catalogue = dataclasses.replace(default_catalogue(), pawn_men=4)
    with pytest.raises(ValueError, match="at most 5 pawns"):
        twin(SamaraGame(catalogue).new_game(1, 2))


def test_states_that_do_not_fit_are_refused() -> None:
    state = GAME.new_game(1, 2)
    state.track[state.month][0].owner = 4  # no such seat in a 2-player game
    with pytest.raises(ValueError, match="no seat"):
        twin(state)
    state = GAME.new_game(1, 2)
    state.track[state.month + 20] = state.track.pop(state.month)
    with pytest.raises(ValueError, match="outside the 12 months"):
        twin(state)
