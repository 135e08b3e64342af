"""Root-parallel search and merging of root statistics."""

from __future__ import annotations

import pytest

from engine.search.analysis import RootStats, merge_root_stats
from engine.search.ismcts import ismcts_search
from engine.search.mcts import mcts_search
from engine.search.parallel import parallel_search, split_iterations, worker_seed

from .hidden_toy_games import TricksGame, TricksState, deal
from .toy_games import LotteryState, race, rebuild


def rebuild_tricks(data: dict) -> TricksState:  # type: ignore[type-arg]
    return TricksGame().state_from_json(data)  # type: ignore[return-value]


def _stable(analysis):  # type: ignore[no-untyped-def]
    data = analysis.to_json()
    del data["elapsed"]
    return data


def test_split_iterations_and_seeds() -> None:
    assert split_iterations(10, 3) == [4, 3, 3]
    assert sum(split_iterations(1001, 4)) == 1001
    assert worker_seed(5, 0) == 5
    assert worker_seed(5, 1) == worker_seed(5, 1) != worker_seed(5, 2)


def test_one_worker_is_plain_mcts_in_process() -> None:
    state = race(3, 30, 3)
    a = parallel_search(state, 1, iterations=700, seed=4)
    b = mcts_search(state, iterations=700, seed=4)
    assert _stable(a) == _stable(b)


def test_merge_sums_root_statistics() -> None:
    a = RootStats(
        0,
        2,
        3,
        0.1,
        3,
        [2.0, 1.0, 5.0, 6.0],
        [1, 2],
        [2, 1],
        [[2.0, 0.0, 4, 2], [0.0, 1.0, 1, 4]],
        [1, 7],
    )
    b = RootStats(
        0,
        2,
        2,
        0.3,
        2,
        [0.0, 2.0, 1.0, 3.0],
        [2, 3],
        [1, 1],
        [[0.0, 1.0, 0, 2], [0.0, 1.0, 1, 1]],
        [2],
    )
    m = merge_root_stats([a, b])
    assert m.iterations == 5 and m.visits == 5 and m.elapsed == 0.3
    assert m.totals == [2.0, 3.0, 6.0, 9.0]
    assert m.moves == [1, 2, 3]
    assert m.move_visits == [2, 2, 1]
    assert m.move_totals[1] == [0.0, 2.0, 1, 6]
    # 1 and 2 tie on visits; 1 has the higher mean for seat 0, and a's PV starts with it.
    assert m.order()[0] == 0
    assert m.pv == [1, 7]
    with pytest.raises(ValueError):
        merge_root_stats([])


def test_two_workers_are_deterministic_and_merge_all_visits() -> None:
    state = race(2, 10, 3)
    a = parallel_search(state, 2, iterations=3001, seed=11, rebuild=rebuild)
    b = parallel_search(state, 2, iterations=3001, seed=11, rebuild=rebuild)
    assert _stable(a) == _stable(b)
    assert a.iterations == 3001
    assert sum(m.visits for m in a.moves) == 3001
    assert a.best_move == 2  # the known winning move of race to 10
    assert a.principal_variation_moves[0] == 2
    assert sum(a.win_probability) == pytest.approx(1.0)


def test_parallel_with_chance_and_time_limit() -> None:
    found = parallel_search(LotteryState(), 2, iterations=4000, time_limit=600.0, seed=1,
                            rebuild=rebuild)
    assert found.best_move_text == "lottery-B" and found.stop_reason == "iterations"
    # The deadline is shared by every worker; each runs at least one iteration.  The
    # wall-clock bound only catches a search that ignores it (pool start-up counts).
    timed = parallel_search(LotteryState(), 2, time_limit=0.3, seed=1, rebuild=rebuild)
    assert timed.stop_reason == "time_limit" and timed.iterations >= 2
    assert timed.elapsed < 0.3 + 30.0


def test_parallel_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        parallel_search(race(), 0, iterations=10, seed=0)
    with pytest.raises(ValueError):
        parallel_search(race(), 2, seed=0)
    with pytest.raises(ValueError):
        parallel_search(LotteryState(lottery=0), 2, iterations=10, seed=0, rebuild=rebuild)


def test_hidden_information_gets_ismcts_in_every_worker() -> None:
    state = deal(3, seed=5, hand=3)
    one = parallel_search(state, 1, iterations=600, seed=2)
    assert _stable(one) == _stable(ismcts_search(state, iterations=600, seed=2))
    a = parallel_search(state, 2, iterations=1201, seed=8, rebuild=rebuild_tricks)
    b = parallel_search(state, 2, iterations=1201, seed=8, rebuild=rebuild_tricks)
    assert _stable(a) == _stable(b)
    assert sum(m.visits for m in a.moves) == 1201


def test_parallel_search_does_not_peek() -> None:
    """Two deals that differ only in cards seat 0 cannot see get the same analysis."""
    state = deal(2, seed=3, suits=3, ranks=6, hand=3)
    data = state.to_json()
    hidden = data["hands"][1] + data["deck"]
    swapped = dict(data, hands=[data["hands"][0], hidden[-3:]], deck=hidden[:-3])
    assert swapped["hands"][1] != data["hands"][1]
    other = rebuild_tricks(swapped)
    a = parallel_search(state, 2, iterations=800, seed=1, rebuild=rebuild_tricks)
    b = parallel_search(other, 2, iterations=800, seed=1, rebuild=rebuild_tricks)
    assert _stable(a) == _stable(b)
