"""``furnace play`` driven by a script of typed lines, for the command-line tests."""

from __future__ import annotations

import argparse

from furnace_cli import build_parser
from furnace_cli.play import play_local


def play_scripted(argv: list[str], lines: list[str]) -> list[str]:
    """What ``furnace play ARGV`` prints while a player types ``lines`` (then end of input)."""
    args = build_parser().parse_args(["play", *argv])
    assert isinstance(args, argparse.Namespace)
    feed = iter(lines)
    printed: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    assert play_local(args, input_fn=read, output=printed.append) == 0
    return printed
