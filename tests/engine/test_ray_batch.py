"""The batch commands on a Ray cluster (a local Ray instance of 2 CPUs, started here as
``--cluster local`` starts it) give the local pool's results game for game (selfplay's
output byte for byte); a worker killed mid-arena costs nothing but time; leaving a run
early cancels its tasks; the local Ray listens on the loopback alone; what Ray prints for
the driver stays off stdout; a head that never answers fails in the time given.  Needs
the ``cluster`` extra: skipped without Ray."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
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
    """The Ray ``--cluster local --workers 2`` starts; the module's tests join it."""
    with RayBatch("local", num_cpus=2):
        yield


def _task_pids(title: str) -> list[int]:
    """The processes of this test's Ray running a task of that title (Ray names a busy
    worker after its task).  Its workers descend from this process (through the raylet
    ``ray.init`` started); a Ray of another run on the same machine, whose tasks are not
    this run's to wait for or to kill, is left out."""
    parents: dict[int, int] = {}
    titled = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:  # the process ended meanwhile
            continue
        parents[int(entry)] = int(stat.rsplit(b")", 1)[1].split()[1])  # after "(comm)"
        if cmdline.startswith(title.encode()):
            titled.append(int(entry))
    return [pid for pid in titled if _descends_from(pid, os.getpid(), parents)]


def _descends_from(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    seen = set()
    while pid > 0 and pid not in seen:
        if pid == ancestor:
            return True
        seen.add(pid)
        pid = parents.get(pid, 0)
    return False


def _wait_until(condition: Callable[[], bool], seconds: float = 120.0) -> bool:
    """Whether ``condition()`` came true within ``seconds``: a bound for a loaded machine
    (Ray's processes wait for a CPU too), not a guess of how long it takes."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _free_cpus() -> float:
    return float(ray.available_resources().get("CPU", 0.0))


@pytest.mark.usefixtures("local_ray")
def test_arena_on_the_cluster_equals_the_local_pool() -> None:
    game = registry.get_game("samara")
    home = run_arena(game, 2, ["random", "greedy"], 8, seed=5, workers=2)
    assert run_arena(game, 2, ["random", "greedy"], 8, seed=5, cluster="auto") == home


@pytest.mark.usefixtures("local_ray")
def test_fit_prior_on_the_cluster_equals_the_local_pool() -> None:
    from tournaments.prior_fit import fit_prior

    game = registry.get_game("samara")
    home = fit_prior(game, 2, ["mcts:20"], 4, 3, every=5, workers=2)
    assert fit_prior(game, 2, ["mcts:20"], 4, 3, every=5, cluster="auto") == home


@pytest.mark.usefixtures("local_ray")
def test_a_prior_loop_round_on_the_cluster_plays_and_fits_as_the_local_pool(
        tmp_path: Path) -> None:
    """The games and the fit of a round are the pool's; the gate is timed, so its
    games may differ."""
    from tournaments.prior_loop import LoopSettings, run_prior_loop

    game = registry.get_game("samara")
    settings = LoopSettings("samara", 2, games=3, iterations=20, arena_games=2,
                            seconds=0.005, every=6, seed=2)
    run_prior_loop(game, settings, 1, tmp_path / "pool", workers=2)
    run_prior_loop(game, settings, 1, tmp_path / "cluster", cluster="auto")
    for name in ("records-1.jsonl", "prior-1.json"):
        assert (tmp_path / "cluster" / name).read_text() == (tmp_path / "pool" / name).read_text()


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
        # Both CPUs then play long games (the quick game's CPU took the next one), a
        # third waits for a CPU: what is cancelled is running tasks and a queued one.
        assert index == 0
        assert _wait_until(lambda: len(_task_pids(ARENA_TASK)) >= 2), \
            "the long games never started"
        run.close()  # what Ctrl-C in the caller's loop does
    # A forced cancel kills the workers, which takes them a moment; Ray's count of free
    # CPUs follows the raylet's next report.
    assert _wait_until(lambda: not _task_pids(ARENA_TASK) and _free_cpus() == 2), \
        f"still running: {_task_pids(ARENA_TASK)}, free CPUs: {_free_cpus()}"


@pytest.mark.usefixtures("local_ray")
def test_cli_arena_with_cluster_prints_the_local_json(capsys: pytest.CaptureFixture[str]) -> None:
    from furnace_cli import main

    reports: list[Any] = []
    for where in (["--workers", "2"], ["--cluster", "auto"]):
        assert main(["arena", "samara", "--bots", "random,greedy", "--games", "4",
                     "--seed", "2", "--json", "--quiet", *where]) == 0
        reports.append(json.loads(capsys.readouterr().out.splitlines()[-1]))
    assert reports[1] == reports[0]


@pytest.mark.usefixtures("local_ray")
def test_cli_selfplay_with_cluster_prints_and_saves_the_local_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from furnace_cli import main

    written: list[tuple[str, str]] = []
    # "local" finds this module's Ray running and plays on it.
    for name, where in (("pool", ["--workers", "2"]), ("cluster", ["--cluster", "local"])):
        path = tmp_path / f"{name}.jsonl"
        assert main(["selfplay", "samara", "--bots", "greedy,mcts:50", "--games", "3",
                     "--seed", "4", "--save", str(path), *where]) == 0
        written.append((capsys.readouterr().out, path.read_text(encoding="utf-8")))
    assert written[1] == written[0]
    out, saved = written[0]
    assert [line for line in out.splitlines() if line.startswith("game ")] == [
        "game 1 (seed 4): P1=greedy, P2=mcts:50", "game 2 (seed 5): P1=greedy, P2=mcts:50",
        "game 3 (seed 6): P1=greedy, P2=mcts:50"]
    assert len(saved.splitlines()) == 3


def _descendants(root: int) -> set[int]:
    """``root`` and every process below it."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    parents[int(entry)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except OSError:  # the process ended meanwhile
                continue
    return {pid for pid in parents if _descends_from(pid, root, parents)} | {root}


def _listening(pids: set[int]) -> list[tuple[str, int]]:
    """``(address, pid)`` of every TCP socket listening in one of ``pids``
    (/proc/net/tcp and tcp6: the sockets' inodes matched with the processes' fds)."""
    inodes: dict[str, int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes[link[8:-1]] = pid
    found = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/net/{table}", encoding="ascii") as f:
            rows = f.read().splitlines()[1:]
        for row in rows:
            fields = row.split()
            if fields[3] != "0A" or fields[9] not in inodes:  # 0A: LISTEN
                continue
            address, port = fields[1].split(":")
            # Each 32-bit word in the host's (little-endian) order.
            raw = b"".join(bytes.fromhex(address[i:i + 8])[::-1]
                           for i in range(0, len(address), 8))
            ip = ipaddress.ip_address(raw)
            found.append((f"{ip}:{int(port, 16)}", inodes[fields[9]]))
    return found


def _is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address.rsplit(":", 1)[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


@pytest.mark.usefixtures("local_ray")
def test_the_local_ray_listens_on_the_loopback_alone() -> None:
    # Workers too: a task has run on each CPU.
    with RayBatch("local") as batch:
        quick = ("samara", 2, ["random", "random"], 1, 0, {})
        assert len(list(batch.run(play_arena_game_by_name, [quick, quick]))) == 2
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    sockets = _listening(_descendants(os.getpid()))
    names = {pid for _, pid in sockets}
    assert len(names) >= 3, f"too few Ray processes found listening: {sockets}"  # GCS, raylet, …
    beyond = [(address, pid) for address, pid in sockets if not _is_loopback(address)]
    assert not beyond, f"listening beyond the loopback: {beyond}"


@pytest.mark.usefixtures("local_ray")
def test_what_ray_prints_for_the_driver_stays_off_stdout(
        capfd: pytest.CaptureFixture[str]) -> None:
    from furnace_cli import main

    marker = f"furnace-test-{os.getpid()}: Raylet is terminated (a test's message)"
    gcs_client = ray._private.worker.global_worker.gcs_client
    ray._private.utils.publish_error_to_driver("test_error", marker, gcs_client=gcs_client)
    assert main(["arena", "samara", "--bots", "random,greedy", "--games", "2", "--seed", "1",
                 "--json", "--quiet", "--cluster", "auto"]) == 0
    out, err = capfd.readouterr()
    # The message comes from a thread of Ray's as it arrives: wait for it on stderr.
    deadline = time.monotonic() + 120
    while marker not in err and time.monotonic() < deadline:
        time.sleep(0.1)
        more_out, more_err = capfd.readouterr()
        out, err = out + more_out, err + more_err
    assert marker in err
    assert marker not in out
    assert len(out.splitlines()) == 1
    assert json.loads(out)["games"] == 2


def test_a_head_that_never_answers_fails_in_the_time_given(
        tmp_path: Path, silent_listener: int) -> None:
    """The real Ray's wait, bounded: a port that accepts and never answers (no Ray starts
    here; the command runs in a process of its own)."""
    address = f"127.0.0.1:{silent_listener}"
    env = {**os.environ, "FURNACE_CLUSTER_TIMEOUT": "3",
           "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-m", "furnace_cli", "arena", "samara", "--bots", "random,greedy",
         "--games", "2", "--json", "--cluster", address],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    ours = [line for line in done.stderr.splitlines() if line.startswith("furnace:")]
    assert ours[0] == f"furnace: joining the Ray cluster at {address} (at most 3 s) ..."
    assert ours[1].startswith(f"furnace: error: cannot join the Ray cluster at {address}: it "
                              "did not answer as a Ray cluster within 3 s")
    assert "RAY_AUTH_MODE=token" in ours[1] and "Traceback" not in done.stderr


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("command", ["fit-value", "calibration"])
def test_fitting_on_the_cluster_equals_one_process(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fit-value and calibration --fit take --cluster like the other batch commands, with
    the same report and the same model file."""
    from tests.cli.test_batch_workers import run_batch_command

    home = run_batch_command(command, ["--workers", "1"], tmp_path / "home", capsys)
    assert run_batch_command(command, ["--cluster", "auto"], tmp_path / "cluster",
                             capsys) == home


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("auth", [{}, {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}],
                         ids=["no-token", "wrong-token"])
def test_a_driver_without_the_token_is_told_so(auth: dict[str, str], tmp_path: Path) -> None:
    """The local Ray has a token of its run's own: a driver joining it at its address
    with none, or with another, hears of the token (Ray refuses it after its retries)."""
    address = ray._private.worker.global_worker.node.gcs_address
    env = {name: value for name, value in os.environ.items() if not name.startswith("RAY_")}
    env.update(auth, FURNACE_CLUSTER_TIMEOUT="300", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-m", "furnace_cli", "check-games", "samara", "--games", "2",
         "--cluster", address], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    [error] = [line for line in done.stderr.splitlines() if line.startswith("furnace: error")]
    assert error.startswith(f"furnace: error: cannot join the Ray cluster at {address}: the "
                            "cluster wants a token this driver lacks or has wrong")
    assert "RAY_AUTH_MODE=token" in error
