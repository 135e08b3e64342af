"""Bad files given to the ``furnace`` command line: one line of error, exit status 2.

Saved games (``play --load``) and the catalogues shipped with the games are files a
user can break; none of them may end in a traceback, and a broken catalogue of one
game must not stop the others.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.samara import GAME as SAMARA
from engine.samara.state import Decision
from furnace_cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def clean_error(code: int, err: str, *words: str) -> None:
    """Exit status 2 and one line ``furnace: error: ...`` holding ``words``."""
    assert code == 2, err
    assert err.startswith("furnace: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


def _stuck_samara() -> dict:
    """A saved Samara game waiting for P1 to give up a trowel it does not hold."""
    state = SAMARA.new_game(2, 2)
    tile = next(i for i, t in enumerate(state.catalogue.tiles) if t.power == "sculpture")
    if tile in state.unused_tiles:
        state.unused_tiles[state.unused_tiles.index(tile)] = state.spot_tile[0]
        state.spot_tile[0] = tile
    si = state.spot_tile.index(tile)
    state.spot_tile[si] = None
    state.foremen[0].buildings.append(tile)
    state.pending = [Decision("give", 0, 0, si, 1, "trowel")]
    return state.to_json()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"game": "samara", "name": "\xff\xfe\xfa"}', ["not UTF-8"]),
        (b"[" * 100_000 + b"]" * 100_000, ["nested too deeply"]),
        (b"[1, 2, 3]", ["must be a JSON object"]),
        (b'"samara"', ["must be a JSON object"]),
        (b'{"game": ["samara"]}', ["'game' field"]),
        (b'{"game": "chess"}', ["unknown game 'chess'"]),
        (json.dumps({"game": "oh-my-goods"}).encode(), ["a game of oh-my-goods, not samara"]),
        (json.dumps(_stuck_samara()).encode(), ["pending[0]", "impossible"]),
        (b"", ["not valid JSON"]),
    ],
)
def test_a_bad_saved_game_is_one_line_of_error(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, content: bytes,
                                              words: list[str]) -> None:
    """Issue: a saved game that was not UTF-8 or nested too deeply gave a traceback, and
    one whose pending decision could not be taken was accepted (and crashed the bot)."""
    path = tmp_path / "saved.json"
    path.write_bytes(content)
    code, _, err = run(capsys, "play", "samara", "--load", str(path))
    clean_error(code, err, str(path), *words)


def _furnace(argv: list[str], catalogue: bytes | None, tmp_path: Path,
             stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``furnace ARGV`` in a fresh interpreter whose packaged Oh My Goods! catalogue
    reads as ``catalogue`` (the file itself is left alone)."""
    script = """
import importlib.resources, pathlib, sys
folder = sys.argv[1]
if folder:
    files = importlib.resources.files
    importlib.resources.files = lambda package: (
        pathlib.Path(folder) if package == "engine.oh_my_goods" else files(package))
from furnace_cli import main
sys.exit(main(sys.argv[2:]))
"""
    folder = ""
    if catalogue is not None:
        (tmp_path / "catalogue.json").write_bytes(catalogue)
        folder = str(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script, folder, *argv],
                          capture_output=True, text=True, env=env, cwd=ROOT, input=stdin,
                          timeout=120, check=False)


BROKEN_CATALOGUES = [
    (b'{"game": "oh-my-goods", "deck": [', "not valid JSON"),
    (b'{"game": "oh-my-goods", "notes": "\xff"}', "not UTF-8"),
    (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
    (b'{"game": "oh-my-goods"}', "missing field 'buildings'"),
    (b'{"game": "oh-my-goods", "resources": 7, "buildings": []}', "'resources'"),
]


@pytest.mark.parametrize(("catalogue", "words"), BROKEN_CATALOGUES)
def test_a_broken_packaged_catalogue_spares_the_other_games(catalogue: bytes, words: str,
                                                            tmp_path: Path) -> None:
    """Issue: a corrupted catalogue.json shipped with a game crashed start-up with a
    traceback (JSONDecodeError, UnicodeDecodeError...), and 'furnace games' listed
    nothing."""
    listed = _furnace(["games"], catalogue, tmp_path)
    assert listed.returncode == 1 and "Traceback" not in listed.stderr, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("samara: Samara, 2-5 players") for line in lines), lines
    assert any(line.startswith("oh-my-goods: failed to load: ") and words in line
               for line in lines), lines
    played = _furnace(["play", "oh-my-goods", "--players", "2"], catalogue, tmp_path)
    assert played.returncode == 2 and "Traceback" not in played.stderr, played.stderr
    assert played.stderr.startswith("furnace: error: ") and words in played.stderr
    assert played.stderr.count("\n") == 1


def test_the_unbroken_games_still_play(tmp_path: Path) -> None:
    catalogue, _ = BROKEN_CATALOGUES[0]
    played = _furnace(["play", "samara", "--bots", "random"], catalogue, tmp_path,
                      stdin="quit\n")
    assert played.returncode == 0 and "You are P1" in played.stdout, played.stderr
    fine = _furnace(["games"], None, tmp_path)
    assert fine.returncode == 0 and "oh-my-goods: Oh My Goods!" in fine.stdout


def test_fuzz_states_reports_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "fuzz-states", "samara", "--states", "12", "--seed", "4",
                         "--workers", "0")
    assert code == 0, out
    report = json.loads(out.strip().splitlines()[-1])
    assert report["game"] == "samara" and report["states"] == 12
    assert report["rejected"] + report["accepted"] == 12 and report["problems"] == 0
    assert {"crashes", "exceptions", "disagreements", "examples"} <= set(report)
    assert "12/12" in err  # the progress bar
    code, _, err = run(capsys, "fuzz-states", "samara", "--states", "-1")
    clean_error(code, err, "states must be a non-negative integer")
    code, _, err = run(capsys, "fuzz-states", "samara", "--players", "9")
    clean_error(code, err, "2-5 players, not 9")
