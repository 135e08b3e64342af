"""clients/ and load/ speak only the protocol: importing them never imports the engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = (
    "import sys\n"
    "{imports}\n"
    "leaked = sorted(m for m in sys.modules if m == 'engine' or m.startswith('engine.'))\n"
    "assert not leaked, leaked\n"
)


def _run(imports: str) -> None:
    result = subprocess.run([sys.executable, "-c", CHECK.format(imports=imports)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_clients_do_not_import_the_engine() -> None:
    _run("import clients, clients.cli, clients.play, clients.furnace_client")


def test_locustfile_imports_without_the_engine() -> None:
    _run("import importlib.util\n"
         "spec = importlib.util.spec_from_file_location('locustfile', 'load/locustfile.py')\n"
         "module = importlib.util.module_from_spec(spec)\n"
         "spec.loader.exec_module(module)\n"
         "assert hasattr(module, 'GrpcClient')\n"
         "if module.HAVE_LOCUST:\n"
         "    assert module.FurnacePlayer.abstract is False\n")


def test_no_engine_import_in_client_sources() -> None:
    """The clients and the locust file speak only the protocol (the load harness around
    the locust file samples its positions with the engine: a tool, not a client)."""
    for path in [*(ROOT / "clients").rglob("*.py"), ROOT / "load" / "locustfile.py"]:
        text = path.read_text()
        assert "import engine" not in text and "from engine" not in text, path
