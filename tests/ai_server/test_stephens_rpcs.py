"""Stephens through the gRPC service: the service is game-agnostic and carries a game
without a typed message in the JSON and opaque (zlib-compressed JSON) forms."""

from __future__ import annotations

import json
import random
import zlib

import grpc
import pytest

from engine import registry
from engine.game import State, events_seen_by
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import rpc_error_info

GAME = "stephens"
FORMATS = ("json", "opaque")


def encode(state_json: dict, form: str) -> pb.GameState:
    text = json.dumps(state_json)
    if form == "json":
        return pb.GameState(json=text)
    return pb.GameState(opaque=zlib.compress(text.encode()))


def decode(message: pb.GameState) -> dict:
    form = message.WhichOneof("state")
    if form == "opaque":
        return json.loads(zlib.decompress(message.opaque))
    assert form == "json", form
    return json.loads(message.json)


def mid_game(seed: int = 4, players: int = 3, plies: int = 40) -> State:
    """A position of a seeded random game, past the setup decisions."""
    state = registry.get_game(GAME).new_game(seed=seed, num_players=players)
    rng = random.Random(seed)
    for _ in range(plies):
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    assert not state.is_terminal()
    return state


def test_stephens_is_listed(stub) -> None:
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    stephens = games[GAME]
    assert stephens.title == "Stephens" and list(stephens.player_counts) == [1, 2, 3, 4]
    assert stephens.information_type != pb.INFORMATION_TYPE_PERFECT
    assert not stephens.typed_state


@pytest.mark.parametrize("form", FORMATS)
def test_new_game_in_each_form(stub, form: str) -> None:
    state_format = pb.STATE_FORMAT_JSON if form == "json" else pb.STATE_FORMAT_OPAQUE
    reply = stub.NewGame(pb.NewGameRequest(game=GAME, num_players=3, seed=9,
                                           state_format=state_format))
    assert reply.state.WhichOneof("state") == form
    expected = registry.get_game(GAME).new_game(seed=9, num_players=3)
    assert decode(reply.state) == expected.to_json()
    assert reply.status.current_player == 0 and reply.status.num_players == 3
    assert "Stephens, 3 players" in reply.render
    default = stub.NewGame(pb.NewGameRequest(game=GAME, num_players=2, seed=1))
    assert default.state.WhichOneof("state") in FORMATS  # no typed form for Stephens


@pytest.mark.parametrize("form", FORMATS)
def test_legal_moves_and_apply_move(stub, form: str) -> None:
    state = mid_game()
    message = encode(state.to_json(), form)
    reply = stub.LegalMoves(pb.LegalMovesRequest(state=message, include_render=True))
    assert [m.id for m in reply.moves] == state.legal_moves()
    assert [m.text for m in reply.moves] == state.legal_moves_text()
    assert reply.render == state.render() and not reply.moves_hidden
    mover = state.current_player()
    move = reply.moves[-1]
    # by text, then by id: the same new position as the engine's, in the request's form
    by_text = stub.ApplyMove(pb.ApplyMoveRequest(state=message, move=pb.Move(text=move.text)))
    by_id = stub.ApplyMove(pb.ApplyMoveRequest(state=message, move=pb.Move(id=move.id)))
    events = state.apply(move.id)
    for answer in (by_text, by_id):
        assert answer.state.WhichOneof("state") == form
        assert decode(answer.state) == state.to_json()
        assert answer.record.player == mover and answer.record.move.text == move.text
        assert list(answer.record.events) == events_seen_by(events, None)
        assert answer.status.current_player == state.current_player()
    check = stub.CheckMove(pb.CheckMoveRequest(state=message, move=pb.Move(text="glass FN-ZZ")))
    assert not check.legal


@pytest.mark.parametrize("form", FORMATS)
def test_best_move_is_legal_and_reproducible(stub, form: str) -> None:
    state = mid_game(seed=6, players=2, plies=30)
    request = pb.BestMoveRequest(state=encode(state.to_json(), form), seed=3,
                                 budget=pb.SearchBudget(iterations=12))
    first = stub.BestMove(request)
    second = stub.BestMove(request)
    assert first.move.id in state.legal_moves()
    assert first.move.text == state.move_to_text(first.move.id)
    assert first.analysis.iterations == 12 and first.analysis.player == state.current_player()
    assert second.move == first.move
    assert [m.visits for m in second.analysis.moves] == [m.visits for m in first.analysis.moves]


@pytest.mark.parametrize("form", FORMATS)
def test_estimate_scores(stub, form: str) -> None:
    state = mid_game(seed=8, players=3, plies=60)
    request = pb.EstimateScoresRequest(state=encode(state.to_json(), form), playouts=4, seed=2)
    reply = stub.EstimateScores(request)
    assert [s.seat for s in reply.seats] == [0, 1, 2]
    assert sum(s.win_probability for s in reply.seats) == pytest.approx(1)
    assert all(s.score_mean > 0 for s in reply.seats)
    again = stub.EstimateScores(request)
    assert [s.score_mean for s in again.seats] == [s.score_mean for s in reply.seats]


def test_an_impossible_position_is_refused_naming_the_field(stub) -> None:
    data = mid_game().to_json()
    data["decisions"][-1]["context"] = {"nonsense": 1}
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalMoves(pb.LegalMovesRequest(state=encode(data, "json")))
    code, fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and reason == "INVALID_STATE"
    assert "decisions[" in info.value.details()
    del fields
