"""An impossible state is reported on the whole path of the field at fault (issue 13, item 2).

The typed form continues the request's field path (``state.samara.foremen[0].tools.saw``);
the ``json`` and ``opaque`` forms add the path inside their JSON document after a colon
(``state.json:foremen[0].tools.saw``), as docs/api.md documents.
"""

from __future__ import annotations

import json

import grpc
import pytest

from ai_server import codecs
from engine import registry
from engine.game import InvalidStateError
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import rpc_error_info


def samara_json() -> dict:
    data: dict = registry.get_game("samara").new_game(seed=1, num_players=2).to_json()
    return data


def omg_json() -> dict:
    data: dict = registry.get_game("oh_my_goods").new_game(seed=2, num_players=2).to_json()
    return data


def state_error(stub, state: pb.GameState) -> tuple[list[str], str, str]:
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalMoves(pb.LegalMovesRequest(state=state))
    code, fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    return fields, reason or "", info.value.details() or ""


def forms(data: dict) -> dict[str, pb.GameState]:
    return {form: codecs.encode_state(data, form) for form in ("typed", "json", "opaque")}


def test_too_many_saws_are_reported_on_the_saw(stub) -> None:
    data = samara_json()
    data["foremen"][0]["tools"]["saw"] = 3
    expected = {"typed": "state.samara.foremen[0].tools.saw",
                "json": "state.json:foremen[0].tools.saw",
                "opaque": "state.opaque:foremen[0].tools.saw"}
    for form, state in forms(data).items():
        fields, reason, message = state_error(stub, state)
        assert reason == "INVALID_STATE"
        assert fields == [expected[form]], (form, fields, message)
        assert "foremen[0].tools.saw" in message


def test_a_typed_field_name_differing_from_the_json_key_is_the_typed_one(stub) -> None:
    data = samara_json()
    data["foremen"][1]["tools"]["glass-a"] = 7
    fields, _, message = state_error(stub, forms(data)["typed"])
    assert fields == ["state.samara.foremen[1].tools.glass_a"], (fields, message)
    fields, _, _ = state_error(stub, forms(data)["json"])
    assert fields == ["state.json:foremen[1].tools.glass-a"]


def test_an_unset_enum_names_its_field(stub) -> None:
    state = forms(samara_json())["typed"]
    state.samara.track[0].workers[0].gender = pb.SAMARA_GENDER_UNSPECIFIED
    fields, _, message = state_error(stub, state)
    assert fields == ["state.samara.track[0].workers[0].gender"], (fields, message)


def test_oh_my_goods_paths(stub) -> None:
    data = omg_json()
    data["players"][1]["chosen"] = 9
    for form, prefix in (("typed", "state.oh_my_goods."), ("json", "state.json:")):
        fields, reason, message = state_error(stub, forms(data)[form])
        assert reason == "INVALID_STATE"
        assert fields == [prefix + "players[1].chosen"], (form, fields, message)


def test_a_header_fault_and_an_unknown_game(stub) -> None:
    data = samara_json()
    data["num_players"] = 9
    fields, _, _ = state_error(stub, forms(data)["json"])
    assert fields == ["state.json:num_players"]
    data = samara_json()
    data["version"] = 99
    fields, _, _ = state_error(stub, forms(data)["opaque"])
    assert fields == ["state.opaque:version"]
    data["game"] = "chess"
    fields, reason, _ = state_error(stub, pb.GameState(json=json.dumps(data)))
    assert fields == ["state.json:game"] and reason == "UNKNOWN_GAME"


def test_a_fault_of_the_whole_state_names_the_state_field(stub) -> None:
    data = samara_json()
    data["unused_tiles"] = data["unused_tiles"][:-1]  # a tile goes missing
    fields, _, message = state_error(stub, forms(data)["json"])
    assert fields and fields[0].startswith("state.json"), (fields, message)


@pytest.mark.parametrize("message, path", [
    ("foremen[0].tools.saw: 3 is more than 2", "foremen[0].tools.saw"),
    ("month must be an integer in 0..99, got 'x'", "month"),
    ("spots[3].tile is also at spots[5]", "spots[3].tile"),
    ("corrupt Samara state: KeyError: 'x'", None),
    ("the game is over", None),
])
def test_invalid_state_error_path(message: str, path: str | None) -> None:
    assert InvalidStateError(message).path == path
    assert InvalidStateError(message, "given").path == "given"
    assert InvalidStateError(message, "").path is None


def stephens_json(players: int = 2) -> dict:
    data: dict = registry.get_game("stephens").new_game(seed=3, num_players=players).to_json()
    return data


@pytest.mark.parametrize("case, field", [
    # Issue 38: a card nowhere was named on a pseudo-field, state.json_object:cards.
    ("oh-my-goods card nowhere", "state.json_object"),
    # ... Stephens' unknown and missing fields on state.json_object:state ...
    ("stephens unknown field", "state.json_object:extra"),
    ("stephens missing field", "state.json_object:rng"),
    ("stephens missing player field", "state.json_object:players[1].vp"),
    # ... and its game version on no path inside the state.
    ("stephens version", "state.json_object:version"),
    ("samara tool totals", "state.json_object"),
])
def test_every_refusal_names_a_real_field(stub, case: str, field: str) -> None:
    if case.startswith("oh-my-goods"):
        data = omg_json()
        data["deck"].pop()
    elif case.startswith("samara"):
        data = samara_json()
        data["spots"][0]["tools"]["saw"] += 1
    else:
        data = stephens_json()
        if case.endswith("unknown field"):
            data["extra"] = 1
        elif case.endswith("missing field"):
            del data["rng"]
        elif case.endswith("player field"):
            del data["players"][1]["vp"]
        else:
            data["version"] = 7
    fields, reason, message = state_error(stub, codecs.encode_state(data, "json_object"))
    assert reason == "INVALID_STATE"
    assert fields == [field], (case, fields, message)


def test_an_unknown_state_format_number_has_a_listed_reason(stub) -> None:
    """Issue 38: an unknown enum number was refused with reason INVALID_ARGUMENT, which
    docs/api.md's reasons table does not list."""
    request = pb.NewGameRequest(game="samara", num_players=2)
    request.state_format = 99  # type: ignore[assignment]
    with pytest.raises(grpc.RpcError) as info:
        stub.NewGame(request)
    code, fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert fields == ["state_format"] and reason == "UNSUPPORTED_STATE_FORMAT"
