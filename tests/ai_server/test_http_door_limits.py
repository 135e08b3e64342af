"""The HTTP door and the gRPC port against hostile clients (issue 22, item 3).

Wrong content types, malformed gRPC-Web and Connect envelopes, slow heads and bodies,
idle connections, too many connections, and HTTP/2 openings that never complete: each
is answered with the protocol's error or closed, without tracebacks in the logs.
"""

from __future__ import annotations

import logging
import socket
import struct
import urllib.parse
from collections.abc import Iterator

import grpc
import pytest

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.conftest import TEST_SETTINGS
from tests.ai_server.test_http_door import frames, grpc_web_trailers, post, url

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
