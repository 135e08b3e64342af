"""Server settings: worker count, queue bound, budget caps, message size, timing margins."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ai_server.sealing import Sealer

#: Search workers per CPU core by default.  Two, because searches with a time budget
#: would otherwise queue behind each other (a 300 ms analysis holds a worker while a
#: 100 ms move waits) while the cores are half idle; two workers per core share the
#: cores instead, so a busy machine answers on time with fewer iterations rather than
#: refusing.  Measured in docs/load/README.md (capacity 1.6 -> 8.1 searches/s per core).
WORKERS_PER_CORE = 2


#: Seconds a connection past its maximum age keeps for its calls beyond the longest a
#: call may run (:meth:`ServerConfig.grpc_connection_age_grace`).
CONNECTION_AGE_MARGIN = 10.0


#: The connection timeouts (seconds, positive) of :class:`ServerConfig`.
_CONNECTION_TIMEOUTS = ("http_header_timeout", "http_body_timeout", "http_send_timeout",
                        "http_idle_timeout", "grpc_handshake_timeout", "grpc_keepalive_time",
                        "grpc_keepalive_timeout")


def default_workers() -> int:
    return WORKERS_PER_CORE * max(1, os.cpu_count() or 1)


#: Call workers (the game work of NewGame, LegalMoves, CheckMove, ApplyMove) per CPU core
#: by default: two, as for searches, so that a client held to half of them
#: (``max_worker_share``) still has a worker on every core.
CALL_WORKERS_PER_CORE = 2


def default_call_workers() -> int:
    return CALL_WORKERS_PER_CORE * max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ServerConfig:
    """Everything the server can be told (``furnace serve --help`` lists the flags)."""

    #: Search worker processes.
    workers: int = 0  # 0: WORKERS_PER_CORE per CPU core
    #: Searches that may wait for a worker beyond those running (then RESOURCE_EXHAUSTED).
    max_queue: int = 16
    #: Seconds a search may wait for a worker; one that could not start by then is
    #: refused (RESOURCE_EXHAUSTED).  The wait counts against its time budget.
    max_queue_wait: float = 10.0
    #: Searches and estimates one client may have running or waiting (0: no limit).
    max_searches_per_client: int = 8
    #: The share of the search workers, and of the call workers, one client may keep
    #: busy at once (at least one worker): the rest stay free for other clients.  With
    #: two workers per core (the default), half the workers is one per core, so a
    #: client alone still uses every core.  1: no such bound (first come, first served).
    max_worker_share: float = 0.5
    #: Search workers beyond ``workers`` that take only short searches: those that
    #: must end within ``short_search_seconds`` of their arrival (a time budget or a
    #: deadline that short), so that they never wait behind long ones.
    short_search_workers: int = 1
    short_search_seconds: float = 1.0
    #: Seconds a job must have run on a worker beyond its client's fair share before
    #: a waiting client's job may preempt it (the search answers its best move so far).
    preempt_after: float = 0.5
    #: Call worker processes kept started and idle beyond ``call_workers``, so that a
    #: worker killed for a costly call is replaced at once.
    call_spares: int = 1
    #: Without tokens, a client is its address's network of this many leading bits:
    #: a whole IPv6 /64 is usually one host or site.
    client_ipv4_prefix: int = 32
    client_ipv6_prefix: int = 64
    #: Worker processes for the game work of the other calls (NewGame, LegalMoves,
    #: CheckMove, ApplyMove: decoding, validating, answering).
    call_workers: int = 0  # 0: CALL_WORKERS_PER_CORE per CPU core
    #: Such calls that may wait for a call worker beyond those running.
    max_call_queue: int = 64
    #: Such calls one client may have running or waiting (0: no limit).
    max_calls_per_client: int = 32
    #: Longest a call's game work may take, in seconds, when the call's own deadline
    #: allows more (or it has none): past it the work is stopped (its worker killed)
    #: and the call answered DEADLINE_EXCEEDED (reason ``TOO_EXPENSIVE``).  Real
    #: positions take milliseconds.
    max_call_time: float = 10.0
    #: Resident memory in bytes past which a call worker's work is stopped (its worker
    #: killed: RESOURCE_EXHAUSTED, reason ``TOO_EXPENSIVE``).
    max_call_memory_bytes: int = 1 << 30
    #: A search stops (answering its best move so far) when its worker's resident
    #: memory passes this many bytes.
    max_search_memory_bytes: int = 1 << 30
    #: Scheduling priority steps (``nice``) the search workers run below the server's
    #: front process, so that cheap calls never wait behind searches for a core.
    worker_nice: int = 10
    #: RPCs in progress at once (health checks and streams included); more are
    #: refused by gRPC with RESOURCE_EXHAUSTED.
    max_concurrent_rpcs: int = 256
    #: Caps of a search budget; larger requests are INVALID_ARGUMENT.
    max_iterations: int = 1_000_000
    max_time: float = 60.0
    #: Budget when a BestMove request gives none.
    default_iterations: int = 1000
    #: Seconds an Analyze request without a budget runs (capped by max_time).
    default_analyze_time: float = 10.0
    #: Playouts cap and default of EstimateScores.
    max_playouts: int = 20_000
    default_playouts: int = 200
    #: Most decisions one ReviewGame call reviews (each one runs as a search).  A
    #: whole game of Stephens is about 110 decisions a seat.
    max_review_decisions: int = 500
    #: Analyze update interval: default and minimum, in seconds.
    default_update_interval: float = 0.5
    min_update_interval: float = 0.05
    #: Largest request/response message in bytes.
    max_message_bytes: int = 4 * 1024 * 1024
    #: Searches stop this long (plus ``deadline_fraction`` of the time left) before
    #: the call's deadline, so the answer arrives in time.
    deadline_margin: float = 0.08
    deadline_fraction: float = 0.05
    #: Seconds in-flight calls get to finish on shutdown.
    grace: float = 5.0
    #: The event loop answering no callback for this long (code holding it: every
    #: call waits meanwhile) is logged as a warning with the code's stack and counted
    #: (:mod:`ai_server.loopwatch`); 0: not watched.
    loop_stall_threshold: float = 0.1
    # -- connections (docs/operations.md, "Connections: limits and timeouts") ----------
    #: HTTP door: seconds a request's head (request line and headers) may take to
    #: arrive, from the connection's opening or the first byte after an idle spell.
    http_header_timeout: float = 10.0
    #: HTTP door: seconds a request's body may take to arrive in full after its head.
    http_body_timeout: float = 30.0
    #: HTTP door: seconds an answer may wait for a client that reads none of it.
    http_send_timeout: float = 30.0
    #: HTTP door: seconds a kept-alive connection may sit idle between requests.
    http_idle_timeout: float = 15.0
    #: HTTP door: connections open at once; more are answered 503 and closed (0: no cap).
    http_max_connections: int = 512
    #: gRPC port: seconds a new connection has to open HTTP/2 (TLS included).
    grpc_handshake_timeout: float = 20.0
    #: gRPC port: seconds without a frame on a connection with calls in flight before
    #: the server pings it, and seconds it waits for the answer before dropping it.
    grpc_keepalive_time: float = 60.0
    grpc_keepalive_timeout: float = 20.0
    #: gRPC port: seconds a connection may go without calls before the server closes
    #: it (GOAWAY; clients reconnect transparently; 0: never).
    grpc_max_connection_idle: float = 300.0
    #: gRPC port: seconds after which a connection is asked to go (GOAWAY; its calls
    #: get :meth:`grpc_connection_age_grace` to finish; 0: never).
    grpc_max_connection_age: float = 1800.0
    #: gRPC port: connections open at once; more are closed at once (0: no cap).
    grpc_max_connections: int = 512
    #: The keys of sealed states (``--seal-key``, :mod:`ai_server.sealing`); None: a key
    #: made for this process when the settings are resolved, so every server seals
    #: (only the process that made it opens its states).  Travels to the workers.
    sealer: Sealer | None = None
    #: Whether a sealed NewGame may take the client's ``seed`` (``--allow-sealed-seeds``).
    #: For tests and replays only: a holder who knows the seed can re-deal the hidden
    #: cards (every hand, the deck order) with an unsealed NewGame on any server.  Off, a
    #: sealed NewGame refuses a seed and deals from one the server draws and never answers.
    allow_sealed_seeds: bool = False

    def grpc_connection_age_grace(self) -> float:
        """Seconds the calls of a connection past ``grpc_max_connection_age`` get to finish:
        the longest a call may run (``max_queue_wait`` then ``max_time``) and a margin, so
        that an Analyze stream is never cut by its connection's age."""
        return self.max_time + self.max_queue_wait + CONNECTION_AGE_MARGIN

    def grpc_connection_options(self) -> list[tuple[str, int]]:
        """gRPC core's channel arguments of the connection settings (for ``grpc.aio.server``)."""

        def ms(seconds: float) -> int:
            return max(1, round(seconds * 1000))

        options = [
            ("grpc.server_handshake_timeout_ms", ms(self.grpc_handshake_timeout)),
            ("grpc.keepalive_time_ms", ms(self.grpc_keepalive_time)),
            ("grpc.keepalive_timeout_ms", ms(self.grpc_keepalive_timeout)),
            # The server's keepalive pings go on through a long quiet call (a 60 s
            # BestMove sends nothing): gRPC would stop after two pings without data.
            ("grpc.http2.max_pings_without_data", 0),
        ]
        if self.grpc_max_connection_idle:
            options.append(("grpc.max_connection_idle_ms", ms(self.grpc_max_connection_idle)))
        if self.grpc_max_connection_age:
            options += [("grpc.max_connection_age_ms", ms(self.grpc_max_connection_age)),
                        ("grpc.max_connection_age_grace_ms",
                         ms(self.grpc_connection_age_grace()))]
        if self.grpc_max_connections:
            options.append(("grpc.max_allowed_incoming_connections", self.grpc_max_connections))
        return options

    def resolved(self) -> ServerConfig:
        """A copy with defaults filled in (``workers=0`` and ``call_workers=0``: two per
        CPU core; no ``sealer``: a key of this process's own) and checked."""
        config = self if self.workers else replace(self, workers=default_workers())
        if not config.call_workers:
            config = replace(config, call_workers=default_call_workers())
        if config.sealer is None:
            from ai_server.sealing import Sealer

            config = replace(config, sealer=Sealer.for_this_process())
        config.check()
        return config

    def check(self) -> None:
        positive = ("workers", "max_iterations", "max_time", "default_iterations",
                    "default_analyze_time",
                    "max_playouts", "default_playouts", "max_review_decisions",
                    "default_update_interval",
                    "min_update_interval", "max_message_bytes", "max_queue_wait",
                    "max_search_memory_bytes", "max_concurrent_rpcs", "max_call_time",
                    "max_call_memory_bytes",
                    *_CONNECTION_TIMEOUTS)
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)!r}")
        for name in ("max_queue", "deadline_margin", "deadline_fraction", "grace",
                     "loop_stall_threshold",
                     "max_searches_per_client", "max_call_queue", "max_calls_per_client",
                     "call_workers", "http_max_connections", "grpc_max_connections",
                    "short_search_workers", "call_spares", "preempt_after",
                     "grpc_max_connection_idle", "grpc_max_connection_age"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, not {getattr(self, name)!r}")
        if not 0 < self.max_worker_share <= 1:
            raise ValueError(f"max_worker_share must be in (0, 1], not {self.max_worker_share!r}")
        if not self.short_search_seconds > 0:
            raise ValueError(f"short_search_seconds must be positive, not "
                             f"{self.short_search_seconds!r}")
        if not 0 <= self.client_ipv4_prefix <= 32:
            raise ValueError(f"client_ipv4_prefix must be in 0..32, not "
                             f"{self.client_ipv4_prefix!r}")
        if not 0 <= self.client_ipv6_prefix <= 128:
            raise ValueError(f"client_ipv6_prefix must be in 0..128, not "
                             f"{self.client_ipv6_prefix!r}")
        if not 0 <= self.worker_nice <= 19:
            raise ValueError(f"worker_nice must be in 0..19, not {self.worker_nice!r}")
        if self.default_iterations > self.max_iterations:
            raise ValueError("default_iterations is more than max_iterations")
        if self.default_playouts > self.max_playouts:
            raise ValueError("default_playouts is more than max_playouts")
        for name in ("max_time", "max_queue_wait", "max_call_time", *_CONNECTION_TIMEOUTS,
                     "grpc_max_connection_idle", "grpc_max_connection_age"):
            if getattr(self, name) * 1000 >= 2**31:
                raise ValueError(f"{name} is too large")
        if self.grpc_connection_age_grace() * 1000 >= 2**31:
            raise ValueError("max_time and max_queue_wait are too large")
        # int32 on the wire (ServerLimits, Analysis.iterations, MoveAnalysis.visits) and in
        # gRPC core's channel arguments.
        for name in ("max_iterations", "default_iterations", "max_playouts",
                     "default_playouts", "max_review_decisions", "max_queue",
                     "max_concurrent_rpcs",
                     "max_searches_per_client", "max_message_bytes", "http_max_connections",
                     "grpc_max_connections"):
            if getattr(self, name) >= 2**31:
                raise ValueError(f"{name} is too large: at most {2**31 - 1}")

    def with_overrides(self, **overrides: Any) -> ServerConfig:
        """A copy with the non-None ``overrides`` applied (unknown names raise TypeError)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown server setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})
