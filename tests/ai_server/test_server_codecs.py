"""State codecs: typed Samara <-> JSON, opaque, json, and protobuf's JSON mapping."""

from __future__ import annotations

import json
import zlib

import pytest
from google.protobuf import json_format

from ai_server import codecs
from ai_server.codecs import samara as samara_codec
from ai_server.errors import RequestError
from engine import registry
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import random_positions


@pytest.fixture(scope="module")
def positions() -> list:
    return random_positions(40, seed=11)


def test_samara_typed_round_trip(positions: list) -> None:
    """JSON -> SamaraState -> JSON is the identity, and the state rebuilds identically."""
    game = registry.get_game("samara")
    for state in positions:
        data = state.to_json()
        message = samara_codec.from_json(data)
        back = samara_codec.to_json(message)
        assert back == data
        assert game.state_from_json(back).to_json() == data


def test_typed_survives_protobuf_json_mapping(positions: list) -> None:
    """A web client's JSON (json_format) of a typed GameState decodes to the same position."""
    for state in positions[:10]:
        data = state.to_json()
        message = codecs.encode_state(data, "typed")
        assert message.WhichOneof("state") == "samara"
        text = json_format.MessageToJson(message)
        parsed = json_format.Parse(text, pb.GameState())
        assert codecs.decode_state(parsed).data == data


def test_samara_pending_decisions_round_trip(positions: list) -> None:
    with_pending = [s for s in random_positions(300, seed=5) if s.to_json()["pending"]]
    assert with_pending, "expected some positions with pending decisions"
    for state in with_pending[:10]:
        data = state.to_json()
        assert samara_codec.to_json(samara_codec.from_json(data)) == data


@pytest.mark.parametrize("form", ["typed", "opaque", "json"])
def test_encode_decode_every_form(positions: list, form: str) -> None:
    for state in positions[:5]:
        data = state.to_json()
        message = codecs.encode_state(data, form, observer_seat=1)
        decoded = codecs.decode_state(message)
        assert decoded.data == data
        assert decoded.game == "samara"
        assert decoded.observer_seat == 1
        assert decoded.form == ("samara" if form == "typed" else form)


def test_opaque_is_deterministic_and_compact(positions: list) -> None:
    data = positions[0].to_json()
    assert codecs.encode_opaque(data) == codecs.encode_opaque(json.loads(json.dumps(data)))
    assert len(codecs.encode_opaque(data)) < len(json.dumps(data)) / 3


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"\xff\xfe not utf-8"),
        zlib.compress(b"[1, 2, 3]"),
        zlib.compress(b'{"no_game": 1}'),
        zlib.compress(b"{truncated"),
        zlib.compress(b'{"game": "samara"}')[:-3],
    ],
)
def test_bad_opaque_is_invalid_argument(blob: bytes) -> None:
    with pytest.raises(RequestError) as info:
        codecs.decode_state(pb.GameState(opaque=blob))
    assert info.value.code.name == "INVALID_ARGUMENT"
    assert info.value.field is not None and info.value.field.startswith("state.opaque")


def test_zip_bomb_rejected() -> None:
    bomb = zlib.compress(b'{"game": "samara", "x": "' + b"a" * (codecs.MAX_STATE_JSON_BYTES * 4)
                         + b'"}', 9)
    assert len(bomb) < 100_000
    with pytest.raises(RequestError, match="expands beyond"):
        codecs.decode_state(pb.GameState(opaque=bomb))


def test_missing_state_names_the_field() -> None:
    with pytest.raises(RequestError) as info:
        codecs.decode_state(pb.GameState())
    assert info.value.field == "state"
    assert info.value.reason == "MISSING_FIELD"


def test_response_form_rules() -> None:
    assert codecs.response_form("opaque", pb.STATE_FORMAT_UNSPECIFIED, "samara") == "opaque"
    assert codecs.response_form("samara", pb.STATE_FORMAT_UNSPECIFIED, "samara") == "samara"
    assert codecs.response_form(None, pb.STATE_FORMAT_UNSPECIFIED, "samara") == "typed"
    assert codecs.response_form(None, pb.STATE_FORMAT_UNSPECIFIED, "other") == "opaque"
    assert codecs.response_form("opaque", pb.STATE_FORMAT_TYPED, "samara") == "typed"
    assert codecs.response_form("samara", pb.STATE_FORMAT_JSON, "samara") == "json"
    with pytest.raises(RequestError):
        codecs.response_form("samara", 99, "samara")


def test_a_missing_state_names_every_form_the_state_may_take() -> None:
    """Issue 38: the MISSING_FIELD words left out ``sealed``."""
    with pytest.raises(RequestError) as caught:
        codecs.check_state_given(pb.GameState(), "state")
    words = str(caught.value)
    forms = [f.name for f in pb.GameState.DESCRIPTOR.oneofs_by_name["state"].fields]
    assert "sealed" in forms and all(form in words for form in forms), words
