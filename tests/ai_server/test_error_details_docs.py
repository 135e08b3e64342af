"""A non-Python client can find and decode the error details (issue 13, item 8).

docs/api.md says where the ``google/rpc`` protos come from and shows how to decode the
``grpc-status-details-bin`` trailer in Node.js and in Python; the Python snippet is run
against a live server here, the Node.js one is checked by ``node --check`` (running it
would need npm packages).  Reflection describes the ``google.rpc`` types, and every
file ``furnace.proto`` imports (``google/protobuf/struct.proto``), so a reflection
client can build the whole service.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
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


# -- every reason the server sends is in the reasons table ----------------------------------

ROOT = DOC.parents[1]
#: Modules whose constants are reasons, by the name the server's code imports them as.
_REASON_MODULES = {"errors": "ai_server.errors", "wire": "ai_server.wire",
                   "security": "ai_server.security"}
#: The calls that make an error answer, and the position of their ``reason`` argument.
_MAKERS = {"invalid": 2, "precondition": 2, "RequestError": None}


def _constants(tree: ast.Module, module: str) -> dict[str, str | ast.expr]:
    """The ALL_CAPS constants a module defines (strings, or the expression of a table
    of them) or imports, by name."""
    found: dict[str, str | ast.expr] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id.isupper():
                value = node.value
                found[target.id] = (value.value if isinstance(value, ast.Constant)
                                    and isinstance(value.value, str) else value)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ai_server"):
            source = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(source, alias.name, None)
                if alias.name.isupper() and isinstance(value, str):
                    found[alias.asname or alias.name] = value
    return found


def _reasons_of(expr: ast.expr, scope: ast.AST, constants: dict[str, str | ast.expr]
                ) -> set[str]:
    """The reasons ``expr`` may hold: a string, a constant it names (``errors.X``,
    ``X``, a table of them), either branch of a conditional, and the values assigned
    to a variable it names in its function ``scope``."""
    def of(node: ast.expr) -> set[str]:
        return _reasons_of(node, scope, constants)

    if isinstance(expr, ast.Constant):
        return {expr.value} if isinstance(expr.value, str) else set()
    if isinstance(expr, ast.Attribute):
        module = _REASON_MODULES.get(getattr(expr.value, "id", ""))
        return {getattr(importlib.import_module(module), expr.attr)} if module else set()
    if isinstance(expr, ast.Name) and expr.id.isupper():
        value = constants[expr.id]
        return {value} if isinstance(value, str) else of(value)
    if isinstance(expr, ast.Name):
        return {r for node in ast.walk(scope) if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets)
                for r in of(node.value)}
    if isinstance(expr, ast.IfExp):
        return of(expr.body) | of(expr.orelse)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return {r for item in expr.elts for r in of(item)}
    if isinstance(expr, ast.Call):  # next((r for ... in TABLE), DEFAULT)
        return {r for arg in expr.args for r in of(arg)}
    if isinstance(expr, ast.GeneratorExp):
        return {r for gen in expr.generators for r in of(gen.iter)}
    return set()


def reasons_sent() -> dict[str, set[str]]:
    """Every ErrorInfo reason the server's code gives an error answer, with where."""
    sent: dict[str, set[str]] = {}
    for path in sorted((ROOT / "ai_server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        constants = _constants(tree, module)
        for scope in ast.walk(tree):
            if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call):
                    continue
                name = getattr(call.func, "id", getattr(call.func, "attr", ""))
                if name not in _MAKERS:
                    continue
                where = f"{path.relative_to(ROOT)}:{call.lineno}"
                position = _MAKERS[name]
                expr = next((k.value for k in call.keywords if k.arg == "reason"), None)
                if expr is None and position is not None and len(call.args) > position:
                    expr = call.args[position]
                assert expr is not None, f"{where}: an error answer without a reason"
                arguments = scope.args.args + scope.args.kwonlyargs
                if isinstance(expr, ast.Name) and expr.id in {a.arg for a in arguments}:
                    continue  # a reason handed on: its callers' calls are read
                reasons = _reasons_of(expr, scope, constants)
                assert reasons, f"{where}: cannot tell the reason of {ast.unparse(expr)}"
                for reason in reasons:
                    sent.setdefault(reason, set()).add(where)
    return sent


def test_the_reasons_table_lists_every_reason_the_server_sends() -> None:
    """Issue 38: an unknown enum number (state_format) was refused with reason
    INVALID_ARGUMENT, which the table does not list."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("| reason | when |")
    table = text[start:text.index("\n\n", start)]
    first_cells = [row.strip().strip("|").split("|")[0] for row in table.splitlines()[2:]]
    listed = set(re.findall(r"`([A-Z_]+)`", "\n".join(first_cells)))
    sent = reasons_sent()
    assert len(sent) >= 25 and "INVALID_STATE" in sent and "TOO_MANY_CALLS" in sent, sorted(sent)
    missing = {reason: sorted(where) for reason, where in sent.items() if reason not in listed}
    assert not missing, missing
