"""The compiled Oh My Goods! kernel (ext/oh_my_goods_kernel.pyx) against the reference rules."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.game import IllegalMoveError, State
from engine.kernelcheck import check_kernel
from engine.oh_my_goods import GAME, fast
from engine.oh_my_goods.rules import INFO, OhMyGoodsState, state_from_json
from engine.playout_rng import PlayoutRng

kernel = fast.kernel_module()
if kernel is None:
    pytest.skip("Oh My Goods! kernel not built (or FURNACE_PURE_PYTHON set)",
                allow_module_level=True)
KernelState = kernel.KernelState


def twin(state: OhMyGoodsState) -> Any:
    return KernelState.from_reference(state)


def assert_same(ref: OhMyGoodsState, k: Any) -> None:
    assert k.legal_moves() == ref.legal_moves()
    assert k.current_player() == ref.current_player()
    assert k.is_terminal() == ref.is_terminal()
    assert k.to_json() == ref.to_json()


def game_setups(games: int) -> Iterator[tuple[int, int, bool]]:
    """(seed, players, second_edition): every player count with both editions."""
    for g in range(games):
        yield 100 + g, 2 + g % 3, (g // 3) % 2 == 1


def play(seed: int, players: int, second_edition: bool) -> Iterator[OhMyGoodsState]:
    """The positions of one seeded random game, the final one included."""
    state = GAME.new_game(seed, players, {"second_edition": second_edition})
    rng = random.Random(seed)
    while True:
        yield state
        moves = state.legal_moves()
        if not moves:
            return
        state.apply(rng.choice(moves))


# -- move for move ------------------------------------------------------------------------------

def test_check_kernel_finds_no_mismatch() -> None:
    report = check_kernel(GAME, 30, 11)
    assert report["mismatches"] == 0, report["examples"]
    assert report["steps"] > 30 * 50


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("second_edition", [False, True])
def test_random_games_move_for_move(players: int, second_edition: bool) -> None:
    for g in range(2):
        seed = 1000 * players + g
        state = GAME.new_game(seed, players, {"second_edition": second_edition})
        k = twin(state)
        rng = random.Random(seed)
        steps = 0
        while True:
            assert_same(state, k)
            assert k.heuristic() == state.heuristic()
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


# -- playouts --------------------------------------------------------------------------------------

def test_rollout_matches_python_rollout() -> None:
    for seed, players, second_edition in game_setups(12):
        for i, state in enumerate(play(seed, players, second_edition)):
            if i % 60 != 0:
                continue
            ref, k = state.clone(), twin(state)
            rollout_seed = seed * 31 + i
            assert k.rollout(rollout_seed) == ref.rollout(rollout_seed)
            assert k.to_json() == ref.to_json()
            assert k.last_rollout_steps == ref.last_rollout_steps
            assert k.is_terminal()


def test_rollout_seeds_wrap_like_playout_rng() -> None:
    state = GAME.new_game(5, 3)
    for seed in (0, -1, 2**64 + 7, 12345678901234567890):
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


# -- copies and conversions ---------------------------------------------------------------------

def test_clone_is_independent() -> None:
    state = GAME.new_game(11, 3)
    k = twin(state)
    before = k.to_json()
    copy = k.clone()
    rng = random.Random(1)
    for _ in range(40):
        copy.apply(rng.choice(copy.legal_moves()))
    assert copy.to_json() != before
    assert k.to_json() == before
    assert k.legal_moves() == state.legal_moves()
    copy.rollout(3)
    assert copy.is_terminal() and not k.is_terminal()
    assert k.to_json() == before


def test_reference_round_trip() -> None:
    for seed, players, second_edition in game_setups(6):
        for i, state in enumerate(play(seed, players, second_edition)):
            if i % 23:
                continue
            k = twin(state)
            ref = k.to_reference()
            assert isinstance(ref, OhMyGoodsState)
            assert ref.to_json() == state.to_json()
            assert ref.legal_moves() == state.legal_moves()
            assert twin(state_from_json(k.to_json())).to_json() == state.to_json()


def test_determinize_matches_reference() -> None:
    """The C determinization deals exactly the reference's cards from the same generator."""
    hidden_choices = 0
    for seed, players, second_edition in game_setups(12):
        for i, state in enumerate(play(seed, players, second_edition)):
            if i % 5:
                continue
            k = twin(state)
            for observer in range(players):
                hidden_choices += state.phase == "choose" and any(
                    p.chosen for s, p in enumerate(state.players) if s != observer)
                ref_rng, k_rng = random.Random(i), random.Random(i)
                ref_det = state.determinize(observer, ref_rng)
                k_det = k.determinize(observer, k_rng)
                assert isinstance(k_det, KernelState)
                assert_same(ref_det, k_det)
                # ... and leaves the generator where the reference leaves it
                assert ref_rng.getrandbits(64) == k_rng.getrandbits(64)
    assert hidden_choices > 20  # opponents' pending phase II choices were redrawn


def test_determinize_with_another_generator_class_uses_the_reference() -> None:
    class Counting(random.Random):
        draws = 0

        def getrandbits(self, k: int) -> int:
            type(self).draws += 1
            return super().getrandbits(k)

    state = next(s for i, s in enumerate(play(7, 3, False)) if i == 40)
    ref_det = state.determinize(1, random.Random(3))
    k_det = twin(state).determinize(1, Counting(3))
    assert Counting.draws > 0
    assert_same(ref_det, k_det)


def test_determinize_rejects_a_bad_observer() -> None:
    k = twin(GAME.new_game(1, 2))
    with pytest.raises(ValueError, match="observer"):
        k.determinize(2, random.Random(1))


def test_pickle_round_trip() -> None:
    state = GAME.new_game(4, 4)
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
    assert k.num_players == 3 and k.catalogue is state.catalogue
    assert k.search_state() is k
    assert k.chance_outcomes() == []
    for seat in range(3):
        assert k.observation(seat) == state.observation(seat)
    assert k.render() == state.render()
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
    bad = [m for m in range(20 << 10) if m not in legal][::97]
    odd: list[Any] = [-1, 1 << 40, True, "keep", None, 2.0]
    for move in bad + odd:
        with pytest.raises(IllegalMoveError):
            k.apply(move)
        with pytest.raises(IllegalMoveError):
            state.clone().apply(move)
        assert k.why_illegal(move) == state.why_illegal(move)
    assert k.to_json() == before
    state.rollout(1)
    k = twin(state)
    with pytest.raises(IllegalMoveError, match="game is over"):
        k.apply(0)


def test_search_answers_the_same_with_and_without_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.search import mcts_search

    state = GAME.new_game(3, 2)
    fast_answer = mcts_search(state, iterations=60, seed=5).to_json()
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    assert state.search_state() is state
    pure_answer = mcts_search(state, iterations=60, seed=5).to_json()
    fast_answer.pop("elapsed")
    pure_answer.pop("elapsed")
    assert fast_answer == pure_answer


def test_states_that_do_not_fit_fall_back_to_the_reference() -> None:
    state = GAME.new_game(1, 2)
    state._starting_sizes = []
    with pytest.raises(ValueError, match="starting hand"):
        twin(state)
    assert state.search_state() is state
