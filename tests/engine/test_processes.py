"""Worker pools die with the process that started them (engine/processes.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the parent-death signal is Linux's")


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def wait_for(predicate, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def test_killing_an_arena_kills_its_game_workers() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    arena = subprocess.Popen(
        [sys.executable, "-c", "import sys; from furnace_cli import main; sys.exit(main())",
         "arena", "samara", "--players", "2", "--games", "50", "--bots", "mcts:t=5,random",
         "--seed", "1", "--workers", "2", "--quiet"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        def two_workers() -> bool:
            workers[:] = [c for c in children(arena.pid)
                          if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]
            return len(workers) >= 2

        wait_for(two_workers, 60, "the arena starts its game workers")
        time.sleep(1.0)  # both are playing a game by now
        arena.send_signal(signal.SIGKILL)
        arena.wait(10)
        wait_for(lambda: not any(alive(w) for w in workers), 10,
                 "the workers die with the arena")
    finally:
        if arena.poll() is None:
            arena.kill()
        for w in workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)


def test_killing_a_process_kills_its_warm_search_workers() -> None:
    """The warm pool's workers (engine.processes.WarmPool) die with their parent, even
    in the middle of a search (a lifeline thread, not the parent-death signal)."""
    code = "\n".join([
        "from engine import registry",
        "from engine.search import parallel, parallel_search, warm_up",
        "if __name__ == '__main__':",
        "    warm_up(2)",
        "    print(*parallel._shared.pids, flush=True)",
        "    state = registry.new_game('samara', 1, 2)",
        "    parallel_search(state, 2, iterations=10**9, seed=1)",
    ])
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    workers: list[int] = []
    try:
        assert parent.stdout is not None
        workers[:] = [int(p) for p in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(w) for w in workers)
        time.sleep(1.0)  # both are searching by now
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        wait_for(lambda: not any(alive(w) for w in workers), 10,
                 "the workers die with their parent")
    finally:
        if parent.poll() is None:
            parent.kill()
        for w in workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)
