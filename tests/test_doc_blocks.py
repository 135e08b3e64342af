"""Every code block in README.md and docs/ is run by the suite, or says why not.

An integrator copies a block and expects it to work, so each block is one of:

* a tagged example that a test runs in its own way, known by its info string
  (:data:`TAGGED`: docs/api.md's ```` ```json rpc:… ```` requests and answers,
  the sealed-state walk-through, the curl examples);
* a block with a ``<!-- runs: RUNNER -->`` comment on the line before it, where RUNNER
  is a runner of this file (:data:`RUNNERS`) or the path of the test file that runs it
  (which must name the document);
* a block with a ``<!-- not run: REASON -->`` comment: output shown, a diagram, a
  synopsis, or a command that needs what a test machine has not (another host, a
  cluster, Docker).

A block with none of these fails :func:`test_every_block_has_a_runner_or_a_reason`,
so a new block needs a test before it lands.  Blocks are fenced (```` ``` ````) or
indented by four spaces after a blank line (outside lists).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.doc_helpers import (
    DOCUMENTS,
    ROOT,
    Refused,
    bot_problem,
    command_lines,
    parse_furnace,
)

MARKER = re.compile(r"^<!--\s*(?P<kind>runs|not run):\s*(?P<text>.+?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>```+)(?P<info>[^\n`]*)$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")

#: Tagged examples and the test that runs them (it must mention the tag).
TAGGED = {
    r"json (rpc:\w+|reply|stream|error)": "tests/ai_server/test_api_examples.py",
    r"json sealed-(rpc:\w+|reply|error)": "tests/ai_server/test_sealing.py",
    r"(sh curl|json curl-reply)": "tests/ai_server/test_http_door.py",
}
#: What a block's own runners check (the marker names one).
RUNNERS = {
    "python": "run as a script; a server it talks to on localhost:50051 is a live one",
    "cli": "every `furnace` command line is read by furnace's own argument parser, and "
           "the bots it names are made",
    "node": "run by node from the repository root with the packages the block names "
            "(tests/doc_node, installed by .ci/run); a server on localhost:50051 is a live one",
    "state-json": "a GameState in protobuf's JSON mapping: a live server lists its legal moves",
}
NODE_PACKAGES = ROOT / "tests" / "doc_node" / "node_modules"
#: A block's program may not take longer (it controls this bound: a deadline it is
#: given, not a guess at the machine's speed; the searches in the examples are small).
PROGRAM_DEADLINE = 600.0
DOC_ADDRESS = "localhost:50051"
#: Programs other than furnace that a `cli` block may name, and why they are not run.
OTHER_PROGRAMS = {
    "grpcurl": "not installed here; its payloads are parsed by tests/ai_server/test_server_docs.py",
    "kubectl": "needs a Kubernetes cluster",
    "shred": "deletes a key file the block made",
}


@dataclass(frozen=True)
class Block:
    document: Path
    line: int  # of the block's first line of code
    info: str
    code: str
    marker: tuple[str, str] | None  # (kind, text) of the comment before it

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def blocks(document: Path) -> Iterator[Block]:
    """The code blocks of one markdown document, in order."""
    lines = document.read_text().split("\n")
    i = 0
    in_list = False
    previous = ""  # the last non-blank line before the current one
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and lines[end].strip() != fence.group("fence"):
                end += 1
            yield Block(document, i + 2, fence.group("info").strip(),
                        "\n".join(lines[i + 1:end]) + "\n", _marker(previous))
            previous, i = lines[min(end, len(lines) - 1)], end + 1
            continue
        if (line.startswith("    ") and line.strip() and not in_list
                and i > 0 and not lines[i - 1].strip()):
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            code = "\n".join(text[4:] for text in lines[i:end]).strip("\n") + "\n"
            yield Block(document, i + 1, "", code, _marker(previous))
            previous, i = lines[end - 1], end
            continue
        if line.strip():
            in_list = bool(LIST_ITEM.match(line)) or (in_list and line.startswith(" "))
            previous = line
        i += 1


def _marker(line: str) -> tuple[str, str] | None:
    found = MARKER.match(line.strip())
    return (found.group("kind"), found.group("text")) if found else None


def all_blocks() -> list[Block]:
    return [block for document in DOCUMENTS for block in blocks(document)]


def _tag_runner(block: Block) -> str | None:
    for pattern, test in TAGGED.items():
        if re.fullmatch(pattern, block.info):
            return test
    return None


def _marked(runner: str) -> list[Block]:
    return [b for b in all_blocks() if b.marker == ("runs", runner)]


# -- every block is accounted for -------------------------------------------------------------

def test_every_block_has_a_runner_or_a_reason() -> None:
    problems = []
    counts: dict[str, int] = {}
    for block in all_blocks():
        tagged = _tag_runner(block)
        if tagged is not None:
            if block.marker is not None:
                problems.append(f"{block.where}: a tagged example needs no marker")
            key = tagged
        elif block.marker is None:
            problems.append(f"{block.where}: a block with neither a runner "
                            "(<!-- runs: ... -->) nor a reason (<!-- not run: ... -->)")
            continue
        elif block.marker[0] == "not run":
            key = "not run"
        else:
            key = block.marker[1]
            if key not in RUNNERS:
                test = ROOT / key
                if not (key.startswith("tests/") and test.is_file()):
                    problems.append(f"{block.where}: no runner or test file {key!r}")
                elif block.document.name not in test.read_text():
                    problems.append(f"{block.where}: {key} does not name "
                                    f"{block.document.name}")
        counts[key] = counts.get(key, 0) + 1
    assert not problems, "\n".join(problems)
    assert counts.get("python", 0) >= 5 and counts.get("cli", 0) >= 10, counts


def test_tagged_examples_are_read_by_their_tests() -> None:
    for pattern, test in TAGGED.items():
        text = (ROOT / test).read_text()
        for word in re.findall(r"[a-z]+(?:-[a-z]+)+|rpc:", pattern):
            assert word in text, (test, word)


def test_the_collector_finds_fenced_and_indented_blocks(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Text.\n\n<!-- runs: cli -->\n```sh\nfurnace games\n```\n\n"
                   "- a list item\n\n    continued, not code\n\n"
                   "Para.\n\n<!-- not run: a diagram -->\n\n    a --> b\n")
    found = list(blocks(doc))
    assert [(b.line, b.info, b.code, b.marker) for b in found] == [
        (5, "sh", "furnace games\n", ("runs", "cli")),
        (16, "", "a --> b\n", ("not run", "a diagram")),
    ]


# -- runner: cli ----------------------------------------------------------------------------

@pytest.mark.parametrize("block", _marked("cli"), ids=lambda b: b.where)
def test_cli_blocks_parse(block: Block) -> None:
    """Each `furnace` command of the block is one the command line accepts (the
    commands are benchmarks, servers and games: what they print is checked by their
    own tests; here, that no flag or subcommand in the docs is stale)."""
    checked = 0
    for line in command_lines(block.code):
        words = shlex.split(line, comments=True)
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words.pop(0)  # VAR=value before the command
        if words[:1] == ["export"]:
            continue
        if words[:3] in (["python", "-m", "ai_server"], ["python", "-m", "furnace_cli"]):
            words = ["furnace", *words[3:]]
        if words[:3] == ["python", "-m", "clients"]:
            words = ["furnace", "client", *words[3:]]
        for cut in ("|", ">", "&&", ";"):
            if cut in words:
                words = words[:words.index(cut)]
        if words and words[0] in OTHER_PROGRAMS:
            continue
        assert words and words[0] == "furnace", f"{block.where}: not a furnace command: {line}"
        try:
            parse_furnace(words[1:])
        except Refused as exc:
            pytest.fail(f"{block.where}: `{line}` is refused: {exc}")
        if "--bots" in words:
            for spec in words[words.index("--bots") + 1].split(","):
                _check_bot(spec, block)
        checked += 1
    assert checked, f"{block.where}: no command in the block"


def _check_bot(spec: str, block: Block) -> None:
    """A bot a command names is one ``make_bot`` makes."""
    problem = bot_problem(spec)
    if problem is not None:
        pytest.fail(f"{block.where}: {problem}")


def test_cli_runner_refuses_a_stale_flag() -> None:
    with pytest.raises(Refused, match="--no-such-flag"):
        parse_furnace(["games", "--no-such-flag"])
    with pytest.raises(Refused, match="invalid choice"):
        parse_furnace(["no-such-command"])
    parse_furnace(["arena", "samara", "--players", "2", "--bots", "mcts:20,greedy"])
    with pytest.raises(pytest.fail.Exception, match="no-such-bot"):
        _check_bot("no-such-bot", all_blocks()[0])


# -- runner: python -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server_address() -> Iterator[str]:
    from ai_server.server import BackgroundServer

    with BackgroundServer(workers=2) as server:
        yield server.address


def _run(argv: list[str], cwd: Path, env: dict[str, str], block: Block) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=PROGRAM_DEADLINE)
    assert done.returncode == 0, f"{block.where}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.parametrize("block", _marked("python"), ids=lambda b: b.where)
def test_python_blocks_run(block: Block, server_address: str, tmp_path: Path) -> None:
    """The block runs as a script in a fresh interpreter; the server it talks to on
    localhost:50051 is a live one (whose address replaces that one)."""
    script = tmp_path / "example.py"
    script.write_text(block.code.replace(DOC_ADDRESS, server_address))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    _run([sys.executable, str(script)], tmp_path, env, block)


# -- runner: node ---------------------------------------------------------------------------

@pytest.mark.parametrize("block", _marked("node"), ids=lambda b: b.where)
def test_node_blocks_run(block: Block, server_address: str, tmp_path: Path) -> None:
    if shutil.which("node") is None or not NODE_PACKAGES.is_dir():
        pytest.skip("node, or the examples' packages (cd tests/doc_node && npm ci), missing")
    script = tmp_path / "example.js"
    script.write_text(block.code.replace(DOC_ADDRESS, server_address))
    output = _run(["node", str(script)], ROOT, {**os.environ, "NODE_PATH": str(NODE_PACKAGES)},
                  block)
    assert output.strip(), f"{block.where}: printed nothing"


# -- runner: state-json ---------------------------------------------------------------------

@pytest.mark.parametrize("block", _marked("state-json"), ids=lambda b: b.where)
def test_state_json_blocks_are_positions(block: Block, server_address: str) -> None:
    import grpc
    from google.protobuf import json_format

    from furnace_proto.furnace.v1 import furnace_pb2 as pb
    from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

    state = json_format.Parse(block.code, pb.GameState())
    with grpc.insecure_channel(server_address) as channel:
        reply = pb_grpc.FurnaceServiceStub(channel).LegalMoves(
            pb.LegalMovesRequest(state=state), timeout=PROGRAM_DEADLINE)
    assert reply.moves, f"{block.where}: no legal move"
