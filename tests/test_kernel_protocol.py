"""Every compiled kernel (ext/*_kernel.pyx) against its game's reference rules.

The checks here hold for any game with a kernel twin; what only one game has
(Samara's powers and catalogues, Oh My Goods! determinization...) stays in that
game's ``tests/<game>/test_kernel.py``.  A game whose kernel is not built (or
under ``FURNACE_PURE_PYTHON=1``) has its cases skipped.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from engine import oh_my_goods, samara, stephens
from engine.game import Game, IllegalMoveError, State, play_random_moves
from engine.oh_my_goods import fast as oh_my_goods_fast
from engine.playout_rng import PlayoutRng
from engine.samara import fast as samara_fast
from engine.search import mcts_search
from engine.stephens import fast as stephens_fast
from tests.kernel_twins import assert_same, game_setups, random_positions


@dataclass(frozen=True)
class KernelGame:
    """A game with a compiled kernel, and what its slower checks may spend."""

    game: Game
    fast: ModuleType
    rollout_games: int  # seeded games whose positions are rolled out on both sides...
    rollout_every: int  # ... one position in this many (Oh My Goods! playouts cost more)
    search_players: int
    search_iterations: int
    players: tuple[int, ...] = ()  # the player counts the kernel plays; () for every count
    feature_names: tuple[str, ...] = ()  # the game's declared features (FEATURE_NAMES)

    @property
    def player_counts(self) -> tuple[int, ...]:
        return self.players or self.game.info.player_counts

    @property
    def name(self) -> str:
        return self.game.info.name

    @property
    def kernel_state(self) -> Any:
        """The kernel's ``KernelState`` class; None when the kernel is not available."""
        kernel = self.fast.kernel_module()
        return None if kernel is None else kernel.KernelState

    def twin(self, state: State) -> Any:
        """The kernel copy of a reference state."""
        return self.kernel_state.from_reference(state)


GAMES = (
    KernelGame(samara.GAME, samara_fast, rollout_games=24, rollout_every=25,
               search_players=3, search_iterations=300, feature_names=samara.FEATURE_NAMES),
    KernelGame(oh_my_goods.GAME, oh_my_goods_fast, rollout_games=12, rollout_every=60,
               search_players=2, search_iterations=60,
               feature_names=oh_my_goods.FEATURE_NAMES),
    KernelGame(stephens.GAME, stephens_fast, rollout_games=6, rollout_every=80,
               search_players=2, search_iterations=30, players=(1, 2, 3, 4),
               feature_names=stephens.FEATURE_NAMES),
)


def _needs_kernel(kg: KernelGame) -> pytest.MarkDecorator:
    reason = f"{kg.game.info.title} kernel not built (or FURNACE_PURE_PYTHON set)"
    return pytest.mark.skipif(kg.kernel_state is None, reason=reason)


def _each_game() -> list[Any]:
    return [pytest.param(kg, id=kg.name, marks=_needs_kernel(kg)) for kg in GAMES]


def _each_setup() -> list[Any]:
    """(game, players, options): every player count with every combination of boolean options."""
    params = []
    for kg in GAMES:
        flags = sum(isinstance(o.default, bool) for o in kg.game.info.options)
        combos = len(kg.player_counts) << flags
        for _, players, options in game_setups(kg.game, combos, kg.player_counts):
            flags_id = "-".join(f"{name}={value}" for name, value in options.items())
            params.append(pytest.param(kg, players, options, marks=_needs_kernel(kg),
                                       id=f"{kg.name}-{players}p-{flags_id}"))
    return params


each_game = pytest.mark.parametrize("kg", _each_game())


# -- move for move ------------------------------------------------------------------------------

@pytest.mark.parametrize(("kg", "players", "options"), _each_setup())
def test_random_games_move_for_move(kg: KernelGame, players: int,
                                    options: dict[str, Any]) -> None:
    """Seeded random games stay identical move for move, heuristic included, to the same end."""
    for g in range(6):
        seed = 1000 * players + g
        state = kg.game.new_game(seed, players, options)
        k = kg.twin(state)
        rng = random.Random(seed)
        steps = 0
        while True:
            assert_same(state, k)
            assert k.heuristic() == state.heuristic()
            assert k.features() == state.features()
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


@each_game
def test_heuristic_scores_and_ranking_mid_game(kg: KernelGame) -> None:
    """A twin made mid-game evaluates the position like the reference does."""
    for seed, players, options in game_setups(kg.game, 8, kg.player_counts):
        for i, state in enumerate(random_positions(kg.game, seed, players, options)):
            if i % 9 == 0:
                k = kg.twin(state)
                assert k.heuristic() == state.heuristic()
                assert k.scores() == state.scores()
                assert k.ranking() == state.ranking()


@each_game
def test_the_kernel_features_are_the_reference_features(kg: KernelGame) -> None:
    """The learned leaf's inputs (each game's features.features and the kernel's C twin)
    over seeded random positions of every player count, each a declared vector."""
    compared = 0
    for seed, players, options in game_setups(kg.game, 8, kg.player_counts):
        for step, state in enumerate(random_positions(kg.game, seed, players, options)):
            if step % 5:
                continue
            vectors = state.features()
            assert kg.twin(state).features() == vectors, (seed, players, step)
            assert len(vectors) == players and {len(v) for v in vectors} == {len(kg.feature_names)}
            compared += 1
    assert compared > 50


# -- playouts --------------------------------------------------------------------------------------

@each_game
def test_rollout_matches_python_rollout(kg: KernelGame) -> None:
    """A playout from anywhere takes the reference's moves to the reference's end."""
    for seed, players, options in game_setups(kg.game, kg.rollout_games, kg.player_counts):
        for i, state in enumerate(random_positions(kg.game, seed, players, options)):
            if i % kg.rollout_every != 0:
                continue
            ref, k = state.clone(), kg.twin(state)
            rollout_seed = seed * 31 + i
            assert k.rollout(rollout_seed) == ref.rollout(rollout_seed)
            assert k.to_json() == ref.to_json()
            assert k.last_rollout_steps == ref.last_rollout_steps
            assert k.is_terminal()


@each_game
def test_truncated_playouts_take_the_reference_moves(kg: KernelGame) -> None:
    """random_playout(seed, n) plays play_random_moves' n moves (0: to the end), the
    leaf of truncated and learned searches."""
    for seed, players, options in game_setups(kg.game, 4, kg.player_counts):
        for i, state in enumerate(random_positions(kg.game, seed, players, options)):
            if i % 15 or state.is_terminal():
                continue
            for depth in (1, 6, 25, 0):
                ref, k = state.clone(), kg.twin(state)
                assert k.random_playout(seed + i, depth) == \
                    play_random_moves(ref, seed + i, depth)
                assert k.to_json() == ref.to_json()


@each_game
def test_rollout_seeds_wrap_like_playout_rng(kg: KernelGame) -> None:
    """Negative and oversized seeds are reduced exactly as PlayoutRng reduces them."""
    state = kg.game.new_game(5, 3)
    for seed in (0, -1, 2**64 + 7, 2**70 - 3, 12345678901234567890):
        ref, k = state.clone(), kg.twin(state)
        assert k.rollout(seed) == ref.rollout(seed)
        assert k.to_json() == ref.to_json()


@each_game
def test_rollout_step_count(kg: KernelGame) -> None:
    """last_rollout_steps counts the moves of the PlayoutRng playout (what bench reports)."""
    state = kg.game.new_game(9, 4)
    k = kg.twin(state)
    rng = PlayoutRng(77)
    replay, steps = state.clone(), 0
    while not replay.is_terminal():
        moves = replay.legal_moves()
        replay.apply(moves[rng.below(len(moves))])
        steps += 1
    k.rollout(77)
    assert k.last_rollout_steps == steps
    assert k.to_json() == replay.to_json()


@each_game
def test_rollout_of_finished_game_is_its_outcome(kg: KernelGame) -> None:
    """Rolling out a finished game makes no move and returns the game's outcome."""
    state = kg.game.new_game(2, 2)
    state.rollout(4)
    k = kg.twin(state)
    assert k.rollout(99) == state.outcome()
    assert k.last_rollout_steps == 0


@each_game
def test_search_answers_the_same_with_and_without_kernel(
        kg: KernelGame, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel only makes search faster: the same seed gives the same answer on the pure path."""
    state = kg.game.new_game(3, kg.search_players)
    fast_answer = mcts_search(state, iterations=kg.search_iterations, seed=5).to_json()
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    assert state.search_state() is state
    pure_answer = mcts_search(state, iterations=kg.search_iterations, seed=5).to_json()
    fast_answer.pop("elapsed")
    pure_answer.pop("elapsed")
    assert fast_answer == pure_answer


# -- copies and conversions ---------------------------------------------------------------------

@each_game
def test_clone_is_independent(kg: KernelGame) -> None:
    """Moves and a playout on a clone leave the original untouched."""
    state = kg.game.new_game(11, 3)
    k = kg.twin(state)
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


@each_game
def test_reference_round_trip(kg: KernelGame) -> None:
    """Reference -> kernel -> reference (directly or through JSON) loses nothing."""
    reference_class = type(kg.game.new_game(1, 2))
    for seed, players, options in game_setups(kg.game, 12, kg.player_counts):
        for i, state in enumerate(random_positions(kg.game, seed, players, options)):
            if i % 11:
                continue
            k = kg.twin(state)
            ref = k.to_reference()
            assert isinstance(ref, reference_class)
            assert ref.to_json() == state.to_json()
            assert ref.legal_moves() == state.legal_moves()
            assert kg.twin(ref).to_json() == state.to_json()
            assert kg.twin(kg.game.state_from_json(k.to_json())).to_json() == state.to_json()


@each_game
def test_pickle_round_trip(kg: KernelGame) -> None:
    """A pickled kernel state (as sent to search workers) comes back the same."""
    state = kg.game.new_game(4, max(kg.player_counts))
    state.apply(state.legal_moves()[0])
    k = pickle.loads(pickle.dumps(kg.twin(state)))
    assert isinstance(k, kg.kernel_state)
    assert_same(state, k)


# -- the protocol -------------------------------------------------------------------------------

@each_game
def test_protocol_surface(kg: KernelGame) -> None:
    """search_state() hands out the kernel, and it answers the State protocol like the reference."""
    kernel_state = kg.kernel_state
    state: Any = kg.game.new_game(21, 3)  # every game with a kernel has a catalogue
    k: Any = state.search_state()
    assert isinstance(k, kernel_state)
    assert kg.game.kernel_available()
    assert issubclass(kernel_state, State)  # registered as a virtual subclass
    assert k.info is kg.game.info and kernel_state.info is kg.game.info
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


@each_game
def test_illegal_moves_raise(kg: KernelGame) -> None:
    """Illegal moves raise on both sides for the same reason and change nothing."""
    state = kg.game.new_game(8, 2)
    k = kg.twin(state)
    opening = k.legal_moves()[0]
    legal = set(k.legal_moves())
    before = k.to_json()
    illegal = [m for m in range(1 << 17) if m not in legal]
    # the first ones densely (near the legal encodings), then a sparse sweep
    bad = illegal[:200:7] + illegal[::97]
    odd: list[Any] = [-1, 1 << 40, True, "wait", "keep", None, 2.0]
    for move in bad + odd:
        with pytest.raises(IllegalMoveError):
            k.apply(move)
        with pytest.raises(IllegalMoveError):
            state.clone().apply(move)
        assert k.why_illegal(move) == state.why_illegal(move)
    assert k.to_json() == before
    state.rollout(1)
    k = kg.twin(state)
    with pytest.raises(IllegalMoveError, match="game is over"):
        k.apply(opening)  # a move of the game (Stephens' codes are far from 0)
