"""``furnace client ...`` sub-commands (clients.cli.add_commands) against a real server."""

from __future__ import annotations

import json

import pytest

from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.clients.helpers import run


@pytest.fixture(scope="module")
def state_file(tmp_path_factory, address) -> str:
    from clients.furnace_client import FurnaceClient, state_json

    with FurnaceClient(address) as client:
        data = state_json(client.new_game("samara", 2, seed=4).state)
    path = tmp_path_factory.mktemp("states") / "samara.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_list_games(address, capsys) -> None:
    code, out, _ = run(["list-games"], address, capsys)
    assert code == 0 and out.startswith("samara: Samara, 2-5 players")
    code, out, _ = run(["list-games", "--json"], address, capsys)
    assert json.loads(out)["games"][0]["name"] == "samara"


def test_new_game_prints_the_state(address, capsys) -> None:
    code, out, err = run(["new-game", "--game", "samara", "--players", "3", "--seed", "2",
                          "--option", "powers=false", "--render"], address, capsys)
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "samara" and data["num_players"] == 3
    assert data["options"] == {"powers": False}
    assert "Samara" in err


def test_state_from_file_and_stdin(address, capsys, state_file, monkeypatch) -> None:
    code, out, _ = run(["legal-moves", "--state", state_file], address, capsys)
    assert code == 0
    lines = out.strip().splitlines()
    assert lines and all("\t" in line for line in lines)
    text = open(state_file).read()
    code, out2, _ = run(["legal-moves", "--state", "-"], address, capsys, stdin=text,
                        monkeypatch=monkeypatch)
    assert code == 0 and out2 == out


def test_check_and_apply(address, capsys, state_file) -> None:
    code, out, _ = run(["check-move", "--state", state_file, "recruit woman"], address, capsys)
    assert code == 0 and out.startswith("legal: recruit woman")
    code, out, _ = run(["check-move", "--state", state_file, "wait"], address, capsys)
    assert code == 1 and out.startswith("illegal (RULES): ")
    code, out, err = run(["apply-move", "--state", state_file, "recruit woman"], address, capsys)
    assert code == 0
    assert json.loads(out)["game"] == "samara"
    assert "new worker" in err
    code, _, err = run(["apply-move", "--state", state_file, "wait"], address, capsys)
    assert code == 2 and "ILLEGAL_MOVE" in err and len(err.strip().splitlines()) == 1


def test_best_move_and_analyze(address, capsys, state_file) -> None:
    code, out, _ = run(["best-move", "--state", state_file, "--iterations", "80",
                        "--search-seed", "3"], address, capsys)
    assert code == 0 and out.startswith("best move: ")
    code2, out2, _ = run(["best-move", "--state", state_file, "--iterations", "80",
                          "--search-seed", "3"], address, capsys)
    first_line = out.splitlines()[0]
    assert first_line == out2.splitlines()[0]
    code, out, _ = run(["best-move", "--game", "samara", "--iterations", "30", "--json"],
                       address, capsys)
    assert json.loads(out)["analysis"]["iterations"] == 30  # int32: a JSON number (issue 13, item 5)
    code, out, _ = run(["analyze", "--state", state_file, "--time", "0.5", "--interval", "0.1"],
                       address, capsys)
    assert code == 0
    assert sum(1 for line in out.splitlines() if line.lstrip().startswith("final")) == 1
    assert "best move: " in out


def test_estimate_show_health(address, capsys, state_file) -> None:
    code, out, _ = run(["estimate", "--state", state_file, "--playouts", "40"], address, capsys)
    assert code == 0 and out.startswith("40 playouts")
    assert "P1" in out and "P2" in out
    code, out, _ = run(["show", "--state", state_file], address, capsys)
    assert code == 0 and "to move" in out
    code, out, _ = run(["health"], address, capsys)
    assert code == 0 and out.strip() == "SERVING"


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["best-move"], "give --state FILE"),
        (["best-move", "--state", "/no/such/file.json"], "cannot read state"),
        (["best-move", "--state", "STATE", "--game", "samara"], "not both"),
        (["best-move", "--game", "samara", "--iterations", "-4"], "--iterations"),
        (["best-move", "--game", "samara", "--iterations", "99999999"], "budget.iterations"),
        (["new-game", "--game", "chess"], "UNKNOWN_GAME"),
        (["new-game", "--game", "samara", "--players", "9"], "num_players"),
        (["new-game", "--game", "samara", "--option", "oops"], "NAME=VALUE"),
        (["new-game"], "--game is required"),
        (["check-move", "--game", "samara", "#x"], "move id"),
        (["estimate", "--game", "samara", "--playouts", "-1"], "--playouts"),
    ],
)
def test_bad_input_exits_2_with_one_line(address, capsys, state_file, argv, fragment) -> None:
    argv = [state_file if a == "STATE" else a for a in argv]
    code, _, err = run(argv, address, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("furnace client ")
    assert fragment in lines[0]
    assert "Traceback" not in err


def test_bad_state_content(address, capsys, tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    code, _, err = run(["best-move", "--state", str(path)], address, capsys)
    assert code == 2 and "not valid JSON" in err
    path.write_text(json.dumps({"game": "samara", "version": 1}))
    code, _, err = run(["best-move", "--state", str(path)], address, capsys)
    assert code == 2 and "INVALID_STATE" in err


def test_unreachable_server_exits_1(capsys) -> None:
    code, _, err = run(["list-games", "--server", "127.0.0.1:1", "--timeout", "3"], None, capsys)
    assert code == 1
    assert "cannot reach a Furnace server at 127.0.0.1:1" in err


@pytest.fixture(scope="module")
def omg_file(tmp_path_factory, address) -> str:
    """Oh My Goods!, seed 7: seat 0 (P1) to move in phase II, its worker placed: it plans
    a building from its hand next."""
    from clients.furnace_client import FurnaceClient, state_json

    with FurnaceClient(address) as client:
        new = client.new_game("oh-my-goods", 2, seed=7, state_format=pb.STATE_FORMAT_JSON)
        data = state_json(client.apply_move(new.state, "work #0 sloppy").state)
    path = tmp_path_factory.mktemp("states") / "omg.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_observer_option(address, capsys, omg_file) -> None:
    p1_hand = json.loads(open(omg_file).read())["players"][0]["hand"]
    code, out, err = run(["legal-moves", "--state", omg_file, "--observer", "1"], address, capsys)
    assert code == 0 and out == ""
    assert "moves hidden: P2 (seat 1) cannot know the moves of P1 (seat 0)" in err
    code, out, _ = run(["legal-moves", "--state", omg_file, "--observer", "0"], address, capsys)
    assert code == 0 and "plan none" in out
    code, out, _ = run(["legal-moves", "--state", omg_file, "--observer", "1", "--json"],
                       address, capsys)
    assert json.loads(out)["movesHidden"] is True
    code, out, _ = run(["check-move", "--state", omg_file, "--observer", "1", "plan none"],
                       address, capsys)
    assert code == 1 and out.startswith(
        "not judged (HIDDEN): P2 (seat 1) cannot judge the moves of P1 (seat 0)")
    code, out, _ = run(["show", "--state", omg_file, "--observer", "1"], address, capsys)
    assert code == 0 and "hand: 7 cards" in out
    assert not any(card in out for card in p1_hand)
    code, out, err = run(["apply-move", "--state", omg_file, "--observer", "1",
                          "plan none"], address, capsys)
    assert code == 0 and json.loads(out)["players"][0]["chosen"] == 2
    assert "# P1 makes a secret choice, hidden from P2 (seat 1)" in err
    code, out, _ = run(["estimate", "--state", omg_file, "--observer", "0", "--playouts", "10"],
                       address, capsys)
    assert code == 0 and "10 playouts" in out and "from the information of P1 (seat 0)" in out
    code, _, err = run(["best-move", "--state", omg_file, "--observer", "1", "--iterations",
                        "10"], address, capsys)
    assert code == 2 and "OBSERVER_CANNOT_SEE_MOVER" in err and "state.observer_seat" in err
    code, _, err = run(["show", "--state", omg_file, "--observer", "5"], address, capsys)
    assert code == 2 and "SEAT_OUT_OF_RANGE" in err
