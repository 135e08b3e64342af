"""Root-parallel search and merging of root statistics."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from engine.game import State
from engine.processes import WarmPool, WorkerDiedError
from engine.search import parallel
from engine.search.analysis import RootStats, build_analysis, merge_root_stats
from engine.search.dispatch import make_tree
from engine.search.ismcts import ismcts_search
from engine.search.mcts import mcts_search
from engine.search.parallel import (
    make_pool,
    parallel_search,
    split_iterations,
    warm_up,
    worker_seed,
)

from .hidden_toy_games import TricksGame, TricksState, deal
from .toy_games import LotteryState, race, rebuild

ROOT = Path(__file__).resolve().parents[2]

#: How far past its time limit a timed call may return.  Generous for a loaded CI
#: machine (a guess of its speed: see the tests that use it).
MARGIN = 0.4
#: The same for the first call of a fresh process: tighter, so that waiting for the
#: workers' real start-up (0.3 s on an idle machine, over 1 s on a busy one) is caught.
FIRST_CALL_MARGIN = 0.2


def rebuild_tricks(data: dict) -> TricksState:  # type: ignore[type-arg]
    return TricksGame().state_from_json(data)  # type: ignore[return-value]


def in_worker() -> bool:
    return multiprocessing.parent_process() is not None


#: Seconds at most a worker of :func:`slow_in_workers` is held (then it goes on).
SLOW_START = 60.0


def slow_start_hold(parent: int) -> Path:
    """While this file exists, :func:`slow_in_workers` holds the workers of ``parent``."""
    return Path(tempfile.gettempdir()) / f"furnace-test-slow-start-{parent}"


def slow_in_workers(data: dict) -> State:  # type: ignore[type-arg]
    """:func:`rebuild`, but a worker process is held over it (a slow start-up) while
    :func:`slow_start_hold` of its parent exists, :data:`SLOW_START` seconds at most."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None:
        hold, end = slow_start_hold(parent.pid), time.monotonic() + SLOW_START
        while hold.exists() and time.monotonic() < end:
            time.sleep(0.01)
    return rebuild(data)


def dies_in_workers(data: dict) -> State:  # type: ignore[type-arg]
    """:func:`rebuild`, but a worker process dies over it."""
    if in_worker():
        os._exit(3)
    return rebuild(data)


def fails_in_workers(data: dict) -> State:  # type: ignore[type-arg]
    """:func:`rebuild`, but it raises in a worker process."""
    if in_worker():
        raise ValueError("no rebuild here")
    return rebuild(data)


def never_here(*task: object) -> None:
    raise AssertionError("a tree grew in the calling process")


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
    # The deadline is shared by every tree, and counts from the call's entry.
    start = time.monotonic()
    timed = parallel_search(LotteryState(), 2, time_limit=0.3, seed=1, rebuild=rebuild)
    assert time.monotonic() - start < 0.3 + MARGIN
    assert timed.stop_reason == "time_limit" and timed.iterations >= 1
    assert timed.elapsed < 0.3 + MARGIN


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


def test_the_time_limit_covers_slow_worker_start_up() -> None:
    """Workers that take longer to start than the whole call do not hold the call: they
    are held until it has answered (:data:`SLOW_START` at most, so a call that waited
    for them takes that long, however busy the machine)."""
    hold = slow_start_hold(os.getpid())
    hold.touch()
    try:
        start = time.monotonic()
        timed = parallel_search(race(2, 40, 3), 2, time_limit=0.2, seed=1,
                                rebuild=slow_in_workers)
        took = time.monotonic() - start
    finally:
        hold.unlink()
    assert took < SLOW_START
    assert timed.stop_reason == "time_limit" and timed.iterations >= 1


def test_the_first_call_of_a_process_keeps_its_time_limit() -> None:
    """In a fresh process the first call starts the workers: that counts in its budget.

    Starting them (a Samara worker imports the engine, numpy and the kernel) takes
    about a third of a second on an idle machine, and the call may not wait for it.
    The process searched once in-process before, so its own imports are done.
    """
    code = textwrap.dedent("""
        import time
        from engine import registry
        from engine.search import parallel_search, search_for
        if __name__ == "__main__":
            state = registry.new_game("samara", 1, 2)
            search_for(state, iterations=1, seed=1)
            start = time.monotonic()
            parallel_search(state, 2, time_limit=0.05, seed=1)
            print(time.monotonic() - start)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    assert float(done.stdout.split()[-1]) < 0.05 + FIRST_CALL_MARGIN


def test_the_pool_stays_warm_between_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    warm_up(2, games=["samara"])
    pool = parallel._shared
    assert pool is not None and pool.size >= 2
    pids = pool.pids
    assert len(set(pids)) == pool.size and os.getpid() not in pids
    # Warm: every tree grows in a worker, none in this process.
    monkeypatch.setattr(parallel, "_search_here", never_here)
    # The same workers answer each call (their pids): no call starts a process.
    for seed in (1, 2):
        found = parallel_search(race(2, 40, 3), 2, time_limit=0.2, seed=seed, rebuild=rebuild)
        assert found.iterations >= 2 and found.stop_reason == "time_limit"
        assert parallel._shared is pool and pool.pids == pids
    found = parallel_search(race(2, 40, 3), 2, iterations=500, seed=3, rebuild=rebuild)
    assert found.iterations == 500 and parallel._shared is pool and pool.pids == pids


def test_the_same_trees_whichever_process_grows_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Iteration budgets give one answer: every tree in a worker, tree 0 here, or a
    pool of the call's own while another call has the shared one."""
    state = race(2, 40, 3)
    parts = []
    for i, share in enumerate(split_iterations(1001, 2)):
        tree = make_tree(state, seed=worker_seed(9, i))
        tree.search(share)
        parts.append(tree.root_stats())
    expected = _stable(build_analysis(state, merge_root_stats(parts)))
    expected["stop_reason"] = "iterations"

    warm_up(2)
    with monkeypatch.context() as patch:
        patch.setattr(parallel, "_search_here", never_here)
        assert _stable(parallel_search(state, 2, iterations=1001, seed=9,
                                       rebuild=rebuild)) == expected
    with monkeypatch.context() as patch:
        patch.setattr(WarmPool, "idle", lambda self: [])  # as if every worker were busy
        assert _stable(parallel_search(state, 2, iterations=1001, seed=9,
                                       rebuild=rebuild)) == expected
    with parallel._shared_lock:  # another call has the shared pool
        assert _stable(parallel_search(state, 2, iterations=1001, seed=9,
                                       rebuild=rebuild)) == expected


def test_a_dead_worker_is_replaced() -> None:
    warm_up(2)
    pool = parallel._shared
    assert pool is not None
    pids = pool.pids
    os.kill(pids[0], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not pool.dead():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    found = parallel_search(race(2, 40, 3), 2, iterations=300, seed=1, rebuild=rebuild)
    assert found.iterations == 300
    assert parallel._shared is pool and not pool.dead()
    assert pool.pids[0] != pids[0] and pool.pids[1:] == pids[1:]


def test_a_worker_dying_or_failing_in_a_call() -> None:
    with pytest.raises(WorkerDiedError):
        parallel_search(race(2, 40, 3), 2, iterations=300, seed=1, rebuild=dies_in_workers)
    with pytest.raises(ValueError, match="no rebuild here"):
        parallel_search(race(2, 40, 3), 2, iterations=300, seed=1, rebuild=fails_in_workers)
    found = parallel_search(race(2, 40, 3), 2, iterations=300, seed=1, rebuild=rebuild)
    assert found.iterations == 300


def test_a_pool_of_ones_own() -> None:
    with make_pool(2) as pool:
        warm_up(2, pool=pool, timeout=60)
        assert pool.idle() == [0, 1]
        tickets = [pool.submit(i, os.getpid) for i in range(2)]
        assert sorted(pool.collect(tickets).values()) == sorted(pool.pids)
        a = parallel_search(race(2, 40, 3), 2, iterations=400, seed=5, rebuild=rebuild,
                            pool=pool)
        b = parallel_search(race(2, 40, 3), 2, iterations=400, seed=5, rebuild=rebuild)
        assert _stable(a) == _stable(b)
    assert pool.closed and not pool.usable()
    with pytest.raises(ValueError, match="closed"):
        parallel_search(race(2, 40, 3), 2, iterations=400, seed=5, rebuild=rebuild, pool=pool)
