"""Oh My Goods!'s typed state: OhMyGoodsState <-> JSON, and the RPCs in the typed form.

The last tests show the server never peeks: BestMove for a seat gives the same
answer for positions that differ only in what that seat cannot see.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server import codecs
from ai_server.codecs import oh_my_goods as omg_codec
from engine import registry
from engine.game import State
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import rpc_error_info

GAME = "oh-my-goods"


def _game() -> Any:
    return registry.get_game(GAME)


def _random_game(seed: int) -> list[State]:
    """Every position of one seeded random game (2-4 players, either edition)."""
    rng = random.Random(seed)
    state = _game().new_game(seed=rng.randrange(10**6), num_players=2 + seed % 3,
                             options={"second_edition": seed % 2 == 1})
    states = [state.clone()]
    while not state.is_terminal():
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
        states.append(state.clone())
    return states


@pytest.fixture(scope="module")
def games() -> list[list[State]]:
    return [_random_game(seed) for seed in range(12)]


def _typed(data: dict[str, Any], observer: int | None = None) -> pb.GameState:
    message = codecs.encode_state(data, "typed", observer)
    assert message.WhichOneof("state") == "oh_my_goods"
    return message


# -- codec ------------------------------------------------------------------------------------
def test_typed_round_trip(games: list[list[State]]) -> None:
    seen: dict[str, set[Any]] = {"phase": set(), "pay": set(), "players": set(),
                                 "edition": set(), "shown": set(), "reshuffled": set()}
    for states in games:
        for state in states:
            data = state.to_json()
            message = omg_codec.from_json(data)
            assert omg_codec.to_json(message) == data
            # ... and through the wire bytes.
            wire = pb.OhMyGoodsState.FromString(message.SerializeToString())
            assert omg_codec.to_json(wire) == data
            seen["phase"].add(data["phase"])
            seen["pay"].add(None if data["act"]["pay"] is None else data["act"]["pay"]["purpose"])
            seen["players"].add(data["num_players"])
            seen["edition"].add(data["options"]["second_edition"])
            seen["shown"].add(bool(data["shown_goods"]))
            seen["reshuffled"].add(bool(data["reshuffled"]))
            assert list(message.shown_goods) == data["shown_goods"]
            assert list(message.reshuffled) == data["reshuffled"]
    # The positions cover the whole format.
    assert seen["phase"] == {"redraw", "shift", "choose", "act", "over"}
    assert seen["pay"] == {None, "shift", "build", "hire"}
    assert seen["players"] == {2, 3, 4}
    assert seen["edition"] == {False, True}
    assert seen["shown"] == {False, True} and seen["reshuffled"] == {False, True}


def test_states_without_the_newer_fields_still_decode() -> None:
    """JSON written before shown_goods/reshuffled existed: the codec and the game agree."""
    data = _game().new_game(seed=3, num_players=2).to_json()
    old = {k: v for k, v in data.items() if k not in ("shown_goods", "reshuffled")}
    message = omg_codec.from_json(old)
    assert not message.shown_goods and not message.reshuffled
    assert _game().state_from_json(omg_codec.to_json(message)).to_json() == data


def test_shown_goods_and_reshuffle_survive_the_server(stub, games: list[list[State]]) -> None:
    """A typed position with face-up goods and a reshuffle goes through ApplyMove intact."""
    state = next(s for states in games for s in states
                 if s.to_json()["shown_goods"] and s.to_json()["reshuffled"]
                 and not s.is_terminal())
    move = state.legal_moves()[0]
    reply = stub.ApplyMove(pb.ApplyMoveRequest(state=_typed(state.to_json()),
                                               move=pb.Move(id=move)))
    after = state.clone()
    after.apply(move)
    assert omg_codec.to_json(reply.state.oh_my_goods) == after.to_json()
    assert list(reply.state.oh_my_goods.reshuffled) == after.to_json()["reshuffled"]


def test_round_trip_validates_in_the_game(games: list[list[State]]) -> None:
    for states in games[:4]:
        for state in states[::25]:
            data = state.to_json()
            rebuilt = _game().state_from_json(omg_codec.to_json(omg_codec.from_json(data)))
            assert rebuilt.to_json() == data


def test_typed_survives_protobuf_json_mapping(games: list[list[State]]) -> None:
    """A web client's JSON (json_format) of a typed GameState decodes to the same position."""
    for states in games:
        for state in states[::7]:
            data = state.to_json()
            message = _typed(data, observer_seat := state.num_players - 1)
            text = json_format.MessageToJson(message)
            assert '"ohMyGoods"' in text
            back = json_format.Parse(text, pb.GameState())
            assert back == message
            decoded = codecs.decode_state(back)
            assert decoded.game == GAME and decoded.form == "oh_my_goods"
            assert decoded.data == data and decoded.observer_seat == observer_seat
            # Original (snake_case) field names are accepted on input too.
            snake = json_format.MessageToJson(message, preserving_proto_field_name=True)
            assert codecs.decode_state(json_format.Parse(snake, pb.GameState())).data == data


def test_unset_enums_and_missing_fields_are_rejected_by_the_game() -> None:
    data = _game().new_game(seed=1, num_players=2).to_json()
    message = omg_codec.from_json(data)
    message.phase = pb.OH_MY_GOODS_PHASE_UNSPECIFIED
    with pytest.raises(Exception, match="phase"):
        _game().state_from_json(omg_codec.to_json(message))


def test_response_form_is_typed_for_oh_my_goods() -> None:
    assert codecs.has_typed(GAME)
    assert codecs.response_form(None, pb.STATE_FORMAT_UNSPECIFIED, GAME) == "typed"
    assert codecs.response_form("oh_my_goods", pb.STATE_FORMAT_UNSPECIFIED, GAME) \
        == "oh_my_goods"
    assert codecs.response_form("oh_my_goods", pb.STATE_FORMAT_JSON, GAME) == "json"


# -- over a real server ---------------------------------------------------------------------
def test_list_games_says_typed(stub) -> None:
    info = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}[GAME]
    assert info.typed_state
    assert info.information_type == pb.INFORMATION_TYPE_IMPERFECT


@pytest.mark.parametrize("num_players, second_edition", [(2, False), (3, True), (4, False)])
def test_new_game_is_typed(stub, num_players: int, second_edition: bool) -> None:
    reply = stub.NewGame(pb.NewGameRequest(
        game=GAME, num_players=num_players, seed=11,
        options={"second_edition": pb.OptionValue(bool_value=second_edition)}))
    assert reply.state.WhichOneof("state") == "oh_my_goods"
    expected = _game().new_game(seed=11, num_players=num_players,
                                options={"second_edition": second_edition}).to_json()
    assert omg_codec.to_json(reply.state.oh_my_goods) == expected
    assert reply.status.game == GAME and reply.status.num_players == num_players
    assert reply.status.current_player >= 0 and not reply.status.terminal


def test_apply_move_typed_game(stub) -> None:
    """A few plies through the server in the typed form track the engine exactly."""
    rng = random.Random(5)
    engine_state = _game().new_game(seed=21, num_players=3)
    state = stub.NewGame(pb.NewGameRequest(game=GAME, num_players=3, seed=21)).state
    for _ in range(25):
        moves = stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves
        assert [m.id for m in moves] == engine_state.legal_moves()
        move = moves[rng.randrange(len(moves))]
        seat = engine_state.current_player()
        reply = stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=pb.Move(text=move.text),
                                                   seat=seat))
        engine_state.apply(move.id)
        assert reply.state.WhichOneof("state") == "oh_my_goods"
        assert omg_codec.to_json(reply.state.oh_my_goods) == engine_state.to_json()
        assert reply.record.player == seat and reply.record.move.id == move.id
        state = reply.state


def test_impossible_typed_state_names_the_field(stub) -> None:
    data = _game().new_game(seed=2, num_players=2).to_json()
    message = _typed(data)
    message.oh_my_goods.players[0].hand.append(message.oh_my_goods.deck[0])  # a card twice
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalMoves(pb.LegalMovesRequest(state=message))
    code, fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert fields == [f"state.oh_my_goods.players[0].hand[{len(data['players'][0]['hand'])}]"]
    assert reason == "INVALID_STATE"


def _best(stub, state: pb.GameState, seat: int, seed: int = 7) -> pb.BestMoveResponse:
    reply: pb.BestMoveResponse = stub.BestMove(pb.BestMoveRequest(
        state=state, seat=seat, seed=seed, budget=pb.SearchBudget(iterations=30)))
    return reply


def _comparable(reply: pb.BestMoveResponse) -> pb.BestMoveResponse:
    copy = pb.BestMoveResponse()
    copy.CopyFrom(reply)
    copy.analysis.elapsed_seconds = 0.0
    copy.analysis.queued_seconds = 0.0
    return copy


def test_best_move_typed(stub) -> None:
    state = stub.NewGame(pb.NewGameRequest(game=GAME, num_players=2, seed=4)).state
    engine_state = _game().new_game(seed=4, num_players=2)
    seat = engine_state.current_player()
    reply = _best(stub, state, seat)
    assert reply.move.id in engine_state.legal_moves()
    assert reply.move.text == engine_state.move_to_text(reply.move.id)
    assert reply.analysis.player == seat and reply.analysis.iterations == 30
    assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_ITERATIONS
    # Reproducible, and the same in every form.
    assert _comparable(_best(stub, state, seat)) == _comparable(reply)
    opaque = codecs.encode_state(engine_state.to_json(), "opaque")
    assert _comparable(_best(stub, opaque, seat)) == _comparable(reply)


def _no_peek_positions() -> list[State]:
    """Positions with a seat to move, in the phases where different things are hidden."""
    picked: list[State] = []
    wanted = ["choose", "act", "shift", "redraw"]
    for seed in range(1, 8):
        for k, state in enumerate(_random_game(seed)):
            if state.is_terminal() or state.current_player() < 0:
                continue
            phase = state.to_json()["phase"]
            # Mid-phase II (an earlier seat's hidden choice already made) or any other phase.
            hidden_choice = phase == "choose" and any(
                p["chosen"] for i, p in enumerate(state.to_json()["players"])
                if i != state.current_player())
            choices = len(state.legal_moves())
            if (phase in wanted and (phase != "choose" or hidden_choice) and k > 3
                    and choices >= (2 if phase == "redraw" else 3)):
                wanted.remove(phase)
                picked.append(state)
    assert len(picked) == 4, wanted
    return picked


def test_best_move_never_peeks(stub) -> None:
    """Same seat, seed and budget: same answer for states that differ only in hidden parts."""
    for state in _no_peek_positions():
        seat = state.current_player()
        twins = [state.determinize(seat, random.Random(n)) for n in (1, 2)]
        data = state.to_json()
        for twin in twins:
            twin_data = twin.to_json()
            # What the seat sees is the same; what it cannot see is not.
            assert twin.observation(seat) == state.observation(seat)
            assert twin_data != data
            others = [p["hand"] for i, p in enumerate(data["players"]) if i != seat]
            twin_others = [p["hand"] for i, p in enumerate(twin_data["players"]) if i != seat]
            assert others != twin_others or twin_data["deck"] != data["deck"]
        answers = [
            _comparable(_best(stub, _typed(d, observer=seat), seat))
            for d in (data, *(t.to_json() for t in twins))
        ]
        assert answers[1] == answers[0] and answers[2] == answers[0], data["phase"]
        assert answers[0].move.id in state.legal_moves()
