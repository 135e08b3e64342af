"""The batch commands on a Ray cluster (a local Ray instance of 2 CPUs, started here) give
the local pool's results game for game; a worker killed mid-arena costs nothing but time;
leaving a run early cancels its tasks.  Needs the ``cluster`` extra: skipped without Ray."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from checks.kernel import check_kernel, kernel_player_counts  # noqa: E402
from engine import registry  # noqa: E402
from engine.batch import RayBatch  # noqa: E402
from tournaments.arena import play_arena_game_by_name, run_arena  # noqa: E402
from tournaments.ladder import run_ladder  # noqa: E402

pytestmark = pytest.mark.cluster
#: What a Ray task given :func:`play_arena_game_by_name` is called in ``ps``.
ARENA_TASK = "ray::play_arena_game_by_name"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def _task_pids(title: str) -> list[int]:
    """Processes running a Ray task of that title (Ray names a busy worker after its task)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if cmdline.startswith(title.encode()):
                pids.append(int(entry))
    return pids


def _free_cpus() -> float:
    return float(ray.available_resources().get("CPU", 0.0))


@pytest.mark.usefixtures("local_ray")
def test_arena_on_the_cluster_equals_the_local_pool() -> None:
    game = registry.get_game("samara")
    home = run_arena(game, 2, ["random", "greedy"], 8, seed=5, workers=2)
    assert run_arena(game, 2, ["random", "greedy"], 8, seed=5, cluster="auto") == home


@pytest.mark.usefixtures("local_ray")
def test_ladder_on_the_cluster_equals_the_local_pool(tmp_path: Path) -> None:
    game = registry.get_game("samara")
    reports, files = [], []
    for name, where in (("home", {"workers": 2}), ("cluster", {"cluster": "auto"})):
        path = tmp_path / name / "games.jsonl"
        reports.append(run_ladder(game, 2, ["random", "greedy", "mcts:20"], 2, seed=6,
                                  results_path=path, **where))
        header, *games = path.read_text().splitlines()
        # The games are written as they finish: the same lines, maybe in another order.
        files.append((header, sorted(games)))
    assert reports[1] == reports[0]
    assert files[1] == files[0]
    assert len(files[0][1]) == 6


@pytest.mark.usefixtures("local_ray")
def test_check_kernel_on_the_cluster_equals_the_local_pool() -> None:
    game = registry.get_game("samara")
    if not kernel_player_counts(game):
        pytest.skip("the kernel is not built (or FURNACE_PURE_PYTHON is set)")
    home = check_kernel(game, 6, seed=3, workers=2)
    assert check_kernel(game, 6, seed=3, cluster="auto") == home
    assert home["games"] == 6 and home["steps"] > 0


@pytest.mark.usefixtures("local_ray")
def test_a_worker_killed_mid_arena_leaves_every_game_played_once() -> None:
    game = registry.get_game("samara")
    specs = ["mcts:1500", "greedy"]
    killed: list[int] = []
    calls: list[int] = []

    def kill_one_worker(done: int, total: int) -> None:
        calls.append(done)
        deadline = time.monotonic() + 10
        while not killed and time.monotonic() < deadline:
            pids = _task_pids(ARENA_TASK)
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            else:
                time.sleep(0.01)

    on_cluster = run_arena(game, 2, specs, 8, seed=7, cluster="auto", progress=kill_one_worker)
    assert killed, "no worker was running a game to kill"
    assert calls == list(range(1, 9))  # each game reported once
    assert on_cluster == run_arena(game, 2, specs, 8, seed=7, workers=2)


@pytest.mark.usefixtures("local_ray")
def test_leaving_a_run_early_cancels_its_tasks() -> None:
    quick = ("samara", 2, ["random", "random"], 1, 0, {})
    endless = ("samara", 2, ["mcts:1000000", "mcts:1000000"], 1, 1, {})
    with RayBatch("auto") as batch:
        run = batch.run(play_arena_game_by_name, [quick, endless, endless, endless])
        index, _ = next(run)
        deadline = time.monotonic() + 10
        while not _task_pids(ARENA_TASK) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert index == 0 and _task_pids(ARENA_TASK), "the long games never started"
        run.close()  # what Ctrl-C in the caller's loop does
    deadline = time.monotonic() + 20
    while (_task_pids(ARENA_TASK) or _free_cpus() < 2) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _task_pids(ARENA_TASK) == []
    assert _free_cpus() == 2


@pytest.mark.usefixtures("local_ray")
def test_cli_arena_with_cluster_prints_the_local_json(capsys: pytest.CaptureFixture[str]) -> None:
    from furnace_cli import main

    reports: list[Any] = []
    for where in (["--workers", "2"], ["--cluster", "auto"]):
        assert main(["arena", "samara", "--bots", "random,greedy", "--games", "4",
                     "--seed", "2", "--json", "--quiet", *where]) == 0
        reports.append(json.loads(capsys.readouterr().out.splitlines()[-1]))
    assert reports[1] == reports[0]
