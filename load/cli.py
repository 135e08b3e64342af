"""``furnace loadtest``: the command line of the load harness."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from ai_server.config import default_workers

#: Budget of the searches in the mix (ms).
BUDGET_MS = 100


def parse_duration(text: str) -> float:
    """``60s``, ``2m``, ``90`` (seconds), ``1.5m`` -> seconds.

    >>> parse_duration("2m"), parse_duration("45s"), parse_duration("10")
    (120.0, 45.0, 10.0)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (60s, 2m, 90)")
    value = float(match.group(1))
    unit = match.group(2) or "s"
    seconds = value * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]
    if seconds <= 0:
        raise argparse.ArgumentTypeError("the duration must be positive")
    return seconds


def parse_sweep(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sweep takes user counts: 10,20,50 (not {text!r})"
                                         ) from None
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError("--sweep takes positive user counts: 10,20,50")
    return counts


def parse_wait(text: str) -> tuple[float, float]:
    try:
        low, high = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--wait takes MIN,MAX seconds (not {text!r})"
                                         ) from None
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError("--wait needs 0 <= MIN <= MAX")
    return low, high


def add_command(subparsers: Any) -> None:
    """``furnace loadtest`` (added by :func:`ai_server.cli.add_commands`)."""
    parser = subparsers.add_parser(
        "loadtest", help="measure a server under a realistic mix of players (locust)",
        description="Run locust headless in this process against a Furnace server (a fresh "
        "one on loopback, or --server), with players over positions sampled from self-play "
        "games, and write a report (JSON, Markdown, PNG plots).  --sweep runs one step per "
        "user count and reports the capacity.")
    parser.add_argument("--game", default="samara", help="game (default samara)")
    parser.add_argument("--players", type=int, default=2, help="players (default 2)")
    parser.add_argument("--users", type=int, default=50, help="simulated players (default 50)")
    parser.add_argument("--spawn-rate", type=float, default=10.0,
                        help="players started per second (default 10)")
    parser.add_argument("--duration", type=parse_duration, default=60.0,
                        help="measured time per step, once every player runs (default 60s)")
    parser.add_argument("--sweep", type=parse_sweep, default=None, metavar="N,N,...",
                        help="one step per user count, then the capacity (e.g. 10,20,50,100)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--report-dir", default=None, metavar="DIR",
                        help="where the report goes (default loadtest-GAME-TIMESTAMP)")
    parser.add_argument("--no-plots", action="store_true", help="no PNG plots")
    parser.add_argument("--positions", type=int, default=200,
                        help="positions sampled from self-play (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the self-play games")
    parser.add_argument("--budget-ms", type=int, default=BUDGET_MS,
                        help=f"BestMove time budget (Analyze: 3x; default {BUDGET_MS})")
    parser.add_argument("--wait", type=parse_wait, default=None, metavar="MIN,MAX",
                        help="seconds a player pauses between two tasks (default "
                        "0.5,2.5: people think between moves)")
    parser.add_argument("--note", default="", help="a line about the conditions, for the report")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    local = parser.add_argument_group("the local server (without --server)")
    local.add_argument("--workers", type=int, default=None,
                       help=f"search workers (default: two per CPU core, {default_workers()})")
    local.add_argument("--max-queue", type=int, default=None, help="the server's --max-queue")
    local.add_argument("--worker-nice", type=int, default=None,
                       help="the server's --worker-nice (0: workers at the server's priority)")
    remote = parser.add_argument_group("a running server")
    remote.add_argument("--server", default=None, metavar="TARGET",
                        help="HOST:PORT, or several (ipv4:A:P,B:Q / dns:///NAME:PORT with "
                        "--load-balancing round_robin); give it quota room for one address "
                        "or a token per user")
    remote.add_argument("--metrics-url", default=None, metavar="URL",
                        help="its Prometheus endpoint, for CPU and search counts")
    remote.add_argument("--cores", type=int, default=None,
                        help="cores the server has (default: its worker count)")
    from clients.cli import add_connection_arguments

    add_connection_arguments(parser)
    parser.set_defaults(func=run_loadtest)


def _error(message: str) -> int:
    print(f"furnace loadtest: error: {message}", file=sys.stderr)
    return 2


class Progress:
    """A progress line on standard error (redrawn in place on a terminal)."""

    def __init__(self, label: str, quiet: bool) -> None:
        self.label = label
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def say(self, text: str) -> None:
        if not self.quiet:
            end = "\n"
            if self.tty:
                sys.stderr.write("\r\033[K")
            sys.stderr.write(f"{self.label}: {text}{end}")
            sys.stderr.flush()

    def __call__(self, state: dict[str, Any]) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if not self.tty and now - self.last < 10 and state["elapsed"] < state["duration"]:
            return
        self.last = now
        elapsed = max(state["elapsed"], 1e-9)
        samples = state["samples"]
        fails: dict[str, int] = {}
        latencies: dict[str, list[float]] = {"LegalMoves": [], "BestMove": []}
        searches = 0
        for s in samples:
            if s.code != "OK":
                fails[s.code] = fails.get(s.code, 0) + 1
            else:
                if s.rpc in latencies:
                    latencies[s.rpc].append(s.ms)
                if s.rpc in ("BestMove", "Analyze"):
                    searches += 1
        p99 = []
        for rpc, values in latencies.items():
            if values:
                values.sort()
                p99.append(f"{rpc} {values[min(len(values) - 1, int(0.99 * len(values)))]:.0f}")
        text = (f"{elapsed:4.0f}/{state['duration']:.0f} s, {state['users']} users, "
                f"{len(samples) / elapsed:.1f} req/s, {searches / elapsed:.1f} searches/s, "
                f"failures {sum(fails.values())}"
                + (f" {fails}" if fails else "")
                + (f", p99 ms: {', '.join(p99)}" if p99 else "")
                + f", load {os.getloadavg()[0]:.2f}")
        if self.tty:
            sys.stderr.write(f"\r\033[K{self.label}: {text}")
            sys.stderr.flush()
        else:
            print(f"{self.label}: {text}", file=sys.stderr, flush=True)


def run_loadtest(args: argparse.Namespace) -> int:
    from clients.cli import connection_kwargs

    if args.users < 1 or args.spawn_rate <= 0 or args.positions < 1:
        return _error("--users, --spawn-rate and --positions must be positive")
    if not 1 <= args.budget_ms <= 60_000:
        return _error("--budget-ms must be in 1..60000")
    steps_users = args.sweep or [args.users]
    try:
        import locust  # noqa: F401 - imported here first: it monkey-patches for gevent
        import matplotlib  # noqa: F401
    except ImportError as exc:
        return _error(f"{exc.name} is not installed: pip install 'furnace[load]'")
    from load import positions as positions_module
    from load import report as report_module
    from load import runner

    runner.prepare()
    from locust import __version__ as locust_version

    from clients.furnace_client import encode_opaque
    from furnace_proto.furnace.v1 import furnace_pb2 as pb
    from load.users import MIX, WAIT_SECONDS, player_class

    stamp = time.strftime("%Y%m%d-%H%M%S")
    directory = Path(args.report_dir or f"loadtest-{args.game}-{stamp}")
    progress = Progress("loadtest", args.quiet)
    try:
        connection = connection_kwargs(args) if args.server else {}
    except ValueError as exc:
        return _error(str(exc))
    conditions = report_module.conditions(args.note)
    progress.say(f"load average {conditions['load_average']}; sampling positions...")
    try:
        sampled, cache = positions_module.load_positions(args.game, args.players,
                                                         args.positions, args.seed)
    except Exception as exc:  # noqa: BLE001 - unknown game, bad player count...
        return _error(f"cannot sample positions of {args.game}: {exc}")
    game_name = sampled[0]["state"].get("game", args.game)
    wait = args.wait or WAIT_SECONDS
    player = player_class([(pb.GameState(opaque=encode_opaque(p["state"])), p["move"])
                           for p in sampled], game_name, args.players, args.budget_ms, wait,
                          connection)

    server: runner.LocalServer | None = None
    workers = args.workers or default_workers()
    if args.server:
        host, metrics_url = args.server, args.metrics_url
        cores = args.cores or _remote_workers(args.server, connection) or workers
        workers_text: Any = cores
        description = f"{args.server} (given)"
    else:
        if args.workers is not None and args.workers < 1:
            return _error("--workers must be at least 1")
        server = runner.LocalServer(directory / "server.log", workers, args.max_queue,
                                    args.worker_nice)
        progress.say(f"starting a server with {workers} workers...")
        try:
            server.start()
        except (RuntimeError, OSError) as exc:
            return _error(f"cannot start the server: {exc}")
        host, metrics_url = server.address, server.metrics_url
        cores = args.cores or os.cpu_count() or 1
        workers_text = workers
        description = (f"furnace serve on {server.address}, per-client quota off"
                       + (f", --max-queue {args.max_queue}" if args.max_queue is not None
                          else "")
                       + (f", --worker-nice {args.worker_nice}" if args.worker_nice is not None
                          else ""))
    steps: list[dict[str, Any]] = []
    try:
        for index, users in enumerate(steps_users):
            if index:
                import gevent

                gevent.sleep(runner.SETTLE_SECONDS)
            progress.label = (f"loadtest step {index + 1}/{len(steps_users)}"
                              if len(steps_users) > 1 else "loadtest")
            progress.say(f"{users} users, spawning at {args.spawn_rate:g}/s, then "
                         f"{args.duration:g} s measured (load {os.getloadavg()[0]:.2f})")
            data = runner.run_step(player, host, users, args.spawn_rate, args.duration,
                                   metrics_url, progress)
            if progress.tty and not args.quiet:
                sys.stderr.write("\n")
            steps.append(report_module.summarize(data, cores, args.budget_ms, workers))
    finally:
        if server is not None:
            server.stop()
    report: dict[str, Any] = {
        "setup": {
            "game": game_name, "players": args.players, "server": description,
            "workers": workers_text, "cores": cores, "locust": locust_version,
            "wait_s": list(wait), "spawn_rate": args.spawn_rate,
            "duration_s": args.duration, "mix": dict(MIX), "budget_ms": args.budget_ms,
            "positions": len(sampled), "position_cache": str(cache),
            "position_bots": "greedy and random, seats alternated, seed "
                              f"{args.seed}",
            "command": "furnace loadtest " + " ".join(_shown_args(sys.argv)),
        },
        "conditions": conditions,
        "steps": steps,
    }
    if args.sweep:
        report["capacity"] = report_module.capacity(steps, cores, args.budget_ms)
    path = report_module.write(report, directory, plots=not args.no_plots)
    progress.say(f"report: {directory / 'report.md'}")
    unexpected = any(step["unexpected_failures"] for step in steps)
    if args.json:
        print(json.dumps(report_module.summary_line(report, path)))
    else:
        print((directory / "report.md").read_text())
    return 1 if unexpected else 0


def _shown_args(argv: list[str]) -> list[str]:
    """The command's arguments, with a token hidden."""
    shown = []
    hide = False
    args = argv[1:]
    if args and args[0] == "loadtest":
        args = args[1:]
    for arg in args:
        if hide:
            shown.append("***")
            hide = False
            continue
        if arg == "--token":
            hide = True
        if arg.startswith("--token="):
            arg = "--token=***"
        shown.append(arg)
    return shown


def _remote_workers(target: str, connection: dict[str, Any]) -> int | None:
    """The worker count a running server reports (``ListGames.limits.workers``)."""
    import grpc

    from clients.furnace_client import FurnaceClient

    try:
        with FurnaceClient(target, timeout=10, **connection) as client:
            workers = int(client.list_games().limits.workers)
    except (grpc.RpcError, ValueError):
        return None
    return workers or None
