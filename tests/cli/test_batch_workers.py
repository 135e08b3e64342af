"""Every batch command prints (and writes) the same with one worker process as with two:
where a game ran and when it finished never show in a report (issue 39).  Small budgets;
the fields that measure time are the only ones left out, named here per command."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from checks.kernel import kernel_player_counts
from engine import registry
from furnace_cli import main

#: Each command at a small budget; ``{dir}`` is a directory of the run's own.
COMMANDS: dict[str, list[str]] = {
    "arena": ["arena", "samara", "--bots", "random,greedy,mcts:20", "--players", "3",
              "--games", "6", "--seed", "3", "--json"],
    "selfplay": ["selfplay", "samara", "--bots", "greedy,mcts:20", "--games", "3",
                 "--seed", "4", "--save", "{dir}/games.jsonl"],
    "ladder": ["ladder", "samara", "--bots", "random,greedy,mcts:20", "--games", "2",
               "--seed", "6", "--out", "{dir}/ladder", "--json"],
    "check-games": ["check-games", "oh-my-goods", "--games", "4", "--seed", "2"],
    "check-kernel": ["check-kernel", "stephens", "--games", "2", "--seed", "2"],
    "fuzz-states": ["fuzz-states", "samara", "--states", "40", "--seed", "3"],
    "calibration": ["calibration", "samara", "--fit", "--fit-games", "2", "--fit-seed", "5",
                    "--games", "2", "--seed", "6", "--level", "1", "--every", "8",
                    "--out", "{dir}/forecast-model.json", "--json"],
    "fit-value": ["fit-value", "samara", "--bots", "greedy,random", "--games", "5",
                  "--seed", "2", "--out", "{dir}/value-model.json", "--json"],
    "fit-prior": ["fit-prior", "samara", "--bots", "mcts:20", "--games", "4", "--seed", "2",
                  "--every", "6", "--out", "{dir}/prior.json",
                  "--save-records", "{dir}/records.jsonl", "--json"],
}
#: The fields of a command's JSON that time the run: the only ones allowed to differ.
TIMING: dict[str, tuple[str, ...]] = {
    "check-games": ("elapsed_s", "positions_per_s"),
    "fuzz-states": ("seconds",),
}


def run_batch_command(command: str, placement: list[str], where: Path,
                      capsys: pytest.CaptureFixture[str]) -> tuple[Any, dict[str, str]]:
    """What ``command`` prints with ``placement`` (``--workers N``, ``--cluster X``), its
    JSON line parsed and timing fields out, and the files it writes, ``where`` spelt
    ``{dir}``."""
    where.mkdir()
    argv = [arg.replace("{dir}", str(where)) for arg in COMMANDS[command]]
    code = main([*argv, *placement, "--quiet"])
    out = capsys.readouterr().out.replace(str(where), "{dir}")
    assert code == 0, out
    printed: Any = out
    if command in TIMING or "--json" in argv:
        printed = json.loads(out.splitlines()[-1])
        for field in TIMING.get(command, ()):
            assert field in printed, f"{command} no longer reports {field}: update TIMING"
            del printed[field]
    files = {str(path.relative_to(where)): path.read_text(encoding="utf-8").replace(
                 str(where), "{dir}")
             for path in sorted(where.rglob("*")) if path.is_file() and path.suffix != ".png"}
    if command == "ladder":
        # Written as the games finish: the same lines, in any order (ladder --resume reads
        # them by pair and game).
        header, *games = files["ladder/games.jsonl"].splitlines()
        files["ladder/games.jsonl"] = "\n".join([header, *sorted(games)])
    return printed, files


# Where a game runs is the batch executor's business, the same on both engine paths
# (which answer alike: furnace check-kernel); the pure one would only be slower.
@pytest.mark.skipif(os.environ.get("FURNACE_PURE_PYTHON") == "1",
                    reason="the batch executor is the same on the pure-Python engine")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_one_worker_and_two_give_the_same_output(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if command == "check-kernel" and not kernel_player_counts(registry.get_game("stephens")):
        pytest.skip("the kernel is not built (or FURNACE_PURE_PYTHON is set)")
    one = run_batch_command(command, ["--workers", "1"], tmp_path / "one", capsys)
    two = run_batch_command(command, ["--workers", "2"], tmp_path / "two", capsys)
    assert two == one
    assert one[0], f"{command} printed nothing"
