"""The committed stubs are exactly what scripts/gen_protos.py generates, and import cleanly."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_protos", ROOT / "scripts" / "gen_protos.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_stubs_match_a_fresh_run() -> None:
    from grpc_tools import grpc_version

    import furnace_proto

    if grpc_version.VERSION != furnace_proto.GRPC_TOOLS_VERSION:
        pytest.skip(f"stubs were generated with grpcio-tools {furnace_proto.GRPC_TOOLS_VERSION}, "
                    f"{grpc_version.VERSION} is installed")
    problems = _load_generator().check()
    assert problems == [], "run python scripts/gen_protos.py: " + "; ".join(problems)


def test_generator_check_command() -> None:
    from grpc_tools import grpc_version

    import furnace_proto

    if grpc_version.VERSION != furnace_proto.GRPC_TOOLS_VERSION:
        pytest.skip("different grpcio-tools version")
    result = subprocess.run([sys.executable, "scripts/gen_protos.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout


def test_stubs_import_without_the_engine() -> None:
    code = (
        "import sys\n"
        "from furnace_proto.furnace.v1 import furnace_pb2, furnace_pb2_grpc\n"
        "assert furnace_pb2.DESCRIPTOR.name == 'furnace/v1/furnace.proto'\n"
        "assert hasattr(furnace_pb2_grpc, 'FurnaceServiceStub')\n"
        "assert not any(m == 'engine' or m.startswith('engine.') for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_proto_follows_buf_conventions() -> None:
    from furnace_proto.furnace.v1 import furnace_pb2 as pb

    service = pb.DESCRIPTOR.services_by_name["FurnaceService"]
    assert pb.DESCRIPTOR.package == "furnace.v1"
    for method in service.methods:
        assert method.input_type.name == f"{method.name}Request"
        assert method.output_type.name == f"{method.name}Response"
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        zero = enum.values_by_number[0].name
        assert zero.endswith("_UNSPECIFIED"), zero
