"""The committed bundle (ai_server/web/static/app.js) is web/src built as web/build.sh
builds it: a change to web/src (the review panel, the boards...) must ship rebuilt.

Runs where web/node_modules is installed (``cd web && npm ci``): it regenerates the
TypeScript client from the .proto, type-checks, and bundles into a temporary file with
package.json's own esbuild command; skipped elsewhere (nothing is fetched).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
BUNDLE = WEB.parent / "ai_server" / "web" / "static" / "app.js"

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None or not (WEB / "node_modules" / ".bin" / "esbuild").exists(),
    reason="needs Node.js and web/node_modules (cd web && npm ci)")


def run(*command: str) -> None:
    done = subprocess.run(command, cwd=WEB, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_committed_bundle_is_web_src_built(tmp_path: Path) -> None:
    scripts = json.loads((WEB / "package.json").read_text())["scripts"]
    run("npm", "run", "--silent", "generate")
    run("npm", "run", "--silent", "typecheck")
    bundle = shlex.split(scripts["bundle"])
    assert bundle[0] == "esbuild" and bundle[-1].startswith("--outfile=")
    built = tmp_path / "app.js"
    run(str(WEB / "node_modules" / ".bin" / "esbuild"), *bundle[1:-1], f"--outfile={built}")
    assert built.read_bytes() == BUNDLE.read_bytes(), (
        "ai_server/web/static/app.js is not web/src built: run web/build.sh and commit it")
