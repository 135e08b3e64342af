"""Guided playouts (``engine.guided_playout``): the epsilon-greedy step over a move-value
table, on a toy game; ``State.play_legal``, the unchecked step they play with; and the
kernels' C twins, move for move."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.game import CHANCE
from engine.guided_playout import MOVE_SLOTS, guided_playout, move_slot
from engine.oh_my_goods import fast as omg_fast
from engine.registry import new_game
from engine.samara import fast as samara_fast
from engine.stephens import fast as stephens_fast
from tests.search.toy_games import LotteryState, race


def _table(players: int, favourite: int | None = None, value: float = 0.5) -> np.ndarray:
    values = np.full(players * MOVE_SLOTS, value)
    if favourite is not None:
        for seat in range(players):
            values[seat * MOVE_SLOTS + move_slot(favourite)] = 1.0
    return values


def _trace(length: int = 64) -> np.ndarray:
    return np.zeros(length, dtype=np.int32)


def test_move_slots_spread_nearby_codes() -> None:
    slots = {move_slot(code) for code in range(1000)}
    assert len(slots) == 1000  # consecutive codes never collide
    assert all(0 <= s < MOVE_SLOTS for s in slots)
    assert move_slot(2**31 - 1) < MOVE_SLOTS


def test_move_slots_read_every_bit_of_a_code() -> None:
    # Stephens' codes keep the kind of move in the top byte (kind << 56 | payload): moves
    # of different kinds with one payload must not share a slot, and so a value.
    payloads = [0, 1, 7, 2**20 + 3, 2**33 + 5]
    for payload in payloads:
        slots = {move_slot(kind << 56 | payload) for kind in range(1, 12)}
        assert len(slots) == 11, payload
    assert len({move_slot(2**32 * high + 9) for high in range(1, 200)}) == 199
    # Codes below 2**32 (every Samara and Oh My Goods! code) keep the slots they had.
    assert [move_slot(code) for code in (0, 1, 2, 1000, 2**31 - 1)] == [
        ((code * 0x9E3779B1) & 0xFFFFFFFF) >> 16 for code in (0, 1, 2, 1000, 2**31 - 1)]
    assert all(0 <= move_slot(code) < MOVE_SLOTS for code in (2**63 - 1, 2**62, 2**40 + 1))


def test_greedy_playout_plays_the_best_valued_move() -> None:
    # Race to 21, steps of 1-3: with +3 valued highest for both seats and no random
    # moves, every move adds 3 while it can.
    state = race(2, 21, 3)
    trace = _trace()
    recorded = guided_playout(state, 5, _table(2, favourite=3), 0.0, trace)
    assert state.total == 21 and recorded == 7
    assert [int(t) for t in trace[:recorded]] == [
        (seat % 2) * MOVE_SLOTS + move_slot(3) for seat in range(7)]
    assert state.winner == 0


def test_epsilon_one_plays_every_move_sometimes() -> None:
    firsts = set()
    for seed in range(40):
        state = race(2, 21, 3)
        trace = _trace()
        guided_playout(state, seed, _table(2, favourite=3), 1.0, trace)
        firsts.add(int(trace[0]) - move_slot(0))  # slot of the first move
    assert len(firsts) == 3  # +1, +2 and +3 each opened some playout


def test_ties_are_broken_from_a_random_start() -> None:
    # All values equal: greedy moves are not always the first legal move.
    seen = set()
    for seed in range(30):
        state = race(2, 21, 3)
        trace = _trace()
        guided_playout(state, seed, _table(2), 0.0, trace)
        seen.add(int(trace[0]))
    assert len(seen) == 3


def test_max_moves_and_a_short_trace() -> None:
    state = race(2, 21, 3)
    assert guided_playout(state, 1, _table(2), 0.0, _trace(), max_moves=4) == 4
    assert not state.is_terminal() and state.to_move == 0
    state = race(2, 21, 1)  # 21 moves of +1
    trace = _trace(5)
    assert guided_playout(state, 1, _table(2), 0.0, trace) == 5  # recorded
    assert state.is_terminal()  # but played to the end


def test_chance_outcomes_are_drawn_and_not_recorded() -> None:
    wins = 0
    for seed in range(200):
        state = LotteryState()
        trace = _trace()
        # lottery B (move 1) valued highest: picked every time, then a ball drawn
        recorded = guided_playout(state, seed, _table(2, favourite=1), 0.0, trace)
        assert recorded == 1 and state.lottery == 1 and state.is_terminal()
        wins += state._seat0_wins()
    assert 110 <= wins <= 170  # lottery B wins 70% of draws


def test_the_same_seed_plays_the_same_moves() -> None:
    values = np.random.default_rng(3).random(2 * MOVE_SLOTS)
    first, second = _trace(), _trace()
    a, b = race(2, 30, 4), race(2, 30, 4)
    assert guided_playout(a, 9, values, 0.3, first) == guided_playout(b, 9, values, 0.3, second)
    assert (first == second).all() and a.to_json() == b.to_json()


@pytest.mark.parametrize("game", ["samara", "oh-my-goods", "stephens"])
def test_play_legal_leaves_the_state_apply_leaves(game: str) -> None:
    rng = random.Random(2)
    state = new_game(game, seed=2, num_players=2)
    for _ in range(60):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.apply(state.chance_outcomes()[0][0])
            continue
        move = rng.choice(state.legal_moves())
        checked, unchecked = state.clone(), state.clone()
        checked.apply(move)
        unchecked.play_legal(move)
        assert unchecked.to_json() == checked.to_json()
        assert unchecked.legal_moves() == checked.legal_moves()
        state = unchecked


# -- the kernels' twins ----------------------------------------------------------------
KERNELS = {"samara": samara_fast, "oh-my-goods": omg_fast, "stephens": stephens_fast}


@pytest.mark.parametrize("game", sorted(KERNELS))
@pytest.mark.parametrize("epsilon", [0.0, 0.25, 1.0])
def test_kernels_play_the_reference_moves(game: str, epsilon: float) -> None:
    if KERNELS[game].kernel_module() is None:
        pytest.skip(f"{game} kernel not built (or FURNACE_PURE_PYTHON set)")
    for players in (2, 3, 4):
        values = np.random.default_rng(players).random(players * MOVE_SLOTS)
        for seed in range(2):
            reference = new_game(game, seed=seed, num_players=players)
            while reference.current_player() == CHANCE:
                reference.apply(reference.chance_outcomes()[0][0])
            for max_moves in (0, 20):
                board, kernel = reference.clone(), reference.search_state()
                ref_trace, kernel_trace = _trace(2000), _trace(2000)
                ref_recorded = guided_playout(board, 100 + seed, values, epsilon, ref_trace,
                                              max_moves)
                kernel_recorded = kernel.guided_playout(100 + seed, values, epsilon,
                                                        kernel_trace, max_moves)
                assert ref_recorded == kernel_recorded > 0
                assert (ref_trace == kernel_trace).all()
                assert kernel.to_json() == board.to_json()
                assert kernel.is_terminal() == (max_moves == 0)


def test_samara_kernel_stops_at_max_moves_and_checks_its_table() -> None:
    if samara_fast.kernel_module() is None:
        pytest.skip("Samara kernel not built (or FURNACE_PURE_PYTHON set)")
    reference = new_game("samara", seed=4, num_players=2)
    kernel = reference.search_state()
    values = _table(2)
    assert kernel.guided_playout(1, values, 0.1, _trace(), 6) == \
        guided_playout(reference, 1, values, 0.1, _trace(), 6) == 6
    assert kernel.to_json() == reference.to_json()
    with pytest.raises(ValueError, match="entries"):
        kernel.guided_playout(1, values[:MOVE_SLOTS], 0.1, _trace())
    with pytest.raises(ValueError, match="max_moves"):
        kernel.guided_playout(1, values, 0.1, _trace(), -1)
    empty = kernel.clone()
    assert empty.guided_playout(2, values, 0.1, _trace(0)) == 0 and empty.is_terminal()
