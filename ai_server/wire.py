"""Requests decoded on the server's terms: size first, parse off the loop, then counts.

gRPC's generated registration (``add_FurnaceServiceServicer_to_server``) parses a
request before any of our code runs: bytes that do not parse end the call with
UNKNOWN and a logged traceback, and a message of a few MiB holding millions of
empty list entries parses in a fraction of a second but then costs seconds and
gigabytes when the codecs turn it into Python objects on the event loop.  Here
the FurnaceService methods are registered with handlers that receive the raw
request bytes instead (no deserializer), and each request goes through

1. a size check against the method's limit (:class:`WireLimits`), before any
   parsing: INVALID_ARGUMENT, reason ``REQUEST_TOO_LARGE`` (as Google's APIs answer
   an oversized payload: retrying cannot help, unlike RESOURCE_EXHAUSTED; only a
   message over the transport's own limit gets gRPC's RESOURCE_EXHAUSTED);
2. parsing, in a small shared thread pool for anything but tiny requests (never a
   long stretch on the event loop): bytes that do not parse are INVALID_ARGUMENT,
   field ``request``, reason ``MALFORMED_REQUEST``, with a short message;
3. a walk of the parsed message that stops as soon as a limit is passed: list and
   map entries summed over the whole request, message nesting
   (``REQUEST_TOO_COMPLEX``) and the length of string fields
   (``FIELD_TOO_LONG``), all INVALID_ARGUMENT naming the field;

and only then reaches the servicer, which receives the message as before.  The HTTP
door (:mod:`ai_server.http_door`) runs these same handlers, with the JSON form of a
request marked as a :class:`JsonBody` (parsed by ``json_format``, twice the size limit).  An
exception that escapes the servicer (a bug: its decorators map every expected
failure to a status) is logged once, without the request, and answered INTERNAL,
never UNKNOWN.

Real positions are far inside the limits: the largest typed states of seeded
random games hold about 200 list entries, nest 4 deep, have strings of at most
20 characters and take under 3 KB.

>>> limits = WireLimits()
>>> check_message(pb.ListGamesRequest(), limits)
>>> check_message(pb.NewGameRequest(game="x" * 5000), limits)
Traceback (most recent call last):
...
ai_server.errors.RequestError: game is 5000 characters long; at most 1024 are accepted
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from ai_server import codecs, errors
from ai_server.errors import RequestError, invalid
from ai_server.observe import note
from furnace_proto.furnace.v1 import furnace_pb2 as pb

log = logging.getLogger(__name__)

#: The service registered here.
SERVICE = pb.DESCRIPTOR.services_by_name["FurnaceService"]

# ErrorInfo reasons of requests refused here.
#: The bytes are not a protobuf encoding of the method's request message.
MALFORMED_REQUEST = "MALFORMED_REQUEST"
#: A JSON request names a field its message does not have.
UNKNOWN_FIELD = "UNKNOWN_FIELD"
#: A JSON request names one field twice (the same key twice, or under both of its
#: spellings, ``numPlayers`` and ``num_players``).
DUPLICATE_FIELD = "DUPLICATE_FIELD"
#: The request is larger than the method accepts.
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
#: Too many list/map entries in all, or messages nested too deep.
REQUEST_TOO_COMPLEX = "REQUEST_TOO_COMPLEX"
#: A string field is longer than any real value.
FIELD_TOO_LONG = "FIELD_TOO_LONG"

#: Threads that parse requests (shared by every server of the process).
DECODE_THREADS = 2

#: String fields bounded by the request size instead of ``max_string``.
_LONG_STRINGS = frozenset({"furnace.v1.GameState.json"})


@dataclass(frozen=True)
class WireLimits:
    """What a request may be before the service looks at it."""

    #: Bytes of a request without a position (ListGames, NewGame).
    max_plain_bytes: int = 64 * 1024
    #: Bytes of a request with a position: the largest state JSON plus room.
    max_state_bytes: int = codecs.MAX_STATE_JSON_BYTES + 64 * 1024
    #: Entries of repeated fields and maps, summed over the whole request.
    max_elements: int = 5_000
    #: Messages nested below the request (request.state.samara.foremen.pawns is 4).
    max_depth: int = 16
    #: Characters of one string (``GameState.json`` excepted: the size bounds it).
    max_string: int = 1024
    #: Requests up to this many bytes are parsed on the event loop (cheaper than a
    #: thread hop, and too small to hold it up).
    inline_bytes: int = 4096

    def max_bytes(self, method: MethodDescriptor) -> int:
        """The size limit of ``method``'s requests."""
        has_state = "state" in method.input_type.fields_by_name
        return self.max_state_bytes if has_state else self.max_plain_bytes


# -- checks ----------------------------------------------------------------------------
def _too_complex(message: str, field: str) -> RequestError:
    return invalid(message, field, REQUEST_TOO_COMPLEX)


class _Walk:
    """One pass over a parsed request; raises at the first limit passed."""

    def __init__(self, limits: WireLimits) -> None:
        self.limits = limits
        self.left = limits.max_elements

    def string(self, value: str, where: str) -> None:
        if len(value) > self.limits.max_string:
            raise invalid(f"{where} is {len(value)} characters long; at most "
                          f"{self.limits.max_string} are accepted", where, FIELD_TOO_LONG)

    def count(self, entries: int, where: str) -> None:
        self.left -= entries
        if self.left < 0:
            raise _too_complex(
                f"the request holds more than {self.limits.max_elements} list and map entries "
                f"in all ({where} has {entries}); real positions hold a few hundred", where)

    def message(self, message: Message, where: str, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise _too_complex(f"the request nests messages more than {self.limits.max_depth} "
                               f"deep (at {where})", where)
        for field, value in message.ListFields():
            path = f"{where}.{field.name}" if where else field.name
            if field.is_repeated:
                self.count(len(value), path)
                entry = field.message_type
                if entry is not None and entry.GetOptions().map_entry:
                    self.map(value, entry, path, depth)
                elif field.type == FieldDescriptor.TYPE_MESSAGE:
                    for item in value:
                        self.message(item, path, depth + 1)
                elif field.type == FieldDescriptor.TYPE_STRING:
                    for item in value:
                        self.string(item, path)
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                self.message(value, path, depth + 1)
            elif field.type == FieldDescriptor.TYPE_STRING \
                    and field.full_name not in _LONG_STRINGS:
                self.string(value, path)

    def map(self, value: Any, entry: Descriptor, path: str, depth: int) -> None:
        value_field = entry.fields_by_name["value"]
        for key, item in value.items():
            if isinstance(key, str):
                self.string(key, f"{path} key")
            where = f"{path}[{errors.clip(str(key))}]"
            if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                self.message(item, where, depth + 1)
            elif isinstance(item, str):
                self.string(item, where)


def check_message(message: Message, limits: WireLimits) -> None:
    """Raise a :class:`RequestError` if ``message`` passes one of ``limits``' counts.

    The walk stops at the first limit passed, so its cost is bounded by the
    limits, not by the message.
    """
    _Walk(limits).message(message, "", 0)


class JsonBody(bytes):
    """A request body in the protobuf JSON form (the HTTP door's JSON codec), not binary."""


#: A JSON request may be this many times the bytes of its method's binary limit (JSON
#: spells field names and escapes the ``json`` state string; the walk bounds the rest).
JSON_SIZE_FACTOR = 2


def parse(raw: bytes, request_type: type[Message], limits: WireLimits) -> Message:
    """``raw`` parsed as ``request_type`` and checked (:class:`RequestError` if not fit).

    ``raw`` is the protobuf binary encoding, or the JSON form when it is a
    :class:`JsonBody`.  A JSON field the message does not have is refused
    (:func:`unknown_json_field`): dropped, a misspelt or misplaced field would
    silently change the answer (an ``observerSeat`` beside ``state`` instead of inside
    it gets the host's view).  Binary parsing keeps unknown fields unread, as
    protobuf compatibility requires of old servers meeting new clients.
    """
    name = request_type.DESCRIPTOR.full_name
    if isinstance(raw, JsonBody):
        message = request_type()
        depth = limits.max_depth + 8
        try:
            data = json.loads(raw.decode("utf-8"), object_pairs_hook=_JsonObject)
        except Exception as exc:  # noqa: BLE001 - whatever the parser says, the body is at fault
            raise invalid(f"the request is not a valid {name} in JSON ({len(raw)} bytes): "
                          f"{_json_words(exc)}", "request", MALFORMED_REQUEST) from None
        check_json_names(data, request_type.DESCRIPTOR, depth)
        try:
            json_format.ParseDict(data, message, max_recursion_depth=depth)
        except Exception as exc:  # noqa: BLE001 - whatever the parser says, the body is at fault
            words = str(exc) if isinstance(exc, json_format.ParseError) else \
                f"{type(exc).__name__}: {exc}"
            unknown = unknown_json_field(words)
            if unknown is not None:
                raise unknown from None
            raise invalid(f"the request is not a valid {name} in JSON ({len(raw)} bytes): "
                          f"{words}", "request", MALFORMED_REQUEST) from None
    else:
        try:
            message = request_type.FromString(raw)
        except Exception:  # noqa: BLE001 - whatever the parser says, the bytes are at fault
            raise invalid(f"the request is not a valid {name} message (protobuf binary "
                          f"encoding, {len(raw)} bytes)", "request", MALFORMED_REQUEST) from None
    check_message(message, limits)
    return message


def _json_words(exc: Exception) -> str:
    """What ``json_format.Parse`` says of a body ``json.loads`` refuses."""
    return f"Failed to load JSON: {exc}."


class _JsonObject(dict):  # type: ignore[type-arg]
    """A JSON object as :func:`json.loads` builds it (the last value of a key given
    twice), with the keys given more than once (``json_format`` would refuse a key
    given twice with words naming no path)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated = [key for key, _ in pairs] if len(self) < len(pairs) else []


#: Messages whose JSON form is not an object of their fields: their keys are data
#: (a ``Struct``: a game's JSON state) or they have a form of their own.
_FREE_FORM = frozenset({"google.protobuf.Struct", "google.protobuf.Value",
                        "google.protobuf.ListValue", "google.protobuf.Any",
                        "google.protobuf.Timestamp", "google.protobuf.Duration",
                        "google.protobuf.FieldMask"})


def _given_twice(where: str, spellings: list[str], what: str) -> RequestError:
    shown = " and ".join(repr(errors.clip(s)) for s in dict.fromkeys(spellings))
    twice = f"under both of its names ({shown})" if len(set(spellings)) > 1 else \
        f"twice ({shown})"
    return invalid(f"{what} {where!r} is given {twice}; a JSON request gives each field "
                   f"once (protobuf's JSON would keep one silently)", where, DUPLICATE_FIELD)


def check_json_names(data: Any, descriptor: Descriptor, depth: int, where: str = "") -> None:
    """Refuse a JSON request that gives one field twice, at any level of the message:
    the same key twice, or the field under its JSON name and its ``.proto`` name
    (``numPlayers`` and ``num_players``), which ``json_format`` reads as the later one.
    The refusal names the field by its ``.proto`` path (``state.observer_seat``).

    Keys of maps and of ``Struct`` objects (a game's JSON state) are data: given twice,
    they are refused too, by their path.  Nesting past ``depth`` is left to the parser,
    which refuses it.

    >>> from ai_server.errors import RequestError
    >>> body = json.loads('{"budget": {"timeLimitMs": 1, "time_limit_ms": 2}}',
    ...                   object_pairs_hook=_JsonObject)
    >>> try:
    ...     check_json_names(body, pb.BestMoveRequest.DESCRIPTOR, 24)
    ... except RequestError as error:
    ...     error.field, error.reason
    ('budget.time_limit_ms', 'DUPLICATE_FIELD')
    """
    if depth < 0:
        return
    if isinstance(data, list):
        for item in data:
            check_json_names(item, descriptor, depth - 1, where)
        return
    if not isinstance(data, _JsonObject):
        return
    if descriptor.full_name in _FREE_FORM:
        _check_data_keys(data, depth, where)
        return
    named: dict[str, list[str]] = {}
    for key in data.repeated or data:
        field = _field_named(descriptor, key)
        if field is not None:
            named.setdefault(field.name, []).append(key)
    for name, spellings in named.items():
        if len(spellings) > 1:
            raise _given_twice(f"{where}.{name}" if where else name, spellings, "field")
    for key, value in data.items():
        field = _field_named(descriptor, key)
        if field is None or field.type != FieldDescriptor.TYPE_MESSAGE:
            continue  # unknown fields are the parser's to refuse
        path = f"{where}.{field.name}" if where else field.name
        entry = field.message_type
        if entry.GetOptions().map_entry:
            if isinstance(value, _JsonObject):
                if value.repeated:
                    _check_repeated_keys(value, path)
                inner = entry.fields_by_name["value"].message_type
                if inner is not None:
                    for item_key, item in value.items():
                        check_json_names(item, inner, depth - 1,
                                         f"{path}[{errors.clip(str(item_key))}]")
        elif field.is_repeated and isinstance(value, list):
            for index, item in enumerate(value):
                check_json_names(item, entry, depth - 1, f"{path}[{index}]")
        else:
            check_json_names(value, entry, depth - 1, path)


_JSON_NAMES: dict[str, dict[str, FieldDescriptor]] = {}


def _field_named(descriptor: Descriptor, key: str) -> FieldDescriptor | None:
    """The field a JSON key names: by its JSON name, else by its ``.proto`` name (as
    ``json_format`` reads them)."""
    names = _JSON_NAMES.get(descriptor.full_name)
    if names is None:
        names = {**descriptor.fields_by_name, **{f.json_name: f for f in descriptor.fields}}
        _JSON_NAMES[descriptor.full_name] = names
    return names.get(key)


def _check_repeated_keys(data: _JsonObject, where: str) -> None:
    seen: set[str] = set()
    for key in data.repeated:
        if key in seen:
            path = f"{where}.{key}" if where else key
            raise _given_twice(errors.clip(path), [key], "key")
        seen.add(key)


def _check_data_keys(data: Any, depth: int, where: str) -> None:
    """Keys given twice anywhere in free-form JSON data (a ``Struct``)."""
    if depth < 0:
        return
    if isinstance(data, list):
        for index, item in enumerate(data):
            _check_data_keys(item, depth - 1, f"{where}[{index}]")
    elif isinstance(data, _JsonObject):
        if data.repeated:
            _check_repeated_keys(data, where)
        for key, value in data.items():
            if isinstance(value, (list, dict)):
                _check_data_keys(value, depth - 1, f"{where}.{key}" if where else key)


_UNKNOWN_FIELD = re.compile(
    r'Message type "(?P<type>[\w.]+)" has no field named "(?P<name>[^"]*)" '
    r'at "(?P<at>[^"]*)"\.?\s*Available Fields\(except extensions\): "(?P<known>[^"]*)"')


def unknown_json_field(parse_error: str) -> RequestError | None:
    """The refusal of a JSON request with a field its message lacks, naming it by its
    path (``state.observerSet``), or None when ``parse_error`` says something else.

    >>> try:
    ...     json_format.Parse('{"state": {"observerSet": 1}}', pb.BestMoveRequest())
    ... except json_format.ParseError as exc:
    ...     error = unknown_json_field(str(exc))
    >>> error.field, error.reason
    ('state.observerSet', 'UNKNOWN_FIELD')
    """
    found = _UNKNOWN_FIELD.search(parse_error)
    if found is None:
        return None
    name = found["name"]
    parent = found["at"].partition(".")[2]
    field = f"{parent}.{name}" if parent else name
    known = [k.strip(" '") for k in found["known"].strip("[]").split(",") if k.strip(" '")]
    message_type = found["type"].rpartition(".")[2]
    hint = ""
    if name in ("observerSeat", "observer_seat") and not parent:
        hint = ": observerSeat belongs inside the position (state.observerSeat)"
    elif known:
        hint = f" (its fields: {', '.join(known)})"
    return invalid(f"unknown field {errors.clip(name)!r} in {message_type}{hint}; a JSON "
                   f"request may only use the fields of its message", field, UNKNOWN_FIELD)


# -- the handlers ----------------------------------------------------------------------
_executor_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _decode_executor() -> ThreadPoolExecutor:
    """The process's decode threads (idle threads cost nothing; exit joins them)."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=DECODE_THREADS,
                                           thread_name_prefix="furnace-decode")
        return _executor


async def _abort(context: grpc.aio.ServicerContext, error: RequestError) -> None:
    note(reason=error.reason)
    await errors.abort_call(context, errors.to_grpc_status(error))


def _internal() -> RequestError:
    return RequestError(grpc.StatusCode.INTERNAL,
                        "internal server error; see the server log", reason=errors.INTERNAL)


class Decoder:
    """Turns a method's raw request bytes into its checked message (or ends the call)."""

    def __init__(self, limits: WireLimits | None = None) -> None:
        self.limits = limits or WireLimits()
        self._slots = asyncio.Semaphore(DECODE_THREADS)

    def _parse(self, raw: bytes, request_type: type[Message]) -> Message | RequestError:
        try:
            return parse(raw, request_type, self.limits)
        except RequestError as error:
            return error

    async def decode(self, raw: bytes, method: MethodDescriptor, request_type: type[Message],
                     context: grpc.aio.ServicerContext) -> Message:
        """The request message, or the call ended with the status of what is wrong."""
        if not isinstance(raw, bytes):  # pragma: no cover - gRPC always hands bytes
            raw = bytes(raw)
        limit = self.limits.max_bytes(method)
        if isinstance(raw, JsonBody):
            limit *= JSON_SIZE_FACTOR
        if len(raw) > limit:
            await _abort(context, invalid(
                f"the request is {len(raw)} bytes; {method.name} accepts at most {limit}",
                "request", REQUEST_TOO_LARGE, limit_bytes=str(limit)))
        if len(raw) <= self.limits.inline_bytes:
            result = self._parse(raw, request_type)
        else:
            async with self._slots:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(_decode_executor(), self._parse, raw,
                                                    request_type)
        if isinstance(result, RequestError):
            await _abort(context, result)
            raise AssertionError("unreachable: abort raises")  # pragma: no cover
        return result


Unary = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]
Streaming = Callable[[Any, grpc.aio.ServicerContext], AsyncIterator[Any]]


def _unary(decoder: Decoder, method: MethodDescriptor, request_type: type[Message],
           implementation: Unary) -> Unary:
    async def behavior(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
        request = await decoder.decode(raw, method, request_type, context)
        try:
            return await implementation(request, context)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception:  # noqa: BLE001 - a bug: log it once, answer INTERNAL
            log.exception("unexpected error in %s", method.name)
            await _abort(context, _internal())

    return behavior


def _streaming(decoder: Decoder, method: MethodDescriptor, request_type: type[Message],
               implementation: Streaming) -> Streaming:
    async def behavior(raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        request = await decoder.decode(raw, method, request_type, context)
        try:
            async for item in implementation(request, context):
                yield item
        except (asyncio.CancelledError, grpc.aio.AbortError, GeneratorExit):
            raise
        except Exception:  # noqa: BLE001
            log.exception("unexpected error in %s", method.name)
            await _abort(context, _internal())

    return behavior


def method_handlers(servicer: Any, decoder: Decoder) -> dict[str, grpc.RpcMethodHandler]:
    """Handlers of every FurnaceService method: raw bytes in, ``servicer``'s method called."""
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in SERVICE.methods:
        if method.client_streaming:  # pragma: no cover - the service has none
            raise NotImplementedError(f"{method.name}: client streaming is not decoded here")
        request_type = getattr(pb, method.input_type.name)
        response_type = getattr(pb, method.output_type.name)
        implementation = getattr(servicer, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _streaming(decoder, method, request_type, implementation),
                request_deserializer=None,
                response_serializer=response_type.SerializeToString)
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(decoder, method, request_type, implementation),
                request_deserializer=None,
                response_serializer=response_type.SerializeToString)
    return handlers


def add_service(servicer: Any, server: grpc.aio.Server,
                limits: WireLimits | None = None) -> Decoder:
    """Register ``servicer`` as FurnaceService on ``server`` with decoding on our terms.

    Replaces ``add_FurnaceServiceServicer_to_server``; reflection is unaffected
    (it describes the service from the descriptors).
    """
    decoder = Decoder(limits)
    handlers = method_handlers(servicer, decoder)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))
    server.add_registered_method_handlers(SERVICE.full_name, handlers)
    return decoder
