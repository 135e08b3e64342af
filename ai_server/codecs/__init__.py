"""Game-agnostic state codecs: ``furnace.v1.GameState`` <-> a game's JSON state.

A ``GameState`` holds one of

* a typed per-game message (``samara``, ``oh_my_goods``): a codec module per game
  turns it into the game's JSON dict and back (adding a game's typed form = adding a
  codec here);
* ``opaque``: the game's JSON, UTF-8, compressed with zlib;
* ``json``: the same JSON as text;
* ``json_object``: the same JSON as a ``google.protobuf.Struct`` (the web form: in
  the protobuf JSON mapping it *is* the game's JSON).  A Struct's numbers are
  doubles and every number of a game's JSON is an integer: integral values become
  ints, any other number is refused (``state.json_object:<path>``).

Decoding only unpacks: it yields ``(game name, JSON dict, form)``.  The game
itself validates the dict (``registry.get_game(name).state_from_json``).
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from google.protobuf import struct_pb2

from ai_server import errors
from ai_server.codecs import oh_my_goods, samara
from furnace_proto.furnace.v1 import furnace_pb2 as pb

#: Decompressed/decoded JSON larger than this is rejected (zip bombs).
MAX_STATE_JSON_BYTES = 1 << 20

#: Typed codecs by game name.  Each module has GAME, FIELD, to_json, from_json.
TYPED: dict[str, ModuleType] = {samara.GAME: samara, oh_my_goods.GAME: oh_my_goods}
_BY_FIELD: dict[str, ModuleType] = {m.FIELD: m for m in TYPED.values()}

OPAQUE = "opaque"
JSON = "json"
JSON_OBJECT = "json_object"
#: The forms holding the game's JSON document (not a typed message).
UNTYPED = (OPAQUE, JSON, JSON_OBJECT)
#: A game record (GameState.record): replayed by ai_server.records, not decoded here.
RECORD = "record"
#: Every form a GameState may hold (the ``state`` oneof, sealed included), as the .proto
#: lists them.
STATE_FORMS = tuple(f.name for f in pb.GameState.DESCRIPTOR.oneofs_by_name["state"].fields)
#: Largest integer a double (a Struct number) holds exactly.
MAX_EXACT_INT = 2**53


@dataclass(frozen=True)
class DecodedState:
    """A request's position, unpacked but not yet validated by the game."""

    game: str
    data: dict[str, Any]
    #: The ``GameState`` oneof field the request used: a typed one ("samara",
    #: "oh_my_goods"), "opaque", "json" or "json_object".
    form: str
    observer_seat: int | None


def has_typed(game: str) -> bool:
    return game in TYPED


def encode_opaque(data: dict[str, Any]) -> bytes:
    """The opaque form: canonical compact JSON, zlib-compressed (deterministic)."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), 9)


def decode_opaque(blob: bytes, field: str = "state.opaque") -> dict[str, Any]:
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(blob, MAX_STATE_JSON_BYTES)
        if inflater.unconsumed_tail:
            raise errors.invalid(
                f"opaque state expands beyond {MAX_STATE_JSON_BYTES} bytes", field,
                errors.INVALID_STATE)
        if not inflater.eof:
            raise errors.invalid("opaque state is truncated (incomplete zlib stream)", field,
                                 errors.INVALID_STATE)
    except zlib.error as exc:
        raise errors.invalid(f"opaque state is not zlib data: {exc}", field,
                             errors.INVALID_STATE) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.invalid("opaque state is not UTF-8 JSON", field,
                             errors.INVALID_STATE) from None
    return _parse_json(text, field)


def _parse_json(text: str, field: str) -> dict[str, Any]:
    if len(text) > MAX_STATE_JSON_BYTES:
        raise errors.invalid(f"state JSON is longer than {MAX_STATE_JSON_BYTES} characters",
                             field, errors.INVALID_STATE)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise errors.invalid(f"state is not valid JSON: {exc}", field,
                             errors.INVALID_STATE) from None
    if not isinstance(data, dict):
        raise errors.invalid("state JSON must be an object", field, errors.INVALID_STATE)
    if not isinstance(data.get("game"), str) or not data["game"]:
        raise errors.invalid("state JSON needs a string field 'game' naming the game",
                             state_field(field, "", "game"), errors.INVALID_STATE)
    return data


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _from_value(value: struct_pb2.Value, field: str, path: str) -> Any:
    """One Struct ``Value`` as plain JSON data (integral numbers as ints)."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number) or not number.is_integer():
            raise errors.invalid(
                f"{path or 'the state'}: every number of a game's JSON state is an integer, "
                f"got {number!r}", state_field(field, JSON_OBJECT, path), errors.INVALID_STATE)
        if abs(number) > MAX_EXACT_INT:
            raise errors.invalid(
                f"{path}: {number:.0f} is too large for an exact integer",
                state_field(field, JSON_OBJECT, path), errors.INVALID_STATE)
        return int(number)
    if kind == "struct_value":
        return _from_struct(value.struct_value, field, path)
    if kind == "list_value":
        return [_from_value(item, field, _path(path, i))
                for i, item in enumerate(value.list_value.values)]
    return None  # null_value, or no kind at all (JSON null)


def _from_struct(struct: struct_pb2.Struct, field: str, path: str = "") -> dict[str, Any]:
    # Keys sorted: the same document gives the same dict (map order is not kept on the wire).
    return {key: _from_value(struct.fields[key], field, _path(path, key))
            for key in sorted(struct.fields)}


def decode_json_object(struct: struct_pb2.Struct, field: str = "state.json_object"
                       ) -> dict[str, Any]:
    """The game's JSON held by a ``json_object`` Struct; faults name ``field:<path>``.

    Its size, nesting and entry count passed the request checks (ai_server/wire.py)
    before it gets here, like every other form.

    >>> s = struct_pb2.Struct()
    >>> s.update({"game": "samara", "num_players": 2.0, "month": [8.0]})
    >>> decode_json_object(s)
    {'game': 'samara', 'month': [8], 'num_players': 2}
    >>> s.update({"foremen": [{"tools": {"saw": 0.5}}]})
    >>> decode_json_object(s)
    Traceback (most recent call last):
    ...
    ai_server.errors.RequestError: foremen[0].tools.saw: every number of a game's JSON state is an integer, got 0.5
    """
    data = _from_struct(struct, field)
    if not isinstance(data.get("game"), str) or not data["game"]:
        raise errors.invalid("state JSON needs a string field 'game' naming the game",
                             state_field(field, "", "game"), errors.INVALID_STATE)
    return data


def encode_json_object(data: dict[str, Any]) -> struct_pb2.Struct:
    """The game's JSON ``data`` as a Struct (its integers become integral doubles)."""
    struct = struct_pb2.Struct()
    struct.update(data)
    return struct


def state_field(where: str, form: str, path: str | None) -> str:
    """The BadRequest field of a fault at ``path`` (a path in the game's JSON state,
    ``foremen[0].tools.saw``; None: the state as a whole) of a state given as the
    ``GameState`` field ``where`` (``state.samara``, ``state.json``, ``state.opaque``)
    of the ``form`` it holds.

    A typed form continues the request's field path with the typed message's
    fields: ``state.samara.foremen[0].tools.saw``.  The ``json``, ``json_object`` and
    ``opaque`` forms are one field holding a whole JSON document: the path inside it
    follows a colon, ``state.json:players[1].hand[0]``,
    ``state.json_object:foremen[0].tools.saw``, ``state.opaque:foremen[0].tools.saw``
    (docs/api.md, "Errors").

    >>> state_field("state.samara", "samara", "foremen[0].tools.glass-a")
    'state.samara.foremen[0].tools.glass_a'
    >>> state_field("state.json", "json", "players[1].goods[2][0]")
    'state.json:players[1].goods[2][0]'
    >>> state_field("state.opaque", "opaque", None)
    'state.opaque'
    """
    if not path:
        return where
    codec = _BY_FIELD.get(form)
    if codec is None:
        return f"{where}:{path}"
    return f"{where}.{codec.typed_path(path)}"


def missing_state(field: str = "state") -> errors.RequestError:
    """The refusal of a request without a position in ``field``."""
    return errors.invalid(f"{field} is required: set one of {', '.join(STATE_FORMS)}",
                          field, errors.MISSING_FIELD)


def check_state_given(message: pb.GameState, field: str = "state",
                      present: bool = True) -> None:
    """Raise :func:`missing_state` unless ``message`` holds a position (of any form):
    a check that needs no game code, run before a call waits for a worker."""
    if not present or message.WhichOneof("state") is None:
        raise missing_state(field)


def decode_state(message: pb.GameState, field: str = "state",
                 present: bool = True) -> DecodedState:
    """Unpack a request's ``GameState``; errors name ``field`` and the form used."""
    form = message.WhichOneof("state") if present else None
    if form is None:
        raise missing_state(field)
    observer = message.observer_seat if message.HasField("observer_seat") else None
    if form == OPAQUE:
        data = decode_opaque(message.opaque, f"{field}.opaque")
    elif form == JSON:
        data = _parse_json(message.json, f"{field}.json")
    elif form == JSON_OBJECT:
        data = decode_json_object(message.json_object, f"{field}.json_object")
    else:
        codec = _BY_FIELD.get(form)
        if codec is None:
            raise errors.invalid(f"{field}.{form} is not a form this server reads",
                                 f"{field}.{form}", errors.INVALID_STATE)
        try:
            data = codec.to_json(getattr(message, form))
        except (KeyError, ValueError, TypeError) as exc:  # pragma: no cover - defensive
            raise errors.invalid(f"cannot read {form} state: {exc}", f"{field}.{form}",
                                 errors.INVALID_STATE) from None
    return DecodedState(game=data["game"], data=data, form=form, observer_seat=observer)


def encode_state(data: dict[str, Any], form: str, observer_seat: int | None = None
                 ) -> pb.GameState:
    """A ``GameState`` of the game's JSON ``data`` in ``form`` ("typed" picks the game's field)."""
    message = pb.GameState()
    game = str(data.get("game", ""))
    if form in ("typed", *_BY_FIELD):
        codec = TYPED.get(game)
        if codec is None:
            form = OPAQUE
        else:
            getattr(message, codec.FIELD).CopyFrom(codec.from_json(data))
    if form == OPAQUE:
        message.opaque = encode_opaque(data)
    elif form == JSON:
        message.json = json.dumps(data, separators=(",", ":"), sort_keys=True)
    elif form == JSON_OBJECT:
        message.json_object.CopyFrom(encode_json_object(data))
    if observer_seat is not None:
        message.observer_seat = observer_seat
    return message


def response_form(request_form: str | None, requested: int, game: str) -> str:
    """The form of an answered state: the requested StateFormat, else the request's form."""
    if requested == pb.STATE_FORMAT_TYPED:
        if not has_typed(game):
            # Answering another form instead would hand the client what it cannot read.
            raise errors.invalid(
                f"{game} has no typed state message: ask STATE_FORMAT_JSON_OBJECT, "
                f"STATE_FORMAT_JSON or STATE_FORMAT_OPAQUE (GameInfo.state_formats)",
                "state_format", errors.UNSUPPORTED_STATE_FORMAT)
        return "typed"
    if requested == pb.STATE_FORMAT_OPAQUE:
        return OPAQUE
    if requested == pb.STATE_FORMAT_JSON:
        return JSON
    if requested == pb.STATE_FORMAT_JSON_OBJECT:
        return JSON_OBJECT
    if requested == pb.STATE_FORMAT_RECORD:
        return RECORD  # the caller builds it: a record needs the moves (ai_server.records)
    if requested != pb.STATE_FORMAT_UNSPECIFIED:
        raise errors.invalid(f"unknown state_format {requested}", "state_format",
                             errors.UNSUPPORTED_STATE_FORMAT)
    if request_form is None:
        return "typed" if has_typed(game) else OPAQUE
    return request_form

