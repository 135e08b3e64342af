"""``furnace client ...``: command-line access to a Furnace server (protocol only).

The ``furnace`` main calls :func:`add_commands` with its subparsers;
``python -m clients ...`` works without it.  Every sub-command takes
``--server HOST:PORT``.  Positions come from ``--state FILE`` (``-`` for stdin: the
game's JSON state, as ``new-game``/``apply-move`` print it, or a game record file as
``furnace play``'s ``save`` and ``furnace selfplay --save`` write it) or from a new game
(``--game NAME --players N --seed S [--option NAME=VALUE]``).  ``--observer SEAT``
asks as that seat (``GameState.observer_seat``): renders, records and move lists
show only what it sees; without it the answers are the host's (every hand).

A hosted server (docs/api.md, "Hosting"): ``--tls`` (``--ca-cert FILE`` to trust
a private CA), ``--client-cert FILE --client-key FILE`` for mutual TLS, and a bearer
token from ``--token`` or, better (command lines are visible to other users), the
``FURNACE_TOKEN`` environment variable.  ``furnace play --server`` takes the same
(:func:`add_connection_arguments`, added by the ``furnace`` main, :mod:`furnace_cli`).

Exit codes: 0 success; 1 the server could not be reached or failed, refused the
credentials, or ``check-move`` found the move illegal; 2 bad input (usage,
unreadable state, INVALID_ARGUMENT / FAILED_PRECONDITION / OUT_OF_RANGE from the
server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import grpc

from clients.furnace_client import (
    DEFAULT_ADDRESS,
    LOAD_BALANCING_POLICIES,
    FurnaceClient,
    OptionLike,
    describe_error,
    make_move,
    make_state,
    seat_label,
    state_json,
    to_json,
)
from furnace_proto.furnace.v1 import furnace_pb2 as pb

#: Environment variable holding the bearer token (``--token`` overrides it).
TOKEN_ENV = "FURNACE_TOKEN"

#: Server answers that mean the request itself was wrong (exit code 2).
BAD_INPUT_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.OUT_OF_RANGE,
}


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit code 2."""


Handler = Callable[[FurnaceClient, argparse.Namespace], int]


# -- argument helpers --------------------------------------------------------------------
def chance_words(game: pb.GameInfo) -> str:
    """How ``furnace client games`` describes a game's chance."""
    if game.client_sees_chance:
        return ", chance nodes (apply a chance outcome when chance is to move)"
    return ", chance (resolved by the server within moves)" if game.has_chance else ""


def parse_option(text: str) -> tuple[str, OptionLike]:
    """``NAME=VALUE`` with VALUE true/false, an integer, or text."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"--option expects NAME=VALUE, got {text!r}")
    value: OptionLike = raw
    if raw.lower() in ("true", "yes", "on"):
        value = True
    elif raw.lower() in ("false", "no", "off"):
        value = False
    else:
        try:
            value = int(raw)
        except ValueError:
            value = raw
    return name.strip(), value


def read_state_file(path: str, stdin: TextIO | None = None) -> dict[str, Any]:
    """The game's JSON state from ``path`` (``-``: standard input)."""
    where = "standard input" if path == "-" else path
    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read state from {where}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"state in {where} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"state in {where} must be a JSON object (a game's state)")
    return data


def parse_move(text: str) -> pb.Move:
    """A move argument: its text notation, or ``#ID`` for a move id."""
    text = text.strip()
    if text.startswith("#"):
        try:
            return make_move(int(text[1:]))
        except ValueError:
            raise UsageError(f"move id must be an integer after '#', got {text!r}") from None
    if not text:
        raise UsageError("the move is empty")
    return make_move(text)


def load_state(client: FurnaceClient, args: argparse.Namespace) -> pb.GameState:
    """The position of a command: ``--state`` or a new game from ``--game``, as ``--observer``."""
    if args.state is not None and args.game is not None:
        raise UsageError("give either --state or --game, not both")
    observer = getattr(args, "observer", None)
    if args.state is not None:
        try:
            return make_state(read_state_file(args.state), observer)
        except (ValueError, TypeError) as exc:  # a record file that is none
            raise UsageError(f"state in {args.state}: {exc}") from None
    if args.game is None:
        raise UsageError("give --state FILE (- for standard input) or --game NAME for a new game")
    options = dict(parse_option(o) for o in args.option or [])
    reply = client.new_game(args.game, args.players, seed=args.seed, options=options,
                            state_format=pb.STATE_FORMAT_JSON)
    return make_state(reply.state, observer)


def _viewer(args: argparse.Namespace) -> str:
    observer = getattr(args, "observer", None)
    return "the host" if observer is None else seat_label(observer)


def _percent(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _seats(values: Sequence[float], fmt: str = "{:.1f}") -> str:
    return " / ".join(fmt.format(v) for v in values)


def _print_state(state: pb.GameState, out: TextIO) -> None:
    print(json.dumps(state_json(state), indent=2, sort_keys=True), file=out)


# -- commands ----------------------------------------------------------------------------
def cmd_list_games(client: FurnaceClient, args: argparse.Namespace) -> int:
    reply = client.list_games()
    if args.json:
        print(to_json(reply))
        return 0
    for game in reply.games:
        info = pb.InformationType.Name(game.information_type).replace("INFORMATION_TYPE_", "")
        print(f"{game.name}: {game.title}, {game.min_players}-{game.max_players} players, "
              f"{info.lower()} information{chance_words(game)}")
        for option in game.options:
            kind = option.default_value.WhichOneof("kind")
            default = getattr(option.default_value, kind) if kind else None
            print(f"  option {option.name} (default {json.dumps(default)}): "
                  f"{option.description}")
    limits = reply.limits
    print(f"server: {limits.workers} workers, queue {limits.max_queue}, "
          f"at most {limits.max_iterations} iterations / {limits.max_time_ms} ms per search")
    return 0


def cmd_new_game(client: FurnaceClient, args: argparse.Namespace) -> int:
    if args.game is None:
        raise UsageError("--game is required (see list-games)")
    options = dict(parse_option(o) for o in args.option or [])
    reply = client.new_game(args.game, args.players, seed=args.seed, options=options,
                            state_format=pb.STATE_FORMAT_JSON)
    if args.json:
        print(to_json(reply))
    else:
        _print_state(reply.state, sys.stdout)
    if args.render:
        print(reply.render, file=sys.stderr)
    return 0


def cmd_show(client: FurnaceClient, args: argparse.Namespace) -> int:
    reply = client.legal_moves(load_state(client, args), include_render=True)
    print(reply.render)
    _print_status(reply.status)
    return 0


def _print_status(status: pb.GameStatus) -> None:
    if status.terminal:
        places = ", ".join("=".join(f"P{s + 1}" for s in place.seats) for place in status.ranking)
        print(f"game over; scores {_seats(status.scores, '{:g}')}; ranking {places}")
    elif status.chance:
        print("chance moves next")
    else:
        print(f"{seat_label(status.current_player)} to move; "
              f"scores {_seats(status.scores, '{:g}')}")


def cmd_legal_moves(client: FurnaceClient, args: argparse.Namespace) -> int:
    reply = client.legal_moves(load_state(client, args), seat=args.seat,
                               include_render=args.render)
    if args.json:
        print(to_json(reply))
        return 0
    if args.render:
        print(reply.render, file=sys.stderr)
    for move in reply.moves:
        print(f"{move.id}\t{move.text}")
    for outcome in reply.chance_outcomes:
        print(f"{outcome.move.id}\t{outcome.move.text}\t(p={outcome.probability:.4g})")
    if reply.moves_hidden:
        print(f"moves hidden: {_viewer(args)} cannot know the moves of "
              f"{seat_label(reply.status.current_player)}: they depend on what it cannot see",
              file=sys.stderr)
    elif not reply.moves and not reply.chance_outcomes:
        print("no legal moves" + (" (the game is over)" if reply.status.terminal else ""),
              file=sys.stderr)
    return 0


def cmd_check_move(client: FurnaceClient, args: argparse.Namespace) -> int:
    reply = client.check_move(load_state(client, args), parse_move(args.move), seat=args.seat)
    if args.json:
        print(to_json(reply))
    elif reply.legal:
        print(f"legal: {reply.move.text} (id {reply.move.id})")
    elif reply.reason_code == pb.ILLEGAL_REASON_HIDDEN:
        print(f"not judged (HIDDEN): {reply.reason}")
    else:
        code = pb.IllegalReason.Name(reply.reason_code).replace("ILLEGAL_REASON_", "")
        print(f"illegal ({code}): {reply.reason}")
    return 0 if reply.legal else 1


def cmd_apply_move(client: FurnaceClient, args: argparse.Namespace) -> int:
    reply = client.apply_move(load_state(client, args), parse_move(args.move), seat=args.seat,
                              state_format=pb.STATE_FORMAT_JSON)
    if args.json:
        print(to_json(reply))
    else:
        _print_state(reply.state, sys.stdout)
    record = reply.record
    if record.move_hidden:
        print(f"# P{record.player + 1} makes a secret choice, hidden from {_viewer(args)}",
              file=sys.stderr)
    for event in record.events:
        print(f"# {event}", file=sys.stderr)
    if args.render:
        print(reply.render, file=sys.stderr)
    return 0


def _search_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    if args.iterations < 0:
        raise UsageError("--iterations must not be negative")
    if args.time is not None and args.time <= 0:
        raise UsageError("--time must be positive")
    if args.level < 0:
        raise UsageError("--level must not be negative")
    return {
        "iterations": args.iterations,
        "time_limit": args.time,
        "seed": args.search_seed,
        "seat": args.seat,
        "exploration": args.exploration,
        "max_candidates": args.top,
        "level": args.level,
    }


def _stop_reason(analysis: pb.Analysis) -> str:
    name = pb.SearchStopReason.Name(analysis.stop_reason)
    return name.replace("SEARCH_STOP_REASON_", "").lower().replace("_", " ")


def _print_analysis(analysis: pb.Analysis, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(f"best move: {analysis.best_move.text} (id {analysis.best_move.id})", file=out)
    waited = f" after waiting {analysis.queued_seconds:.2f}s for a worker" \
        if analysis.queued_seconds >= 0.05 else ""
    print(f"{seat_label(analysis.player)} to move; {analysis.iterations} iterations in "
          f"{analysis.elapsed_seconds:.2f}s{waited}; stopped by {_stop_reason(analysis)}",
          file=out)
    print(f"win probability per seat: {_seats(analysis.win_probabilities, '{:.3f}')}; "
          f"expected scores: {_seats(analysis.expected_scores)}", file=out)
    print(f"{'visits':>8}  {'win':>6}  expected scores  move", file=out)
    for m in analysis.moves:
        print(f"{m.visits:>8}  {_percent(m.win_probability)}  "
              f"{_seats(m.expected_scores):<15}  {m.move.text}", file=out)
    if analysis.principal_variation:
        print("principal variation: " + ", ".join(m.text for m in analysis.principal_variation),
              file=out)


def cmd_best_move(client: FurnaceClient, args: argparse.Namespace) -> int:
    kwargs = _search_kwargs(args)
    reply = client.best_move(load_state(client, args), **kwargs)
    if args.json:
        print(to_json(reply))
    else:
        _print_analysis(reply.analysis)
        if reply.move != reply.analysis.best_move:
            print(f"level {args.level} plays: {reply.move.text} (id {reply.move.id})")
    return 0


def cmd_analyze(client: FurnaceClient, args: argparse.Namespace) -> int:
    kwargs = _search_kwargs(args)
    state = load_state(client, args)
    stream = client.analyze(state, update_interval=args.interval, **kwargs)
    try:
        for update in stream:
            a = update.analysis
            if args.json:
                print(to_json(update, indent=None), flush=True)
                continue
            label = "final" if update.final else f"#{update.sequence}"
            pv = ", ".join(m.text for m in a.principal_variation[:6])
            print(f"{label:>6} {a.iterations:>9} it {a.elapsed_seconds:6.2f}s  "
                  f"best {a.best_move.text} ({_percent(a.moves[0].win_probability).strip()})"
                  f"  pv: {pv}", flush=True)
            if update.final:
                print()
                _print_analysis(a)
    except KeyboardInterrupt:
        stream.cancel()
        print("analysis cancelled", file=sys.stderr)
        return 130
    return 0


def cmd_estimate(client: FurnaceClient, args: argparse.Namespace) -> int:
    if args.playouts < 0:
        raise UsageError("--playouts must not be negative")
    reply = client.estimate_scores(load_state(client, args), playouts=args.playouts,
                                   seed=args.search_seed)
    if args.json:
        print(to_json(reply))
        return 0
    print(f"{reply.playouts} playouts in {reply.elapsed_seconds:.2f}s, "
          f"from the information of {_viewer(args)}")
    print(f"{'player':>6}  {'win':>6}  {'mean':>7}  {'stddev':>7}  {'min':>5}  {'max':>5}")
    for s in reply.seats:
        print(f"{'P' + str(s.seat + 1):>6}  {_percent(s.win_probability)}  {s.score_mean:7.2f}  "
              f"{s.score_stddev:7.2f}  {s.score_min:5g}  {s.score_max:5g}")
    return 0


def cmd_health(client: FurnaceClient, args: argparse.Namespace) -> int:
    status = client.health(args.service)
    print(status)
    return 0 if status == "SERVING" else 1


# -- wiring ------------------------------------------------------------------------------
def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tls``, ``--ca-cert``, ``--client-cert``, ``--client-key``, ``--token``."""
    group = parser.add_argument_group("connection to a hosted server")
    group.add_argument("--tls", action="store_true",
                       help="connect with TLS (implied by the certificate options)")
    group.add_argument("--ca-cert", metavar="PEM",
                       help="trust this CA for the server's certificate (default: the system's)")
    group.add_argument("--client-cert", metavar="PEM",
                       help="mutual TLS: present this certificate (needs --client-key)")
    group.add_argument("--client-key", metavar="PEM", help="mutual TLS: its private key")
    group.add_argument("--token", default=None,
                       help=f"bearer token (default: ${TOKEN_ENV}; prefer the variable, a "
                       "command line is visible to other users)")
    group.add_argument("--load-balancing", choices=LOAD_BALANCING_POLICIES, default=None,
                       help="spread calls over every address the server's name resolves "
                       "to (round_robin; e.g. dns:///furnace-headless:50051, or "
                       "ipv4:A:P,B:Q), retrying UNAVAILABLE on another")


def connection_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """:class:`FurnaceClient` keyword arguments of :func:`add_connection_arguments`' flags."""
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    kwargs: dict[str, Any] = {"tls": args.tls, "ca_cert": args.ca_cert,
                              "client_cert": args.client_cert, "client_key": args.client_key,
                              "token": token}
    if getattr(args, "load_balancing", None):
        kwargs["load_balancing"] = args.load_balancing
    return kwargs


def describe_connection_error(exc: grpc.RpcError, server: str, tls: bool = False) -> str | None:
    """Words for a failure to connect or to be let in, or None for other errors.

    ``tls``: whether the connection used TLS (a server that refuses a client
    certificate just closes the connection).
    """
    code = exc.code() if hasattr(exc, "code") else None
    details = " ".join(str(exc.details() if hasattr(exc, "details") else exc).split())
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return (f"the server at {server} refused the credentials: give a valid token "
                f"(--token or ${TOKEN_ENV})")
    if code != grpc.StatusCode.UNAVAILABLE:
        return None
    lowered = details.lower()
    if tls or any(word in lowered for word in ("ssl", "tls", "handshake", "certificate")):
        return (f"cannot connect to {server} over TLS ({details}): check --ca-cert, and "
                "--client-cert/--client-key if the server requires client certificates")
    if "connect" in lowered:
        return (f"cannot reach a Furnace server at {server} "
                "(is `furnace serve` running? with TLS, pass --tls)")
    return None


def _runner(name: str, handler: Handler) -> Callable[[argparse.Namespace], int]:
    def func(args: argparse.Namespace) -> int:
        prog = f"furnace client {name}"
        try:
            with FurnaceClient(args.server, timeout=args.timeout,
                               **connection_kwargs(args)) as client:
                return handler(client, args)
        except UsageError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            connection = connection_kwargs(args)
            tls = bool(connection["tls"] or connection["ca_cert"] or connection["client_cert"])
            problem = describe_connection_error(exc, args.server, tls)
            if problem is not None:
                print(f"{prog}: error: {problem}", file=sys.stderr)
                return 1
            print(f"{prog}: error: {describe_error(exc)}", file=sys.stderr)
            return 2 if code in BAD_INPUT_CODES else 1
        except (ValueError, TypeError) as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # pragma: no cover - e.g. piped into head
            return 0

    return func


def add_commands(subparsers: Any) -> None:
    """Add ``client`` (with its sub-commands) to an ``argparse`` subparsers object."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default=DEFAULT_ADDRESS, metavar="HOST:PORT",
                        help=f"the Furnace server (default {DEFAULT_ADDRESS})")
    common.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="deadline of each call (default %(default)g)")
    common.add_argument("--json", action="store_true",
                        help="print the server's answer as protobuf JSON")
    add_connection_arguments(common)

    game_args = argparse.ArgumentParser(add_help=False)
    game_args.add_argument("--game", help="game name (see list-games)")
    game_args.add_argument("--players", type=int, default=2, help="players (default 2)")
    game_args.add_argument("--seed", type=int, default=0, help="setup seed (default 0)")
    game_args.add_argument("--option", action="append", metavar="NAME=VALUE",
                           help="game option, repeatable (e.g. powers=false)")

    state_args = argparse.ArgumentParser(add_help=False, parents=[game_args])
    state_args.add_argument("--state", metavar="FILE",
                            help="the game's JSON state, or a game record file "
                            "(furnace play's save) (- for standard input); "
                            "or start a new game with --game")
    state_args.add_argument("--observer", type=int, default=None, metavar="SEAT",
                            help="ask as this seat (0-based: 0 is P1): answers show and use "
                            "only what "
                            "it sees (default: the host, who sees every hand)")

    seat_args = argparse.ArgumentParser(add_help=False)
    seat_args.add_argument("--seat", type=int, default=None,
                           help="the seat acting (0-based: 0 is P1)")

    search_args = argparse.ArgumentParser(add_help=False)
    search_args.add_argument("--iterations", type=int, default=0,
                             help="iteration budget (0: none; no budget at all: server default)")
    search_args.add_argument("--time", type=float, default=None, metavar="SECONDS",
                             help="time budget in seconds")
    search_args.add_argument("--search-seed", type=int, default=0,
                             help="seed of the search (default 0)")
    search_args.add_argument("--exploration", type=float, default=0.0,
                             help="UCT exploration constant (0: server default)")
    search_args.add_argument("--top", type=int, default=10,
                             help="candidate moves to show (0: all; default 10)")
    search_args.add_argument("--level", type=int, default=0,
                             help="strength level, 1 (weakest) to 5: its budget when none is "
                             "given, and best-move answers its choice (0: none)")

    parser = subparsers.add_parser(
        "client", help="talk to a Furnace gRPC server",
        description="Use a Furnace server over gRPC: list games, set up, check and apply "
        "moves, ask for the best move, stream an analysis, estimate scores.")
    sub = parser.add_subparsers(dest="client_command", metavar="COMMAND", required=True)

    def add(name: str, handler: Handler, help_text: str,
            parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text,
                           parents=[common, *parents])
        p.set_defaults(func=_runner(name, handler))
        return p

    add("list-games", cmd_list_games, "games, player counts, options and server limits", [])
    p = add("new-game", cmd_new_game, "set up a game and print its JSON state", [game_args])
    p.add_argument("--render", action="store_true", help="draw the board on stderr")
    add("show", cmd_show, "draw a position and say whose turn it is", [state_args])
    p = add("legal-moves", cmd_legal_moves, "list the legal moves (id and text)",
            [state_args, seat_args])
    p.add_argument("--render", action="store_true", help="draw the board on stderr")
    p = add("check-move", cmd_check_move, "is a move legal? (exit code 1 if not)",
            [state_args, seat_args])
    p.add_argument("move", help="the move's text (quote it), or #ID for a move id")
    p = add("apply-move", cmd_apply_move, "play a move and print the new JSON state",
            [state_args, seat_args])
    p.add_argument("move", help="the move's text (quote it), or #ID for a move id")
    p.add_argument("--render", action="store_true", help="draw the new board on stderr")
    add("best-move", cmd_best_move, "search for the best move", [state_args, seat_args,
                                                                search_args])
    p = add("analyze", cmd_analyze, "stream a search's updates until its budget is used",
            [state_args, seat_args, search_args])
    p.add_argument("--interval", type=float, default=None, metavar="SECONDS",
                   help="seconds between updates (default: the server's, 0.5)")
    p = add("estimate", cmd_estimate,
            "win probability and score mean/spread per seat from random playouts "
            "(from --observer's information; default: the host's)",
            [state_args])
    p.add_argument("--playouts", type=int, default=0, help="playouts (0: server default)")
    p.add_argument("--search-seed", type=int, default=0, help="seed of the playouts")
    p = add("health", cmd_health, "the server's health status", [])
    p.add_argument("--service", default="", help="service name ('' for the whole server)")


def main(argv: list[str] | None = None) -> int:
    """``python -m clients list-games ...``"""
    parser = argparse.ArgumentParser(prog="python -m clients")
    sub = parser.add_subparsers(dest="command", required=True)
    add_commands(sub)
    args = parser.parse_args(["client", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.func(args)
    return result
