"""Helpers shared by the client tests (plain functions, no fixtures)."""

from __future__ import annotations

import argparse
import io

from clients import cli


def run(argv: list[str], address: str | None, capsys, stdin: str | None = None,
        monkeypatch=None) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="furnace")
    sub = parser.add_subparsers(dest="command", required=True)
    cli.add_commands(sub)
    if address is not None:
        argv = [*argv, "--server", address]
    args = parser.parse_args(["client", *argv])
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err
