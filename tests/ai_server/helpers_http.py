"""Plain HTTP calls to the server's HTTP door, as curl or a browser makes them."""

from __future__ import annotations

import base64
import json
import ssl
import struct
import urllib.error
import urllib.request
from typing import Any

from google.rpc import error_details_pb2

from ai_server.server import BackgroundServer

SERVICE = "/furnace.v1.FurnaceService/"


def url(srv: BackgroundServer, method: str, scheme: str = "http") -> str:
    assert srv.server is not None and srv.server.http_port
    return f"{scheme}://127.0.0.1:{srv.server.http_port}{SERVICE}{method}"


def post(address: str, body: bytes, content_type: str = "application/json",
         headers: dict[str, str] | None = None, context: ssl.SSLContext | None = None,
         timeout: float = 120.0) -> tuple[int, dict[str, str], bytes]:
    """HTTP status, headers (lower-case names) and body of a POST (errors included)."""
    request = urllib.request.Request(address, data=body, method="POST",
                                     headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def call_json(srv: BackgroundServer, method: str, message: dict[str, Any],
              **kwargs: Any) -> tuple[int, dict[str, Any]]:
    status, _, body = post(url(srv, method), json.dumps(message).encode(), **kwargs)
    return status, json.loads(body)


def details_of(error: dict[str, Any]) -> dict[str, Any]:
    """The decoded details of a Connect error JSON, by type name."""
    types = {"google.rpc.BadRequest": error_details_pb2.BadRequest,
             "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo,
             "google.rpc.RetryInfo": error_details_pb2.RetryInfo}
    found = {}
    for detail in error.get("details", []):
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        found[detail["type"]] = types[detail["type"]].FromString(value)
    return found


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def frames(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, data) envelopes of a streamed body (Connect streaming, gRPC-Web)."""
    out, at = [], 0
    while at < len(body):
        flags, size = struct.unpack(">BI", body[at:at + 5])
        out.append((flags, body[at + 5:at + 5 + size]))
        at += 5 + size
    return out


def grpc_web_trailers(data: bytes) -> dict[str, str]:
    lines = data.decode().strip().split("\r\n")
    return {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
