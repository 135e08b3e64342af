"""``furnace serve``: the command-line hook of the gRPC server.

The ``furnace`` main (``furnace_cli``) calls :func:`add_commands` with its
subparsers; ``python -m ai_server serve ...`` works without it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any

from ai_server import corelog, observe, sealing, security
from ai_server.config import CALL_WORKERS_PER_CORE, ServerConfig, default_workers

_DEFAULTS = ServerConfig()


def add_commands(subparsers: Any) -> None:
    """Add ``serve`` to an ``argparse`` subparsers object (sets ``func``)."""
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC AI server",
        description="Run the Furnace gRPC server (furnace.v1.FurnaceService, health checking "
        "and reflection) until SIGTERM or Ctrl-C; SIGHUP reads the certificate, key, client "
        "CA and token files again.",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 or [::] for all)")
    parser.add_argument("--port", type=int, default=50051, help="port (default 50051; 0: any)")
    parser.add_argument("--http-port", type=int, default=None, metavar="PORT",
                        help="also serve the service over HTTP on this port: JSON/binary over "
                        "the Connect protocol (curl), gRPC-Web for browsers, and the web table "
                        "at / (same TLS, tokens and limits; 0: any free port; default: off)")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"search worker processes (default: two per CPU core, {default_workers()})")
    parser.add_argument("--max-queue", type=int, default=_DEFAULTS.max_queue,
                        help="searches that may wait for a worker before RESOURCE_EXHAUSTED "
                        f"(default {_DEFAULTS.max_queue})")
    parser.add_argument("--max-iterations", type=int, default=_DEFAULTS.max_iterations,
                        help=f"cap of a search's iteration budget "
                        f"(default {_DEFAULTS.max_iterations})")
    parser.add_argument("--max-time", type=float, default=_DEFAULTS.max_time,
                        help=f"cap of a search's time budget in seconds "
                        f"(default {_DEFAULTS.max_time:g})")
    parser.add_argument("--default-iterations", type=int, default=_DEFAULTS.default_iterations,
                        help="iterations of a BestMove request without a budget "
                        f"(default {_DEFAULTS.default_iterations})")
    parser.add_argument("--max-playouts", type=int, default=_DEFAULTS.max_playouts,
                        help=f"cap of EstimateScores playouts (default {_DEFAULTS.max_playouts})")
    parser.add_argument("--max-review-decisions", type=int,
                        default=_DEFAULTS.max_review_decisions,
                        help="most decisions one ReviewGame call reviews "
                        "(default %(default)d)")
    parser.add_argument("--max-message-mb", type=float,
                        default=_DEFAULTS.max_message_bytes / (1 << 20),
                        help="largest message in MiB (default %(default)g)")
    parser.add_argument("--grace", type=float, default=_DEFAULTS.grace,
                        help="seconds in-flight calls get on shutdown (default %(default)g)")
    parser.add_argument("--max-queue-wait", type=float, default=_DEFAULTS.max_queue_wait,
                        help="seconds a search may wait for a worker before RESOURCE_EXHAUSTED "
                        "(default %(default)g)")
    parser.add_argument("--max-searches-per-client", type=int,
                        default=_DEFAULTS.max_searches_per_client,
                        help="searches one client may have running or waiting "
                        "(default %(default)d; 0: no limit)")
    parser.add_argument("--max-search-memory-mb", type=float,
                        default=_DEFAULTS.max_search_memory_bytes / (1 << 20),
                        help="a search stops when its worker's resident memory passes this "
                        "(MiB, default %(default)g)")
    parser.add_argument("--max-concurrent-rpcs", type=int,
                        default=_DEFAULTS.max_concurrent_rpcs,
                        help="RPCs in progress at once before RESOURCE_EXHAUSTED "
                        "(default %(default)d)")
    parser.add_argument("--max-connections", type=int, default=_DEFAULTS.grpc_max_connections,
                        help="connections the gRPC port keeps open at once; more are closed "
                        "(default %(default)d; 0: no cap)")
    parser.add_argument("--http-max-connections", type=int,
                        default=_DEFAULTS.http_max_connections,
                        help="connections the HTTP port keeps open at once; more are answered "
                        "503 (default %(default)d; 0: no cap)")
    parser.add_argument("--worker-nice", type=int, default=_DEFAULTS.worker_nice,
                        help="scheduling priority steps the search workers run below the "
                        "front process, so cheap calls never wait behind searches "
                        "(0..19, default %(default)d)")
    group = parser.add_argument_group(
        "fair shares and the other calls (NewGame, LegalMoves, CheckMove, ApplyMove)")
    group.add_argument("--max-worker-share", type=float, default=_DEFAULTS.max_worker_share,
                       help="share of the search workers, and of the call workers, one client "
                       "may keep busy at once, at least one (default %(default)g; 1: no bound)")
    group.add_argument("--short-search-workers", type=int,
                       default=_DEFAULTS.short_search_workers,
                       help="search workers beyond --workers that take only searches due "
                       "within --short-search-seconds, so they never wait behind long ones "
                       "(default %(default)d)")
    group.add_argument("--short-search-seconds", type=float,
                       default=_DEFAULTS.short_search_seconds,
                       help="a search whose time budget or deadline ends within this many "
                       "seconds is short (default %(default)g)")
    group.add_argument("--preempt-after", type=float, default=_DEFAULTS.preempt_after,
                       help="seconds a job beyond its client's fair share runs before a "
                       "waiting client's job may preempt it (default %(default)g)")
    group.add_argument("--call-spares", type=int, default=_DEFAULTS.call_spares,
                       help="idle call worker processes kept ready to replace a killed one "
                       "at once (default %(default)d)")
    group.add_argument("--client-ipv4-prefix", type=int, default=_DEFAULTS.client_ipv4_prefix,
                       help="without tokens, IPv4 addresses sharing this many leading bits "
                       "are one client (default %(default)d)")
    group.add_argument("--client-ipv6-prefix", type=int, default=_DEFAULTS.client_ipv6_prefix,
                       help="the same for IPv6 (default %(default)d: a /64 is one client)")
    group.add_argument("--call-workers", type=int, default=None,
                       help="worker processes for the other calls' game work "
                       f"(default: {CALL_WORKERS_PER_CORE} per CPU core)")
    group.add_argument("--max-call-time", type=float, default=_DEFAULTS.max_call_time,
                       help="seconds such a call's game work may take when its deadline "
                       "allows more; past it, DEADLINE_EXCEEDED (default %(default)g)")
    group.add_argument("--max-call-memory-mb", type=float,
                       default=_DEFAULTS.max_call_memory_bytes / (1 << 20),
                       help="such a call's game work is stopped when its worker's resident "
                       "memory passes this (MiB, default %(default)g)")
    group.add_argument("--max-call-queue", type=int, default=_DEFAULTS.max_call_queue,
                       help="such calls that may wait for a call worker "
                       "(default %(default)d)")
    group.add_argument("--max-calls-per-client", type=int,
                       default=_DEFAULTS.max_calls_per_client,
                       help="such calls one client may have running or waiting "
                       "(default %(default)d; 0: no limit)")
    parser.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="logging level")
    group = parser.add_argument_group("observability")
    group.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                       help="serve Prometheus metrics at http://HOST:PORT/metrics "
                       "(0: any free port; default: off)")
    group.add_argument("--metrics-host", default=None, metavar="HOST",
                       help="address of the metrics endpoint (default: 127.0.0.1, whatever "
                       "--host is: the metrics are not authenticated)")
    group.add_argument("--health-port", type=int, default=None, metavar="PORT",
                       help="also serve the health service alone, in plaintext, on this "
                       "port (for probes that cannot speak TLS; default: off)")
    group.add_argument("--access-log", nargs="?", const="-", default=None, metavar="FILE",
                       help="one JSON line per call (logger furnace.access) on standard "
                       "error, or appended to FILE (default: off)")
    security.add_arguments(parser)
    seal_group = parser.add_argument_group(
        "sealed states", "positions handed out encrypted and authenticated, for clients "
        "that play one seat (docs/api.md, \"Sealed states\")")
    seal_group.add_argument(
        "--seal-key", action="append", default=[], metavar="FILE",
        help="a key file of sealed states (furnace seal-key new FILE); repeat for older "
        "keys, newest first: new states are sealed with the first, the others still open "
        "theirs (default: a key made at start for this process alone, whose states no "
        "restart or other replica opens)")
    seal_group.add_argument(
        "--allow-sealed-seeds", action="store_true",
        help="let a sealed NewGame take the client's seed, for tests and replays only: a "
        "holder who knows the seed can re-deal the hidden cards (default: refused; the "
        "server draws the seed of a sealed game and never answers it)")
    parser.set_defaults(func=run_serve)
    _add_seal_key_command(subparsers)


def _add_seal_key_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "seal-key", help="make or identify a key of sealed states (furnace serve --seal-key)",
        description="Keys of sealed states: 32 random bytes in a file readable by its owner "
        "only (docs/operations.md, \"Sealing keys\").")
    sub = parser.add_subparsers(dest="seal_key_command", required=True)
    new = sub.add_parser("new", help="write a fresh key to a new file (mode 600) and print "
                         "its key id")
    new.add_argument("file", metavar="FILE")
    new.set_defaults(func=_run_seal_key_new)
    ident = sub.add_parser("id", help="print the key id of key files (what sealed states "
                           "carry to name their key)")
    ident.add_argument("files", metavar="FILE", nargs="+")
    ident.set_defaults(func=_run_seal_key_id)


def _run_seal_key_new(args: argparse.Namespace) -> int:
    try:
        kid = sealing.write_key_file(args.file)
    except OSError as exc:
        print(f"furnace seal-key: error: cannot write {args.file}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(f"{args.file}: key id {kid}")
    return 0


def _run_seal_key_id(args: argparse.Namespace) -> int:
    for name in args.files:
        try:
            key = sealing.read_key_file(name)
        except ValueError as exc:
            print(f"furnace seal-key: error: {exc}", file=sys.stderr)
            return 2
        print(f"{name}: key id {sealing.key_id(key).hex()}")
    return 0


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """The :class:`ServerConfig` of parsed ``serve`` arguments (ValueError when invalid)."""
    config = ServerConfig(
        workers=args.workers if args.workers is not None else 0,
        max_queue=args.max_queue,
        max_iterations=args.max_iterations,
        max_time=args.max_time,
        default_iterations=min(args.default_iterations, max(args.max_iterations, 1)),
        max_playouts=args.max_playouts,
        max_review_decisions=args.max_review_decisions,
        default_playouts=min(_DEFAULTS.default_playouts, max(args.max_playouts, 1)),
        max_message_bytes=int(args.max_message_mb * (1 << 20)),
        grace=args.grace,
        max_queue_wait=args.max_queue_wait,
        max_searches_per_client=args.max_searches_per_client,
        max_search_memory_bytes=int(args.max_search_memory_mb * (1 << 20)),
        max_concurrent_rpcs=args.max_concurrent_rpcs,
        worker_nice=args.worker_nice,
        max_worker_share=args.max_worker_share,
        short_search_workers=args.short_search_workers,
        short_search_seconds=args.short_search_seconds,
        preempt_after=args.preempt_after,
        call_spares=args.call_spares,
        client_ipv4_prefix=args.client_ipv4_prefix,
        client_ipv6_prefix=args.client_ipv6_prefix,
        call_workers=args.call_workers if args.call_workers is not None else 0,
        max_call_time=args.max_call_time,
        max_call_memory_bytes=int(args.max_call_memory_mb * (1 << 20)),
        max_call_queue=args.max_call_queue,
        max_calls_per_client=args.max_calls_per_client,
        grpc_max_connections=args.max_connections,
        http_max_connections=args.http_max_connections,
        sealer=sealing.Sealer.from_files(args.seal_key) if args.seal_key else None,
        allow_sealed_seeds=args.allow_sealed_seeds,
    )
    for flag in ("workers", "call_workers"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise ValueError(f"--{flag.replace('_', '-')} must be at least 1, not {value}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, not {args.port}")
    for flag in ("metrics_port", "health_port", "http_port"):
        value = getattr(args, flag, None)
        if value is not None and not 0 <= value <= 65535:
            raise ValueError(f"--{flag.replace('_', '-')} must be in 0..65535, not {value}")
    return config.resolved()


def run_serve(args: argparse.Namespace) -> int:
    """``func`` of ``serve``: exit code 0 after a clean shutdown, 2 on bad settings."""
    try:
        config = config_from_args(args)
        hosting, warnings = security.config_from_args(args)
    except ValueError as exc:
        print(f"furnace serve: error: {exc}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"furnace serve: warning: {warning}", file=sys.stderr)
    # gRPC core's own lines (a failed TLS handshake: one each) go through logging too.
    with corelog.route():
        logging.basicConfig(level=getattr(logging, args.log_level, logging.INFO),
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        try:
            observe.configure_access_log(args.access_log)
        except OSError as exc:
            print(f"furnace serve: error: cannot open the access log: {exc}",
                  file=sys.stderr)
            return 2
        return _run_server(args, config, hosting)


def _run_server(args: argparse.Namespace, config: ServerConfig,
                hosting: security.SecurityConfig) -> int:
    """Serve until stopped (the ``with corelog.route()`` block of :func:`run_serve`)."""
    from ai_server.server import serve

    def ready(port: int) -> None:
        print(f"furnace server listening on {args.host}:{port} "
              f"({config.workers} workers; {hosting.describe()}); Ctrl-C to stop",
              file=sys.stderr, flush=True)

    def started(server: Any) -> None:
        if server.metrics is not None and server.metrics.port is not None:
            host = server.metrics.host or args.metrics_host
            if host and ":" in host:
                host = f"[{host}]"
            print(f"furnace server metrics on http://{host}:{server.metrics.port}/metrics",
                  file=sys.stderr, flush=True)
        if server.http_port is not None:
            scheme = "https" if hosting.tls else "http"
            print(f"furnace server HTTP (Connect, gRPC-Web, web table) on {scheme}://"
                  f"{args.host}:{server.http_port}/", file=sys.stderr, flush=True)
        if server.health_port is not None:
            print(f"furnace server health service (plaintext) on {args.host}:"
                  f"{server.health_port}", file=sys.stderr, flush=True)

    try:
        asyncio.run(serve(args.host, args.port, config=config, ready=ready, started=started,
                          security=hosting, metrics_port=args.metrics_port,
                          metrics_host=args.metrics_host, health_port=args.health_port,
                          http_port=getattr(args, "http_port", None),
                          reload_interval=args.reload_interval))
    except OSError as exc:
        print(f"furnace serve: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - SIGINT is handled inside serve()
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ai_server serve ...``"""
    parser = argparse.ArgumentParser(prog="python -m ai_server")
    sub = parser.add_subparsers(dest="command", required=True)
    add_commands(sub)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result
