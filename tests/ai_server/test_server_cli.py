"""``furnace serve`` wiring: ai_server.cli.add_commands."""

from __future__ import annotations

import argparse

import pytest

from ai_server import cli


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="furnace")
    sub = parser.add_subparsers(dest="command", required=True)
    cli.add_commands(sub)
    return parser


def test_serve_defaults() -> None:
    args = _parser().parse_args(["serve"])
    assert args.func is cli.run_serve
    assert args.port == 50051 and args.host == "127.0.0.1"
    config = cli.config_from_args(args)
    assert config.workers >= 1


def test_serve_options() -> None:
    args = _parser().parse_args(["serve", "--port", "6000", "--workers", "3", "--max-queue", "2",
                                 "--max-iterations", "5000", "--max-time", "2.5",
                                 "--host", "0.0.0.0", "--grace", "1"])
    config = cli.config_from_args(args)
    assert (config.workers, config.max_queue, config.max_iterations) == (3, 2, 5000)
    assert config.max_time == 2.5 and config.grace == 1
    assert config.default_iterations <= 5000


@pytest.mark.parametrize("argv", [["serve", "--workers", "0"], ["serve", "--port", "70000"],
                                  ["serve", "--max-time", "-1"], ["serve", "--max-queue", "-2"]])
def test_bad_serve_settings_exit_2(argv, capsys) -> None:
    args = _parser().parse_args(argv)
    assert args.func(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("furnace serve: error:") and "\n" not in err


def test_port_in_use_exits_2(capsys) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        args = _parser().parse_args(["serve", "--port", str(port), "--workers", "1"])
        assert args.func(args) == 2
    err = capsys.readouterr().err
    assert "cannot listen" in err
