"""Saved games are game records (engine.records): ``furnace play``'s ``save`` and
``furnace selfplay --save``; a position saved before records still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import records, registry
from furnace_cli import main
from furnace_cli.play import load_game
from tests.cli.scripted import play_scripted

#: A save written by ``furnace play`` before game records: the position's JSON.
OLD_SAVE = Path(__file__).parent / "data" / "old_save_oh_my_goods.json"


def _play(lines: list[str], *extra: str, game: str = "oh-my-goods") -> list[str]:
    return play_scripted([game, "--bots", "random", "--iterations", "20", *extra], lines)


def test_a_save_from_before_records_still_loads(tmp_path: Path) -> None:
    old = json.loads(OLD_SAVE.read_text(encoding="utf-8"))
    assert "format" not in old  # the old form: a position
    state, record = load_game(str(OLD_SAVE), "oh-my-goods")
    assert state.to_json() == registry.state_from_json(old).to_json()
    assert record.initial == old and record.seed is None and not record.moves
    # Played on and saved again: now a record starting from the old position.
    save = tmp_path / "again.json"
    printed = _play(["1", "board", f"save {save}", "quit"], "--load", str(OLD_SAVE))
    board = printed[printed.index(f"saved to {save}") - 1]
    data = json.loads(save.read_text(encoding="utf-8"))
    assert data["format"] == "furnace-record" and data["initial"] == old
    assert data["moves"] and all("id" in m and "text" in m for m in data["moves"])
    resumed, _ = load_game(str(save))
    assert resumed.render(0) == board


def test_save_writes_a_record_of_the_deal_and_every_move(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    printed = _play(["1", "1", "board", f"save {save}", "quit"], "--seed", "4", game="samara")
    board = printed[printed.index(f"saved to {save}") - 1]
    data = json.loads(save.read_text(encoding="utf-8"))
    assert (data["game"], data["num_players"], data["seed"]) == ("samara", 2, 4)
    record = records.record_from_json(data)
    assert records.replay(record).render(0) == board
    # Resumed, then saved at once: the same record.
    again = tmp_path / "again.json"
    _play([f"save {again}", "quit"], "--load", str(save), game="samara")
    assert records.record_from_json(json.loads(again.read_text())).moves == record.moves


def test_a_bad_move_in_a_saved_record_is_a_clean_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = records.record_to_json(records.GameRecord("samara", 2, seed=1,
                                                     moves=["recruit woman", "fly"]))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code = main(["play", "samara", "--load", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "moves[1]: cannot read move 'fly'" in err and str(path) in err


def test_selfplay_save_writes_records_that_replay_to_the_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    assert main(["selfplay", "oh-my-goods", "--bots", "random,greedy", "--games", "2",
                 "--seed", "30", "--json", "--save", str(path)]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(printed) == 2
    for line, game in zip(lines, printed, strict=True):
        record = records.record_from_json(json.loads(line))
        assert record.seed == game["seed"]
        final = records.replay(record)
        assert final.is_terminal()
        assert final.scores() == game["scores"]
        texts = [move[1] for move in record.moves if isinstance(move, tuple)]  # id and text
        players = [player for player, _ in records.replay_steps(record)]
        assert [f"P{p + 1} {t}" for p, t in zip(players, texts, strict=True)] == game["moves"]


def test_load_says_which_game_which_move_and_whose_turn(tmp_path: Path) -> None:
    """Issue 37: ``--load`` went straight to the board, without a word on where the game
    stood."""
    save = tmp_path / "game.json"
    _play(["1", "1", f"save {save}", "quit"], "--seed", "4", game="samara")
    played = len(json.loads(save.read_text())["moves"])
    printed = _play(["quit"], "--load", str(save), game="samara")
    assert printed[1] == (f"Resumed Samara from {save} at move {played + 1} ({played} "
                          "played): your turn.")
    assert printed[2].startswith("Samara, 2 players")


def test_undo_then_save_is_the_record_before_the_move(tmp_path: Path) -> None:
    """After ``undo`` the game is the one saved before the move: the same record, and
    replayed from it (the same seed), the same position, deals and all."""
    for game in ("samara", "stephens"):
        before, after = tmp_path / f"{game}-before.json", tmp_path / f"{game}-after.json"
        printed = _play(["1", f"save {before}", "1", "undo", f"save {after}", "quit"],
                        "--seed", "6", game=game)
        assert any(line.startswith("took back your move ") for line in printed), printed
        saved = [records.record_from_json(json.loads(p.read_text())) for p in (before, after)]
        assert saved[0].moves == saved[1].moves
        assert records.replay(saved[0]).to_json() == records.replay(saved[1]).to_json()


def test_a_resumed_game_can_take_back_a_move_played_before_the_save(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    _play(["1", f"save {save}", "quit"], "--seed", "4", game="samara")
    printed = _play(["undo", "undo", "quit"], "--load", str(save), game="samara")
    assert any(line.startswith("took back your move ") for line in printed)
    assert ("there is no move of yours to take back: you have not moved yet in this game"
            in printed)


def test_load_with_server_says_it_resumes_here(capsys: pytest.CaptureFixture[str]) -> None:
    """``--load`` was ignored with ``--server`` (a new game was dealt without a word)."""
    assert main(["play", "samara", "--server", "127.0.0.1:1", "--load", "game.json"]) == 2
    assert "--load resumes a game here, not on a server" in capsys.readouterr().err
