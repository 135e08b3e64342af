"""A small synchronous Python client of ``furnace.v1.FurnaceService``.

It speaks only the protocol (the generated stubs), never the engine::

    with FurnaceClient("localhost:50051") as client:
        game = client.new_game("samara", 2, seed=7)
        reply = client.best_move(game.state, iterations=2000, seed=1)
        print(reply.move.text, to_dict(reply.analysis))

Positions may be given as a ``GameState`` message, as the game's JSON state (a
dict or JSON text: sent in the opaque form), as opaque bytes, or as a game record
(:func:`record_state`, or a record file's JSON: the deal and the moves, replayed by
the server)::

    state = record_state("samara", 2, ["recruit woman", "wait"], seed=7)
    client.best_move(state, iterations=2000, seed=1)  Moves may be a
``Move``, an int (id) or a str (text notation).  Methods return the response
messages; :func:`to_dict` turns any message into plain data.

Whose view: every method that takes a state also takes ``observer_seat``, the
seat the answer is for (it sets ``GameState.observer_seat``; ``None`` keeps the
state's own, and a state without one asks as the host, who sees every hand).
Renders, move records and move lists then show only what that seat sees::

    view = client.apply_move(state, "work #0 sloppy", observer_seat=1)
    view.record.move_hidden          # True: seat 1 may not know seat 0's choice

A server hosted in the open (docs/api.md, "Hosting") takes TLS, a client
certificate and a bearer token::

    FurnaceClient("ai.example.org:443", tls=True, token=os.environ["FURNACE_TOKEN"])
    FurnaceClient("ai.internal:50051", ca_cert="ca.pem", client_cert="me.pem",
                  client_key="me.key")

Several servers (replicas of a stateless service): give every address, or a DNS
name that resolves to all of them (a Kubernetes headless Service), with the
``round_robin`` load-balancing policy; calls are spread over the servers that are
up, and a call refused UNAVAILABLE (a server stopping) is retried on another::

    FurnaceClient(["10.0.0.5:50051", "10.0.0.6:50051"], load_balancing="round_robin")
    FurnaceClient("dns:///furnace.games.svc.cluster.local:50051",
                  load_balancing="round_robin")
"""

from __future__ import annotations

import ipaddress
import json
import os
import warnings
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

DEFAULT_ADDRESS = "localhost:50051"
#: Largest message the client sends or accepts.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

StateLike = pb.GameState | Mapping[str, Any] | bytes | str
#: PEM data, or the path of a PEM file.
PemLike = bytes | str | os.PathLike[str]
MoveLike = pb.Move | int | str
OptionLike = bool | int | str


class AnalyzeStream(Protocol):
    """What :meth:`FurnaceClient.analyze` returns: iterate it; ``cancel()`` stops the search."""

    def __iter__(self) -> Iterator[pb.AnalyzeResponse]: ...

    def __next__(self) -> pb.AnalyzeResponse: ...

    def cancel(self) -> bool: ...


class ReviewStream(Protocol):
    """What :meth:`FurnaceClient.review_game` returns: iterate it (one ``decision`` per
    reviewed decision, then one ``summary`` per seat); ``cancel()`` stops the review."""

    def __iter__(self) -> Iterator[pb.ReviewGameResponse]: ...

    def __next__(self) -> pb.ReviewGameResponse: ...

    def cancel(self) -> bool: ...


# -- the opaque state form -------------------------------------------------------------
def encode_opaque(data: Mapping[str, Any]) -> bytes:
    """The opaque form of a game's JSON state: compact JSON, UTF-8, zlib."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), 9)


def decode_opaque(blob: bytes) -> dict[str, Any]:
    data = json.loads(zlib.decompress(blob).decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("opaque state does not hold a JSON object")
    return data


#: The ``format`` and ``version`` of a record file (``furnace play``'s save, ``furnace
#: selfplay --save``).
RECORD_FILE_FORMAT = "furnace-record"
RECORD_FILE_VERSION = 1


def record_state(game: str, num_players: int, moves: Sequence[MoveLike] = (), *,
                 seed: int | None = None, initial: Mapping[str, Any] | None = None,
                 options: Mapping[str, OptionLike] | None = None,
                 observer_seat: int | None = None) -> pb.GameState:
    """A position as a game record (``GameState.record``): NewGame's deal of ``seed``, or
    the position ``initial`` (the game's JSON state, e.g. a deal a site made itself),
    then ``moves`` (ids, texts or ``Move``s) in order.  The server replays it, and names
    a bad move ``state.record.moves[k]``.

    >>> state = record_state("samara", 2, ["recruit woman", 131104], seed=7)
    >>> state.record.seed, [m.text or m.id for m in state.record.moves]
    (7, ['recruit woman', 131104])
    """
    if (seed is None) == (initial is None):
        raise ValueError("a record starts from a seed or from an initial position (one)")
    record = pb.GameRecord(game=game, num_players=num_players,
                           moves=[make_move(m) for m in moves])
    for name, value in (options or {}).items():
        record.options[name].CopyFrom(option_value(value))
    if seed is not None:
        record.seed = seed
    else:
        assert initial is not None
        record.initial.update(dict(initial))
    message = pb.GameState(record=record)
    if observer_seat is not None:
        message.observer_seat = observer_seat
    return message


def record_file_state(data: Mapping[str, Any]) -> pb.GameState:
    """The ``GameState`` of a record file's JSON (``{"format": "furnace-record", ...}``);
    ValueError or TypeError for a file that is none (the server checks the rest)."""
    if not isinstance(data.get("game"), str) or not isinstance(data.get("num_players"), int):
        raise ValueError("a record file names its game and num_players")
    moves: list[MoveLike] = []
    raw_moves = data.get("moves", [])
    if not isinstance(raw_moves, list):
        raise ValueError("a record file's moves are a list")
    for move in raw_moves:
        if isinstance(move, Mapping):
            moves.append(pb.Move(**{k: move[k] for k in ("id", "text") if k in move}))
        else:
            moves.append(move)
    return record_state(data["game"], data["num_players"], moves, seed=data.get("seed"),
                        initial=data.get("initial"), options=data.get("options"))


def make_state(state: StateLike, observer_seat: int | None = None) -> pb.GameState:
    """A ``GameState`` from a message, a JSON dict or text (sent opaque; a record file's
    JSON is sent as a record), or opaque bytes.

    ``observer_seat`` sets whom answers are for; ``None`` keeps the message's own
    (see :func:`host_state` to drop it).
    """
    if isinstance(state, pb.GameState):
        message = pb.GameState()
        message.CopyFrom(state)
    elif isinstance(state, bytes | bytearray):
        message = pb.GameState(opaque=bytes(state))
    elif isinstance(state, str):
        data = json.loads(state)
        if not isinstance(data, dict):
            raise ValueError("a state's JSON must be an object")
        message = make_state(data)
    elif isinstance(state, Mapping) and state.get("format") == RECORD_FILE_FORMAT:
        message = record_file_state(state)
    elif isinstance(state, Mapping):
        message = pb.GameState(opaque=encode_opaque(state))
    else:
        raise TypeError(f"cannot send {type(state).__name__} as a game state")
    if observer_seat is not None:
        message.observer_seat = observer_seat
    return message


def host_state(state: StateLike) -> pb.GameState:
    """``state`` without ``observer_seat``: answers about it are for the host."""
    message = make_state(state)
    message.ClearField("observer_seat")
    return message


def state_json(state: pb.GameState) -> dict[str, Any]:
    """The game's JSON state held by ``state`` (opaque, json or json_object form).

    A typed state (e.g. ``samara``) is answered as its protobuf JSON mapping,
    which is not the game's own JSON: ask for ``STATE_FORMAT_OPAQUE`` instead.
    """
    form = state.WhichOneof("state")
    if form == "opaque":
        return decode_opaque(state.opaque)
    if form == "json":
        data = json.loads(state.json)
        if not isinstance(data, dict):
            raise ValueError("json state does not hold a JSON object")
        return data
    if form == "json_object":
        # A Struct's numbers are doubles; every number of a game's JSON is an integer.
        return dict(_integral(json_format.MessageToDict(state.json_object)))
    if form is None:
        raise ValueError("empty GameState")
    if form == "sealed":
        raise ValueError("a sealed state cannot be read: its seat's view is the answer's "
                         "`view` (see view_json)")
    if form == "record":
        raise ValueError("a game record holds moves, not a position: ask for "
                         "STATE_FORMAT_JSON_OBJECT to get the position it reaches")
    raise ValueError(f"typed {form} state: request STATE_FORMAT_OPAQUE for the game's JSON")


def view_json(response: Any) -> dict[str, Any]:
    """The seat's view beside a sealed answer (``NewGameResponse``, ``ApplyMoveResponse``,
    ``BestMoveResponse`` with play) as plain JSON data, integers as ints."""
    if not response.HasField("view"):
        raise ValueError("the answer has no view: only sealed answers carry one")
    return dict(_integral(json_format.MessageToDict(response.view)))


def _integral(value: Any) -> Any:
    """``value`` with every integral float an int (a Struct's numbers are doubles)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def make_move(move: MoveLike) -> pb.Move:
    """A ``Move`` from a message, an id (int) or a text (str)."""
    if isinstance(move, pb.Move):
        return move
    if isinstance(move, bool):
        raise TypeError("a move is an int id or a str text, not a bool")
    if isinstance(move, int):
        return pb.Move(id=move)
    if isinstance(move, str):
        return pb.Move(text=move)
    raise TypeError(f"cannot send {type(move).__name__} as a move")


def option_value(value: OptionLike) -> pb.OptionValue:
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    if isinstance(value, str):
        return pb.OptionValue(string_value=value)
    raise TypeError(f"option values are bool, int or str, not {type(value).__name__}")


def to_dict(message: Message) -> dict[str, Any]:
    """Plain data of a message (protobuf JSON mapping, proto field names, defaults shown)."""
    result: dict[str, Any] = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    return result


def to_json(message: Message, indent: int | None = 2) -> str:
    """The message in protobuf's JSON mapping (camelCase names, as grpcurl, Connect and
    the server's HTTP door write it), defaults shown, integral numbers as integers (a
    state's ``jsonObject`` holds the game's integers as doubles)."""
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(_integral(data), indent=indent, ensure_ascii=False)


# -- errors -----------------------------------------------------------------------------
def error_details(error: grpc.RpcError) -> dict[str, Any]:
    """The code, message, bad fields, ErrorInfo and retry delay of a failed call.

    ``retry_delay`` is the seconds the server advises waiting before a retry
    (``google.rpc.RetryInfo``, else the ``grpc-retry-pushback-ms`` trailer), or None.
    """
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    info: dict[str, Any] = {
        "code": code.name if code is not None else "UNKNOWN",
        "message": error.details() if hasattr(error, "details") else str(error),
        "fields": [],
        "reason": None,
        "metadata": {},
        "retry_delay": None,
    }
    try:
        trailers = error.trailing_metadata() or ()  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        trailers = ()
    for key, value in trailers:
        if key == "grpc-retry-pushback-ms":
            try:
                info["retry_delay"] = max(int(value), 0) / 1000
            except (TypeError, ValueError):
                pass
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except (ValueError, AttributeError):
        status = None
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                info["fields"].extend(
                    {"field": v.field, "description": v.description}
                    for v in bad.field_violations)
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                error_info = error_details_pb2.ErrorInfo()
                detail.Unpack(error_info)
                info["reason"] = error_info.reason
                info["metadata"] = dict(error_info.metadata)
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                info["retry_delay"] = retry.retry_delay.ToMilliseconds() / 1000
    return info


def describe_error(error: grpc.RpcError) -> str:
    """One line: ``INVALID_ARGUMENT: message (field budget.iterations, OUT_OF_RANGE)``."""
    info = error_details(error)
    extra = [f"field {f['field']}" for f in info["fields"]]
    if info["reason"]:
        extra.append(info["reason"])
    if info["retry_delay"] is not None:
        extra.append(f"retry after {info['retry_delay']:g} s")
    message = " ".join(str(info["message"] or "").split())
    suffix = f" ({', '.join(extra)})" if extra else ""
    return f"{info['code']}: {message}{suffix}"


def seat_label(seat: int) -> str:
    """``P1 (seat 0)``: a seat (0-based, as in every RPC) named as renders and events name it.

    The convention of the whole project (engine.seats, which clients do not import):
    numbers given or taken are 0-based seats; people read ``P1``, ``P2``, ...; prose that
    gives a seat's number names the player too.

    >>> seat_label(0), seat_label(1)
    ('P1 (seat 0)', 'P2 (seat 1)')
    """
    return f"P{seat + 1} (seat {seat})"


# -- connecting ---------------------------------------------------------------------------
#: Load-balancing policies gRPC offers over the addresses of a target.
LOAD_BALANCING_POLICIES = ("pick_first", "round_robin")
#: Retries of a call refused UNAVAILABLE (attempts in all), when load balancing is on.
RETRY_ATTEMPTS = 3


def channel_target(address: str | Sequence[str]) -> str:
    """The gRPC target of one address (as is) or of several ``HOST:PORT`` IP addresses
    (an ``ipv4:`` or ``ipv6:`` list; names need a DNS name that resolves to all).

    >>> channel_target(["127.0.0.1:5001", "127.0.0.1:5002"])
    'ipv4:127.0.0.1:5001,127.0.0.1:5002'
    >>> channel_target(["[::1]:5001", "[::1]:5002"])
    'ipv6:[::1]:5001,[::1]:5002'
    """
    if isinstance(address, str):
        return address
    addresses = [a.strip() for a in address if a.strip()]
    if not addresses:
        raise ValueError("no server address given")
    if len(addresses) == 1:
        return addresses[0]
    families = set()
    for item in addresses:
        host, sep, port = item.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"{item!r} is not HOST:PORT")
        try:
            families.add(ipaddress.ip_address(host.strip("[]")).version)
        except ValueError:
            raise ValueError(f"several servers must be IP addresses, not {host!r}: for host "
                             "names give one DNS name that resolves to every server "
                             "(dns:///NAME:PORT)") from None
    if len(families) != 1:
        raise ValueError("several servers must all be IPv4 or all IPv6 addresses")
    return ("ipv4:" if families == {4} else "ipv6:") + ",".join(addresses)


def service_config(load_balancing: str | None, retries: bool) -> str | None:
    """The gRPC service config (JSON) of a load-balancing policy and UNAVAILABLE retries."""
    config: dict[str, Any] = {}
    if load_balancing is not None:
        if load_balancing not in LOAD_BALANCING_POLICIES:
            raise ValueError(f"load balancing must be one of "
                             f"{', '.join(LOAD_BALANCING_POLICIES)}, not {load_balancing!r}")
        config["loadBalancingConfig"] = [{load_balancing: {}}]
    if retries:
        # Every Furnace call is stateless and idempotent: one refused UNAVAILABLE (a
        # server shutting down, a worker that died) may go to another server.
        config["methodConfig"] = [{
            "name": [{"service": "furnace.v1.FurnaceService"}],
            "retryPolicy": {"maxAttempts": RETRY_ATTEMPTS, "initialBackoff": "0.05s",
                            "maxBackoff": "1s", "backoffMultiplier": 2,
                            "retryableStatusCodes": ["UNAVAILABLE"]},
        }]
    return json.dumps(config) if config else None


def _pem(value: PemLike | None, what: str) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    try:
        return Path(value).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read the {what} {os.fspath(value)}: "
                         f"{exc.strerror or exc}") from None


def channel_credentials(ca_cert: PemLike | None = None, client_cert: PemLike | None = None,
                        client_key: PemLike | None = None) -> grpc.ChannelCredentials:
    """TLS credentials: the server checked against ``ca_cert`` (default: the system's
    trusted CAs), and a client certificate for mutual TLS (``client_cert`` and
    ``client_key`` together).  Files are given by path or as PEM bytes."""
    if (client_cert is None) != (client_key is None):
        raise ValueError("a client certificate needs its key (and the key its certificate)")
    return grpc.ssl_channel_credentials(
        root_certificates=_pem(ca_cert, "CA certificate"),
        private_key=_pem(client_key, "client key"),
        certificate_chain=_pem(client_cert, "client certificate"))


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Sequence[tuple[str, str]] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: Any


class BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                  grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds ``authorization: Bearer <token>`` to every call of a channel.

    Plain metadata rather than gRPC call credentials, which refuse plaintext
    channels: a loopback server, or one behind a TLS proxy, takes tokens too.
    """

    def __init__(self, token: str) -> None:
        if not token or any(c.isspace() for c in token):
            raise ValueError("a token is one word (no spaces)")
        self._header = ("authorization", f"Bearer {token}")

    def __repr__(self) -> str:
        return "BearerToken(...)"

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = [*(details.metadata or ()), self._header]
        return _CallDetails(details.method, details.timeout, metadata,
                            details.credentials, getattr(details, "wait_for_ready", None),
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any,
                              request: Any) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation: Any, client_call_details: Any,
                               request: Any) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_stream_unary(self, continuation: Any, client_call_details: Any,
                               request_iterator: Any) -> Any:
        return continuation(self._details(client_call_details), request_iterator)

    def intercept_stream_stream(self, continuation: Any, client_call_details: Any,
                                request_iterator: Any) -> Any:
        return continuation(self._details(client_call_details), request_iterator)


class InsecureTokenWarning(UserWarning):
    """A bearer token is sent in plaintext to another machine (:func:`open_channel`)."""


#: Targets already warned about (once per process and target).
_TOKEN_WARNED: set[str] = set()


def _target_hosts(target: str) -> list[str]:
    """The hosts a gRPC target names (none for a local socket, ``unix:...``).

    >>> _target_hosts("dns:///ai.example.org:443"), _target_hosts("ipv6:[::1]:1,[::2]:1")
    (['ai.example.org'], ['::1', '::2'])
    """
    if target.startswith(("unix:", "unix-abstract:")):
        return []
    scheme, sep, rest = target.partition(":")
    if sep and scheme in ("dns", "ipv4", "ipv6"):
        if scheme == "dns":
            rest = rest[2:].split("/", 1)[-1] if rest.startswith("//") else rest
        items = rest.split(",")
    else:
        items = [target]
    hosts = []
    for item in items:
        item = item.strip()
        if item.startswith("["):
            hosts.append(item[1:item.find("]")] if "]" in item else item[1:])
        elif item.count(":") == 1:
            hosts.append(item.partition(":")[0])
        else:
            hosts.append(item)  # a bare name, or an IPv6 address without a port
    return hosts


def _is_local(host: str) -> bool:
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def warn_plaintext_token(target: str) -> None:
    """Warn (once per process and target) that a token would travel in plaintext to
    another machine: anyone on the way could read it and call as its owner."""
    if target in _TOKEN_WARNED or all(_is_local(host) for host in _target_hosts(target)):
        return
    _TOKEN_WARNED.add(target)
    warnings.warn(
        f"sending a bearer token in plaintext to {target}: anyone on the way can read it "
        "and call as you. Use TLS (tls=True or ca_cert=...; --tls or --ca-cert) unless "
        "the path to the server is private", InsecureTokenWarning, stacklevel=3)


def open_channel(address: str | Sequence[str], *, tls: bool = False,
                 ca_cert: PemLike | None = None, client_cert: PemLike | None = None,
                 client_key: PemLike | None = None, token: str | None = None,
                 options: Sequence[tuple[str, Any]] = (), load_balancing: str | None = None,
                 retries: bool | None = None) -> grpc.Channel:
    """A channel to ``address``: plaintext, or TLS when ``tls`` or any certificate is
    given; with ``token``, every call carries it as a bearer token.

    ``address`` may list several servers (:func:`channel_target`);
    ``load_balancing`` (``round_robin`` or ``pick_first``) is how calls are spread
    over the addresses a target resolves to, and ``retries`` (default: on with
    load balancing) retries a call refused UNAVAILABLE, up to :data:`RETRY_ATTEMPTS`
    attempts.  A token sent in plaintext to another machine than this one is an
    :class:`InsecureTokenWarning`, once per target."""
    target = channel_target(address)
    config = service_config(load_balancing,
                            load_balancing is not None if retries is None else retries)
    if config is not None:
        options = [*options, ("grpc.service_config", config), ("grpc.enable_retries", 1)]
    if tls or ca_cert is not None or client_cert is not None or client_key is not None:
        channel = grpc.secure_channel(
            target, channel_credentials(ca_cert, client_cert, client_key), options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
        if token:
            warn_plaintext_token(target)
    if token:
        try:
            return grpc.intercept_channel(channel, BearerToken(token))
        except BaseException:
            channel.close()
            raise
    return channel


# -- the client -------------------------------------------------------------------------
class FurnaceClient:
    """A connection to a Furnace server; methods mirror the RPCs.

    ``timeout`` (seconds) is the default deadline of each call; ``None`` waits
    as long as it takes.  Use as a context manager or call :meth:`close`.

    A hosted server: ``tls=True`` (the server checked against the system's CAs, or
    ``ca_cert``), ``client_cert``/``client_key`` for mutual TLS (any certificate
    implies TLS), ``token`` for bearer-token authentication.  Certificates are
    paths or PEM bytes.

    Several servers: a list of addresses (or a target such as ``dns:///NAME:PORT``)
    and ``load_balancing="round_robin"`` (see :func:`open_channel`).
    """

    def __init__(self, address: str | Sequence[str] = DEFAULT_ADDRESS, *,
                 timeout: float | None = 120.0,
                 channel: grpc.Channel | None = None, tls: bool = False,
                 ca_cert: PemLike | None = None, client_cert: PemLike | None = None,
                 client_key: PemLike | None = None, token: str | None = None,
                 load_balancing: str | None = None, retries: bool | None = None) -> None:
        self.address = channel_target(address)
        self.timeout = timeout
        self._own_channel = channel is None
        self.channel = channel if channel is not None else open_channel(
            self.address, tls=tls, ca_cert=ca_cert, client_cert=client_cert,
            client_key=client_key, token=token, load_balancing=load_balancing,
            retries=retries,
            options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                     ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)],
        )
        self.stub = pb_grpc.FurnaceServiceStub(self.channel)
        self._health = health_pb2_grpc.HealthStub(self.channel)

    def close(self) -> None:
        if self._own_channel:
            self.channel.close()

    def __enter__(self) -> FurnaceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel connects (``grpc.FutureTimeoutError`` after ``timeout``)."""
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    # -- RPCs ---------------------------------------------------------------------
    def list_games(self, *, timeout: float | None = None) -> pb.ListGamesResponse:
        result: pb.ListGamesResponse = self.stub.ListGames(
            pb.ListGamesRequest(), timeout=self._timeout(timeout))
        return result

    def new_game(self, game: str, num_players: int, seed: int | None = None,
                 options: Mapping[str, OptionLike] | None = None, *,
                 state_format: pb.StateFormat = pb.STATE_FORMAT_OPAQUE,
                 timeout: float | None = None) -> pb.NewGameResponse:
        """A new game dealt from ``seed`` (None: the server draws a fresh one and answers
        it in ``NewGameResponse.seed``; a given seed always deals the same game)."""
        request = pb.NewGameRequest(game=game, num_players=num_players,
                                    state_format=state_format)
        if seed is not None:
            request.seed = seed
        for name, value in (options or {}).items():
            request.options[name].CopyFrom(option_value(value))
        result: pb.NewGameResponse = self.stub.NewGame(request, timeout=self._timeout(timeout))
        return result

    def legal_moves(self, state: StateLike, seat: int | None = None, *,
                    include_render: bool = False, observer_seat: int | None = None,
                    timeout: float | None = None) -> pb.LegalMovesResponse:
        """Moves of the seat to move (``moves_hidden`` when the observer cannot know them)."""
        request = pb.LegalMovesRequest(state=make_state(state, observer_seat),
                                       include_render=include_render)
        if seat is not None:
            request.seat = seat
        result: pb.LegalMovesResponse = self.stub.LegalMoves(
            request, timeout=self._timeout(timeout))
        return result

    def check_move(self, state: StateLike, move: MoveLike, seat: int | None = None, *,
                   observer_seat: int | None = None,
                   timeout: float | None = None) -> pb.CheckMoveResponse:
        """Whether ``move`` is legal (``ILLEGAL_REASON_HIDDEN``: the observer cannot know)."""
        request = pb.CheckMoveRequest(state=make_state(state, observer_seat),
                                      move=make_move(move))
        if seat is not None:
            request.seat = seat
        result: pb.CheckMoveResponse = self.stub.CheckMove(
            request, timeout=self._timeout(timeout))
        return result

    def apply_move(self, state: StateLike, move: MoveLike, seat: int | None = None, *,
                   state_format: pb.StateFormat = pb.STATE_FORMAT_UNSPECIFIED,
                   observer_seat: int | None = None,
                   timeout: float | None = None) -> pb.ApplyMoveResponse:
        """Play ``move``: the whole new state, and the record and render as the observer sees."""
        request = pb.ApplyMoveRequest(state=make_state(state, observer_seat),
                                      move=make_move(move), state_format=state_format)
        if seat is not None:
            request.seat = seat
        result: pb.ApplyMoveResponse = self.stub.ApplyMove(
            request, timeout=self._timeout(timeout))
        return result

    @staticmethod
    def _search_fields(request: Any, state: StateLike, iterations: int,
                       time_limit: float | None, seed: int, seat: int | None,
                       exploration: float, max_candidates: int,
                       observer_seat: int | None, level: int) -> None:
        request.state.CopyFrom(make_state(state, observer_seat))
        request.budget.iterations = iterations
        if time_limit:
            request.budget.time_limit_ms = max(1, int(round(time_limit * 1000)))
        request.seed = seed
        if seat is not None:
            request.seat = seat
        request.exploration = exploration
        request.max_candidates = max_candidates
        request.level = level

    def best_move(self, state: StateLike, *, iterations: int = 0,
                  time_limit: float | None = None, seed: int = 0, seat: int | None = None,
                  exploration: float = 0.0, max_candidates: int = 0,
                  observer_seat: int | None = None, level: int = 0,
                  timeout: float | None = None) -> pb.BestMoveResponse:
        """Search ``state``; ``time_limit`` in seconds.  No budget: the server's default.

        ``level`` (1 weakest to 5; 0: none) plays like that strength level: without a
        budget it searches the level's budget, and ``move`` is the level's choice, which
        at a weak level may differ from ``analysis.best_move``.  An observer must be able
        to know the mover's moves (in Oh My Goods!, when the mover's hand decides them, be
        the seat to move): the search then uses the observer's information only.
        """
        request = pb.BestMoveRequest()
        self._search_fields(request, state, iterations, time_limit, seed, seat, exploration,
                            max_candidates, observer_seat, level)
        result: pb.BestMoveResponse = self.stub.BestMove(request, timeout=self._timeout(timeout))
        return result

    def analyze(self, state: StateLike, *, iterations: int = 0,
                time_limit: float | None = None, seed: int = 0, seat: int | None = None,
                exploration: float = 0.0, max_candidates: int = 0,
                update_interval: float | None = None, observer_seat: int | None = None,
                level: int = 0, timeout: float | None = None) -> AnalyzeStream:
        """Stream of updates ending with one ``final`` message; ``cancel()`` stops it.

        ``level`` (1-5; 0: none) searches that level's budget when no budget is given.
        """
        request = pb.AnalyzeRequest()
        self._search_fields(request, state, iterations, time_limit, seed, seat, exploration,
                            max_candidates, observer_seat, level)
        if update_interval:
            request.update_interval_ms = max(1, int(round(update_interval * 1000)))
        stream: AnalyzeStream = self.stub.Analyze(request, timeout=self._timeout(timeout))
        return stream

    def review_game(self, record: StateLike, seat: int | None = None, *, iterations: int = 0,
                    time_limit: float | None = None, seed: int = 0,
                    observer_seat: int | None = None,
                    timeout: float | None = None) -> ReviewStream:
        """Review a game given as a record (:func:`record_state`, a record file's JSON):
        every decision of ``seat`` (None: every seat) that had a choice, judged by the
        search, streamed as each is judged, then a summary per seat.

        ``iterations`` is each search's budget (a decision runs one search, or three),
        ``time_limit`` (seconds) the most one decision may take; neither: the game's
        review budget.  The same record, seat, seed and iterations give the same review.
        ``timeout`` is the whole review's deadline: give one long enough for every
        decision (a decision past it ends the stream with the summaries, ``complete``
        false).  ``cancel()`` stops the review.
        """
        request = pb.ReviewGameRequest(state=make_state(record, observer_seat), seed=seed)
        request.budget.iterations = iterations
        if time_limit:
            request.budget.time_limit_ms = max(1, int(round(time_limit * 1000)))
        if seat is not None:
            request.seat = seat
        stream: ReviewStream = self.stub.ReviewGame(request, timeout=self._timeout(timeout))
        return stream

    def estimate_scores(self, state: StateLike, playouts: int = 0, seed: int = 0, *,
                        observer_seat: int | None = None,
                        timeout: float | None = None) -> pb.EstimateScoresResponse:
        """Random playouts from the observer's information (without one: the host's)."""
        request = pb.EstimateScoresRequest(state=make_state(state, observer_seat),
                                           playouts=playouts, seed=seed)
        result: pb.EstimateScoresResponse = self.stub.EstimateScores(
            request, timeout=self._timeout(timeout))
        return result

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """``SERVING``, ``NOT_SERVING``, ... for ``service`` ("" = the whole server)."""
        reply = self._health.Check(health_pb2.HealthCheckRequest(service=service),
                                   timeout=self._timeout(timeout))
        name: str = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return name
