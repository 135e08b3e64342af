"""``furnace review``: the table, the JSON line, the plot, and bad input refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import records, registry
from engine.search.review_settings import LABELS
from furnace_cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two self-played games, one record a line (random moves: quick to play)."""
    path = tmp_path_factory.mktemp("review") / "g.json"
    assert main(["selfplay", "samara", "--players", "2", "--bots", "random",
                 "--seed", "3", "--games", "2", "--save", str(path), "--json"]) == 0
    return path


def test_review_json_ends_with_the_turns_and_the_summary(
        saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "review.png"
    code, out, err = run(capsys, "review", str(saved), "--seat", "0", "--budget", "20",
                         "--json", "--plot", str(picture))
    assert code == 0
    last = json.loads(out.strip().splitlines()[-1])
    assert last["turns"] and all(turn["label"] in LABELS for turn in last["turns"])
    assert {turn["seat"] for turn in last["turns"]} == {0}
    [summary] = last["summary"]
    assert summary["seat"] == 0 and summary["decisions"] == len(last["turns"])
    assert sum(summary["counts"].values()) == len(last["turns"])
    assert 0 <= summary["accuracy"] <= 100
    assert f"{len(last['turns'])}/{len(last['turns'])}" in err  # the progress bar
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_review_prints_a_table_of_every_seat(saved: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", str(saved), "--budget", "10", "--quiet",
                         "--record", "2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "review of P1, P2" in lines[0] and "label" in lines[1]
    rows = lines[2:-2]
    assert rows and all(row.split()[-1] in LABELS for row in rows)
    assert {row.split()[1] for row in rows} == {"P1", "P2"}
    assert lines[-2].startswith("P1: ") and "accuracy" in lines[-1]


def test_review_refuses_bad_input(saved: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "review", str(saved), "--seat", "2", "--budget", "10")
    assert code == 2 and "--seat 2" in err
    code, _, err = run(capsys, "review", str(saved), "--record", "3", "--budget", "10")
    assert code == 2 and "holds 2 record(s)" in err
    position = tmp_path / "position.json"
    state = registry.get_game("samara").new_game(1, 2, {})
    position.write_text(json.dumps(state.to_json()), encoding="utf-8")
    code, _, err = run(capsys, "review", str(position))
    assert code == 2 and "not a game record" in err
    code, _, err = run(capsys, "review", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_review_reads_a_record_laid_out_over_many_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = registry.get_game("samara").new_game(4, 2, {})
    moves = []
    for _ in range(6):
        moves.append(state.legal_moves()[0])
        state.apply(moves[-1])
    path = tmp_path / "saved.json"
    record = records.GameRecord("samara", 2, seed=4, moves=moves)
    path.write_text(json.dumps(records.record_to_json(record), indent=2), encoding="utf-8")
    code, out, _ = run(capsys, "review", str(path), "--budget", "5", "--quiet", "--json")
    assert code == 0
    assert [turn["turn"] for turn in json.loads(out)["turns"]] == list(range(6))
