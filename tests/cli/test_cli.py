"""The ``furnace`` command line: outputs, and clean errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from furnace_cli import build_parser, main
from tests.cli.scripted import play_scripted


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_games_lists_samara(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games")
    assert code == 0 and "samara: Samara, 2-5 players" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "chess", "--bots", "random"], "unknown game 'chess'"),
        (["arena", "samara", "--players", "6", "--bots", "random"], "2-5 players, not 6"),
        (["arena", "samara", "--bots", "mcts:zero"], "iterations must be an integer"),
        (["play", "samara", "--players", "1"], "2-5 players, not 1"),
        (["play", "samara", "--seat", "2"], "--seat must be in 0..1 (0 is P1), got 2"),
        (["play", "samara", "--seat", "-1"], "--seat must be in 0..1 (0 is P1), got -1"),
        (["selfplay", "samara", "--options", "powers"], "must look like name=value"),
        (["arena", "samara", "--bots", "random", "--options", "warp=1"], "unknown option"),
    ],
)
def test_bad_input_is_a_clean_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_corrupt_saved_game_is_a_clean_error(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "samara", "version": 1, "num_players": 2}')
    code, _, err = run(capsys, "play", "samara", "--load", str(bad))
    assert code == 2 and ("corrupt" in err or "must be" in err)
    bad.write_text("{not json")
    code, _, err = run(capsys, "play", "samara", "--load", str(bad))
    assert code == 2 and "not valid JSON" in err
    code, _, err = run(capsys, "play", "samara", "--load", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read saved game" in err


def test_arena_json_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "arena", "samara", "--players", "2", "--games", "4",
                         "--bots", "random,greedy", "--seed", "3", "--json")
    assert code == 0
    report = json.loads(out.strip().splitlines()[-1])
    assert report["game"] == "samara" and report["players"] == 2 and report["games"] == 4
    assert set(report["results"]) == {"random", "greedy"}
    for result in report["results"].values():
        lo, hi = result["ci95"]
        assert 0 <= lo <= result["win_rate"] <= hi <= 1
    assert sum(r["wins"] for r in report["results"].values()) == pytest.approx(4)
    assert "4/4" in err  # the progress bar


def test_selfplay_prints_a_replayable_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "selfplay", "samara", "--bots", "greedy,random", "--json")
    assert code == 0
    record = json.loads(out.strip())
    assert record["moves"] and len(record["scores"]) == 2


def _play(tmp_path: Path, lines: list[str], *extra: str, game: str = "samara",
          players: int = 2) -> list[str]:
    return play_scripted([game, "--players", str(players), "--bots", "random",
                          "--iterations", "20", *extra], lines)


def test_play_explains_bad_moves_and_keeps_going(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    printed = _play(tmp_path, ["fly away", "tool compass r3c1 1", "999", "hint 20", "moves",
                               "1", f"save {save}", "quit"])
    text = "\n".join(printed)
    assert "cannot read move 'fly away'" in text
    assert "illegal move 'tool compass r3c1 1'" in text or "there is no compass" in text
    assert "pick 1-" in text
    assert "hint after 20 iterations" in text
    assert "P1 (you):" in text
    assert json.loads(save.read_text())["game"] == "samara"
    resumed = _play(tmp_path, ["quit"], "--load", str(save))
    assert "You are P1" in resumed[0]


def test_play_seat_is_0_based_like_the_api(tmp_path: Path) -> None:
    """Issue 13, item 7: ``furnace play --seat`` was 1-based while every RPC is 0-based."""
    assert build_parser().parse_args(["play", "samara"]).seat == 0
    first = _play(tmp_path, ["quit"], "--seat", "0")
    assert first[0].startswith("You are P1 (seat 0). P2 = random.")
    second = _play(tmp_path, ["quit"], "--seat", "1")
    assert second[0].startswith("You are P2 (seat 1). P1 = random.")
    assert any(line.startswith("P1 (random): ") for line in second)  # P1 moved first


def test_play_help_states_the_seat_convention(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "your seat, 0-based as everywhere: 0 is P1" in out
    assert "Seats are 0-based, as in the API and in every command: --seat 0 is the first " \
        "player, shown as P1" in out and "say P1 (seat 0)" in out


def test_play_ends_cleanly_on_end_of_input(tmp_path: Path) -> None:
    printed = _play(tmp_path, [])
    assert printed[-1] == "bye (the game was not saved)"


def test_play_keeps_the_bots_secret_choices_secret(tmp_path: Path) -> None:
    """Issue 8, item 3: the bots' phase II choices were printed before the human chose."""
    printed = _play(tmp_path, ["board", "quit"], "--seat", "2", game="oh-my-goods", players=3)
    text = "\n".join(printed)
    for bot in ("P1", "P2"):
        assert f"{bot} (random): makes a secret choice" in text
        for line in printed:
            assert not line.startswith(f"{bot} (random): work"), line
            assert not line.startswith(f"{bot} (random): idle"), line
            assert not line.startswith(f"{bot} (random): plan"), line
    # on the boards drawn for P3, other seats' hands are counts, P3's own hand is cards
    hands = [line.strip() for line in text.splitlines() if line.strip().startswith("hand:")]
    # the opening board, its redraw after the bots' moves and 'board', 3 seats each
    assert len(hands) == 3 * 3
    for board in (hands[:3], hands[3:6], hands[6:]):
        assert all(line.endswith(" cards") and "(" not in line for line in board[:2])
        assert "(" in board[2]


def test_arena_help_describes_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27: ``furnace arena --help`` had no descriptions for most options."""
    parser = build_parser()
    arena = next(a for a in parser._subparsers._group_actions[0].choices.items()
                 if a[0] == "arena")[1]
    for action in arena._actions:
        assert action.help, f"{action.option_strings or action.dest} has no description"
