"""Every call observed: one structured access-log line and Prometheus metrics.

:class:`ObservingInterceptor` is the server's outermost interceptor: it wraps
every method's handler (FurnaceService, health, reflection), so it sees calls
that the token check refuses too.  For each call it keeps a :class:`CallRecord`
in the context variable :data:`CALL`, which the servicer fills in as it learns
things (:func:`note`: game, players, budget, iterations, queue wait, stop
reason, the ErrorInfo reason of a refusal), and when the call ends it

* counts it and its latency in :class:`ServerMetrics` (``prometheus-client``,
  a registry per server: requests and latency histograms per method and status,
  searches, iterations and playouts, queue wait; queue depth, busy workers and
  the workers' CPU time are read from the pool when scraped), and
* writes one JSON line to the logger :data:`ACCESS_LOGGER` (``furnace.access``)
  if it is enabled at INFO: ``furnace serve --access-log [FILE]`` routes it to
  standard error or a file; embedders route it like any logger.  Health probes
  are counted but not logged.

>>> record = CallRecord("BestMove")
>>> record.game, record.players = "samara", 2
>>> line = access_fields(record, "OK", 0.1234, "ipv4:127.0.0.1")
>>> line["method"], line["status"], line["latency_ms"], line["players"]
('BestMove', 'OK', 123.4, 2)
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import grpc

from ai_server.identity import client_identity

#: Name of the access logger (one JSON line per call at INFO).
ACCESS_LOGGER = "furnace.access"
access_log = logging.getLogger(ACCESS_LOGGER)

#: Methods whose work runs in the search pool (the others' in the call pool).
SEARCH_METHODS = frozenset({"BestMove", "Analyze", "EstimateScores", "ReviewGame"})
#: Methods counted in the metrics but left out of the access log (probes).
QUIET_METHODS = frozenset({"Health.Check", "Health.Watch"})

#: Latency buckets (seconds): fine below 250 ms, where cheap calls and 100 ms
#: searches live, coarse up to the server's maximum search time.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2,
                   0.25, 0.3, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
QUEUE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class CallRecord:
    """What is known about one call (the servicer fills it in through :func:`note`)."""

    method: str
    game: str | None = None
    players: int | None = None
    budget_iterations: int | None = None
    budget_ms: int | None = None
    iterations: int | None = None
    #: Searches the call ran, when more than one (ReviewGame: a search per decision).
    searches: int | None = None
    playouts: int | None = None
    search_ms: float | None = None
    queue_ms: float | None = None
    stop_reason: str | None = None
    #: ErrorInfo reason of an error answer (``QUEUE_FULL``, ``ILLEGAL_MOVE``...).
    reason: str | None = None


#: The record of the call being served (None outside a call).
CALL: contextvars.ContextVar[CallRecord | None] = contextvars.ContextVar("furnace_call",
                                                                        default=None)


def note(**fields: Any) -> None:
    """Set fields of the current call's record (nothing outside a call)."""
    record = CALL.get()
    if record is not None:
        for name, value in fields.items():
            setattr(record, name, value)


def method_label(full_method: str) -> str:
    """``/furnace.v1.FurnaceService/BestMove`` -> ``BestMove``; other services keep their
    short service name: ``/grpc.health.v1.Health/Check`` -> ``Health.Check``.

    >>> method_label("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")
    'ServerReflection.ServerReflectionInfo'
    """
    service, _, name = full_method.lstrip("/").rpartition("/")
    if service == "furnace.v1.FurnaceService":
        return name
    short = service.rpartition(".")[2]
    return f"{short}.{name}" if short else name or "unknown"


def access_fields(record: CallRecord, status: str, seconds: float,
                  client: str) -> dict[str, Any]:
    """The JSON object of one access-log line (fields that are unknown left out)."""
    line: dict[str, Any] = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
        "method": record.method,
        "status": status,
        "latency_ms": round(seconds * 1000, 2),
        "client": client,
    }
    if record.game is not None:
        line["game"] = record.game
    if record.players is not None:
        line["players"] = record.players
    if record.budget_iterations is not None or record.budget_ms is not None:
        line["budget"] = {"iterations": record.budget_iterations or 0,
                          "time_ms": record.budget_ms or 0}
    for name in ("iterations", "searches", "playouts", "search_ms", "queue_ms", "stop_reason", "reason"):
        value = getattr(record, name)
        if value is not None:
            line[name] = round(value, 2) if isinstance(value, float) else value
    return line


# -- metrics --------------------------------------------------------------------------------
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of process ``pid`` (Linux ``/proc``; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None


class _PoolCollector:
    """Gauges read from the worker pools when scraped: the search pool's as
    ``furnace_search_*``, the call pool's as ``furnace_call_*``."""

    def __init__(self, pool: Any, workers: int, call_pool: Any = None) -> None:
        self.pool = pool
        self.workers = workers
        self.call_pool = call_pool

    def describe(self) -> Iterable[Any]:
        return []  # the families are only known at collection; no checks at registration

    def collect(self) -> Iterable[Any]:
        yield from self._pool("search", self.pool, self.workers,
                              "Searches and estimates waiting for a worker")
        if self.call_pool is not None:
            yield from self._pool("call", self.call_pool, self.call_pool.workers,
                                  "Other calls (NewGame, LegalMoves, CheckMove, ApplyMove) "
                                  "waiting for a worker")
            yield self._counter("furnace_call_worker_kills",
                                "Call workers killed because their call ran past its time "
                                "(or its caller left)", self.call_pool.kills)

    @staticmethod
    def _counter(name: str, text: str, value: float) -> Any:
        from prometheus_client.core import CounterMetricFamily

        return CounterMetricFamily(name, text, value=value)

    def _pool(self, kind: str, pool: Any, workers: int, waiting: str) -> Iterable[Any]:
        from prometheus_client.core import GaugeMetricFamily

        state = pool.state()
        title = kind.capitalize()
        yield GaugeMetricFamily(f"furnace_{kind}_workers", f"{title} worker processes "
                                f"configured", value=workers)
        yield GaugeMetricFamily(f"furnace_{kind}_workers_busy",
                                f"{title} workers running a job", value=state["running"])
        yield GaugeMetricFamily(f"furnace_{kind}_queue_depth", waiting, value=state["queued"])
        yield self._counter(f"furnace_{kind}_worker_restarts",
                            "Workers started to replace one that died or retired",
                            state["restarts"])
        yield self._counter(f"furnace_{kind}_preemptions",
                            "Jobs stopped early, beyond their client's fair share, for "
                            "another client's waiting job", getattr(pool, "preemptions", 0))
        # CPU of the live workers plus that of the workers that have exited.
        cpu = pool.exited_cpu
        for pid in pool.worker_pids():
            cpu += process_cpu_seconds(pid) or 0.0
        yield self._counter(f"furnace_{kind}_worker_cpu_seconds",
                            f"CPU seconds used by the {kind} worker processes", cpu)


class _StallCollector:
    """The event loop's stalls, read from its watchdog when scraped."""

    def __init__(self, watchdog: Any) -> None:
        self.watchdog = watchdog

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterable[Any]:
        yield _PoolCollector._counter(
            "furnace_event_loop_stalls",
            "Times code held the server's event loop past the stall threshold",
            self.watchdog.held)


class ServerMetrics:
    """The Prometheus metrics of one server (its own registry: several servers may share
    a process in tests)."""

    def __init__(self, pool: Any = None, workers: int = 0, call_pool: Any = None) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector

        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        labels = ("method", "status")
        self.requests = Counter("furnace_requests", "Calls answered, by method and status",
                                labels, registry=self.registry)
        self.latency = Histogram("furnace_request_duration_seconds",
                                 "Time from a call's arrival to its answer (a stream: to "
                                 "its end), by method and status", labels,
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.searches = Counter("furnace_searches",
                                "Searches answered (BestMove, Analyze; ReviewGame: one a "
                                "decision reviewed)",
                                ("method", "game"), registry=self.registry)
        self.iterations = Counter("furnace_search_iterations",
                                  "Search iterations of the searches answered", ("game",),
                                  registry=self.registry)
        self.playouts = Counter("furnace_playouts", "EstimateScores playouts answered",
                                ("game",), registry=self.registry)
        self.refusals = Counter("furnace_refusals",
                                "Calls refused RESOURCE_EXHAUSTED, by method and reason",
                                ("method", "reason"), registry=self.registry)
        self.queue_wait = Histogram("furnace_search_queue_wait_seconds",
                                    "Time a search or estimate waited for a worker",
                                    buckets=QUEUE_BUCKETS, registry=self.registry)
        self.call_queue_wait = Histogram(
            "furnace_call_queue_wait_seconds",
            "Time another call (NewGame, LegalMoves, CheckMove, ApplyMove) waited for a "
            "call worker", buckets=QUEUE_BUCKETS, registry=self.registry)
        if pool is not None:
            self.registry.register(_PoolCollector(pool, workers, call_pool))
        self._http: Any = None
        self.port: int | None = None
        #: The address the endpoint is bound to (``serve``).
        self.host: str | None = None

    def observe(self, record: CallRecord, status: str, seconds: float) -> None:
        self.requests.labels(record.method, status).inc()
        self.latency.labels(record.method, status).observe(seconds)
        if status == "OK":
            if record.iterations is not None:
                game = record.game or "unknown"
                self.searches.labels(record.method, game).inc(
                    1 if record.searches is None else record.searches)
                self.iterations.labels(game).inc(record.iterations)
            if record.playouts is not None:
                self.playouts.labels(record.game or "unknown").inc(record.playouts)
        elif status == "RESOURCE_EXHAUSTED":
            self.refusals.labels(record.method, record.reason or "TRANSPORT").inc()
        if record.queue_ms is not None:
            waits = self.queue_wait if record.method in SEARCH_METHODS else \
                self.call_queue_wait
            waits.observe(record.queue_ms / 1000)

    def watch_loop(self, watchdog: Any) -> None:
        """Count ``watchdog``'s stalls of the event loop (when scraped)."""
        self.registry.register(_StallCollector(watchdog))

    def text(self) -> str:
        """The exposition text of every metric (what a scrape answers)."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry).decode("utf-8")

    def serve(self, port: int, host: str = "127.0.0.1") -> int:
        """Answer ``GET /metrics`` on ``host:port`` (0: any free port) in a daemon thread."""
        from prometheus_client import start_http_server

        address = host.strip("[]")
        self._http, _ = start_http_server(port, addr=address, registry=self.registry)
        self.port = int(self._http.server_address[1])
        self.host = str(self._http.server_address[0])
        return self.port

    def close(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


# -- the interceptor ------------------------------------------------------------------------
def _status(context: grpc.aio.ServicerContext, default: str) -> str:
    try:
        code = context.code()
    except Exception:  # noqa: BLE001 - older gRPC: no code() on aio contexts
        return default
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    return default


class ObservingInterceptor(grpc.aio.ServerInterceptor):
    """Times every call and reports it to the metrics and the access log."""

    def __init__(self, metrics: ServerMetrics | None) -> None:
        self.metrics = metrics

    def finish(self, record: CallRecord, status: str, seconds: float,
               context: grpc.aio.ServicerContext) -> None:
        if self.metrics is not None:
            self.metrics.observe(record, status, seconds)
        if record.method not in QUIET_METHODS and access_log.isEnabledFor(logging.INFO):
            line = access_fields(record, status, seconds, client_identity(context))
            access_log.info(json.dumps(line, separators=(",", ":")))

    def _unary(self, label: str, inner: Callable[[Any, Any], Awaitable[Any]]
               ) -> Callable[[Any, Any], Awaitable[Any]]:
        async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
            record = CallRecord(label)
            CALL.set(record)
            started = time.perf_counter()
            status = "UNKNOWN"
            try:
                result = await inner(request, context)
                status = _status(context, "OK")
                return result
            except asyncio.CancelledError as ended:
                # errors.CallEnded: a status the ended call could not take; else cancelled.
                status = getattr(ended, "status", "CANCELLED")
                raise
            except grpc.aio.AbortError:
                status = _status(context, "UNKNOWN")
                raise
            finally:
                self.finish(record, status, time.perf_counter() - started, context)

        return behavior

    def _stream(self, label: str, inner: Callable[[Any, Any], AsyncIterator[Any]]
                ) -> Callable[[Any, Any], AsyncIterator[Any]]:
        async def behavior(request: Any, context: grpc.aio.ServicerContext
                           ) -> AsyncIterator[Any]:
            record = CallRecord(label)
            CALL.set(record)
            started = time.perf_counter()
            status = "UNKNOWN"
            try:
                async for item in inner(request, context):
                    yield item
                status = _status(context, "OK")
            except (asyncio.CancelledError, GeneratorExit) as ended:
                status = getattr(ended, "status", "CANCELLED")
                raise
            except grpc.aio.AbortError:
                status = _status(context, "UNKNOWN")
                raise
            finally:
                self.finish(record, status, time.perf_counter() - started, context)

        return behavior

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails],
                                     Awaitable[grpc.RpcMethodHandler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler  # unknown methods and client streams (reflection) pass as they are
        label = method_label(handler_call_details.method)
        if handler.response_streaming:
            if handler.unary_stream is None:  # pragma: no cover - gRPC fills it
                return handler
            inner = handler.unary_stream
            # A stream is an async generator, or a coroutine that writes to its context
            # (grpc.health's Watch): each gets a wrapper of its own kind.
            wrapped = self._stream(label, inner) if inspect.isasyncgenfunction(inner) \
                else self._unary(label, inner)  # type: ignore[arg-type]
            return grpc.unary_stream_rpc_method_handler(
                wrapped,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        if handler.unary_unary is None:  # pragma: no cover
            return handler
        return grpc.unary_unary_rpc_method_handler(
            self._unary(label, handler.unary_unary),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)


def configure_access_log(destination: str | None) -> logging.Handler | None:
    """Route the access log: ``"-"`` to standard error, a path to that file (appended),
    None: off.  Returns the handler added."""
    if destination is None:
        access_log.setLevel(logging.WARNING)
        return None
    handler: logging.Handler
    if destination == "-":
        handler = logging.StreamHandler()
    else:
        handler = logging.FileHandler(destination, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False
    return handler
