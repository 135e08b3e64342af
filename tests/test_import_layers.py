"""The packages show the layers (issues 13 and 26): ``lint-imports`` keeps the contracts
of ``[tool.importlinter]`` in pyproject.toml, with no import let through.

* the product (``engine``, ``ai_server``, ``clients``, ``furnace_proto``) imports no tool
  (``load``, ``fuzzers``, ``checks``, ``tournaments``) and not the CLI;
* ``engine`` imports none of ``ai_server``, ``clients``, ``furnace_proto``;
* ``furnace_proto`` (the generated stubs) imports nothing of ours;
* ``clients`` import neither ``ai_server`` nor ``engine`` (only ``furnace_proto``);
* ``ai_server`` does not import ``clients``;
* the games are independent of each other, and search imports no game;
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
    kept = int(result.stdout.rsplit("Contracts: ", 1)[1].split(" kept")[0])
    assert kept >= 7, result.stdout


def test_no_import_is_let_through() -> None:
    """Every contract holds whole: none lists imports it ignores."""
    text = (ROOT / "pyproject.toml").read_text()
    assert "ignore_imports" not in text


def test_tools_live_above_the_product() -> None:
    """The load harness, the fuzzers, the checks and the tournaments have packages of
    their own; their old homes inside the product are gone."""
    for package in ("load", "fuzzers", "checks", "tournaments"):
        assert (ROOT / package / "__init__.py").exists(), package
    for old in ("ai_server/loadtest", "ai_server/fuzz.py", "ai_server/fuzz_positions",
                "engine/fuzz.py", "engine/kernelcheck.py", "engine/search/arena.py",
                "engine/search/ladder.py", "engine/search/ratings.py"):
        assert not (ROOT / old).exists(), old


def test_the_cli_is_the_application_layer() -> None:
    """The console script is ``furnace_cli:main``, and the old homes are gone."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'furnace = "furnace_cli:main"' in text
    assert not (ROOT / "engine" / "cli" / "__init__.py").exists()
    assert not (ROOT / "ai_server" / "proto_gen" / "__init__.py").exists()
