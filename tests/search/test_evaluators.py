"""The leaf evaluator seam: full random playouts (the default) and truncated ones."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any, ClassVar

import pytest

from engine import registry
from engine.game import (
    CHANCE,
    TERMINAL,
    Event,
    GameInfo,
    IllegalMoveError,
    Outcome,
    State,
    play_random_moves,
    rank_groups,
)
from engine.playout_rng import PlayoutRng
from engine.search import (
    FULL_PLAYOUT,
    Evaluator,
    RolloutEvaluator,
    SearchConfig,
    TruncatedPlayoutEvaluator,
    heuristic_outcome,
    make_bot,
    make_tree,
    search_for,
)
from engine.search._common import backup_values
from engine.search.evaluate import playout_evaluator
from engine.search.ismcts import ISMCTS
from engine.search.mcts import MCTS

from .toy_games import RaceState, race

VAULT_INFO = GameInfo(
    name="toy-vault",
    title="Vault",
    min_players=2,
    max_players=2,
    perfect_information=True,
    has_chance=True,
    chance_nodes=True,
)
HIDDEN_VAULT_INFO = dataclasses.replace(VAULT_INFO, name="toy-vault-hidden",
                                        perfect_information=False)
VAULT, COIN = 0, 1
#: Plies of the filler between the root choice and the end, each with FILLER_WIDTH
#: moves that change nothing: far deeper than a small search can see.
FILLER = 30
FILLER_WIDTH = 3
DIGITS = 10
COMBINATION = 7


class VaultState(State):
    """Seat 0 opens the vault (a sure win: it knows the combination) or tosses a coin.

    Either way ``FILLER`` plies of meaningless moves follow.  Then, after VAULT,
    seat 0 dials one of ten digits: the right one wins 10-0, any other loses 0-1,
    so a *random* playout wins only one time in ten; after COIN a fair coin decides
    1-0 or 0-1.  Perfect play wins after VAULT: the heuristic (10 for the seat that
    holds the vault) says so, full random playouts say the coin is five times better.
    ``plies`` counts every move applied (chance outcomes included).
    """

    info: ClassVar[GameInfo] = VAULT_INFO

    def __init__(self) -> None:
        self.num_players = 2
        self.line: int | None = None
        self.filler = 0
        self.final: int | None = None
        self.plies = 0

    def _phase(self) -> str:
        if self.line is None:
            return "choose"
        if self.filler < FILLER:
            return "filler"
        return "end" if self.final is None else "over"

    def current_player(self) -> int:
        phase = self._phase()
        if phase == "choose":
            return 0
        if phase == "filler":
            return self.filler % 2
        if phase == "end":
            return 0 if self.line == VAULT else CHANCE
        return TERMINAL

    def legal_moves(self) -> list[int]:
        phase = self._phase()
        if phase == "choose":
            return [VAULT, COIN]
        if phase == "filler":
            return list(range(FILLER_WIDTH))
        if phase == "end" and self.line == VAULT:
            return list(range(DIGITS))
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)] if self.current_player() == CHANCE else []

    def why_illegal(self, move: int) -> str | None:
        if self.current_player() == TERMINAL:
            return "the game is over"
        allowed = (self.legal_moves() if self.current_player() >= 0
                   else [m for m, _ in self.chance_outcomes()])
        return None if move in allowed else f"{move} is not a move here"

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        phase = self._phase()
        if phase == "choose":
            self.line = move
        elif phase == "filler":
            self.filler += 1
        else:
            self.final = move
        self.plies += 1
        return []

    def clone(self) -> VaultState:
        twin = type(self)()
        twin.line, twin.filler, twin.final, twin.plies = (
            self.line, self.filler, self.final, self.plies)
        return twin

    def scores(self) -> list[float]:
        if self.final is None:
            return [0.0, 0.0]
        if self.line == VAULT:
            return [10.0, 0.0] if self.final == COMBINATION else [0.0, 1.0]
        return [1.0, 0.0] if self.final == 0 else [0.0, 1.0]

    def heuristic(self) -> list[float]:
        if self.final is not None:
            return self.scores()
        if self.line == VAULT:
            return [10.0, 0.0]
        return [0.5, 0.5]

    def ranking(self) -> list[list[int]]:
        return rank_groups([(s,) for s in self.scores()])

    def observation(self, seat: int | None) -> dict[str, Any]:
        return self.to_json()

    def determinize(self, observer: int | None, rng: random.Random) -> State:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"game": self.info.name, "line": self.line, "filler": self.filler,
                "final": self.final, "plies": self.plies}

    def move_to_text(self, move: int) -> str:
        if self._phase() == "choose":
            return ("vault", "coin")[move]
        return str(move)

    def parse_move(self, text: str) -> int:
        return ["vault", "coin"].index(text) if self._phase() == "choose" else int(text)


class HiddenVaultState(VaultState):
    info: ClassVar[GameInfo] = HIDDEN_VAULT_INFO


def _vault_line() -> VaultState:
    state = VaultState()
    state.apply(VAULT)
    return state


# -- the evaluators themselves ----------------------------------------------------


def test_the_evaluators_are_evaluators() -> None:
    assert isinstance(FULL_PLAYOUT, Evaluator)
    assert isinstance(TruncatedPlayoutEvaluator(3), Evaluator)
    assert playout_evaluator(0) == FULL_PLAYOUT == RolloutEvaluator()
    assert playout_evaluator(4) == TruncatedPlayoutEvaluator(4) != TruncatedPlayoutEvaluator(5)
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="playout depth"):
            TruncatedPlayoutEvaluator(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        playout_evaluator(-1)


def test_full_playout_is_the_games_rollout() -> None:
    a, b = race(2, 40, 3), race(2, 40, 3)
    assert FULL_PLAYOUT.evaluate(a, 99) == b.rollout(99)
    assert a.to_json() == b.to_json() and a.is_terminal()


@pytest.mark.parametrize("depth", [1, 5, 12])
def test_truncated_playout_stops_at_its_depth(depth: int) -> None:
    state = _vault_line()
    outcome = TruncatedPlayoutEvaluator(depth).evaluate(state, seed=5)
    assert state.plies == 1 + depth  # the root choice, then exactly ``depth`` moves
    assert not state.is_terminal()
    # valued by the heuristic: its values as scores, the win to the leader
    assert outcome == Outcome((10.0, 0.0), (1.0, 0.0))
    full = _vault_line()
    FULL_PLAYOUT.evaluate(full, seed=5)
    assert full.plies == 1 + FILLER + 1 and full.is_terminal()


def test_truncated_playout_returns_the_real_outcome_when_the_game_ends_first() -> None:
    state = _vault_line()
    outcome = TruncatedPlayoutEvaluator(FILLER + 50).evaluate(state, seed=5)
    assert state.is_terminal() and state.plies == 1 + FILLER + 1
    assert outcome == state.outcome()
    # chance outcomes count as moves, drawn from the same stream as rollout()
    coin, reference = VaultState(), VaultState()
    coin.apply(COIN)
    reference.apply(COIN)
    assert TruncatedPlayoutEvaluator(FILLER + 1).evaluate(coin, 8) == reference.rollout(8)


class _CompiledRace(RaceState):
    """A race whose truncated playouts a compiled kernel would run
    (``random_playout``): it records its calls, then plays the Python loop."""

    calls: ClassVar[list[tuple[int, int]]] = []

    def random_playout(self, seed: int, max_moves: int) -> int:
        self.calls.append((seed, max_moves))
        return play_random_moves(self, seed, max_moves)


def test_truncated_playout_runs_in_the_kernel_where_there_is_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_CompiledRace, "calls", [])
    kernel, reference = _CompiledRace(3, 200, 4), race(3, 200, 4)
    evaluator = TruncatedPlayoutEvaluator(20)
    assert evaluator.evaluate(kernel, 77) == evaluator.evaluate(reference, 77)
    assert _CompiledRace.calls == [(77, 20)]
    assert kernel.to_json() == reference.to_json()
    ended = _CompiledRace(2, 4, 3)  # a race that ends within the playout: the real outcome
    assert evaluator.evaluate(ended, 5) == ended.outcome() and ended.is_terminal()


def test_truncated_playout_follows_the_rollout_stream() -> None:
    # The moves State.rollout would play (moves[next() % len(moves)]), 20 of them.
    a, b = race(3, 200, 4), race(3, 200, 4)
    TruncatedPlayoutEvaluator(20).evaluate(a, 1234)
    rng = PlayoutRng(1234)
    for _ in range(20):
        legal = b.legal_moves()
        b.apply(legal[rng.below(len(legal))])
    assert a.to_json() == b.to_json() and sum(a.added) < 200


def test_heuristic_outcome_shares_the_lead() -> None:
    class Board:
        def __init__(self, values: list[float]) -> None:
            self.values = values

        def heuristic(self) -> list[float]:
            return self.values

    tie = heuristic_outcome(Board([4.0, 9.0, 9.0 - 1e-12]))  # type: ignore[arg-type]
    assert tie == Outcome((4.0, 9.0, 9.0 - 1e-12), (0.0, 0.5, 0.5))
    assert heuristic_outcome(Board([2, 1])).rewards == (1.0, 0.0)  # type: ignore[arg-type]
    # what the tree backs up from it: the logistic of the heuristic margin with a scale
    values = backup_values(Outcome((12.0, 7.0, 2.0), (1.0, 0.0, 0.0)), 5.0)
    assert values[:3] == pytest.approx(
        (1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1)), 1 / (1 + math.exp(2))))


# -- in the trees --------------------------------------------------------------------


@pytest.mark.parametrize("state_type", [VaultState, HiddenVaultState])
def test_full_playouts_mislead_where_the_heuristic_does_not(state_type: type) -> None:
    full = search_for(state_type(), iterations=300, seed=1)
    assert full.best_move_text == "coin"  # random dialling wins the vault 1 time in 10
    truncated = search_for(state_type(), iterations=300, seed=1,
                           config=SearchConfig(playout_depth=4))
    assert truncated.best_move_text == "vault"
    vault = truncated.moves[0]
    assert vault.win_probability == 1.0 and vault.expected_scores == (10.0, 0.0)
    with_margin = search_for(state_type(), iterations=300, seed=1,
                             config=SearchConfig(playout_depth=4, margin_scale=2.0))
    assert with_margin.best_move_text == "vault"


@pytest.mark.parametrize("tree_type", [MCTS, ISMCTS])
def test_trees_take_an_evaluator_and_a_depth(tree_type: Any) -> None:
    calls: list[int] = []

    class Counting:
        def evaluate(self, state: State, seed: int) -> Outcome:
            calls.append(seed)
            return Outcome((1.0, 0.0), (1.0, 0.0))

    tree = tree_type(HiddenVaultState(), seed=3, evaluator=Counting())
    tree.search(50)
    assert len(calls) == 50 and len(set(calls)) == 50  # a fresh seed for every leaf
    depth_6 = SearchConfig(playout_depth=6)
    assert tree_type(VaultState(), config=depth_6).settings.evaluator == \
        TruncatedPlayoutEvaluator(6)
    assert tree_type(VaultState()).settings.evaluator is FULL_PLAYOUT


def test_a_truncated_search_is_reproducible() -> None:
    config = SearchConfig(playout_depth=5)
    a = make_tree(race(2, 60, 3), seed=9, config=config).search(400)
    b = make_tree(race(2, 60, 3), seed=9, config=config).search(400)
    assert [(m.move, m.visits) for m in a.moves] == [(m.move, m.visits) for m in b.moves]
    assert a.expected_scores == b.expected_scores


def test_bot_specs_choose_the_playout_depth() -> None:
    assert make_bot("mcts:300:d=4", seed=1).choose(VaultState(), random.Random(0)) == VAULT
    assert make_bot("ismcts:300:d=4", seed=1).choose(HiddenVaultState(),
                                                     random.Random(0)) == VAULT
    assert make_bot("mcts:300:d=0", seed=1).choose(VaultState(), random.Random(0)) == COIN
    bot = make_bot("mcts:300:depth=7:m=3")
    overrides = bot.overrides  # type: ignore[attr-defined]
    assert (overrides.playout_depth, overrides.margin_scale) == (7, 3.0)
    assert make_bot("mcts").overrides.playout_depth is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("oh-my-goods", 2)])
def test_truncated_playouts_agree_on_both_engine_paths(
        game: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The truncated evaluator plays the kernel twin and the reference rules alike."""
    config = SearchConfig(playout_depth=8, margin_scale=5.0)
    results = []
    for pure in ("", "1"):
        monkeypatch.setenv("FURNACE_PURE_PYTHON", pure)
        state = registry.new_game(game, 3, players)
        analysis = search_for(state, iterations=60, seed=2, config=config)
        results.append(([(m.text, m.visits) for m in analysis.moves],
                        analysis.win_probability, analysis.expected_scores))
    assert results[0] == results[1]
