"""The Furnace gRPC server: grpc.aio front end, search worker processes behind it.

>>> server, port = await create_server(port=0, workers=2)   # doctest: +SKIP
>>> await server.start()                                     # doctest: +SKIP

* :func:`create_server` builds a server (bound, worker processes started) for tests
  and embedding; :func:`serve` runs one until SIGTERM/SIGINT for the CLI (SIGHUP
  reloads certificates and tokens, :class:`CredentialRenewals`).
* :class:`BackgroundServer` runs a server on its own event loop in a thread, for
  synchronous code (tests, a local opponent for ``furnace play``).
* Health checking (``grpc.health.v1.Health``, overall and per service) and server
  reflection are on.  On shutdown health goes NOT_SERVING first, new calls are
  refused and in-flight calls get ``grace`` seconds to finish; searches still running
  near its end answer their best move so far (:meth:`FurnaceServer.stop`).
* ``security=`` (:class:`~ai_server.security.SecurityConfig`) adds TLS, mutual
  TLS and bearer tokens, or turns reflection off.
* ``http_port=`` also serves the service over HTTP (Connect protocol, gRPC-Web, the
  web table; :mod:`ai_server.http_door`), with the same security and limits.
* Every call is counted in the server's Prometheus metrics and, when the
  ``furnace.access`` logger is enabled, logged as one JSON line
  (:mod:`ai_server.observe`); ``metrics_port=`` serves the metrics over HTTP.  Requests reach the servicer
  through :mod:`ai_server.wire`: size-checked, parsed off the event loop and
  counted before any game code runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from ai_server import calls, reflection, wire
from ai_server.config import ServerConfig
from ai_server.loopwatch import LoopWatchdog
from ai_server.observe import ObservingInterceptor, ServerMetrics
from ai_server.pool import WorkerPool
from ai_server.security import SecurityConfig
from ai_server.service import FurnaceServicer
from furnace_proto.furnace.v1 import furnace_pb2 as pb

log = logging.getLogger("ai_server")

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["FurnaceService"].full_name
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
#: On shutdown, searches still running this long before the grace period ends (at
#: most half of it) are stopped and answer their best move so far.
SHUTDOWN_LEAD = 0.5
#: What the pools' jobs come from: a worker imports them before it says it is ready.
JOB_MODULES = ("ai_server.calls", "ai_server.jobs", "ai_server.reviews")
#: Where the metrics are served without ``metrics_host``.
METRICS_HOST = "127.0.0.1"


class FurnaceServer:
    """A created server: the grpc.aio server, the worker pool and the health servicer."""

    def __init__(self, grpc_server: grpc.aio.Server, servicer: FurnaceServicer,
                 health_servicer: Any, pool: WorkerPool, config: ServerConfig,
                 port: int, metrics: ServerMetrics | None = None,
                 health_server: grpc.aio.Server | None = None,
                 health_port: int | None = None, http_server: Any = None,
                 call_pool: WorkerPool | None = None) -> None:
        self.grpc_server = grpc_server
        #: The HTTP door (Connect, gRPC-Web, the web table) when ``http_port`` was given.
        self.http_server = http_server
        self.http_port: int | None = http_server.port if http_server is not None else None
        self.metrics = metrics
        #: A plaintext server of the health service alone (``health_port``), for
        #: probes that cannot speak TLS (Kubernetes' gRPC probes).
        self.health_server = health_server
        self.health_port = health_port
        self.servicer = servicer
        self.health = health_servicer
        self.pool = pool
        #: The workers of the calls other than searches (NewGame, LegalMoves...).
        self.call_pool = call_pool
        self.config = config
        self.port = port
        self._stopped = False
        #: Watches the event loop once started (None when switched off).
        self.watchdog: LoopWatchdog | None = None

    async def start(self) -> None:
        if self.config.loop_stall_threshold:
            self.watchdog = LoopWatchdog(asyncio.get_running_loop(),
                                         self.config.loop_stall_threshold)
            self.watchdog.start()
            if self.metrics is not None:
                self.metrics.watch_loop(self.watchdog)
        await self.grpc_server.start()
        if self.health_server is not None:
            await self.health_server.start()
        if self.http_server is not None:
            await self.http_server.start()
        for name in ("", SERVICE_NAME):
            await self.health.set(name, SERVING)

    async def stop(self, grace: float | None = None) -> None:
        """Graceful stop: NOT_SERVING, refuse new calls, answer the calls in flight.

        Searches still waiting for a worker are answered UNAVAILABLE
        (``SHUTTING_DOWN``) at once; running ones may finish within ``grace``
        seconds, and those still running shortly before it ends are stopped and
        answer their best move so far (stop reason ``SHUTDOWN``).  Then the
        workers exit.
        """
        if self._stopped:
            return
        self._stopped = True
        grace = self.config.grace if grace is None else grace
        await self.health.enter_graceful_shutdown()
        self.pool.begin_shutdown()
        # Stop searches early enough that their answers still get out before the grace
        # period ends (gRPC cancels whatever is left then).
        lead = min(SHUTDOWN_LEAD, grace / 2)
        timer = asyncio.get_running_loop().call_later(max(grace - lead, 0.0),
                                                      self.pool.stop_running)
        try:
            if self.http_server is not None:
                await asyncio.gather(self.grpc_server.stop(grace), self.http_server.stop())
            else:
                await self.grpc_server.stop(grace)
        finally:
            if self.health_server is not None:
                await self.health_server.stop(0)
            timer.cancel()
            self.servicer.close()
            await asyncio.to_thread(self.pool.close)
            if self.call_pool is not None:
                await asyncio.to_thread(self.call_pool.close)
            if self.metrics is not None:
                await asyncio.to_thread(self.metrics.close)
            if self.watchdog is not None:
                await asyncio.to_thread(self.watchdog.stop)

    async def wait_for_termination(self) -> None:
        await self.grpc_server.wait_for_termination()


async def create_server(
    port: int = 0,
    workers: int | None = None,
    max_queue: int | None = None,
    *,
    host: str = "127.0.0.1",
    config: ServerConfig | None = None,
    warm: bool = True,
    security: SecurityConfig | None = None,
    wire_limits: wire.WireLimits | None = None,
    metrics_port: int | None = None,
    metrics_host: str | None = None,
    health_port: int | None = None,
    http_port: int | None = None,
    **settings: Any,
) -> tuple[FurnaceServer, int]:
    """Build a server bound to ``host:port`` (0: any free port); returns it and the port.

    Must be awaited on the event loop that will run the server.  ``workers``,
    ``max_queue`` and ``settings`` (any :class:`ServerConfig` field, e.g.
    ``max_iterations=``, ``max_time=``) override ``config``.  ``warm`` starts every
    worker process before returning.  ``security`` sets TLS, tokens and reflection
    (default: plaintext, no tokens, reflection on); ``wire_limits`` the request
    limits checked before the servicer.  ``metrics_port`` (0: any free port) serves
    the Prometheus metrics on ``metrics_host`` (default: 127.0.0.1), at
    ``server.metrics.port``.  ``health_port`` (0: any) serves the health service
    alone, in plaintext, on ``host`` too (``server.health_port``): for probes that
    cannot speak TLS.  ``http_port`` (0: any) serves the same service over HTTP on
    ``host`` too, as the Connect protocol and gRPC-Web, with the same TLS, tokens and
    limits, and the web table at ``/`` (:mod:`ai_server.http_door`;
    ``server.http_port``).  Call ``await server.start()`` to serve.
    """
    security = security or SecurityConfig()
    config = (config or ServerConfig()).with_overrides(
        workers=workers, max_queue=max_queue, **settings).resolved()
    pool = WorkerPool(config.workers, config.max_queue, max_queue_wait=config.max_queue_wait,
                      max_per_client=config.max_searches_per_client,
                      max_running_share=config.max_worker_share,
                      short_workers=config.short_search_workers,
                      short_job=config.short_search_seconds,
                      preempt_after=config.preempt_after,
                      memory_limit=config.max_search_memory_bytes, nice=config.worker_nice,
                      preload=JOB_MODULES)
    # The other calls' game work: at the front process's priority (cheap calls must not
    # wait behind searches for a core), killed when it outruns its time.
    call_pool = WorkerPool(config.call_workers, config.max_call_queue,
                           max_queue_wait=config.max_call_time,
                           max_per_client=config.max_calls_per_client,
                           max_running_share=config.max_worker_share,
                           spares=config.call_spares, preempt_after=config.preempt_after,
                           memory_limit=config.max_call_memory_bytes, name="call",
                           preload=JOB_MODULES)
    metrics = ServerMetrics(pool, config.workers, call_pool)
    health_server: grpc.aio.Server | None = None
    health_bound: int | None = None
    http_server: Any = None
    try:
        options = [
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            ("grpc.so_reuseport", 0),
            # Handshake, keepalive, idle and age limits, the connection cap (config.py).
            *config.grpc_connection_options(),
        ]
        # The observer comes first: it sees every call, those the token check refuses too.
        interceptors = [ObservingInterceptor(metrics), *security.interceptors()]
        grpc_server = grpc.aio.server(options=options, interceptors=interceptors,
                                      maximum_concurrent_rpcs=config.max_concurrent_rpcs)
        games = await asyncio.to_thread(calls.list_games, config, log)
        servicer = FurnaceServicer(config, pool, call_pool, games)
        wire.add_service(servicer, grpc_server, wire_limits)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, grpc_server)
        for name in ("", SERVICE_NAME):
            await health_servicer.set(name, NOT_SERVING)
        if security.reflection:
            # grpc.reflection.v1 and v1alpha (ai_server/reflection.py).
            reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME), grpc_server)
        address = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else \
            f"{host}:{port}"
        try:
            bound = security.add_port(grpc_server, address)
        except RuntimeError as exc:
            raise OSError(f"cannot listen on {address}: {exc}") from None
        if not bound:
            raise OSError(f"cannot listen on {address}")
        if health_port is not None:
            health_server = grpc.aio.server(interceptors=[ObservingInterceptor(metrics)],
                                            options=config.grpc_connection_options())
            health_pb2_grpc.add_HealthServicer_to_server(health_servicer, health_server)
            health_address = f"[{host}]:{health_port}" if ":" in host and \
                not host.startswith("[") else f"{host}:{health_port}"
            try:
                health_bound = health_server.add_insecure_port(health_address)
            except RuntimeError as exc:
                raise OSError(f"cannot listen on {health_address}: {exc}") from None
            if not health_bound:
                raise OSError(f"cannot listen on {health_address}")
        if http_port is not None:
            from ai_server import http_door

            try:
                sock = http_door.bind(host, http_port)
            except OSError as exc:
                raise OSError(f"cannot listen on {host}:{http_port} (HTTP): "
                              f"{exc.strerror or exc}") from None
            door = http_door.HttpDoor(servicer, config, security, metrics, wire_limits)
            http_server = http_door.HttpServer(door, sock, security, config.grace)
        if metrics_port is not None:
            metrics_host = metrics_host or METRICS_HOST  # unauthenticated: not on `host`
            try:
                metrics.serve(metrics_port, metrics_host)
            except OSError as exc:
                raise OSError(f"cannot serve metrics on {metrics_host}:{metrics_port}: "
                              f"{exc.strerror or exc}") from None
        if warm:
            await asyncio.to_thread(pool.warm_up)
            await asyncio.to_thread(call_pool.warm_up)
    except BaseException:
        if http_server is not None:
            http_server.socket.close()
        metrics.close()
        await asyncio.to_thread(pool.close)
        await asyncio.to_thread(call_pool.close)
        raise
    return FurnaceServer(grpc_server, servicer, health_servicer, pool, config, bound,
                         metrics, health_server, health_bound, http_server,
                         call_pool), bound


class CredentialRenewals:
    """SIGHUP and a look at the credential files every ``interval`` seconds: both run
    ``security.reload`` (:meth:`SecurityConfig.reload`) off the event loop.

    SIGHUP never stops the server: it reloads what can be reloaded, and logs what it
    did (or that there is nothing to reload).
    """

    def __init__(self, security: SecurityConfig | None, interval: float = 0.0) -> None:
        self.security = security
        self.interval = interval
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Future[Any]] = set()
        self._poll: asyncio.Task[None] | None = None

    @property
    def reloadable(self) -> bool:
        return self.security is not None and bool(self.security.files)

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError,
                                 AttributeError):  # no SIGHUP (Windows), not the main thread
            self._loop.add_signal_handler(signal.SIGHUP, self.on_hangup)
        if self.reloadable and self.interval > 0:
            self._poll = asyncio.ensure_future(self._watch())

    def on_hangup(self) -> None:
        if not self.reloadable:
            log.info("SIGHUP: nothing to reload (no certificate or token file); "
                     "SIGTERM or Ctrl-C stops the server")
            return
        self._run("SIGHUP", announce=True)

    def _run(self, reason: str, announce: bool) -> asyncio.Future[Any]:
        assert self.security is not None
        task = asyncio.ensure_future(asyncio.to_thread(self.security.reload, reason, announce))
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("reloading the credentials failed", exc_info=task.exception())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            with contextlib.suppress(Exception):  # logged by _done; look again next time
                await asyncio.shield(self._run("credential files changed", announce=False))

    async def stop(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError,
                                     AttributeError):
                self._loop.remove_signal_handler(signal.SIGHUP)
        if self._poll is not None:
            self._poll.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poll
        if self._tasks:
            await asyncio.wait(self._tasks)


async def serve(
    host: str = "127.0.0.1",
    port: int = 50051,
    workers: int | None = None,
    max_queue: int | None = None,
    *,
    config: ServerConfig | None = None,
    ready: Any = None,
    started: Any = None,
    reload_interval: float = 0.0,
    **settings: Any,
) -> None:
    """Run a server until SIGTERM or SIGINT, then shut down gracefully.

    SIGHUP reads the certificates and token files of ``security`` again
    (:class:`CredentialRenewals`), as does a look at them every ``reload_interval``
    seconds (0: only on SIGHUP).  ``ready``, if given, is called with the bound port
    once serving; ``started`` with the :class:`FurnaceServer`.
    """
    renewals = CredentialRenewals(settings.get("security"), reload_interval)
    renewals.start()  # before the workers start: SIGHUP must never end the server
    try:
        server, bound = await create_server(port, workers, max_queue, host=host,
                                            config=config, **settings)
        await _serve_until_stopped(server, bound, host, ready, started)
    finally:
        await renewals.stop()
    log.info("furnace server stopped")


async def _serve_until_stopped(server: FurnaceServer, bound: int, host: str, ready: Any,
                               started: Any) -> None:
    await server.start()
    log.info("furnace server listening on %s:%d (%d workers, queue %d)", host, bound,
             server.config.workers, server.config.max_queue)
    if ready is not None:
        ready(bound)
    if started is not None:
        started(server)
    _log_sealing(server.config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    hurried: list[asyncio.Future[Any]] = []

    def on_signal() -> None:
        if not stop.is_set():
            stop.set()
        elif not hurried:  # a second signal: answer the searches now, end the rest soon
            log.info("second signal: stopping searches now")
            server.pool.stop_running()
            hurried.append(asyncio.ensure_future(server.grpc_server.stop(SHUTDOWN_LEAD)))

    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
    waiter = asyncio.ensure_future(server.wait_for_termination())
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set():
            log.info("shutting down: finishing in-flight calls (grace %.1fs)",
                     server.config.grace)
    finally:
        try:
            await server.stop()
            for task in hurried:
                await task
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            for task in (waiter, stopper):
                task.cancel()


def _log_sealing(config: ServerConfig) -> None:
    """Say which keys seal states; a key made for this process is a warning, since
    its states die with the process."""
    sealer = config.sealer
    assert sealer is not None  # a resolved config has one
    ids = sealer.key_ids
    if sealer.per_process:
        log.warning("no --seal-key: states are sealed with a key made for this process "
                    "(key id %s); a restarted server or another replica cannot open them, "
                    "so their games cannot go on there. Several replicas, or games that "
                    "must outlive a restart, need a shared key (docs/operations.md, "
                    "\"Sealing keys\")", ids[0])
    else:
        log.info("furnace server seals states with key %s%s", ids[0],
                 f" (and opens those of {', '.join(ids[1:])})" if ids[1:] else "")
    if config.allow_sealed_seeds:
        log.warning("--allow-sealed-seeds: a sealed NewGame takes the client's seed; whoever "
                    "knows it can deal the game again in clear (the hidden hands and the "
                    "deck). For tests and replays only")


class BackgroundServer:
    """A server on its own event loop in a daemon thread, for synchronous callers.

    >>> with BackgroundServer(workers=1) as srv:        # doctest: +SKIP
    ...     address = srv.address
    """

    def __init__(self, port: int = 0, workers: int | None = None,
                 max_queue: int | None = None, *, host: str = "127.0.0.1",
                 **settings: Any) -> None:
        self._args = (port, workers, max_queue)
        self._host = host
        self._settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="furnace-server",
                                        daemon=True)
        self.server: FurnaceServer | None = None
        self.port = 0

    @property
    def address(self) -> str:
        return f"{self._host}:{self.port}"

    def start(self, timeout: float = 60.0) -> int:
        self._thread.start()

        async def boot() -> int:
            port, workers, max_queue = self._args
            self.server, bound = await create_server(port, workers, max_queue,
                                                     host=self._host, **self._settings)
            await self.server.start()
            return bound

        try:
            self.port = asyncio.run_coroutine_threadsafe(boot(), self._loop).result(timeout)
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            raise
        return self.port

    def stop(self, grace: float | None = 1.0, timeout: float = 60.0) -> None:
        if self.server is not None:
            asyncio.run_coroutine_threadsafe(self.server.stop(grace), self._loop).result(timeout)
            self.server = None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)

    def run(self, coro: Any, timeout: float | None = None) -> Any:
        """Run ``coro`` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def __enter__(self) -> BackgroundServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def running_server(**kwargs: Any) -> Iterator[BackgroundServer]:
    """``with running_server(workers=2) as srv: ... srv.address ...``"""
    srv = BackgroundServer(**kwargs)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
