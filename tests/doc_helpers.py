"""What the tests of the docs share: furnace command lines read by furnace's own
parser, and the scripts that write parts of the docs (tests/test_doc_blocks.py,
tests/test_doc_defaults.py, tests/test_doc_figures.py)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from furnace_cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
#: Every document whose blocks, tables and figures the doc tests read.
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def command_lines(code: str) -> Iterator[str]:
    """The command lines of a shell block: continuations joined, prompts and comments
    dropped, optional parts (``[--seed N]``) left out."""
    code = re.sub(r"\\\n\s*", " ", code)
    for raw in code.split("\n"):
        line = raw.strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\s+\[[^\]]*\]", "", line)
        yield line


class Refused(Exception):
    """furnace's argument parser refused a command line (its message)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise Refused(message)


def parse_furnace(argv: list[str]) -> argparse.Namespace:
    """``argv`` (the words after ``furnace``) read by furnace's own parser; raises
    :class:`Refused` where the command line would exit with a usage error."""
    parser = build_parser()
    # argparse exits on a bad argument; make every parser of the tree raise instead.
    stack: list[argparse.ArgumentParser] = [parser]
    while stack:
        p = stack.pop()
        p.__class__ = _Parser
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
    with contextlib.redirect_stderr(io.StringIO()):
        return parser.parse_args(argv)


def bot_problem(spec: str) -> str | None:
    """Why ``make_bot`` refuses a bot spec a command names, or None (a model or prior
    file a block's earlier command writes, ``model=new.json``, ``mp=prior.json``, need not
    exist here)."""
    from engine.search.bots import BotSpecError, make_bot

    try:
        make_bot(spec)
    except BotSpecError as exc:
        written = "model=" in spec or "mp=" in spec
        if not written or "No such file" not in str(exc):
            return f"bot {spec!r}: {exc}"
    return None


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module (scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
