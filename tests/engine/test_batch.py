"""engine/batch.py without Ray: the local pool hands out jobs, and ``--cluster`` without the
``cluster`` extra says how to install it instead of a traceback."""

from __future__ import annotations

import sys

import pytest

from engine import registry
from engine.batch import CLUSTER_INSTALL, JobLostError, LocalBatch, open_batch, run_in_order
from engine.game import FurnaceError
from furnace_cli import main
from tournaments.arena import run_arena


def test_local_batch_yields_every_job_once_with_its_index() -> None:
    jobs = [(n,) for n in range(-5, 6)]
    with LocalBatch(2) as batch:
        seen = dict(batch.run(abs, jobs))
    assert seen == {i: abs(job[0]) for i, job in enumerate(jobs)}


def test_run_in_order_answers_in_the_jobs_order_here_or_on_workers() -> None:
    jobs = [(n,) for n in (5, 1, 4, 2)]
    for workers in (1, 2):
        heard: list[tuple[int, int]] = []
        done: list[int] = []
        results = run_in_order(abs, jobs, workers, progress=lambda d, _t, done=done: done.append(d),
                               on_result=lambda i, r, heard=heard: heard.append((i, r)))
        assert results == [5, 1, 4, 2] and done == [1, 2, 3, 4]
        assert sorted(heard) == [(0, 5), (1, 1), (2, 4), (3, 2)]
    # in this process a job may run through another function (objects a worker is not sent)
    assert run_in_order(abs, jobs, 1, in_process=lambda n: -n) == [-5, -1, -4, -2]


def test_local_batch_reports_a_dead_worker_as_lost() -> None:
    import os

    with LocalBatch(1) as batch:
        lost: list[int] = []
        results = list(batch.run(os._exit, [(3,)], on_lost=lost.append))
    assert (results, lost) == ([], [0])
    with LocalBatch(1) as batch, pytest.raises(JobLostError):
        list(batch.run(os._exit, [(3,)]))


def test_leaving_a_local_batch_on_an_error_stops_the_jobs_running() -> None:
    """Ctrl-C (or any error) in the caller's loop: the jobs already in a worker stop with
    it, rather than hold the command until they finish (a game of an endless bot never
    would)."""
    import os
    import time

    with pytest.raises(KeyboardInterrupt), LocalBatch(1) as batch:
        [(_, pid)] = list(batch.run(os.getpid, [()]))
        sleeping = batch._pool.submit(time.sleep, 600)
        while not sleeping.running():
            time.sleep(0.01)
        time.sleep(0.2)  # from the call queue into the worker
        raise KeyboardInterrupt
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid), "the worker still runs its job"


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # a zombie is gone
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def test_arena_through_the_batch_equals_one_process() -> None:
    game = registry.get_game("samara")
    one = run_arena(game, 2, ["random", "greedy"], 6, seed=4)
    assert run_arena(game, 2, ["random", "greedy"], 6, seed=4, workers=2) == one


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError


@pytest.mark.usefixtures("without_ray")
def test_cluster_without_ray_says_how_to_install_it() -> None:
    with pytest.raises(FurnaceError, match="furnace\\[cluster\\]"):
        open_batch(cluster="local")


@pytest.mark.usefixtures("without_ray")
@pytest.mark.parametrize("command", [
    ["arena", "samara", "--bots", "random,greedy", "--games", "2"],
    ["selfplay", "samara", "--bots", "random", "--games", "2"],
    ["check-games", "samara", "--games", "2"],
    ["check-kernel", "samara", "--games", "2"],
    ["fuzz-states", "samara", "--states", "2"],
    ["ladder", "samara", "--bots", "random,greedy", "--games", "1"],
    ["fit-value", "samara", "--bots", "random", "--games", "2", "--out", "unwritten.json"],
    ["calibration", "samara", "--fit", "--fit-games", "2", "--games", "2"],
])
def test_cluster_flag_without_ray_is_a_clear_error(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--quiet", "--cluster", "local"]) == 2
    err = capsys.readouterr().err
    assert CLUSTER_INSTALL in err and "Traceback" not in err
