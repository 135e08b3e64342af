"""docs/api.md stays true: its grpcurl payloads parse, error detail types are reflected."""

from __future__ import annotations

import re
from pathlib import Path

from google.protobuf import json_format
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from furnace_proto.furnace.v1 import furnace_pb2 as pb

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
CALL = re.compile(r"grpcurl[^\n]*?-d '(?P<body>[^']*)'[^\n]*?(?P<method>[\w.]+/\w+)")


def test_static_grpcurl_payloads_parse() -> None:
    text = DOC.read_text().replace("\\\n", " ")
    calls = list(CALL.finditer(text))
    assert len(calls) >= 3
    for call in calls:
        service, method = call.group("method").rsplit("/", 1)
        if service != "furnace.v1.FurnaceService":
            continue
        request_type = getattr(pb, f"{method}Request")
        json_format.Parse(call.group("body"), request_type())


def test_every_rpc_is_documented() -> None:
    text = DOC.read_text()
    for method in pb.DESCRIPTOR.services_by_name["FurnaceService"].methods:
        assert f"`{method.name}`" in text, method.name


def test_error_detail_types_resolve_through_reflection(channel) -> None:
    """grpcurl decodes BadRequest/ErrorInfo details by asking reflection for their types."""
    database = ProtoReflectionDescriptorDatabase(channel)
    for symbol in ("google.rpc.BadRequest", "google.rpc.ErrorInfo"):
        assert database.FindFileContainingSymbol(symbol).name == "google/rpc/error_details.proto"
