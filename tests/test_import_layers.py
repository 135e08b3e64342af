"""The packages show the layers (issue 13, item 2): ``lint-imports`` keeps the contracts
of ``[tool.importlinter]`` in pyproject.toml.

* ``engine`` imports none of ``ai_server``, ``clients``, ``furnace_cli``, ``furnace_proto``;
* ``furnace_proto`` (the generated stubs) imports nothing of ours;
* ``clients`` import neither ``ai_server`` nor ``engine`` (only ``furnace_proto``);
* ``ai_server`` imports neither ``furnace_cli`` nor ``clients`` (but in the listed
  client-side tools, ``furnace fuzz-server`` and ``furnace loadtest``);
* ``furnace_cli``, the ``furnace`` application, may import them all.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept() -> None:
    # import-linter is a dev dependency: missing, this fails rather than skips.
    lint_imports = Path(sys.executable).with_name("lint-imports")
    command = str(lint_imports) if lint_imports.exists() else shutil.which("lint-imports")
    assert command, "import-linter is not installed: pip install -e '.[dev]'"
    result = subprocess.run([command, "--no-cache"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


def test_the_cli_is_the_application_layer() -> None:
    """The console script is ``furnace_cli:main``, and the old homes are gone."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'furnace = "furnace_cli:main"' in text
    assert not (ROOT / "engine" / "cli" / "__init__.py").exists()
    assert not (ROOT / "ai_server" / "proto_gen" / "__init__.py").exists()
