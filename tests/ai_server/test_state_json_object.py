"""A position as a JSON object: ``GameState.json_object`` (issue 13, item 4).

The ``json`` form is the game's JSON as *text*, so in the protobuf JSON mapping a web
client must put a JSON document inside a JSON string, and ``{"json": {...}}`` fails.
``json_object`` (a ``google.protobuf.Struct``) carries the same document as an object:
``{"jsonObject": {"game": "samara", "num_players": 2, ...}}``.  A Struct's numbers are
doubles; every number of a game's JSON is an integer, so integral doubles are read as
ints and any other number is refused on ``state.json_object:<path>``.  The Struct
passes the same request checks as every other form (entries, nesting, string length).
"""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from google.protobuf import json_format, struct_pb2

from ai_server import codecs
from clients.furnace_client import state_json
from engine import registry
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from fuzzers.server import length_delimited, typed_state, wrap_state
from tests.ai_server.helpers_furnace import rpc_error_info


def samara_json() -> dict[str, Any]:
    data: dict[str, Any] = registry.get_game("samara").new_game(seed=1, num_players=2).to_json()
    return data


def only_ints(value: Any) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(only_ints(v) for v in value.values())
    if isinstance(value, list):
        return all(only_ints(v) for v in value)
    return True


def refused(call: Any, request: Any) -> tuple[grpc.StatusCode, list[str], str | None, str]:
    with pytest.raises(grpc.RpcError) as info:
        call(request)
    code, fields, reason = rpc_error_info(info.value)
    return code, fields, reason, info.value.details() or ""


def test_the_state_oneof_has_a_struct_form() -> None:
    field = pb.GameState.DESCRIPTOR.fields_by_name["json_object"]
    assert field.message_type.full_name == "google.protobuf.Struct"
    assert field.containing_oneof is not None and field.containing_oneof.name == "state"
    assert pb.STATE_FORMAT_JSON_OBJECT == 4
    # The string form stays (compatibility).
    assert pb.GameState.DESCRIPTOR.fields_by_name["json"].number == 3


@pytest.mark.parametrize("game,players", [("samara", 2), ("oh-my-goods", 3), ("stephens", 2)])
def test_new_game_answers_the_game_json_as_an_object(stub, game: str, players: int) -> None:
    as_text = stub.NewGame(pb.NewGameRequest(game=game, num_players=players, seed=5,
                                             state_format=pb.STATE_FORMAT_JSON))
    as_object = stub.NewGame(pb.NewGameRequest(game=game, num_players=players, seed=5,
                                               state_format=pb.STATE_FORMAT_JSON_OBJECT))
    assert as_object.state.WhichOneof("state") == "json_object"
    expected = json.loads(as_text.state.json)
    assert codecs.decode_json_object(as_object.state.json_object) == expected
    assert state_json(as_object.state) == expected
    assert only_ints(state_json(as_object.state))


def test_a_web_client_sends_the_object_through_the_json_mapping(stub) -> None:
    """What grpcurl, gRPC-Web or Connect send: the game's JSON, no JSON-in-a-string."""
    data = samara_json()
    body = json.dumps({"state": {"jsonObject": data}, "move": {"text": "recruit woman"}})
    request = json_format.Parse(body, pb.ApplyMoveRequest())
    reply = stub.ApplyMove(request)
    # Answered in the form the request used, with the game's own field names.
    assert reply.state.WhichOneof("state") == "json_object"
    answer = json_format.MessageToDict(reply)
    assert answer["state"]["jsonObject"]["num_players"] == 2
    assert answer["record"]["move"]["text"] == "recruit woman"
    after = codecs.decode_json_object(reply.state.json_object)
    expected = registry.get_game("samara").state_from_json(data)
    expected.apply_text("recruit woman")
    assert after == expected.to_json()
    # The answer goes straight back in.
    moves = stub.LegalMoves(json_format.Parse(
        json.dumps({"state": {"jsonObject": answer["state"]["jsonObject"]}}),
        pb.LegalMovesRequest()))
    assert moves.moves


def test_every_state_rpc_accepts_the_object(stub) -> None:
    state = codecs.encode_state(samara_json(), codecs.JSON_OBJECT)
    state.observer_seat = 1
    assert stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves
    assert stub.CheckMove(pb.CheckMoveRequest(state=state, move=pb.Move(text="wait"))).move.text
    best = stub.BestMove(pb.BestMoveRequest(state=codecs.encode_state(samara_json(),
                                                                      codecs.JSON_OBJECT),
                                            budget=pb.SearchBudget(iterations=50), seed=1))
    assert best.move.text
    updates = list(stub.Analyze(pb.AnalyzeRequest(
        state=codecs.encode_state(samara_json(), codecs.JSON_OBJECT),
        budget=pb.SearchBudget(iterations=50), seed=1)))
    assert updates[-1].final
    estimate = stub.EstimateScores(pb.EstimateScoresRequest(state=state, playouts=5, seed=1))
    assert len(estimate.seats) == 2
    applied = stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=pb.Move(text="recruit man")))
    assert applied.state.WhichOneof("state") == "json_object"
    assert applied.state.observer_seat == 1
    # And every form can be asked for an object answer.
    typed = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1)).state
    again = stub.ApplyMove(pb.ApplyMoveRequest(state=typed, move=pb.Move(text="recruit man"),
                                               state_format=pb.STATE_FORMAT_JSON_OBJECT))
    assert again.state.WhichOneof("state") == "json_object"


def test_integral_doubles_are_integers(stub) -> None:
    data = samara_json()
    struct = struct_pb2.Struct()
    struct.update(data)  # every number a double, as any Struct carries it
    assert isinstance(struct.fields["num_players"].number_value, float)
    decoded = codecs.decode_json_object(struct)
    assert decoded == data and only_ints(decoded)
    stub.LegalMoves(pb.LegalMovesRequest(state=pb.GameState(json_object=struct)))


@pytest.mark.parametrize("value,words", [
    (0.5, "integer"), (float("nan"), "integer"), (float("inf"), "integer"),
    (1e300, "too large"),
])
def test_a_number_that_is_no_integer_is_refused_on_its_path(stub, value: float,
                                                             words: str) -> None:
    state = codecs.encode_state(samara_json(), codecs.JSON_OBJECT)
    foreman = state.json_object.fields["foremen"].list_value.values[0].struct_value
    foreman.fields["tools"].struct_value.fields["saw"].number_value = value
    code, fields, reason, message = refused(stub.LegalMoves, pb.LegalMovesRequest(state=state))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert fields == ["state.json_object:foremen[0].tools.saw"]
    assert reason == "INVALID_STATE"
    assert words in message and "foremen[0].tools.saw" in message


def test_faults_name_the_path_inside_the_object(stub) -> None:
    data = samara_json()
    data["foremen"][0]["tools"]["saw"] = 3
    code, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=codecs.encode_state(data, codecs.JSON_OBJECT)))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT,
                                      ["state.json_object:foremen[0].tools.saw"],
                                      "INVALID_STATE")
    del data["game"]
    struct = codecs.encode_json_object(data)
    _, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=struct)))
    assert (fields, reason) == (["state.json_object:game"], "INVALID_STATE")
    struct.fields["game"].string_value = "chess"
    _, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=struct)))
    assert (fields, reason) == (["state.json_object:game"], "UNKNOWN_GAME")
    # An empty object is a state without a game, not a missing state.
    empty = pb.GameState()
    empty.json_object.SetInParent()
    _, fields, _, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(state=empty))
    assert fields == ["state.json_object:game"]


# -- the request checks apply to the Struct too ----------------------------------------------
def nested(depth: int) -> struct_pb2.Struct:
    inner: dict[str, Any] = {"x": 1}
    for _ in range(depth):
        inner = {"x": [inner]}
    struct = struct_pb2.Struct()
    struct.update(dict(inner, game="samara"))
    return struct


def test_deep_nesting_is_refused_before_decoding(stub) -> None:
    code, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=nested(12))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason == "REQUEST_TOO_COMPLEX"
    assert fields and fields[0].startswith("state.json_object.fields")


def raw_nested_struct(depth: int) -> bytes:
    """An encoded Struct nesting ``{"x": [{"x": [... "a" ...]}]}`` ``depth`` times (built
    as bytes: the protobuf library will not build what it cannot parse)."""
    value = length_delimited(3, b"a")  # Value.string_value
    for _ in range(depth):
        struct = length_delimited(1, length_delimited(1, b"x") + length_delimited(2, value))
        value = length_delimited(6, length_delimited(1, length_delimited(5, struct)))
    return length_delimited(1, length_delimited(1, b"x") + length_delimited(2, value))


def test_deeper_than_the_parser_goes_is_a_malformed_request(channel) -> None:
    call = channel.unary_unary("/furnace.v1.FurnaceService/LegalMoves",
                               response_deserializer=pb.LegalMovesResponse.FromString)
    for depth, reasons in ((8, {"REQUEST_TOO_COMPLEX"}),
                           (200, {"MALFORMED_REQUEST", "REQUEST_TOO_COMPLEX"})):
        body = wrap_state(typed_state("json_object", raw_nested_struct(depth)))
        code, _, reason, _ = refused(call, body)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert reason in reasons, (depth, reason)


def test_too_many_entries_are_refused(stub) -> None:
    struct = codecs.encode_json_object(samara_json())
    struct.fields["padding"].list_value.extend([0] * 6000)
    code, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=struct)))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_TOO_COMPLEX")
    many_keys = codecs.encode_json_object(samara_json())
    many_keys.update({f"k{i}": i for i in range(6000)})
    _, _, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=many_keys)))
    assert reason == "REQUEST_TOO_COMPLEX"


def test_long_strings_and_keys_are_refused(stub) -> None:
    struct = codecs.encode_json_object(samara_json())
    struct.fields["unused_tiles"].list_value.values[0].string_value = "t" * 5000
    code, fields, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=struct)))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_TOO_LONG")
    struct = codecs.encode_json_object(samara_json())
    struct.fields["k" * 5000].number_value = 1
    _, _, reason, _ = refused(stub.LegalMoves, pb.LegalMovesRequest(
        state=pb.GameState(json_object=struct)))
    assert reason == "FIELD_TOO_LONG"


def test_real_positions_are_far_inside_the_limits() -> None:
    from ai_server.wire import WireLimits, check_message
    from tests.ai_server.helpers_furnace import positions_json

    for data in positions_json(30, seed=3):
        request = pb.BestMoveRequest(state=codecs.encode_state(data, codecs.JSON_OBJECT))
        check_message(request, WireLimits(max_elements=1500, max_depth=12))


def test_response_form() -> None:
    assert codecs.response_form("json_object", pb.STATE_FORMAT_UNSPECIFIED, "samara") \
        == "json_object"
    assert codecs.response_form("samara", pb.STATE_FORMAT_JSON_OBJECT, "samara") \
        == "json_object"
