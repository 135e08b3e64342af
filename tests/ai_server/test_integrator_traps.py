"""The traps an outside integrator fell into (issue 23, items 3-8), each closed.

Every test here failed on the server before the fix: a Stephens observer shown no
moves, a misplaced ``observerSeat`` silently dropped, integers answered as ``2.0``, a
seedless NewGame always dealing seed 0, ``STATE_FORMAT_TYPED`` for Stephens quietly
answered opaque, and a best move that was not the principal variation's first.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server.server import BackgroundServer
from engine import registry
from engine.search.dispatch import search_for
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.conftest import TEST_SETTINGS
from tests.ai_server.helpers_furnace import rpc_error_info
from tests.ai_server.helpers_http import call_json, details_of, post, url


@pytest.fixture(scope="module")
def door() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(http_port=0, **TEST_SETTINGS)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


@pytest.fixture(scope="module")
def grpc_stub(door: BackgroundServer) -> Iterator[pb_grpc.FurnaceServiceStub]:
    with grpc.insecure_channel(door.address) as channel:
        yield pb_grpc.FurnaceServiceStub(channel)


def bad_request(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, str | None]:
    """(code, the BadRequest field, ErrorInfo reason) of a failed call."""
    code, fields, reason = rpc_error_info(error)
    return code, fields[0], reason


def stephens_state(observer: int | None = None) -> pb.GameState:
    state = registry.get_game("stephens").new_game(5, 2)
    for _ in range(3):
        state.apply(state.legal_moves()[0])
    message = pb.GameState()
    message.json_object.update(state.to_json())
    if observer is not None:
        message.observer_seat = observer
    return message


# -- 3: nothing in Stephens is private, so no seat's moves are hidden ---------------------
def test_a_stephens_observer_gets_moves_checks_and_searches(
        grpc_stub: pb_grpc.FurnaceServiceStub) -> None:
    start = registry.get_game("stephens").new_game(5, 2)
    for _ in range(3):
        start.apply(start.legal_moves()[0])
    mover = start.current_player()
    mover_view, other_view = stephens_state(mover), stephens_state(1 - mover)
    legal = grpc_stub.LegalMoves(pb.LegalMovesRequest(state=other_view))
    assert legal.status.current_player == mover
    assert not legal.moves_hidden and legal.moves
    assert [m.text for m in legal.moves] == \
        [m.text for m in grpc_stub.LegalMoves(pb.LegalMovesRequest(state=mover_view)).moves]
    check = grpc_stub.CheckMove(pb.CheckMoveRequest(state=other_view, move=legal.moves[0]))
    assert check.legal and check.reason_code == pb.ILLEGAL_REASON_UNSPECIFIED
    request = pb.BestMoveRequest(budget=pb.SearchBudget(iterations=40), seed=3)
    request.state.CopyFrom(other_view)
    hint = grpc_stub.BestMove(request)
    request.state.CopyFrom(mover_view)
    # Every seat sees the same Stephens position, so it searches alike.
    assert hint.move == grpc_stub.BestMove(request).move


# -- 4: a misplaced or misspelt field is refused, not dropped ------------------------------
def test_a_misplaced_observer_seat_is_refused(door: BackgroundServer) -> None:
    status, new = call_json(door, "NewGame", {"game": "oh-my-goods", "numPlayers": 2,
                                              "seed": "4",
                                              "stateFormat": "STATE_FORMAT_JSON_OBJECT"})
    assert status == 200, new
    state = new["state"]
    status, reply = call_json(door, "LegalMoves", {"state": state, "observerSeat": 1,
                                                   "includeRender": True})
    assert status == 400 and reply["code"] == "invalid_argument"
    details = details_of(reply)
    assert details["google.rpc.BadRequest"].field_violations[0].field == "observerSeat"
    assert details["google.rpc.ErrorInfo"].reason == "UNKNOWN_FIELD"
    assert "state.observerSeat" in reply["message"]
    status, reply = call_json(door, "LegalMoves", {"state": {**state, "observerSet": 1}})
    assert status == 400 and field_of(reply) == "state.observerSet"
    status, reply = call_json(door, "BestMove", {"state": state,
                                                 "budget": {"iteration": 5}})
    assert status == 400 and field_of(reply) == "budget.iteration"
    # Where it belongs, it is the seat's view: other hands are counts.
    status, reply = call_json(door, "LegalMoves", {"state": {**state, "observerSeat": 1},
                                                   "includeRender": True})
    assert status == 200 and reply["render"] != \
        call_json(door, "LegalMoves", {"state": state, "includeRender": True})[1]["render"]


def test_a_field_given_under_both_names_is_refused(door: BackgroundServer) -> None:
    """``numPlayers`` and ``num_players`` in one request: protobuf's JSON parser kept
    the later silently (issue 42, item 7.5); in a nested message too."""
    for method, body, field in (
            ("NewGame", '{"game": "samara", "numPlayers": 2, "num_players": 3}',
             "num_players"),
            ("BestMove", '{"state": {"record": {"game": "samara", "numPlayers": 2, '
             '"num_players": 3}}, "budget": {"iterations": 5}}', "state.record.num_players")):
        status, _, reply = post(url(door, method), body.encode())
        error = json.loads(reply)
        assert status == 400 and error["code"] == "invalid_argument", error
        assert field_of(error) == field
        assert details_of(error)["google.rpc.ErrorInfo"].reason == "DUPLICATE_FIELD"
        assert "numPlayers" in error["message"] and "num_players" in error["message"]


def field_of(error: dict[str, Any]) -> str:
    field: str = details_of(error)["google.rpc.BadRequest"].field_violations[0].field
    return field


def test_binary_requests_still_ignore_unknown_fields(
        grpc_stub: pb_grpc.FurnaceServiceStub) -> None:
    # Field 999 is unknown to ListGamesRequest: a newer client meeting this server.
    raw = b"\xb8\x3e\x01"
    request = pb.ListGamesRequest.FromString(raw)
    assert grpc_stub.ListGames(request).games


# -- 5: integers stay integers -------------------------------------------------------------
def test_json_object_answers_keep_integers(door: BackgroundServer) -> None:
    _, _, body = post(url(door, "NewGame"), json.dumps(
        {"game": "samara", "numPlayers": 2, "seed": "1",
         "stateFormat": "STATE_FORMAT_JSON_OBJECT"}).encode())
    text = body.decode()
    # (a Struct keeps no key order: "num_players" may be the object's last key)
    assert re.search(r'"num_players":2[,}]', text) and '"month":' in text
    assert not re.search(r"\d\.0\b", text), "an integer written as a decimal"
    state = json.loads(text)["state"]["jsonObject"]
    assert list(range(state["num_players"])) == [0, 1]
    assert all(isinstance(w["owner"], int) for month in state["track"]
               for w in month["workers"])


# -- 6: a NewGame without a seed deals a fresh game and says which -------------------------
def test_new_game_without_a_seed_draws_one(grpc_stub: pb_grpc.FurnaceServiceStub) -> None:
    games = [grpc_stub.NewGame(pb.NewGameRequest(
        game="oh-my-goods", num_players=2, state_format=pb.STATE_FORMAT_JSON))
        for _ in range(3)]
    seeds = {game.seed for game in games}
    assert len(seeds) == 3 and len({game.state.json for game in games}) == 3
    again = grpc_stub.NewGame(pb.NewGameRequest(
        game="oh-my-goods", num_players=2, seed=games[0].seed,
        state_format=pb.STATE_FORMAT_JSON))
    assert again.state.json == games[0].state.json and again.seed == games[0].seed
    zero = grpc_stub.NewGame(pb.NewGameRequest(game="oh-my-goods", num_players=2, seed=0,
                                               state_format=pb.STATE_FORMAT_JSON))
    assert zero.seed == 0 and zero.state.json == registry_json("oh-my-goods", 0)
    # The seed 0 is answered, not left out as a proto3 default: JSON clients store it.
    assert zero.HasField("seed") and json_format.MessageToDict(zero)["seed"] == "0"


def registry_json(name: str, seed: int) -> str:
    state = registry.get_game(name).new_game(seed, 2)
    return json.dumps(state.to_json(), separators=(",", ":"), sort_keys=True)


# -- 7: a form the game lacks is refused ---------------------------------------------------
def test_typed_stephens_is_refused(grpc_stub: pb_grpc.FurnaceServiceStub) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        grpc_stub.NewGame(pb.NewGameRequest(game="stephens", num_players=2, seed=1,
                                            state_format=pb.STATE_FORMAT_TYPED))
    assert bad_request(caught.value) == (grpc.StatusCode.INVALID_ARGUMENT, "state_format",
                                         "UNSUPPORTED_STATE_FORMAT")
    state = stephens_state()
    legal = grpc_stub.LegalMoves(pb.LegalMovesRequest(state=state))
    with pytest.raises(grpc.RpcError) as caught:
        grpc_stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=legal.moves[0],
                                                state_format=pb.STATE_FORMAT_TYPED))
    assert bad_request(caught.value)[1] == "state_format"


# -- 8: the best move is the principal variation's first -----------------------------------
def _positions(name: str, count: int) -> Iterator[Any]:
    game = registry.get_game(name)
    rng = random.Random(8)
    for index in range(count):
        state = game.new_game(index, 2 + index % 2)
        for _ in range(rng.randrange(0, 40)):
            if state.is_terminal():
                break
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        if not state.is_terminal() and state.current_player() >= 0:
            yield state


@pytest.mark.parametrize("name", ["stephens", "oh-my-goods", "samara"])
def test_best_move_is_the_variations_first(name: str) -> None:
    ties = 0
    for seed, state in enumerate(_positions(name, 40)):
        analysis = search_for(state, iterations=30, seed=seed)
        assert analysis.principal_variation_moves[0] == analysis.best_move
        assert analysis.principal_variation[0] == analysis.best_move_text
        top = analysis.moves[0].visits
        ties += sum(m.visits == top for m in analysis.moves) > 1
    assert ties, "no tie at the root: the rule was never put to the test"


def test_the_wire_analysis_agrees_too(grpc_stub: pb_grpc.FurnaceServiceStub) -> None:
    for seed in range(6):
        request = pb.BestMoveRequest(state=stephens_state(), seed=seed,
                                     budget=pb.SearchBudget(iterations=30))
        analysis = grpc_stub.BestMove(request).analysis
        assert analysis.principal_variation[0] == analysis.best_move
        assert json_format.MessageToDict(analysis)["bestMove"] == \
            json_format.MessageToDict(analysis.principal_variation[0])
