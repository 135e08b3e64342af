"""MCTS (UCT) with reward vectors, chance nodes and budgets, on toy games."""

from __future__ import annotations

import json
import time

import pytest

from engine.game import Outcome, State
from engine.search.analysis import Analysis
from engine.search.mcts import MCTS, mcts_search

from .toy_games import LOTTERIES, FastRaceState, LotteryState, RaceState, race


def _stable(analysis: Analysis) -> dict:
    data = analysis.to_json()
    del data["elapsed"]
    return data


# -- determinism ---------------------------------------------------------------


def test_fixed_seed_and_iterations_is_bit_identical() -> None:
    state = race(3, 30, 3)
    first = mcts_search(state, iterations=1500, seed=42)
    second = mcts_search(state, iterations=1500, seed=42)
    assert json.dumps(_stable(first)) == json.dumps(_stable(second))


def test_different_seeds_give_different_trees() -> None:
    state = race(3, 30, 3)
    a = mcts_search(state, iterations=1500, seed=1)
    b = mcts_search(state, iterations=1500, seed=2)
    assert _stable(a) != _stable(b)


def test_search_does_not_modify_the_state() -> None:
    state = race(2, 15, 3, total=4)
    before = state.to_json()
    mcts_search(state, iterations=300, seed=0)
    assert state.to_json() == before


# -- strength ------------------------------------------------------------------


def test_takes_an_immediate_win() -> None:
    analysis = mcts_search(race(2, 10, 3, total=8), iterations=200, seed=3)
    assert analysis.best_move == 2
    assert analysis.best_move_text == "+2"
    assert analysis.moves[0].win_probability == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finds_the_known_winning_move_of_race_to_10(seed: int) -> None:
    # Leave the opponent a multiple of 4 to go: from 0 towards 10 that is +2.
    analysis = mcts_search(race(2, 10, 3), iterations=3000, seed=seed)
    assert analysis.best_move == 2
    assert analysis.moves[0].win_probability > 0.8
    # The principal variation keeps playing the winning strategy for seat 0.
    pv = analysis.principal_variation_moves
    assert pv[0] == 2 and sum(pv[:3]) == 6


def test_three_players_use_the_movers_reward_component() -> None:
    # Total 3 of 7: whatever seat 0 adds (1-3), seat 1 can reach 7 at once.  Seat 1
    # only takes that win if its own component of the reward vector drives selection.
    analysis = mcts_search(race(3, 7, 3, total=3), iterations=3000, seed=5)
    wp = analysis.win_probability
    assert len(wp) == 3
    assert sum(wp) == pytest.approx(1.0)
    assert wp[1] > 0.95
    for move in analysis.moves:
        assert move.win_probability < 0.05  # seat 0's share after each move
    pv = analysis.principal_variation_moves
    assert len(pv) == 2 and 3 + pv[0] + pv[1] == 7


def test_seat_to_move_other_than_zero() -> None:
    # Seat 2 of 3 to move at 5/7: +2 wins.
    analysis = mcts_search(race(3, 7, 3, total=5, to_move=2), iterations=300, seed=0)
    assert analysis.player == 2
    assert analysis.best_move == 2
    assert analysis.win_probability[2] > 0.9


# -- chance nodes --------------------------------------------------------------


def test_chance_nodes_are_sampled_by_probability() -> None:
    # Lottery B wins 70% but has 1 winning ball of 3; uniform sampling would
    # prefer C (3 winning balls of 5).
    tree = MCTS(LotteryState(), seed=11)
    analysis = tree.search(4000)
    assert analysis.best_move_text == "lottery-B"
    by_text = {m.text: m for m in analysis.moves}
    assert by_text["lottery-B"].win_probability == pytest.approx(0.7, abs=0.03)
    assert by_text["lottery-B"].expected_scores[0] == pytest.approx(7.0, abs=0.3)
    # Visits of the chance node's outcome children follow the probabilities.
    index = tree.tree.root.moves.index(1)
    chance_node = tree.tree.root.children[index]
    counts = [kid.n if kid is not None else 0 for kid in chance_node.outcome_children]
    # Every visit but the expanding one (which rolled out from the chance node) went on.
    assert sum(counts) == chance_node.n - 1
    probs = [p for p, _ in LOTTERIES[1][1]]
    for count, p in zip(counts, probs, strict=True):
        assert count / sum(counts) == pytest.approx(p, abs=0.04)


def test_principal_variation_includes_chance_outcomes() -> None:
    analysis = mcts_search(LotteryState(), iterations=2000, seed=4)
    assert analysis.principal_variation[0] == "lottery-B"
    assert analysis.principal_variation[1] == "ball-2"  # the 70% ball
    assert analysis.principal_variation_moves == [1, 2]


def test_refuses_chance_and_terminal_roots() -> None:
    at_chance = LotteryState(lottery=0)
    with pytest.raises(ValueError, match="chance"):
        mcts_search(at_chance, iterations=10, seed=0)
    finished = race(2, 3, 3, total=0)
    finished.apply(3)
    with pytest.raises(ValueError, match="finished"):
        mcts_search(finished, iterations=10, seed=0)


# -- budgets -------------------------------------------------------------------


def test_requires_a_budget() -> None:
    with pytest.raises(ValueError):
        mcts_search(race(), seed=0)
    with pytest.raises(ValueError):
        mcts_search(race(), iterations=0, seed=0)
    with pytest.raises(ValueError):
        mcts_search(race(), time_limit=-1.0, seed=0)


def test_time_limit_is_respected() -> None:
    # Behaviour, not speed: the time limit is what stopped the search, not before its
    # time; the wall-clock bound only catches a search that ignores its limit (a
    # loaded machine may deschedule this process for seconds).
    state = FastRaceState(3, 200, 3)
    start = time.perf_counter()
    analysis = mcts_search(state, time_limit=0.25, seed=0)
    wall = time.perf_counter() - start
    assert analysis.stop_reason == "time_limit"
    assert analysis.elapsed >= 0.25 and analysis.iterations >= 1
    assert wall < 0.25 + 30.0


def test_whichever_budget_runs_out_first() -> None:
    state = FastRaceState(2, 100, 3)
    quick = mcts_search(state, iterations=100, time_limit=600.0, seed=0)
    assert quick.iterations == 100 and quick.stop_reason == "iterations"
    timed = mcts_search(state, iterations=10**9, time_limit=0.1, seed=0)
    assert timed.iterations < 10**9 and timed.stop_reason == "time_limit"
    assert timed.elapsed >= 0.1


def test_should_stop_cancels() -> None:
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls >= 37

    analysis = mcts_search(race(2, 50, 3), iterations=10**6, seed=0, should_stop=stop)
    assert analysis.iterations == 37  # checked before every iteration after the first


def test_on_progress_streams_growing_analyses() -> None:
    seen: list[Analysis] = []
    final = mcts_search(
        FastRaceState(2, 100, 3),
        time_limit=0.45,
        seed=0,
        on_progress=seen.append,
        progress_interval=0.1,
    )
    assert 2 <= len(seen) <= 6
    counts = [a.iterations for a in seen] + [final.iterations]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert all(sum(m.visits for m in a.moves) == a.iterations for a in seen)


def test_progress_does_not_change_an_iteration_budgeted_result() -> None:
    state = race(2, 40, 3)
    plain = mcts_search(state, iterations=4000, seed=9)
    streamed = mcts_search(
        state, iterations=4000, seed=9, on_progress=lambda a: None, progress_interval=0.001
    )
    assert _stable(plain) == _stable(streamed)


def test_search_can_be_resumed() -> None:
    tree = MCTS(race(2, 20, 3), seed=0)
    tree.search(200)
    analysis = tree.search(300)
    assert analysis.iterations == 500
    assert tree.tree.root.n == 500


# -- analysis ------------------------------------------------------------------


def test_analysis_fields_are_consistent() -> None:
    state = race(3, 25, 3, total=2)
    analysis = mcts_search(state, iterations=1200, seed=8)
    assert analysis.iterations == 1200
    assert sum(m.visits for m in analysis.moves) == 1200
    visits = [m.visits for m in analysis.moves]
    assert visits == sorted(visits, reverse=True)
    assert analysis.best_move == analysis.moves[0].move
    assert analysis.best_move_text == state.move_to_text(analysis.best_move)
    assert {m.move for m in analysis.moves} <= set(state.legal_moves())
    assert sum(analysis.win_probability) == pytest.approx(1.0)
    for m in analysis.moves:
        assert 0.0 <= m.win_probability <= 1.0
        assert len(m.expected_scores) == 3
        assert m.text == state.move_to_text(m.move)
    # Expected scores: whoever wins, the seats' additions sum to the 25 - 2 still to go.
    assert sum(analysis.expected_scores) == pytest.approx(23.0)
    # The principal variation replays legally from the root.
    board = state.clone()
    for move, text in zip(
        analysis.principal_variation_moves, analysis.principal_variation, strict=True
    ):
        assert board.move_to_text(move) == text
        assert board.why_illegal(move) is None
        board.apply(move)
    assert analysis.principal_variation_moves[0] == analysis.best_move
    json.dumps(analysis.to_json())


def test_exploration_constant_matters() -> None:
    state = race(2, 30, 3)
    greedy = mcts_search(state, iterations=800, seed=0, c=0.0)
    explore = mcts_search(state, iterations=800, seed=0, c=5.0)
    # With c=5 visits spread out far more than with pure exploitation.
    assert greedy.moves[0].visits > explore.moves[0].visits


# -- the search twin -----------------------------------------------------------


class _TwinnedRace(RaceState):
    """A state whose search twin counts rollouts, to prove search runs on the twin."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.twin_rollouts: list[int] = []

    def search_state(self) -> State:
        twin = _CountingRace(
            self.num_players, self.target, self.max_step, self.total, self.to_move, self.added
        )
        twin.counter = self.twin_rollouts
        return twin


class _CountingRace(RaceState):
    counter: list[int]

    def clone(self) -> _CountingRace:
        new = _CountingRace(
            self.num_players,
            self.target,
            self.max_step,
            self.total,
            self.to_move,
            self.added,
            self.winner,
        )
        new.counter = self.counter
        return new

    def rollout(self, seed: int) -> Outcome:
        self.counter.append(1)
        return super().rollout(seed)


def test_search_runs_on_the_search_state_twin() -> None:
    state = _TwinnedRace(2, 12, 3)
    analysis = mcts_search(state, iterations=100, seed=0)
    assert 90 <= len(state.twin_rollouts) <= 100  # a few iterations end at terminal nodes
    assert analysis.best_move_text.startswith("+")
