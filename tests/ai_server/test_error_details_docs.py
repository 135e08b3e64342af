"""A non-Python client can find and decode the error details (issue 13, item 8).

docs/api.md says where the ``google/rpc`` protos come from and shows how to decode the
``grpc-status-details-bin`` trailer in Node.js and in Python; the Python snippet is run
against a live server here, the Node.js one is checked by ``node --check`` (running it
would need npm packages).  Reflection describes the ``google.rpc`` types, and every
file ``furnace.proto`` imports (``google/protobuf/struct.proto``), so a reflection
client can build the whole service.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import descriptor_pool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### Error details in other languages")
    return text[start:text.index("\n## ", start)]


def snippet(language: str) -> str:
    blocks = re.findall(rf"^```{language}\n(.*?)^```", section(), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, language
    return str(blocks[0])


def test_the_section_says_where_the_protos_come_from() -> None:
    text = section()
    for needle in ("grpc-status-details-bin", "google.rpc.Status", "google/rpc/status.proto",
                   "google/rpc/error_details.proto", "googleapis", "googleapis-common-protos",
                   "google-proto-files", "@grpc/grpc-js", "google.rpc.BadRequest",
                   "google.rpc.ErrorInfo", "google.rpc.RetryInfo"):
        assert needle in text, needle


def test_the_python_snippet_decodes_the_trailer(server) -> None:
    code = snippet("python").replace("localhost:50051", server.address)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/api.md (python snippet)", "exec"), {})
    printed = out.getvalue()
    assert "StatusCode.INVALID_ARGUMENT" in printed
    assert "google.rpc.BadRequest" in printed and 'field: "game"' in printed
    assert "google.rpc.ErrorInfo" in printed and 'reason: "UNKNOWN_GAME"' in printed


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_snippet_is_valid_javascript(tmp_path: Path) -> None:
    path = tmp_path / "details.js"
    path.write_text(snippet("js"), encoding="utf-8")
    result = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert 'metadata.get("grpc-status-details-bin")' in snippet("js")


@pytest.mark.parametrize("symbol,file", [
    ("google.rpc.Status", "google/rpc/status.proto"),
    ("google.rpc.BadRequest", "google/rpc/error_details.proto"),
    ("google.rpc.ErrorInfo", "google/rpc/error_details.proto"),
    ("google.rpc.RetryInfo", "google/rpc/error_details.proto"),
    ("google.protobuf.Struct", "google/protobuf/struct.proto"),
])
def test_reflection_describes_the_types(channel, symbol: str, file: str) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    assert database.FindFileContainingSymbol(symbol).name == file


def test_a_reflection_client_builds_the_service_with_its_imports(channel) -> None:
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    state = pool.FindMessageTypeByName("furnace.v1.GameState")
    assert state.fields_by_name["json_object"].message_type.full_name \
        == "google.protobuf.Struct"
    status = pool.FindMessageTypeByName("google.rpc.Status")
    assert status.fields_by_name["details"].message_type.full_name == "google.protobuf.Any"
