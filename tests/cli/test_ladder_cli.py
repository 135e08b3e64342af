"""``furnace ladder``: the files it writes, resuming, and clean errors for bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from furnace_cli import main

BOTS = "random,greedy,mcts:8"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ladder_writes_json_markdown_plot_and_games(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    out_dir = tmp_path / "ladder"
    code, out, err = run(capsys, "ladder", "samara", "--players", "2", "--games", "2",
                         "--bots", BOTS, "--seed", "4", "--out", str(out_dir))
    assert code == 0, err
    assert "6/6" in err  # the progress bar
    report = json.loads((out_dir / "ladder.json").read_text())
    assert report["game"] == "samara" and report["games_per_pair"] == 2
    assert report["anchor"] == "random" and set(report["ratings"]) == set(BOTS.split(","))
    ranked = list(report["ratings"])
    # The table: best first, one row per spec, with Elo, interval, games and score.
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "spec"])
    for rank, spec in enumerate(ranked, 1):
        row = lines[header + rank].split()
        assert row[:2] == [str(rank), spec]
        rating = report["ratings"][spec]
        assert row[-2] == "4" and row[-1] == f"{100 * rating['score'] / 4:.1f}%"
    assert "(anchor)" in lines[header + ranked.index("random") + 1]
    assert "score of the row against the column:" in out
    markdown = (out_dir / "ladder.md").read_text()
    assert markdown.startswith("`furnace ladder samara --players 2 --games 2 --bots "
                               f"{BOTS} --seed 4`")
    assert "| rank | spec | Elo | 95% CI | games | score |" in markdown
    assert f"| 1 | `{ranked[0]}` |" in markdown
    assert (out_dir / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    games = (out_dir / "games.jsonl").read_text().splitlines()
    assert len(games) == 1 + 6  # the header and every game

    # Resuming a finished ladder plays nothing and prints the same report as JSON.
    code, out, err = run(capsys, "ladder", "samara", "--games", "2", "--bots", BOTS,
                         "--seed", "4", "--out", str(out_dir), "--resume", "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1]) == report
    assert err == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "random,greedy", "--players", "3"], "needs 2 players, not 3"),
        (["--bots", "random,greedy", "--players", "1"], "a solo game has no ladder"),
        (["--bots", "random"], "at least two bot specs"),
        (["--bots", "random,greedy,random"], "random repeated"),
        (["--bots", "random,greedy", "--games", "0"], "positive integer"),
        (["--bots", "random,mcts:zero"], "iterations must be an integer"),
        (["--bots", "random,greedy", "--workers", "0"], "--workers must be at least 1"),
        (["--bots", "random,greedy", "--anchor", "mcts:8"], "anchor 'mcts:8'"),
        (["--bots", "random,greedy", "--options", "warp=1"], "unknown option"),
    ],
)
def test_bad_arguments_are_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path, argv: list[str],
                                            message: str) -> None:
    code, out, err = run(capsys, "ladder", "samara", "--out", str(tmp_path / "l"), *argv)
    assert code == 2
    assert err.startswith("furnace: error: ") and err.count("\n") == 1
    assert message in err and out == ""
    assert not (tmp_path / "l").exists()  # refused before anything is written


def test_unknown_game_and_earlier_results(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    code, _, err = run(capsys, "ladder", "chess", "--bots", "random,greedy")
    assert code == 2 and "unknown game 'chess'" in err
    out_dir = tmp_path / "l"
    out_dir.mkdir()
    (out_dir / "games.jsonl").write_text('{"format": "furnace-ladder/1"}\n')
    argv = ["ladder", "samara", "--bots", "random,greedy", "--games", "2", "--quiet",
            "--out", str(out_dir)]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "add --resume to continue it" in err and err.count("\n") == 1
    code, _, err = run(capsys, *argv, "--resume")
    assert code == 2 and "holds another ladder" in err and err.count("\n") == 1


def test_missing_matplotlib_is_a_clean_error(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    code, _, err = run(capsys, "ladder", "samara", "--bots", "random,greedy", "--games", "2",
                       "--out", str(tmp_path / "l"))
    assert code == 2 and "matplotlib is not installed" in err
    assert not (tmp_path / "l").exists()  # checked before any game


def test_without_out_the_ladder_goes_to_the_data_directory_not_the_cwd(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: ``furnace ladder`` wrote ``ladder-<game>/`` into the checkout it ran in."""
    checkout, data = tmp_path / "checkout", tmp_path / "data"
    checkout.mkdir()
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    code, out, err = run(capsys, "ladder", "samara", "--games", "1", "--bots", "random,greedy")
    assert code == 0, err
    assert list(checkout.iterdir()) == []
    written = data / "furnace" / "ladder-samara"
    assert (written / "ladder.json").exists() and str(written) in out
