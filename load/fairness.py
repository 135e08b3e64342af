"""``furnace fair-check``: what a bystander gets while other clients flood the server.

Each scenario starts a fresh local server (two search workers by default), lets
attackers flood it for a while, and times a bystander's calls meanwhile, with health
probes beside them.  It prints, per scenario, the bystander's latency (p50, p99,
max), the tally of its statuses and the attackers', the health probes' latency, and
the server's own count of UNKNOWN and INTERNAL answers (there should be none).

Scenarios:

* ``tokens``: two tokens flood 8 s BestMoves and reviews from several threads each; the
  bystander (a third token) sends BestMove(100 ms).
* ``addresses``: eight loopback addresses without tokens flood 8 s BestMoves over the
  HTTP door; the bystander (another address) sends BestMove(100 ms).
* ``kills``: one token sends LegalMoves of a position whose legal moves take seconds,
  under a 1 s deadline (each is killed); the bystander sends cheap LegalMoves.
* ``one-client``: one client sends three 4 s BestMoves at once on two workers; the
  answers' stop reasons and waits.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ai_server.security import SecurityConfig, parse_tokens
from ai_server.server import BackgroundServer
from clients.furnace_client import record_state
from engine import registry
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

SCENARIOS = ("tokens", "addresses", "kills", "one-client")
#: A Stephens position whose legal moves take seconds to list (17 workers in a row).
COSTLY = Path(__file__).resolve().parents[1] / "fuzzers" / "positions" / \
    "stephens-17-workers-activation.json"
TOKENS = {name: f"{name}-{'0123456789abcdef' * 2}" for name in ("flood0", "flood1", "other")}


def add_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fair-check", help="measure a bystander's calls while other clients flood a server",
        description="Start a local server per scenario, flood it from attacking clients "
        "and time a bystander's calls meanwhile (latency p50/p99/max, statuses, health, "
        "the server's UNKNOWN/INTERNAL count).")
    parser.add_argument("scenarios", nargs="*", default=list(SCENARIOS),
                        help=f"which ({', '.join(SCENARIOS)}; default all)")
    parser.add_argument("--workers", type=int, default=2, help="search workers (default 2)")
    parser.add_argument("--duration", type=float, default=30.0,
                        help="seconds the bystander calls per scenario (default 30)")
    parser.add_argument("--threads", type=int, default=8,
                        help="threads per attacking identity (default 8)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.set_defaults(func=run)


def percentiles(times: list[float]) -> dict[str, float]:
    """p50, p99 and max of ``times`` in milliseconds (zeros when empty).

    >>> percentiles([0.1, 0.2, 0.3])["p50"]
    200.0
    """
    if not times:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50": round(statistics.median(ordered) * 1000, 1),
            "p99": round(p99 * 1000, 1), "max": round(ordered[-1] * 1000, 1)}


def _status(call: Callable[[], Any]) -> str:
    try:
        call()
        return "OK"
    except grpc.RpcError as error:
        return str(error.code().name)


class Flood:
    """Threads calling ``target()`` until stopped, tallying what it returns."""

    def __init__(self, target: Callable[[], str], threads: int) -> None:
        self.tally: Counter[str] = Counter()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._loop, args=(target,), daemon=True)
                         for _ in range(threads)]
        for thread in self._threads:
            thread.start()

    def _loop(self, target: Callable[[], str]) -> None:
        while not self._stop.is_set():
            status = target()
            with self._lock:
                self.tally[status] += 1
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)


def _stop_all(floods: list[Flood]) -> Counter[str]:
    """Stop ``floods``; the attackers' statuses, all together."""
    for flood in floods:
        flood.stop()
    return sum((flood.tally for flood in floods), Counter())


@contextmanager
def _server(workers: int, tokens: bool) -> Iterator[BackgroundServer]:
    security = SecurityConfig(tokens=parse_tokens(
        "".join(f"{name}:{token}\n" for name, token in TOKENS.items()), "fair-check")) \
        if tokens else None
    with BackgroundServer(workers=workers, max_queue=16, max_time=30.0, http_port=0,
                          health_port=0, security=security) as srv:
        yield srv


def _auth(name: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {TOKENS[name]}"),) if name else ()


def _server_errors(srv: BackgroundServer) -> dict[str, int]:
    """The server's own count of UNKNOWN and INTERNAL answers."""
    metrics = srv.server.metrics if srv.server is not None else None
    found = dict.fromkeys(("UNKNOWN", "INTERNAL"), 0)
    if metrics is None:
        return found
    for family in metrics.registry.collect():
        if family.name != "furnace_requests":
            continue
        for sample in family.samples:
            status = sample.labels.get("status")
            if sample.name.endswith("_total") and status in found:
                found[status] += int(sample.value)
    return found


def _review_request(state_game: str) -> pb.ReviewGameRequest:
    """A short Samara game's record to review (moves chosen by a fixed rule)."""
    game = registry.get_game(state_game)
    state = game.new_game(5, num_players=2)
    moves = []
    for _ in range(12):
        if state.is_terminal():
            break
        move = state.legal_moves()[0]
        moves.append(move)
        state.apply(move)
    return pb.ReviewGameRequest(state=record_state(state_game, 2, moves, seed=5),
                                budget=pb.SearchBudget(iterations=20_000))


def _bystander(srv: BackgroundServer, duration: float, call: Callable[[], Any]
               ) -> tuple[list[float], Counter[str], list[float]]:
    """Time ``call`` over ``duration`` seconds, health probes beside it."""
    times: list[float] = []
    tally: Counter[str] = Counter()
    health_times: list[float] = []
    done = threading.Event()
    port = srv.server.health_port if srv.server is not None else 0

    def probe() -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while not done.is_set():
                started = time.monotonic()
                _status(lambda: stub.Check(health_pb2.HealthCheckRequest(), timeout=10))
                health_times.append(time.monotonic() - started)
                time.sleep(0.1)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    end = time.monotonic() + duration
    while time.monotonic() < end:
        started = time.monotonic()
        tally[_status(call)] += 1
        times.append(time.monotonic() - started)
        time.sleep(0.05)
    done.set()
    prober.join(20)
    return times, tally, health_times


def _settle(srv: BackgroundServer, seconds: float = 3.0) -> None:
    """Let the flood fill the pool before the bystander starts."""
    pool = srv.server.pool if srv.server is not None else None
    end = time.monotonic() + seconds * 4
    while pool is not None and time.monotonic() < end and pool.state()["queued"] < 2:
        time.sleep(0.05)
    time.sleep(seconds)


def scenario_tokens(args: argparse.Namespace) -> dict[str, Any]:
    with _server(args.workers, tokens=True) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=3),
                             metadata=_auth("other")).state
        long_search = pb.BestMoveRequest(state=state,
                                         budget=pb.SearchBudget(time_limit_ms=8000))
        review = _review_request("samara")

        def searcher(name: str) -> Callable[[], str]:
            return lambda: _status(lambda: stub.BestMove(long_search, timeout=30,
                                                         metadata=_auth(name)))

        def reviewer(name: str) -> Callable[[], str]:
            return lambda: _status(lambda: list(stub.ReviewGame(review, timeout=30,
                                                                metadata=_auth(name))))

        floods = [Flood(make(name), max(1, args.threads // 2))
                  for name in ("flood0", "flood1") for make in (searcher, reviewer)]
        _settle(srv)
        short = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=100))
        times, tally, health = _bystander(srv, args.duration, lambda: stub.BestMove(
            short, timeout=10, metadata=_auth("other")))
        return _report("tokens", times, tally, health, _stop_all(floods), srv)


def scenario_addresses(args: argparse.Namespace) -> dict[str, Any]:
    with _server(args.workers, tokens=False) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=3)).state
        body = json.dumps(json_format.MessageToDict(pb.BestMoveRequest(
            state=state, budget=pb.SearchBudget(time_limit_ms=8000)))).encode()
        port = srv.server.http_port if srv.server is not None else 0

        def from_address(host: str) -> Callable[[], str]:
            def call() -> str:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                                        source_address=(host, 0))
                try:
                    connection.request("POST", "/furnace.v1.FurnaceService/BestMove", body, {
                        "Content-Type": "application/json", "Connect-Timeout-Ms": "30000"})
                    return str(connection.getresponse().status)
                except OSError as error:
                    return type(error).__name__
                finally:
                    connection.close()
            return call

        floods = [Flood(from_address(f"127.0.0.{i}"), max(1, args.threads // 4))
                  for i in range(2, 10)]
        _settle(srv)
        short = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=100))
        times, tally, health = _bystander(srv, args.duration,
                                          lambda: stub.BestMove(short, timeout=10))
        return _report("addresses", times, tally, health, _stop_all(floods), srv)


def scenario_kills(args: argparse.Namespace) -> dict[str, Any]:
    with _server(args.workers, tokens=True) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=3),
                             metadata=_auth("other")).state
        costly = pb.LegalMovesRequest(state=pb.GameState(json=COSTLY.read_text()))
        floods = [Flood(lambda: _status(lambda: stub.LegalMoves(
            costly, timeout=1.0, metadata=_auth("flood0"))), max(1, args.threads // 4))]
        time.sleep(1.0)
        cheap = pb.LegalMovesRequest(state=state)
        times, tally, health = _bystander(srv, args.duration, lambda: stub.LegalMoves(
            cheap, timeout=10, metadata=_auth("other")))
        report = _report("kills", times, tally, health, _stop_all(floods), srv)
        call_pool = srv.server.call_pool if srv.server is not None else None
        report["call_worker_kills"] = call_pool.kills if call_pool is not None else 0
        return report


def scenario_one_client(args: argparse.Namespace) -> dict[str, Any]:
    with _server(args.workers, tokens=False) as srv, \
            grpc.insecure_channel(srv.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=3)).state
        request = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=4000))
        futures = [stub.BestMove.future(request, timeout=30) for _ in range(3)]
        searches = []
        for future in futures:
            try:
                analysis = future.result().analysis
                searches.append({
                    "stop_reason": pb.SearchStopReason.Name(analysis.stop_reason),
                    "iterations": analysis.iterations,
                    "queued_s": round(analysis.queued_seconds, 2),
                    "searched_s": round(analysis.elapsed_seconds, 2)})
            except grpc.RpcError as error:
                searches.append({"error": error.code().name})
        return {"scenario": "one-client", "searches": searches,
                "server_errors": _server_errors(srv)}


def _report(name: str, times: list[float], tally: Counter[str], health: list[float],
            attackers: Counter[str], srv: BackgroundServer) -> dict[str, Any]:
    return {"scenario": name, "bystander_ms": percentiles(times),
            "bystander_calls": dict(tally), "health_ms": percentiles(health),
            "attacker_calls": dict(attackers), "server_errors": _server_errors(srv)}


RUNNERS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "tokens": scenario_tokens, "addresses": scenario_addresses, "kills": scenario_kills,
    "one-client": scenario_one_client}


def run(args: argparse.Namespace) -> int:
    unknown = [s for s in args.scenarios if s not in RUNNERS]
    if unknown:
        print(f"furnace fair-check: error: unknown scenario(s) {', '.join(unknown)} "
              f"(choose from {', '.join(SCENARIOS)})", file=sys.stderr)
        return 2
    reports = []
    for name in args.scenarios:
        print(f"fair-check: {name} ({args.duration:g} s)...", file=sys.stderr, flush=True)
        report = RUNNERS[name](args)
        reports.append(report)
        print(json.dumps(report) if args.json else _describe(report), flush=True)
    if args.json:
        print(json.dumps({"reports": reports}))
    return 0


def _describe(report: dict[str, Any]) -> str:
    if report["scenario"] == "one-client":
        lines = [f"one-client: {s}" for s in report["searches"]]
        return "\n".join(lines + [f"  server UNKNOWN/INTERNAL: {report['server_errors']}"])
    by = report["bystander_ms"]
    health = report["health_ms"]
    return (f"{report['scenario']}: bystander p50 {by['p50']} ms, p99 {by['p99']} ms, "
            f"max {by['max']} ms, {report['bystander_calls']}; health p50 {health['p50']} "
            f"ms, p99 {health['p99']} ms, max {health['max']} ms; attackers "
            f"{report['attacker_calls']}; server UNKNOWN/INTERNAL {report['server_errors']}")
