"""The TypeScript client (clients/node) against a real server: its example plays a whole
game of Samara with NewGame/BestMove/ApplyMove and decodes an error's details.

Needs ``node`` and ``clients/node/node_modules`` (``npm ci`` in clients/node, which
.ci/run does); the example is built (``npm run build``) here when its output is missing
or older than its sources or the .proto.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"
EXAMPLE = NODE_DIR / "dist" / "examples" / "play-samara.js"
PROTO = NODE_DIR.parents[1] / "proto" / "furnace" / "v1" / "furnace.proto"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not (NODE_DIR / "node_modules").is_dir(),
                       reason="clients/node/node_modules is absent: run `npm ci` in clients/node"),
]


def _sources() -> list[Path]:
    return [PROTO, NODE_DIR / "package.json", NODE_DIR / "tsconfig.json",
            *(NODE_DIR / "src").rglob("*.ts"), *(NODE_DIR / "proto").rglob("*.proto")]


@pytest.fixture(scope="module")
def example() -> Path:
    built = EXAMPLE.stat().st_mtime if EXAMPLE.exists() else None
    if built is None or any(p.stat().st_mtime > built for p in _sources()
                            if "src/gen/" not in p.as_posix()):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to build clients/node (node is installed)")
        done = subprocess.run([npm, "run", "build"], cwd=NODE_DIR, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    assert EXAMPLE.exists()
    return EXAMPLE


def run_example(example: Path, address: str, *extra: str) -> tuple[dict, str]:
    done = subprocess.run(["node", str(example), "--server", address, "--seed", "7", *extra],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0].removeprefix("RESULT ")), done.stdout


def check_error_details(error: dict, out: str) -> None:
    # The illegal move's INVALID_ARGUMENT, decoded from grpc-status-details-bin.
    assert error["code"] == "INVALID_ARGUMENT"
    assert error["message"].startswith("illegal move 'build r1c1 1+2+3'")
    assert error["fieldViolations"] == [{"field": "move", "description": error["message"]}]
    assert (error["reason"], error["domain"]) == ("ILLEGAL_MOVE", "furnace.v1")
    assert "BadRequest field violation: field=move description=illegal move" in out
    assert "ErrorInfo: reason=ILLEGAL_MOVE domain=furnace.v1" in out


def test_bot_plays_both_seats_to_the_end(example: Path, address: str) -> None:
    result, out = run_example(example, address, "--iterations", "20")
    assert result["terminal"] is True and result["moves"] > 20
    assert len(result["scores"]) == 2
    assert sorted(seat for place in result["ranking"] for seat in place) == [0, 1]
    assert "Game over after" in out and "P1 (seat 0): " in out and "P2 (seat 1): " in out
    check_error_details(result["error"], out)


def test_random_stand_in_for_the_second_seat(example: Path, address: str) -> None:
    from clients.furnace_client import FurnaceClient

    result, out = run_example(example, address, "--iterations", "20", "--opponent", "random")
    assert result["terminal"] is True
    check_error_details(result["error"], out)
    # Replaying the moves the example printed ("  12 P2 (seat 1): wait") through the
    # Python client ends the same game with the same scores.
    moves = [re.fullmatch(r"\s*\d+ P(\d) \(seat (\d)\): (.+)", line)
             for line in out.splitlines()]
    played = [(int(m[2]), m[3]) for m in moves if m]
    assert len(played) == result["moves"]
    assert all(int(m[1]) == int(m[2]) + 1 for m in moves if m)
    with FurnaceClient(address) as client:
        reply = client.new_game("samara", 2, seed=7)
        state = reply.state
        for seat, text in played:
            reply = client.apply_move(state, text, seat=seat)
            state = reply.state
        assert reply.status.terminal
        assert list(reply.status.scores) == result["scores"]


def test_the_commands_docs_api_md_gives_are_these(example: Path, address: str) -> None:
    """docs/api.md's block for the example: the build CI runs (.ci/run), then the example
    as written (its address this server's), played to the end."""
    doc = (NODE_DIR.parents[1] / "docs" / "api.md").read_text()
    block = re.search(r"^```sh\ncd clients/node && npm ci && npm run build\n(?P<run>node [^\n]+)\n```",
                      doc, re.MULTILINE)
    assert block is not None
    words = block.group("run").replace("localhost:50051", address).split()
    assert words[1] == "dist/examples/play-samara.js"
    done = subprocess.run(["node", str(example), *words[2:]], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Game over after" in done.stdout
