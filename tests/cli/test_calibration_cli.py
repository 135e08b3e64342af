"""``furnace calibration``: a small held-out run of a shipped model, and a fit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.forecast import ForecastModel
from furnace_cli import main

KEYS = ("ece", "slope", "slope_interval", "brier", "brier_constant", "score_mae",
        "score_bias", "score_mae_playouts", "score_mae_constant", "games", "positions")

#: What these two tests prove is the command's: its arguments, report and model file.
#: Both engine paths record the same games (tests/tournaments/test_calibration.py plays
#: one on each, and test_saved_records_... below runs the command on each): on the
#: pure-Python engine they would only be slower (170 s and 159 s of its suite).
COMMAND_ONLY = pytest.mark.skipif(
    os.environ.get("FURNACE_PURE_PYTHON") == "1",
    reason="the command's own behaviour, the same on the pure-Python engine")


@COMMAND_ONLY
def test_a_shipped_model_is_measured_on_held_out_games(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibration", "oh-my-goods", "--players", "2", "--games", "2",
                 "--seed", "4242", "--every", "10", "--level", "1", "--json", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out.splitlines()[-1])
    for key in KEYS:
        assert key in report, key
    assert report["games"] == 2 and report["positions"] > 0
    assert len(report["stages"]) == 3
    assert all({"ece", "slope"} <= set(stage) for stage in report["stages"])
    low, high = report["slope_interval"]
    assert low <= high


@COMMAND_ONLY
def test_a_fit_writes_the_player_count_and_keeps_the_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "forecast-model.json"
    records = tmp_path / "held.jsonl"
    argv = ["calibration", "samara", "--players", "3", "--fit", "--fit-games", "3",
            "--fit-seed", "5", "--games", "2", "--seed", "6", "--level", "1", "--every", "6",
            "--out", str(out), "--save-records", str(records), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "held-out games (seed 6)" in text and "model written to" in text
    model = ForecastModel.from_json(json.loads(out.read_text(encoding="utf-8")))
    entry = model.counts[3]
    assert set(entry.sources) == {"search", "playouts"}
    assert entry.provenance["command"].startswith("furnace calibration samara --players 3 --fit")
    assert entry.provenance["fit_sets"] == [{"seed": 5, "games": 3}]
    assert entry.provenance["held_out_seed"] == 6
    # The held-out figures the docs' tables are made from, by stage and for each source.
    held = entry.provenance["held_out"]
    assert held["games"] == 2 and len(held["stages"]) == 3 and "slope_interval" in held
    assert {"estimate", "raw_search", "raw_playouts"} <= set(held)
    # Records of other games are refused rather than read as these: one line, exit 2,
    # as every other refusal of the command line.
    assert main([*argv, "--seed", "7"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("furnace: error: ") and "holds other games" in err
    assert len(err.strip().splitlines()) == 1
    # Another player count joins the file.
    two = [*argv[:3], "2", *argv[4:]]
    two[two.index(str(records))] = str(tmp_path / "two.jsonl")
    assert main(two) == 0
    assert set(ForecastModel.from_json(json.loads(out.read_text())).counts) == {2, 3}


def test_saved_records_are_read_again_and_a_longer_run_adds_to_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run's games are saved as they end; the same command with more games plays only
    the missing ones (an interrupted run goes on where it stopped)."""
    held = tmp_path / "held.jsonl"
    # Samara at level 1, a sample every 40 decisions: a few samples a game (each one's
    # 200 playouts are most of the work on the pure-Python engine).
    argv = ["calibration", "samara", "--players", "2", "--seed", "8", "--level", "1",
            "--every", "40", "--save-records", str(held), "--json", "--quiet"]
    assert main([*argv, "--games", "1"]) == 0
    first = held.read_text(encoding="utf-8").splitlines()
    assert json.loads(first[0])["games"] == 1 and len(first) == 2
    assert main([*argv, "--games", "2"]) == 0
    longer = held.read_text(encoding="utf-8").splitlines()
    assert json.loads(longer[0])["games"] == 2
    assert longer[1] == first[1]  # kept, not played again
    again = tmp_path / "again.jsonl"
    assert main([*argv[:-4], "--save-records", str(again), "--json", "--quiet",
                 "--games", "2"]) == 0
    assert again.read_text(encoding="utf-8").splitlines()[1:] == longer[1:]  # same games
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()
               if line.startswith("{")]
    assert reports[1]["games"] == reports[2]["games"] == 2
    assert reports[1]["score_mae"] == reports[2]["score_mae"]


@COMMAND_ONLY
def test_a_fit_on_the_games_of_several_seeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "forecast-model.json"
    argv = ["calibration", "samara", "--players", "2", "--fit", "--fit-seed", "5",
            "--fit-games", "1", "--fit-seed", "9", "--fit-games", "2", "--games", "1",
            "--seed", "6", "--level", "1", "--every", "40", "--out", str(out), "--quiet",
            "--json"]
    assert main(argv) == 0
    entry = ForecastModel.from_json(json.loads(out.read_text(encoding="utf-8"))).counts[2]
    assert entry.provenance["fit_sets"] == [{"seed": 5, "games": 1}, {"seed": 9, "games": 2}]
    # The command it keeps fits on the same games.
    assert "--fit-games 1 --fit-seed 5 --fit-games 2 --fit-seed 9" in \
        entry.provenance["command"]
    capsys.readouterr()


@pytest.mark.parametrize("extra, words", [
    (["--fit-seed", "5", "--fit-seed", "6", "--fit-games", "1", "--fit-games", "2",
      "--fit-games", "3"], "need one --fit-games or 2"),
    (["--fit-seed", "5", "--fit-seed", "5"], "names a seed twice"),
    (["--fit-seed", "5", "--fit-seed", "1"], "would be fitting games too"),
    (["--fit-seed", "5", "--fit-seed", "6", "--save-fit-records", "a.jsonl"],
     "no --save-fit-records or 2"),
    (["--fit-games", "0"], "at least 1"),
])
def test_fitting_options_that_do_not_go_together_are_refused(
        extra: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Refused before any game is played: one line, exit 2."""
    assert main(["calibration", "samara", "--fit", "--seed", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("furnace: error: ") and words in err
    assert len(err.strip().splitlines()) == 1
