"""The HTTP door: FurnaceService over the Connect protocol and gRPC-Web, for curl and browsers.

``furnace serve --http-port 8080`` (``create_server(http_port=...)``) serves, next
to the native gRPC port, an HTTP/1.1 port (uvicorn) where the same service answers

* the **Connect protocol** (connectrpc): ``POST /furnace.v1.FurnaceService/<Method>``
  with ``Content-Type: application/json`` (the protobuf JSON form: camelCase
  names, enums by name, int64 as strings, defaults omitted) or
  ``application/proto``; Analyze streams as ``application/connect+json`` or
  ``+proto``.  Errors are Connect's error JSON, ``{"code": "invalid_argument",
  "message": ..., "details": [{"type": "google.rpc.BadRequest", "value": <base64>,
  "debug": {...}}, ...]}``, with the HTTP status Connect assigns to the code;
* **gRPC-Web** (``application/grpc-web+proto`` or ``+json``): status, message and
  ``grpc-status-details-bin`` (the same ``google.rpc.Status``) in the trailer frame.

There is one implementation of every RPC: each HTTP call runs the very chain a
native call runs, the servicer's method behind :mod:`ai_server.wire`'s handler
(size limit, decode off the loop, entry/depth/string limits), behind the token
check and the observer (metrics, access log).  :class:`HttpCallContext` stands in
for ``grpc.aio.ServicerContext``: ``peer()`` (per-client quotas count a host's
calls on both doors together), ``time_remaining()`` (``Connect-Timeout-Ms`` or
``grpc-timeout``), ``abort()``; an aborted call becomes a ``ConnectError`` with the
same code, message and details (BadRequest, ErrorInfo, RetryInfo).

* TLS and mutual TLS are the native port's (:meth:`SecurityConfig.ssl_context`);
* tokens: ``Authorization: Bearer <token>``, refused with the same UNAUTHENTICATED;
* at most ``max_concurrent_rpcs`` HTTP calls run at once (RESOURCE_EXHAUSTED past
  it, as the native port counts its own);
* a body larger than ``max_message_bytes`` is RESOURCE_EXHAUSTED (the transport's
  limit, as on the native port); JSON bodies get twice the binary size limits of
  :class:`ai_server.wire.WireLimits` (JSON spells out names and escapes strings);
* ``GET /`` serves the web table (``ai_server/web/static``) when it is built in;
* ``GET /schemas/<game>.json`` serves the JSON Schema of the game's JSON state
  (``application/schema+json``), the text of ``GameInfo.state_schema`` in the
  ListGames answer built at startup (off the event loop); an unknown game is a 404;
* CORS for the origins of ``SecurityConfig.cors_origins`` (Starlette's middleware):
  preflights allow the headers Connect, gRPC-Web and tokens need, and answers expose
  gRPC-Web's status headers; without origins, no CORS headers at all.

Refused before any call (docs/api.md, "HTTP and the browser"): native gRPC
(``application/grpc``: it needs HTTP/2) and other content types with 415 and
``Accept-Post``; an enveloped body (gRPC-Web, Connect streams) with no message or
several, or a message flagged compressed without an encoding, as INVALID_ARGUMENT
(:class:`OneMessage`).  A client can repeat a bad request at will, so such refusals are
logged one line a minute at most (:class:`ai_server.logs.Throttle`), uvicorn's own warnings too.
Slow heads and bodies, answers nobody reads and connections past a cap are cut
(:func:`guarded_protocol`; docs/operations.md, "Connections: limits and timeouts").

Health and reflection stay on the native port.
"""

from __future__ import annotations

import asyncio
import json
import logging
import mimetypes
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pb2, json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from ai_server import errors, wire
from ai_server.config import ServerConfig
from ai_server.errors import RequestError
from ai_server.logs import Throttle, held_note
from ai_server.observe import ObservingInterceptor, ServerMetrics, method_label
from ai_server.security import SecurityConfig
from furnace_proto.furnace.v1 import furnace_pb2 as pb

log = logging.getLogger(__name__)

#: ErrorInfo reason of a call refused because ``max_concurrent_rpcs`` HTTP calls run.
TOO_MANY_CALLS = "TOO_MANY_CALLS"
#: Where the web table's files live (``index.html`` and its bundle).
STATIC_PACKAGE = "ai_server.web"
STATIC_DIR = "static"
#: Where the JSON Schemas of the games' states are served: ``/schemas/<game>.json``.
SCHEMA_PREFIX = "/schemas/"
SCHEMA_TYPE = "application/schema+json"

_STATUS_DETAILS_KEY = "grpc-status-details-bin"
#: The content types of the door's protocols, per kind of method (``Accept-Post`` of a 415).
UNARY_TYPES = "application/json, application/proto, application/grpc-web+proto, " \
    "application/grpc-web+json"
STREAM_TYPES = "application/connect+json, application/connect+proto, " \
    "application/grpc-web+proto, application/grpc-web+json"
#: A unary Connect call's media types, refused on a streaming method.
UNARY_MEDIA = ("application/json", "application/proto")
NATIVE_GRPC_REFUSAL = (b"This HTTP/1.1 port speaks the Connect protocol and gRPC-Web (see "
                       b"Accept-Post); native gRPC needs HTTP/2: call the server's gRPC port.\n")


class _ClientNoise(logging.Filter):
    """uvicorn's warnings about malformed requests, one line a :data:`ai_server.logs.LOG_INTERVAL` at
    most: every bad request (an HTTP/2 preface sent by a gRPC client to the HTTP port, a
    header past the size limit, an ``Upgrade`` header) would log one, or two."""

    THROTTLED = ("Invalid HTTP request received.", "Unsupported upgrade request.")
    #: Advice to install a WebSocket library, which the door does not use.
    DROPPED = ("No supported WebSocket library detected",)

    def __init__(self) -> None:
        super().__init__()
        self._throttles = {message: Throttle() for message in self.THROTTLED}

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith(self.DROPPED):
            return False
        throttle = self._throttles.get(message)
        if throttle is None:
            return True
        held = throttle.admit()
        if held is None:
            return False
        record.msg = message + held_note(held)
        return True


_CLIENT_NOISE = _ClientNoise()


def quiet_client_noise() -> None:
    """Throttle uvicorn's per-request warnings about malformed requests (idempotent)."""
    logger = logging.getLogger("uvicorn.error")
    if _CLIENT_NOISE not in logger.filters:
        logger.addFilter(_CLIENT_NOISE)


# -- codecs: the body is left for ai_server.wire to parse on the server's terms -------------
class _RawCodec:
    """A connectrpc codec that hands the request bytes on unparsed and encodes responses
    (``google.protobuf`` messages) in the binary or JSON form."""

    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name

    def encode(self, message: Message) -> bytes:
        if self._name == "json":
            return json.dumps(integral_numbers(json_format.MessageToDict(message)),
                              separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: Any) -> bytes:
        return wire.JsonBody(data) if self._name == "json" else bytes(data)


#: Largest integer a double holds exactly.
_MAX_EXACT = 2**53


def integral_numbers(value: Any) -> Any:
    """``value`` (protobuf JSON data) with every integral float written as an integer.

    A ``Struct`` (a state's ``jsonObject``, a ``view``) carries numbers as doubles, and
    the JSON printer writes them ``2.0``: a game's JSON has integers only, and
    ``range(state["num_players"])`` or a typed decoder in Go, Rust or Java rejects
    ``2.0``.  A double field (``scores``) reads ``43`` as well as ``43.0``.

    >>> integral_numbers({"jsonObject": {"num_players": 2.0, "p": [0.5, -1.0]}})
    {'jsonObject': {'num_players': 2, 'p': [0.5, -1]}}
    """
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) <= _MAX_EXACT else value
    if isinstance(value, dict):
        return {key: integral_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral_numbers(item) for item in value]
    return value


CODECS = (_RawCodec("proto"), _RawCodec("json"))


# -- errors ----------------------------------------------------------------------------
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _debug_registry() -> Any:
    """A protobuf-py registry of google.rpc's error details, so that Connect's error JSON
    shows each detail decoded under ``debug`` too (None if it cannot be built)."""
    try:
        from protobuf._file_registry import create_file_registry
        from protobuf.wkt.google.protobuf import descriptor_pb, duration_pb

        source = descriptor_pb2.FileDescriptorProto()
        error_details_pb2.DESCRIPTOR.CopyToProto(source)
        messages = list(source.message_type)
        while messages:  # JSON names, as protoc would have filled them in
            message = messages.pop()
            messages.extend(message.nested_type)
            for field in message.field:
                field.json_name = field.json_name or _camel(field.name)
        proto = descriptor_pb.FileDescriptorProto.from_binary(source.SerializeToString())
        files = {"google/protobuf/duration.proto": duration_pb.desc()}
        return create_file_registry(proto, files.get)
    except Exception as exc:  # noqa: BLE001 - debug is a courtesy; details stay in base64
        log.debug("no decoded error details in Connect errors: %s", exc)
        return None


_DEBUG_REGISTRY = _debug_registry()


def _detail(packed: Any) -> ErrorDetail:
    from protobuf.wkt import Any as PbAny

    wrapped = PbAny(type_url=packed.type_url, value=packed.value)
    if _DEBUG_REGISTRY is not None:
        desc = _DEBUG_REGISTRY.message(packed.TypeName())
        if desc is not None:
            try:
                message = wrapped.unpack(desc)
            except Exception:  # noqa: BLE001
                message = None
            if message is not None:
                return ErrorDetail(message)
    return ErrorDetail(wrapped)


def connect_error(code: grpc.StatusCode, message: str,
                  trailing_metadata: Any = ()) -> ConnectError:
    """The ConnectError of a gRPC status: same code, message and details."""
    details: list[ErrorDetail] = []
    for key, value in trailing_metadata or ():
        if key == _STATUS_DETAILS_KEY:
            status = status_pb2.Status.FromString(value)
            message = status.message or message
            details = [_detail(d) for d in status.details]
    return ConnectError(Code(code.name.lower()), message, details)


class HttpAbort(grpc.aio.AbortError):
    """Raised by :meth:`HttpCallContext.abort` (a ``grpc.aio.AbortError``, so the
    servicer's and the wire's handlers let it through as they do gRPC's own)."""


class HttpCallContext:
    """What the servicer, the wire handlers and the interceptors use of a gRPC call's
    context, for a call that came through the HTTP door."""

    def __init__(self, ctx: Any, peer: str) -> None:
        self._ctx = ctx
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._trailing: Any = ()

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        remaining = self._ctx.timeout_ms
        return None if remaining is None else max(remaining / 1000, 0.0)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v in self._ctx.request_headers.allitems())

    def code(self) -> grpc.StatusCode | None:
        return self._code

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Any = ()) -> None:
        self._code, self._details, self._trailing = code, details, trailing_metadata
        raise HttpAbort(details)

    def error(self) -> ConnectError:
        return connect_error(self._code or grpc.StatusCode.UNKNOWN, self._details,
                             self._trailing)


def peer_of(client_address: str | None) -> str:
    """A gRPC-style peer of an ASGI client address (``ipv4:H:P``, ``ipv6:[H]:P``).

    >>> peer_of("127.0.0.1:5000"), peer_of("::1:5000"), peer_of(None)
    ('ipv4:127.0.0.1:5000', 'ipv6:[::1]:5000', 'unknown')
    """
    if not client_address:
        return "unknown"
    host, _, port = client_address.rpartition(":")
    if ":" in host:
        return f"ipv6:[{host.strip('[]')}]:{port}"
    return f"ipv4:{host}:{port}"


# -- request bodies ---------------------------------------------------------------------------
def _header(scope: dict[str, Any], name: bytes) -> str:
    """The first value of a request header ("" without one), as connectrpc reads it."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("utf-8", "replace")
    return ""


def _utf8_headers(scope: dict[str, Any]) -> dict[str, Any]:
    """``scope`` with header values that are not UTF-8 made so (U+FFFD for what is not):
    connectrpc decodes them as UTF-8 and would fail with a traceback (HTTP allows any
    byte from 0x80 up in a value); such a value now simply matches nothing (a 415 for a
    content type, UNAUTHENTICATED for a token...)."""
    headers = scope.get("headers", ())
    if all(value.isascii() for _, value in headers):
        return scope
    fixed = []
    for name, value in headers:
        if not value.isascii():
            value = bytes(value).decode("utf-8", "replace").encode("utf-8")
        fixed.append((name, value))
    return {**scope, "headers": fixed}


def _media(content_type: str) -> str:
    """A content type's media type, parameters left out, in lower case."""
    return content_type.split(";", 1)[0].strip().lower()


def is_native_grpc(content_type: str) -> bool:
    """Whether a content type asks for native gRPC (``application/grpc``, ``+proto``...).

    >>> [is_native_grpc(t) for t in ("application/grpc", "application/GRPC+json; x=1",
    ...                              "application/grpc-web+proto", "application/json")]
    [True, True, False, False]
    """
    media = _media(content_type)
    return media == "application/grpc" or media.startswith("application/grpc+")


def one_message_error(what: str) -> ConnectError:
    return ConnectError(Code.INVALID_ARGUMENT, f"a call of this method carries exactly one "
                        f"request message; this one carries {what}")


class OneMessage:
    """The ``receive`` of an enveloped request (gRPC-Web, a Connect stream) to a method
    that takes one message.

    It reads the whole body first (one message's size limit bounds it) and refuses, as
    INVALID_ARGUMENT, a body of no message or of several, and a message flagged
    compressed when the request names no encoding (the gRPC and Connect specs: the flag
    must then be 0). connectrpc would answer UNIMPLEMENTED and INTERNAL, codes that say
    the method or the server is at fault.  Truncated frames and unknown flags are left
    to connectrpc (INVALID_ARGUMENT too).
    """

    def __init__(self, receive: Any, encoding: str, header: str, max_bytes: int) -> None:
        self._receive = receive
        self._compressed_ok = encoding.strip().lower() not in ("", "identity")
        self._header = header
        self._max_bytes = max_bytes
        self._read = False

    async def __call__(self) -> Any:
        if self._read:  # after the body: disconnects
            return await self._receive()
        self._read = True
        body = bytearray()
        while True:
            message = await self._receive()
            if message["type"] != "http.request":
                return message
            body += message.get("body", b"")
            self._check(body)
            if not message.get("more_body", False):
                break
        if not body:
            raise one_message_error("none")
        return {"type": "http.request", "body": bytes(body), "more_body": False}

    def _check(self, body: bytearray) -> None:
        if len(body) < 5:
            return
        size = int.from_bytes(body[1:5], "big")
        if body[0] & 1 and not self._compressed_ok:
            raise ConnectError(Code.INVALID_ARGUMENT,
                               f"the request message is flagged compressed, but the request "
                               f"names no encoding ({self._header}); an uncompressed message "
                               f"must not be flagged")
        if size > self._max_bytes:
            raise ConnectError(Code.RESOURCE_EXHAUSTED,
                               f"message is larger than configured max {self._max_bytes}")
        if len(body) > 5 + size:
            raise one_message_error("more")


# -- the application ----------------------------------------------------------------------
Behavior = Callable[[Any, Any], Any]


class _FurnaceConnectApp(ConnectASGIApplication[Any]):
    @property
    def path(self) -> str:
        return f"/{wire.SERVICE.full_name}"


class HttpDoor:
    """The ASGI application of the HTTP door (Connect, gRPC-Web and the web table)."""

    def __init__(self, servicer: Any, config: ServerConfig, security: SecurityConfig,
                 metrics: ServerMetrics | None = None,
                 wire_limits: wire.WireLimits | None = None) -> None:
        self.config = config
        self.decoder = wire.Decoder(wire_limits)
        self.observer = ObservingInterceptor(metrics)
        self.tokens = security.token_interceptor()  # shared with gRPC: follows reloads
        self.in_flight = 0
        #: Whether each method's answer is a stream, by path.
        self.streaming = {f"/{wire.SERVICE.full_name}/{m.name}": m.server_streaming
                          for m in wire.SERVICE.methods}
        assert not any(m.client_streaming for m in wire.SERVICE.methods)  # see OneMessage
        self._native_grpc_log = Throttle()
        #: ``GET /schemas/<game>.json``: the schemas of the ListGames answer, as sent.
        self.schemas = state_schemas(getattr(servicer, "games", None))
        endpoints = self._endpoints(servicer)
        self.connect = _FurnaceConnectApp(
            service=servicer, endpoints=lambda _: endpoints, codecs=CODECS,
            read_max_bytes=config.max_message_bytes)

    # -- one method -------------------------------------------------------------------
    def _admitted(self, method: str, behavior: Behavior, streaming: bool) -> Behavior:
        """``behavior`` behind the token check (when tokens are configured)."""
        tokens = self.tokens
        if tokens is None:
            return behavior
        refuse = tokens._refuse(method, False)  # the native refusal, word for word

        if streaming:
            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                name = tokens.identify(context.invocation_metadata())
                if name is None:
                    await refuse(request, context)
                from ai_server.security import CLIENT

                CLIENT.set(name)
                async for item in behavior(request, context):
                    yield item

            return stream

        async def unary(request: Any, context: Any) -> Any:
            name = tokens.identify(context.invocation_metadata())
            if name is None:
                await refuse(request, context)
            from ai_server.security import CLIENT

            CLIENT.set(name)
            return await behavior(request, context)

        return unary

    def _limit(self) -> None:
        if self.in_flight >= self.config.max_concurrent_rpcs:
            raise connect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, "", errors.to_grpc_status(
                RequestError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                             f"{self.in_flight} HTTP calls are in progress, the most this "
                             f"server takes at once; retry later", reason=TOO_MANY_CALLS,
                             retry_after=1.0)).trailing_metadata)

    def _endpoints(self, servicer: Any) -> dict[str, Any]:
        handlers = wire.method_handlers(servicer, self.decoder)
        endpoints: dict[str, Any] = {}
        for method in wire.SERVICE.methods:
            full = f"/{wire.SERVICE.full_name}/{method.name}"
            handler = handlers[method.name]
            info = MethodInfo(
                name=method.name, service_name=wire.SERVICE.full_name, input=bytes,
                output=getattr(pb, method.output_type.name),
                idempotency_level=IdempotencyLevel.UNKNOWN,
                stream_type=StreamType.SERVER_STREAM if method.server_streaming
                else StreamType.UNARY)
            label = method_label(full)
            if method.server_streaming:
                inner = self._admitted(full, handler.unary_stream, True)
                endpoints[full] = Endpoint.server_stream(
                    info, self._stream_function(self.observer._stream(label, inner)))
            else:
                inner = self._admitted(full, handler.unary_unary, False)
                endpoints[full] = Endpoint.unary(
                    info, self._unary_function(self.observer._unary(label, inner)))
        return endpoints

    def _unary_function(self, behavior: Callable[[Any, Any], Awaitable[Any]]
                        ) -> Callable[[Any, Any], Awaitable[Any]]:
        async def function(raw: bytes, ctx: Any) -> Any:
            self._limit()
            context = HttpCallContext(ctx, peer_of(ctx.client_address))
            self.in_flight += 1
            try:
                return await behavior(raw, context)
            except grpc.aio.AbortError:
                raise context.error() from None
            finally:
                self.in_flight -= 1

        return function

    def _stream_function(self, behavior: Callable[[Any, Any], AsyncIterator[Any]]
                         ) -> Callable[[Any, Any], AsyncIterator[Any]]:
        async def function(raw: bytes, ctx: Any) -> AsyncIterator[Any]:
            self._limit()
            context = HttpCallContext(ctx, peer_of(ctx.client_address))
            self.in_flight += 1
            items = behavior(raw, context)
            try:
                async for item in items:
                    yield item
            except grpc.aio.AbortError:
                raise context.error() from None
            finally:
                self.in_flight -= 1
                await items.aclose()  # type: ignore[attr-defined]

        return function

    # -- ASGI -------------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(
                f"/{wire.SERVICE.full_name}/"):
            await self._static(scope, send)
            return
        scope = _utf8_headers(scope)
        streaming = self.streaming.get(scope.get("path", ""))
        if scope["type"] == "http" and streaming is not None:
            kind = _header(scope, b"content-type")
            if is_native_grpc(kind):
                await self._refuse_native_grpc(scope, send, kind, streaming)
                return
            if streaming and _media(kind) in UNARY_MEDIA:
                await _refuse_unary_on_stream(scope, send)
                return
            # Enveloped bodies as connectrpc tells them: gRPC-Web, and Connect's streams.
            if kind == "application/grpc-web" or kind.startswith("application/grpc-web+"):
                receive = OneMessage(receive, _header(scope, b"grpc-encoding"),
                                     "grpc-encoding", self.config.max_message_bytes)
            elif streaming:
                receive = OneMessage(receive, _header(scope, b"connect-content-encoding"),
                                     "connect-content-encoding", self.config.max_message_bytes)
        await self.connect(scope, receive, send)  # type: ignore[arg-type]

    async def _refuse_native_grpc(self, scope: dict[str, Any], send: Any, kind: str,
                                  streaming: bool) -> None:
        """415 for native gRPC, which needs HTTP/2 and trailers (connectrpc would fail
        with a traceback): what Connect and gRPC answer a content type they do not take."""
        held = self._native_grpc_log.admit()
        if held is not None:
            client = scope.get("client")
            log.warning("HTTP door: refused a native gRPC call (Content-Type %s) from %s: "
                        "gRPC needs HTTP/2, on the gRPC port%s", kind[:100],
                        peer_of(f"{client[0]}:{client[1]}" if client else None),
                        held_note(held))
        await _respond(send, 415, NATIVE_GRPC_REFUSAL, "text/plain; charset=utf-8",
                       extra=[(b"accept-post",
                               (STREAM_TYPES if streaming else UNARY_TYPES).encode())])

    async def _static(self, scope: dict[str, Any], send: Any) -> None:
        path = scope["path"]
        if path.startswith(SCHEMA_PREFIX):
            await self._schema(scope, send)
            return
        name = "index.html" if path == "/" else path.lstrip("/")
        body = None
        if scope["method"] in ("GET", "HEAD") and "/" not in name.replace("assets/", "", 1) \
                and ".." not in name:
            body = static_file(name)
        if body is None:
            await _respond(send, 404, b"not found\n", "text/plain; charset=utf-8")
            return
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript",):
            kind += "; charset=utf-8"
        await _respond(send, 200, b"" if scope["method"] == "HEAD" else body, kind,
                       extra=[(b"cache-control", b"no-cache"),
                              (b"x-content-type-options", b"nosniff")])


    async def _schema(self, scope: dict[str, Any], send: Any) -> None:
        """``GET /schemas/<game>.json``: the game's state schema, made at startup."""
        name = scope["path"][len(SCHEMA_PREFIX):]
        body = self.schemas.get(name.removesuffix(".json")) if name.endswith(".json") else None
        if scope["method"] not in ("GET", "HEAD") or body is None:
            known = ", ".join(f"{SCHEMA_PREFIX}{game}.json" for game in self.schemas)
            text = f"no such schema: {name[:60]!r} (available: {known or 'none'})\n"
            await _respond(send, 404, text.encode(), "text/plain; charset=utf-8")
            return
        await _respond(send, 200, b"" if scope["method"] == "HEAD" else body, SCHEMA_TYPE,
                       extra=[(b"cache-control", b"no-cache"),
                              (b"x-content-type-options", b"nosniff")])


def state_schemas(games: pb.ListGamesResponse | None) -> dict[str, bytes]:
    """Each game's ``GameInfo.state_schema`` (by name) as the bytes ``GET
    /schemas/<game>.json`` answers: the ListGames answer's text, so both doors serve
    the same schema, made once when the server started."""
    if games is None:
        return {}
    return {g.name: g.state_schema.encode() for g in games.games if g.state_schema}


async def _refuse_unary_on_stream(scope: dict[str, Any], send: Any) -> None:
    """415 for a streaming method called with a unary method's content type, naming the
    types a stream takes (connectrpc answered an empty body and offered the type sent)."""
    method = scope.get("path", "").rsplit("/", 1)[-1]
    body = (f"{method} streams its answers: send its request as a Connect stream "
            f"(Content-Type application/connect+json or application/connect+proto, the "
            f"message in an envelope) or through gRPC-Web (see Accept-Post); "
            f"application/json and application/proto are for unary methods.\n").encode()
    await _respond(send, 415, body, "text/plain; charset=utf-8",
                   extra=[(b"accept-post", STREAM_TYPES.encode())])


async def _respond(send: Any, status: int, body: bytes, kind: str,
                   extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [(b"content-type", kind.encode()), (b"content-length", str(len(body)).encode()),
               *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def static_file(name: str) -> bytes | None:
    """A file of the web table (``ai_server/web/static/NAME``), None if there is none."""
    try:
        return resources.files(STATIC_PACKAGE).joinpath(STATIC_DIR, name).read_bytes()
    except (OSError, ModuleNotFoundError, ValueError):
        return None


# -- CORS -------------------------------------------------------------------------------------
#: What a browser page may send: the token, Connect's and gRPC-Web's request headers.
CORS_REQUEST_HEADERS = ("authorization", "content-type", "connect-protocol-version",
                        "connect-timeout-ms", "connect-accept-encoding", "connect-content-encoding",
                        "grpc-timeout", "x-grpc-web", "x-user-agent")
#: What it may read: gRPC-Web's status (in headers when a call fails at once).
CORS_EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")
#: Seconds a browser may keep a preflight's answer.
CORS_MAX_AGE = 7200


def with_cors(app: Any, origins: tuple[str, ...]) -> Any:
    """``app`` behind CORS for ``origins`` (``("*",)``: any); ``app`` itself without any."""
    if not origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(app, allow_origins=origins, allow_methods=("GET", "POST"),
                          allow_headers=CORS_REQUEST_HEADERS,
                          expose_headers=CORS_EXPOSED_HEADERS, max_age=CORS_MAX_AGE)


# -- the HTTP server --------------------------------------------------------------------------
def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port)."""
    name = host.strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((name, port))
        sock.listen(256)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


#: The largest request head (request line and headers) the door reads, in bytes: h11's
#: own default, stated (past it: 400 and the connection closed).
HTTP_MAX_HEAD_BYTES = 16 * 1024


def _plain_response(status: str, text: str) -> bytes:
    body = text.encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


_TIMED_OUT = _plain_response("408 Request Timeout", "request not received in time\n")
_FULL = _plain_response("503 Service Unavailable", "too many connections; retry later\n")


def guarded_protocol(config: ServerConfig) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the door's connection limits (``config.http_*``).

    uvicorn has the idle (keep-alive) timeout between requests, but none while it waits
    for a request's head or body, and its ``limit_concurrency`` only counts connections
    once a request's head has arrived (and logs a warning for each refusal).  Here:

    * a connection past ``http_max_connections`` is answered 503 and closed as it opens;
    * a request's head must arrive within ``http_header_timeout`` of the connection's
      opening (or of its first byte after an idle spell), its body within
      ``http_body_timeout`` of the head: else 408 and the connection closed (a fresh
      connection that sent nothing is just closed), however slowly the bytes trickle in;
    * an answer may wait at most ``http_send_timeout`` for a client that reads none of
      it (the connection's buffers full): then the connection is dropped, and the call
      with it (else it would hold its HTTP call slot for ever);
    * while a call runs, its own deadline governs; between requests, uvicorn's
      keep-alive timer (``http_idle_timeout``).
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    head, body = config.http_header_timeout, config.http_body_timeout
    send = config.http_send_timeout
    cap = config.http_max_connections
    refusals = Throttle()

    class GuardedH11Protocol(H11Protocol):
        _refused = False
        _timer: asyncio.TimerHandle | None = None
        _waiting_for: object = None  # "head", or the cycle whose body is awaited
        _stalled: asyncio.TimerHandle | None = None  # an answer the client does not read

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            if cap and len(self.connections) >= cap:
                self._refused = True
                self.transport = transport  # type: ignore[assignment]
                transport.write(_FULL)  # type: ignore[attr-defined]
                transport.close()
                held = refusals.admit()
                if held is not None:
                    log.warning("HTTP door: %d connections open, the most it takes "
                                "(http_max_connections); refusing new ones%s", cap,
                                held_note(held))
                return
            super().connection_made(transport)  # type: ignore[arg-type]
            self._watch()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._unstall()
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            if self._refused:
                return
            super().pause_writing()
            if self._stalled is None:
                self._stalled = self.loop.call_later(send, self._send_timed_out)

        def resume_writing(self) -> None:
            if self._refused:
                return
            super().resume_writing()
            self._unstall()

        def _unstall(self) -> None:
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None

        def _send_timed_out(self) -> None:
            self._stalled = None
            log.debug("HTTP door: a client read nothing for %g s", send)
            self.transport.abort()  # close() would wait for the client to read

        def _watch(self) -> None:
            """Arm the timer of what the connection waits for (a deadline is kept while
            it waits for the same thing: trickling bytes do not extend it)."""
            cycle = self.cycle
            if self.transport.is_closing():
                self._disarm()
            elif cycle is not None and not cycle.response_complete:
                if cycle.more_body:
                    self._arm(cycle, body)
                else:
                    self._disarm()  # the call runs: its own deadline governs
            elif self.timeout_keep_alive_task is not None:
                self._disarm()  # idle between requests: uvicorn's keep-alive timer
            else:
                self._arm("head", head)

        def _arm(self, waiting_for: object, seconds: float) -> None:
            if self._timer is not None and self._waiting_for is waiting_for:
                return
            self._disarm()
            self._waiting_for = waiting_for
            self._timer = self.loop.call_later(seconds, self._timed_out)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None
            self._waiting_for = None

        def _timed_out(self) -> None:
            self._timer = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if self._waiting_for is cycle and cycle is not None:  # a body
                if not cycle.response_started:
                    self.transport.write(_TIMED_OUT)
                # The call's receive() now answers a disconnect; its sends go nowhere.
                cycle.disconnected = True
                cycle.message_event.set()
            elif self.conn.trailing_data[0]:  # part of a head
                self.transport.write(_TIMED_OUT)
            log.debug("HTTP door: %s timed out", "a body" if self._waiting_for is cycle
                      else "a head")
            self.transport.close()

    return GuardedH11Protocol


class HttpServer:
    """A uvicorn server of an :class:`HttpDoor` on the event loop of the gRPC server,
    with the connection limits of :func:`guarded_protocol`."""

    def __init__(self, app: HttpDoor, sock: socket.socket, security: SecurityConfig,
                 grace: float) -> None:
        import uvicorn

        quiet_client_noise()
        self.app = app
        self.socket = sock
        self.port = int(sock.getsockname()[1])
        self.tls = security.tls
        context = security.ssl_context()
        config = uvicorn.Config(
            with_cors(app, security.cors_origins), lifespan="off", log_config=None,
            access_log=False, http=guarded_protocol(app.config), ws="none",
            interface="asgi3", proxy_headers=False, server_header=False,
            timeout_keep_alive=app.config.http_idle_timeout,  # type: ignore[arg-type]
            h11_max_incomplete_event_size=HTTP_MAX_HEAD_BYTES,
            timeout_graceful_shutdown=max(grace, 0.1),  # type: ignore[arg-type]
            ssl_context_factory=None if context is None else lambda *_: context)

        class _Server(uvicorn.Server):
            def capture_signals(self) -> Any:  # the furnace server handles signals
                import contextlib

                return contextlib.nullcontext()

        self._server = _Server(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def connections(self) -> int:
        """HTTP connections open (those refused past the cap aside)."""
        return len(self._server.server_state.connections)

    async def start(self) -> None:
        self._task = asyncio.ensure_future(self._server.serve(sockets=[self.socket]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise OSError("the HTTP server did not start")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            try:
                await self._task
            except Exception:  # noqa: BLE001 - shutting down anyway
                log.exception("HTTP server shutdown")
        self.socket.close()
