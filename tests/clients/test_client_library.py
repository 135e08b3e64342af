"""clients.furnace_client.FurnaceClient against a real server."""

from __future__ import annotations

import json

import grpc
import pytest

from clients.furnace_client import (
    FurnaceClient,
    decode_opaque,
    describe_error,
    encode_opaque,
    error_details,
    make_move,
    make_state,
    record_state,
    state_json,
    to_dict,
)
from furnace_proto.furnace.v1 import furnace_pb2 as pb


def test_list_games(client: FurnaceClient) -> None:
    reply = client.list_games()
    assert [g.name for g in reply.games] == ["samara", "oh-my-goods", "stephens"]
    data = to_dict(reply)
    assert data["games"][0]["player_counts"] == [2, 3, 4, 5]


def test_game_round_trip(client: FurnaceClient) -> None:
    game = client.new_game("samara", 3, seed=5, options={"powers": False})
    data = state_json(game.state)
    assert data["num_players"] == 3 and data["options"] == {"powers": False}
    legal = client.legal_moves(data, include_render=True)
    assert legal.moves and legal.render
    first = legal.moves[0]
    assert client.check_move(data, first.text).legal
    assert client.check_move(data, first.id).legal
    assert not client.check_move(data, "wait").legal
    applied = client.apply_move(game.state, first.text, seat=0)
    assert applied.record.move.id == first.id
    assert applied.state.WhichOneof("state") == "opaque"
    after = client.apply_move(json.dumps(data), first, state_format=pb.STATE_FORMAT_JSON)
    assert state_json(after.state) == state_json(applied.state)


def test_search_calls(client: FurnaceClient) -> None:
    state = client.new_game("samara", 2, seed=2).state
    best = client.best_move(state, iterations=60, seed=1, max_candidates=3)
    again = client.best_move(state_json(state), iterations=60, seed=1, max_candidates=3)
    assert best.move == again.move
    assert len(best.analysis.moves) <= 3
    updates = list(client.analyze(state, time_limit=0.4, update_interval=0.1))
    assert updates[-1].final and sum(u.final for u in updates) == 1
    estimate = client.estimate_scores(state, playouts=30, seed=3)
    assert estimate.playouts == 30 and len(estimate.seats) == 2
    assert client.health() == "SERVING"
    assert client.health("furnace.v1.FurnaceService") == "SERVING"


def test_cancel_analyze(client: FurnaceClient) -> None:
    state = client.new_game("samara", 2, seed=2).state
    stream = client.analyze(state, time_limit=4.0, update_interval=0.1)
    assert not next(stream).final
    stream.cancel()
    with pytest.raises(grpc.RpcError) as info:
        list(stream)
    assert info.value.code() == grpc.StatusCode.CANCELLED


def test_review_game(client: FurnaceClient) -> None:
    state = record_state("samara", 2, seed=2)
    moves = []
    for k in range(8):
        legal = client.legal_moves(state).moves
        moves.append(legal[(3 * k) % len(legal)].text)
        state = client.apply_move(state, moves[-1]).state  # the record grows a move
    replies = list(client.review_game(state, 0, iterations=20, seed=1))
    decisions = [r.decision for r in replies if r.WhichOneof("item") == "decision"]
    assert decisions and all(d.seat == 0 and d.played.move.text == moves[d.turn]
                             for d in decisions)
    summary, = [r.summary for r in replies if r.WhichOneof("item") == "summary"]
    assert replies[-1].summary == summary
    assert summary.seat == 0 and summary.decisions == len(decisions) and summary.complete
    # A record file's JSON, as furnace play saves it: the same review.
    saved = {"format": "furnace-record", "version": 1, "game": "samara", "num_players": 2,
             "seed": 2, "moves": [{"text": text} for text in moves]}
    assert list(client.review_game(saved, 0, iterations=20, seed=1)) == replies
    stream = client.review_game(state, iterations=100_000)
    stream.cancel()
    with pytest.raises(grpc.RpcError) as info:
        list(stream)
    assert info.value.code() == grpc.StatusCode.CANCELLED


def test_errors_are_described(client: FurnaceClient) -> None:
    with pytest.raises(grpc.RpcError) as info:
        client.best_move({"game": "samara"}, iterations=10)
    details = error_details(info.value)
    assert details["code"] == "INVALID_ARGUMENT"
    assert details["reason"] == "INVALID_STATE"
    assert details["fields"][0]["field"] == "state.opaque:version"
    line = describe_error(info.value)
    assert line.startswith("INVALID_ARGUMENT: ") and "\n" not in line
    assert "field state.opaque" in line


def test_unreachable_server() -> None:
    with FurnaceClient("127.0.0.1:1", timeout=2) as lost:
        with pytest.raises(grpc.RpcError) as info:
            lost.list_games()
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE


def test_helpers() -> None:
    data = {"game": "samara", "x": [1, 2]}
    assert decode_opaque(encode_opaque(data)) == data
    assert make_state(data).WhichOneof("state") == "opaque"
    assert make_state(json.dumps(data)).WhichOneof("state") == "opaque"
    assert make_state(b"abc").opaque == b"abc"
    assert make_state(data, observer_seat=1).observer_seat == 1
    assert state_json(pb.GameState(json=json.dumps(data))) == data
    with pytest.raises(ValueError):
        state_json(pb.GameState())
    with pytest.raises(ValueError):
        state_json(pb.GameState(samara=pb.SamaraState()))
    assert make_move(0).HasField("id")
    assert make_move("wait").text == "wait"
    with pytest.raises(TypeError):
        make_move(True)
    with pytest.raises(TypeError):
        make_state(3.5)  # type: ignore[arg-type]


def test_observer_seat_on_every_state_method(client: FurnaceClient) -> None:
    """Oh My Goods!, phase II: seat 0 places its worker (moves every seat may know), then
    plans from its hand (moves only it may know); asked as seat 1, nothing of seat 0's."""
    from clients.furnace_client import host_state

    game = client.new_game("oh-my-goods", 2, seed=7)
    data = state_json(client.new_game("oh-my-goods", 2, seed=7,
                                      state_format=pb.STATE_FORMAT_JSON).state)
    worker_step = client.legal_moves(game.state, observer_seat=1)
    assert not worker_step.moves_hidden
    assert worker_step.moves == client.legal_moves(game.state).moves
    applied = client.apply_move(game.state, "work #0 sloppy", seat=0, observer_seat=1)
    assert applied.record.move_hidden and not applied.record.HasField("move")
    assert applied.state.observer_seat == 1
    # The state keeps its observer: seat 0's plan is drawn from its hand.
    plan_step = applied.state
    legal = client.legal_moves(plan_step, include_render=True)
    assert legal.moves_hidden and not legal.moves
    assert not any(card in legal.render for card in data["players"][0]["hand"])
    assert client.legal_moves(plan_step, observer_seat=0).moves
    check = client.check_move(plan_step, "plan none")
    assert not check.legal and check.reason_code == pb.ILLEGAL_REASON_HIDDEN
    assert client.check_move(plan_step, "plan none", observer_seat=0).legal
    # host_state() asks as the host again.
    host = host_state(plan_step)
    assert not host.HasField("observer_seat") and client.legal_moves(host).moves
    for search in (lambda: client.best_move(plan_step, iterations=10),
                   lambda: list(client.analyze(plan_step, iterations=10))):
        with pytest.raises(grpc.RpcError) as info:
            search()
        details = error_details(info.value)
        assert details["reason"] == "OBSERVER_CANNOT_SEE_MOVER"
        assert details["fields"][0]["field"] == "state.observer_seat"
    best = client.best_move(host, iterations=10, seed=1, observer_seat=0)
    assert best.move.text == client.best_move(host, iterations=10, seed=1).move.text
    estimate = client.estimate_scores(game.state, playouts=10, seed=2, observer_seat=1)
    assert estimate.playouts == 10 and len(estimate.seats) == 2


def test_sealed_states_say_where_their_view_is() -> None:
    from clients.furnace_client import view_json

    reply = pb.NewGameResponse(state=pb.GameState(sealed=b"\x01opaque", observer_seat=0))
    with pytest.raises(ValueError, match="sealed state cannot be read"):
        state_json(reply.state)
    with pytest.raises(ValueError, match="only sealed answers"):
        view_json(reply)
    reply.view.update({"game": "oh-my-goods", "observer": 0, "players": [{"hand": 7}]})
    assert view_json(reply) == {"game": "oh-my-goods", "observer": 0, "players": [{"hand": 7}]}
