"""The HTTP door and the gRPC port against hostile clients (issue 22, item 3).

Wrong content types, malformed gRPC-Web and Connect envelopes, slow heads and bodies,
answers never read, idle connections, too many connections, and HTTP/2 openings that
never complete: each is answered with the protocol's error or closed, without tracebacks
in the logs, and the calls of healthy clients go on.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import logging
import select
import socket
import struct
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from ai_server import cli
from ai_server.config import ServerConfig
from ai_server.http_door import static_file
from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.conftest import TEST_SETTINGS
from tests.ai_server.helpers_http import frames, grpc_web_trailers, post, url

GRPC_WEB = "application/grpc-web+proto"


@pytest.fixture(scope="module")
def door() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(http_port=0, **{**TEST_SETTINGS, "workers": 1})
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def grpc_web_status(headers: dict[str, str], body: bytes) -> tuple[int, str]:
    """The gRPC status of a gRPC-Web answer (trailers-only headers or the trailer frame)."""
    trailers = headers if "grpc-status" in headers else grpc_web_trailers(frames(body)[-1][1])
    return int(trailers["grpc-status"]), urllib.parse.unquote(trailers.get("grpc-message", ""))


# -- wrong content types ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["application/grpc", "application/grpc+proto",
                                  "application/grpc+json", "Application/GRPC; charset=utf-8"])
def test_native_grpc_content_types_are_unsupported_media_types(
        door: BackgroundServer, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """gRPC needs HTTP/2 and trailers, which this HTTP/1.1 port has not: the call is
    refused 415 (what the Connect and gRPC specs answer a content type a server does not
    take) with the types it takes, and logged once at most, without a traceback."""
    caplog.set_level(logging.INFO)
    for _ in range(5):
        status, headers, body = post(url(door, "ListGames"), envelope(b""), kind)
        assert status == 415
        accepted = headers["accept-post"]
        assert "application/json" in accepted and GRPC_WEB in accepted
        assert b"gRPC port" in body
    # Streams too.
    status, headers, _ = post(url(door, "Analyze"), envelope(b""), kind)
    assert status == 415 and "application/connect+json" in headers["accept-post"]
    records = [r for r in caplog.records if r.name.startswith(("ai_server", "uvicorn"))]
    assert not [r for r in records if r.exc_info or "Traceback" in r.getMessage()]
    assert len([r for r in records if r.levelno >= logging.WARNING]) <= 1


def test_other_content_types_are_unsupported_media_types(door: BackgroundServer) -> None:
    for kind in ("text/plain", "application/grpc-web-text", "application/xml", ""):
        status, headers, _ = post(url(door, "ListGames"), b"{}", kind)
        assert status == 415 and "application/json" in headers["accept-post"]


@pytest.mark.parametrize("method", ["Analyze", "ReviewGame"])
@pytest.mark.parametrize("kind", ["application/json", "application/proto",
                                  "Application/JSON; charset=utf-8"])
def test_a_unary_content_type_on_a_stream_names_the_stream_types(
        door: BackgroundServer, method: str, kind: str) -> None:
    """A streaming method called as a unary one (plain JSON or proto) is 415 with the
    types a stream takes, in the Accept-Post header and in words: connectrpc answered
    an empty body and offered the very type sent."""
    status, headers, body = post(url(door, method), b"{}", kind)
    assert status == 415
    accepted = [t.strip() for t in headers["accept-post"].split(",")]
    assert "application/connect+json" in accepted and "application/json" not in accepted
    assert method.encode() in body and b"application/connect+json" in body


def raw_exchange(port: int, data: bytes, timeout: float = 30.0) -> bytes:
    """What the server answers ``data`` on a new connection, up to its closing it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    return answer


def test_malformed_http_is_refused_and_logged_once_at_most(
        door: BackgroundServer, caplog: pytest.LogCaptureFixture) -> None:
    """A gRPC client pointed at the HTTP port (its HTTP/2 preface), Upgrade headers, header
    values that are not UTF-8: answered, without a traceback, one log line a minute at
    most for each kind (uvicorn logs a warning, or two, per bad request)."""
    caplog.set_level(logging.INFO)
    assert door.server is not None and door.server.http_port
    port = door.server.http_port
    for _ in range(5):
        answer = raw_exchange(port, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        assert b"HTTP/1.1 400" in answer
        answer = raw_exchange(port, b"GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, "
                              b"close\r\nUpgrade: h2c\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 ")
    request = (b"POST /furnace.v1.FurnaceService/ListGames HTTP/1.1\r\nHost: a\r\n"
               b"Content-Type: %s\r\nX-Note: caf\xe9\r\nContent-Length: 2\r\n"
               b"Connection: close\r\n\r\n{}")
    assert raw_exchange(port, request % b"application/json").startswith(b"HTTP/1.1 200")
    assert raw_exchange(port, request % b"application/\xffjson").startswith(b"HTTP/1.1 415")
    records = [r for r in caplog.records if r.name.startswith(("ai_server", "uvicorn"))]
    assert not [r for r in records if r.exc_info or r.levelno >= logging.ERROR]
    for message in ("Invalid HTTP request", "Unsupported upgrade", "WebSocket"):
        assert len([r for r in records if message in r.getMessage()]) <= 1


# -- malformed envelopes -----------------------------------------------------------------------
def test_a_compressed_message_without_an_encoding_is_invalid_argument(
        door: BackgroundServer) -> None:
    """The flag says compressed, no grpc-encoding (or connect-content-encoding) says how:
    the specs say the flag must then be 0, so the request is malformed (INVALID_ARGUMENT),
    not a server fault (INTERNAL)."""
    request = pb.ListGamesRequest().SerializeToString()
    for headers in ({}, {"grpc-encoding": "identity"}):
        status, reply, body = post(url(door, "ListGames"), envelope(request, 1), GRPC_WEB,
                                   headers=headers)
        code, message = grpc_web_status(reply, body)
        assert status == 200 and code == grpc.StatusCode.INVALID_ARGUMENT.value[0], message
        assert "compressed" in message and "encoding" in message
    # Connect's streams, the same.
    analyze = pb.AnalyzeRequest().SerializeToString()
    _, _, body = post(url(door, "Analyze"), envelope(analyze, 1), "application/connect+proto")
    (flags, data), = frames(body)
    assert flags == 2 and b'"invalid_argument"' in data
    # With the encoding named, a compressed message is fine.
    import gzip

    status, reply, body = post(url(door, "ListGames"), envelope(gzip.compress(request), 1),
                               GRPC_WEB, headers={"grpc-encoding": "gzip"})
    assert grpc_web_status(reply, body)[0] == 0
    assert pb.ListGamesResponse.FromString(frames(body)[0][1]).games


@pytest.mark.parametrize("count", [0, 2, 3])
def test_a_unary_request_carries_exactly_one_message(door: BackgroundServer,
                                                     count: int) -> None:
    """Zero or several messages in a call that takes one are the client's error:
    INVALID_ARGUMENT (not UNIMPLEMENTED, which says the method does not exist)."""
    body = envelope(pb.ListGamesRequest().SerializeToString()) * count
    status, reply, answer = post(url(door, "ListGames"), body, GRPC_WEB)
    code, message = grpc_web_status(reply, answer)
    assert status == 200 and code == grpc.StatusCode.INVALID_ARGUMENT.value[0], message
    assert "exactly one" in message
    # Analyze (a server stream) takes one request message too, over both protocols.
    analyze = envelope(pb.AnalyzeRequest().SerializeToString()) * count
    _, reply, answer = post(url(door, "Analyze"), analyze, GRPC_WEB)
    assert grpc_web_status(reply, answer)[0] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    _, _, answer = post(url(door, "Analyze"), analyze, "application/connect+proto")
    (flags, data), = frames(answer)
    assert flags == 2 and b'"invalid_argument"' in data and b"exactly one" in data


def test_a_message_past_the_size_limit_is_refused_before_it_is_read(
        door: BackgroundServer) -> None:
    huge = struct.pack(">BI", 0, TEST_SETTINGS.get("max_message_bytes", 4 << 20) + 1)
    status, reply, answer = post(url(door, "ListGames"), huge + b"x" * 1000, GRPC_WEB)
    assert grpc_web_status(reply, answer)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


# -- slow and idle connections -------------------------------------------------------------------
#: Short timeouts, so that the tests below take a second or two; they measure nothing
#: finer than "closed, not before the timeout and well within 10 s".
TIMEOUT = 1.0
TIGHT = {"http_header_timeout": TIMEOUT, "http_body_timeout": TIMEOUT,
         "http_idle_timeout": TIMEOUT, "http_send_timeout": TIMEOUT,
         "grpc_handshake_timeout": TIMEOUT}
#: Longer than any of the timeouts above takes, however busy the machine.
PATIENCE = 10.0


@pytest.fixture(scope="module")
def tight() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(http_port=0, workers=1, **TIGHT)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


def until_closed(port: int, first: bytes = b"", trickle: bytes = b"",
                 ) -> tuple[float, bytes]:
    """Seconds until the server closes a new connection to ``port`` and what it sent
    before, the client sending ``first`` and then ``trickle`` every 0.1 s until the
    server answers; fails past :data:`PATIENCE`."""
    elapsed, answer, _ = closing(port, first, trickle)
    return elapsed, answer


def closing(port: int, first: bytes = b"", trickle: bytes = b"",
            ) -> tuple[float, bytes, float]:
    """:func:`until_closed`, and the seconds from the answer's first byte to the close."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as sock:
        started = answered = time.monotonic()
        if first:
            sock.sendall(first)
        answer = b""
        while time.monotonic() - started < PATIENCE:
            ready, _, _ = select.select([sock], [], [], 0.1)
            if ready:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                now = time.monotonic()
                if not chunk:
                    return now - started, answer, now - answered
                if not answer:
                    answered = now
                answer += chunk
            elif trickle and not answer:
                with contextlib.suppress(OSError):
                    sock.sendall(trickle)
    raise AssertionError(f"still open after {PATIENCE} s; received {answer[:200]!r}")


def test_a_slow_head_is_cut_at_the_header_timeout(tight: BackgroundServer,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """Half a head, then a header line every 0.1 s: 408 and closed once the head's
    deadline passes (trickling does not extend it)."""
    assert tight.server is not None and tight.server.http_port
    elapsed, answer = until_closed(
        tight.server.http_port, b"POST /furnace.v1.FurnaceService/ListGames HTTP/1.1\r\n"
        b"Host: a\r\n", trickle=b"X-Slow: 1\r\n")
    assert answer.startswith(b"HTTP/1.1 408 ") and elapsed >= TIMEOUT * 0.9
    # A connection that sends nothing is just closed.
    elapsed, answer = until_closed(tight.server.http_port)
    assert answer == b"" and elapsed >= TIMEOUT * 0.9
    assert_quiet(caplog)


def test_a_slow_body_is_cut_at_the_body_timeout(tight: BackgroundServer,
                                                caplog: pytest.LogCaptureFixture) -> None:
    assert tight.server is not None and tight.server.http_port
    elapsed, answer = until_closed(
        tight.server.http_port, b"POST /furnace.v1.FurnaceService/ListGames HTTP/1.1\r\n"
        b"Host: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        trickle=b" ")
    assert answer.startswith(b"HTTP/1.1 408 ") and elapsed >= TIMEOUT * 0.9
    # The server is fine, and a prompt body still answers.
    status, _, _ = post(url(tight, "ListGames"), b"{}")
    assert status == 200
    assert_quiet(caplog)


def test_an_idle_kept_alive_connection_is_closed(tight: BackgroundServer,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """After an answer, a kept-alive connection that sends nothing more is closed after
    the idle timeout (uvicorn's own default is 5 s)."""
    assert tight.server is not None and tight.server.http_port
    _, answer, idle = closing(
        tight.server.http_port, b"POST /furnace.v1.FurnaceService/ListGames HTTP/1.1\r\n"
        b"Host: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 200 ") and b"samara" in answer
    assert TIMEOUT * 0.9 <= idle < 4.5
    assert_quiet(caplog)


def test_a_grpc_connection_that_never_opens_http2_is_closed(tight: BackgroundServer) -> None:
    """The gRPC port: a connection that sends nothing, or half the HTTP/2 preface, is
    closed after the handshake timeout (gRPC's default is 120 s)."""
    for first in (b"", b"PRI * HTTP/2.0\r\n"):
        elapsed, _ = until_closed(tight.port, first)
        assert elapsed >= TIMEOUT * 0.9


# -- connection caps -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def capped() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(http_port=0, workers=1, http_max_connections=3,
                           grpc_max_connections=2)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


def assert_quiet(caplog: pytest.LogCaptureFixture) -> None:
    """No error nor traceback logged (asyncio's "Exception in callback" included), and
    one warning at most."""
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 1


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_past_the_http_connection_cap_new_connections_are_refused(
        capped: BackgroundServer, caplog: pytest.LogCaptureFixture) -> None:
    assert capped.server is not None and capped.server.http_server is not None
    door, port = capped.server.http_server, capped.server.http_port
    assert port
    kept = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)

    def call() -> int:
        kept.request("POST", "/furnace.v1.FurnaceService/ListGames", b"{}",
                      {"Content-Type": "application/json"})
        reply = kept.getresponse()
        reply.read()
        return reply.status

    assert call() == 200
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
    try:
        wait_for(lambda: door.connections == 3, "three connections open")
        # A fourth is refused at once: 503 (or reset, had its request come first).
        elapsed, answer = until_closed(port, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 503 ") or answer == b""
        assert elapsed < PATIENCE
        assert door.connections == 3
        # The connections already open still serve.
        assert call() == 200
        idle.pop().close()
        wait_for(lambda: door.connections == 2, "the closed connection forgotten")
        assert post(url(capped, "ListGames"), b"{}")[0] == 200
    finally:
        kept.close()
        for sock in idle:
            sock.close()
    assert_quiet(caplog)


def test_past_the_grpc_connection_cap_new_connections_are_closed(
        capped: BackgroundServer) -> None:
    with grpc.insecure_channel(capped.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        assert stub.ListGames(pb.ListGamesRequest(), timeout=PATIENCE).games
        with socket.create_connection(("127.0.0.1", capped.port), timeout=PATIENCE) as held:
            assert held.recv(9)  # the server's SETTINGS: the second connection is open
            elapsed, answer = until_closed(capped.port)  # the third is closed at once
            assert answer == b"" and elapsed < PATIENCE
            assert stub.ListGames(pb.ListGamesRequest(), timeout=PATIENCE).games


# -- gRPC connection lifetimes ------------------------------------------------------------------------
def test_connection_age_and_idleness_do_not_cut_calls() -> None:
    """A connection past its maximum age gets GOAWAY but its calls finish (the grace is
    the longest a call may run), and clients reconnect transparently after GOAWAY for
    age or idleness."""
    with BackgroundServer(workers=1, grpc_max_connection_age=0.3,
                          grpc_max_connection_idle=0.3) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        assert srv.server is not None
        assert srv.server.config.grpc_connection_age_grace() >= srv.server.config.max_time
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1),
                             timeout=PATIENCE).state
        started = time.monotonic()
        updates = list(stub.Analyze(pb.AnalyzeRequest(
            state=state, budget=pb.SearchBudget(time_limit_ms=1500), update_interval_ms=300),
            timeout=60))
        assert time.monotonic() - started >= 1.0  # past the connection's age
        assert updates[-1].final and updates[-1].analysis.iterations > 0
        for _ in range(3):
            time.sleep(0.5)  # idle past the limit
            assert stub.ListGames(pb.ListGamesRequest(), timeout=PATIENCE).games


def test_connection_settings_are_checked_and_become_grpc_options() -> None:
    options = dict(ServerConfig(workers=1).grpc_connection_options())
    assert options["grpc.server_handshake_timeout_ms"] == 20_000
    assert options["grpc.max_connection_age_grace_ms"] == (60 + 10 + 10) * 1000
    assert options["grpc.max_allowed_incoming_connections"] == 512
    off = dict(ServerConfig(workers=1, grpc_max_connection_age=0, grpc_max_connection_idle=0,
                            grpc_max_connections=0).grpc_connection_options())
    assert not {"grpc.max_connection_age_ms", "grpc.max_connection_idle_ms",
                "grpc.max_allowed_incoming_connections"} & set(off)
    for bad in ({"http_header_timeout": 0}, {"grpc_keepalive_time": -1},
                {"http_max_connections": -1}, {"grpc_max_connection_age": 3e6}):
        with pytest.raises(ValueError):
            ServerConfig(workers=1, **bad).check()


def test_a_client_that_reads_nothing_is_cut_at_the_send_timeout(
        tight: BackgroundServer, caplog: pytest.LogCaptureFixture) -> None:
    """A client asks for answers and reads none: once the connection's buffers are full,
    the server waits ``http_send_timeout`` and drops it (its call with it), instead of
    holding it, and the call's slot, for ever."""
    assert tight.server is not None and tight.server.http_server is not None
    door, port = tight.server.http_server, tight.server.http_port
    if static_file("app.js") is None:
        pytest.skip("the web table is not built in")
    wait_for(lambda: door.connections == 0, "the other tests' connections closed")
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /app.js HTTP/1.1\r\nHost: a\r\n\r\n" * 200)  # 25 MB of answers
        assert sock.recv(16).startswith(b"HTTP/1.1 200")  # then reads no more
        wait_for(lambda: door.connections == 0, "the stalled connection dropped")
    assert_quiet(caplog)


def test_furnace_serve_sets_the_connection_caps() -> None:
    parser = argparse.ArgumentParser(prog="furnace")
    cli.add_commands(parser.add_subparsers(dest="command", required=True))
    config = cli.config_from_args(parser.parse_args(
        ["serve", "--max-connections", "100", "--http-max-connections", "0"]))
    assert (config.grpc_max_connections, config.http_max_connections) == (100, 0)
    defaults = cli.config_from_args(parser.parse_args(["serve"]))
    assert defaults.grpc_max_connections == defaults.http_max_connections == 512
    with pytest.raises(ValueError, match="http_max_connections"):
        cli.config_from_args(parser.parse_args(["serve", "--http-max-connections", "-1"]))
