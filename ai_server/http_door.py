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
* CORS for the origins of ``SecurityConfig.cors_origins`` (Starlette's middleware):
  preflights allow the headers Connect, gRPC-Web and tokens need, and answers expose
  gRPC-Web's status headers; without origins, no CORS headers at all.

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
from ai_server.observe import ObservingInterceptor, ServerMetrics, method_label
from ai_server.security import SecurityConfig
from furnace_proto.furnace.v1 import furnace_pb2 as pb

log = logging.getLogger(__name__)

#: ErrorInfo reason of a call refused because ``max_concurrent_rpcs`` HTTP calls run.
TOO_MANY_CALLS = "TOO_MANY_CALLS"
#: Where the web table's files live (``index.html`` and its bundle).
STATIC_PACKAGE = "ai_server.web"
STATIC_DIR = "static"

_STATUS_DETAILS_KEY = "grpc-status-details-bin"


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
            return json.dumps(json_format.MessageToDict(message), separators=(",", ":"),
                              ensure_ascii=False).encode("utf-8")
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: Any) -> bytes:
        return wire.JsonBody(data) if self._name == "json" else bytes(data)


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
        await self.connect(scope, receive, send)  # type: ignore[arg-type]

    async def _static(self, scope: dict[str, Any], send: Any) -> None:
        path = scope["path"]
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


class HttpServer:
    """A uvicorn server of an :class:`HttpDoor` on the event loop of the gRPC server."""

    def __init__(self, app: HttpDoor, sock: socket.socket, security: SecurityConfig,
                 grace: float) -> None:
        import uvicorn

        self.app = app
        self.socket = sock
        self.port = int(sock.getsockname()[1])
        self.tls = security.tls
        context = security.ssl_context()
        config = uvicorn.Config(
            with_cors(app, security.cors_origins), lifespan="off", log_config=None, access_log=False, http="h11", ws="none",
            interface="asgi3", proxy_headers=False, server_header=False,
            timeout_graceful_shutdown=max(grace, 0.1),  # type: ignore[arg-type]
            ssl_context_factory=None if context is None else lambda *_: context)

        class _Server(uvicorn.Server):
            def capture_signals(self) -> Any:  # the furnace server handles signals
                import contextlib

                return contextlib.nullcontext()

        self._server = _Server(config)
        self._task: asyncio.Task[None] | None = None

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
