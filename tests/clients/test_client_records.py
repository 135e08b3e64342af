"""Game records from the Python client: ``record_state`` and record files as ``--state``."""

from __future__ import annotations

import json

import pytest

from clients.furnace_client import FurnaceClient, make_state, record_state, state_json
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.clients.helpers import run


def test_record_state_is_replayed_by_the_server(client: FurnaceClient) -> None:
    state = client.new_game("samara", 2, seed=9, state_format=pb.STATE_FORMAT_JSON).state
    moves = []
    for _ in range(6):
        move = client.legal_moves(state).moves[-1]
        moves.append(move.text if len(moves) % 2 else move.id)
        state = client.apply_move(state, move, state_format=pb.STATE_FORMAT_JSON).state
    as_record = record_state("samara", 2, moves, seed=9, observer_seat=1)
    assert as_record.observer_seat == 1
    assert client.legal_moves(as_record) == client.legal_moves(state, observer_seat=1)
    # From an initial position (a site's own deal), no seed.
    start = client.new_game("samara", 2, seed=9, state_format=pb.STATE_FORMAT_JSON).state
    from_initial = record_state("samara", 2, moves, initial=state_json(start))
    assert client.legal_moves(from_initial) == client.legal_moves(state)
    move = client.legal_moves(from_initial).moves[0]
    applied = client.apply_move(from_initial, move.text)  # answered in the request's form
    assert list(applied.state.record.moves) == [*from_initial.record.moves, move]
    with pytest.raises(ValueError, match="seed or from an initial"):
        record_state("samara", 2, [])


def test_a_record_file_is_a_state_file(address: str, capsys, tmp_path) -> None:
    record = {"format": "furnace-record", "version": 1, "game": "samara", "num_players": 2,
              "options": {"powers": False}, "seed": 4,
              "moves": [{"text": "recruit woman"}, {"id": 197697}]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert make_state(record).record.options["powers"].bool_value is False
    code, out, _ = run(["legal-moves", "--state", str(path), "--json"], address, capsys)
    assert code == 0
    with FurnaceClient(address) as client:
        expected = client.legal_moves(make_state(record))
    assert json.loads(out)["status"]["currentPlayer"] == expected.status.current_player
    path.write_text(json.dumps({**record, "moves": [{"text": "recruit woman"}, {"id": -3}]}))
    code, _, err = run(["legal-moves", "--state", str(path)], address, capsys)
    assert code == 2 and "state.record.moves[1]" in err
    path.write_text(json.dumps({"format": "furnace-record", "moves": []}))
    code, _, err = run(["legal-moves", "--state", str(path)], address, capsys)
    assert code == 2 and "names its game" in err
