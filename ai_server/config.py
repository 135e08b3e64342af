"""Server settings: worker count, queue bound, budget caps, message size, timing margins."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

#: Search workers per CPU core by default.  Two, because searches with a time budget
#: would otherwise queue behind each other (a 300 ms analysis holds a worker while a
#: 100 ms move waits) while the cores are half idle; two workers per core share the
#: cores instead, so a busy machine answers on time with fewer iterations rather than
#: refusing.  Measured in docs/load/README.md (capacity 1.6 -> 8.1 searches/s per core).
WORKERS_PER_CORE = 2


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

    def resolved(self) -> ServerConfig:
        """A copy with defaults filled in (``workers=0`` and ``call_workers=0``: two per
        CPU core) and checked."""
        config = self if self.workers else replace(self, workers=default_workers())
        if not config.call_workers:
            config = replace(config, call_workers=default_call_workers())
        config.check()
        return config

    def check(self) -> None:
        positive = ("workers", "max_iterations", "max_time", "default_iterations",
                    "default_analyze_time",
                    "max_playouts", "default_playouts", "default_update_interval",
                    "min_update_interval", "max_message_bytes", "max_queue_wait",
                    "max_search_memory_bytes", "max_concurrent_rpcs", "max_call_time")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)!r}")
        for name in ("max_queue", "deadline_margin", "deadline_fraction", "grace",
                     "loop_stall_threshold",
                     "max_searches_per_client", "max_call_queue", "max_calls_per_client",
                     "call_workers"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, not {getattr(self, name)!r}")
        if not 0 < self.max_worker_share <= 1:
            raise ValueError(f"max_worker_share must be in (0, 1], not {self.max_worker_share!r}")
        if not 0 <= self.worker_nice <= 19:
            raise ValueError(f"worker_nice must be in 0..19, not {self.worker_nice!r}")
        if self.default_iterations > self.max_iterations:
            raise ValueError("default_iterations is more than max_iterations")
        if self.default_playouts > self.max_playouts:
            raise ValueError("default_playouts is more than max_playouts")
        for name in ("max_time", "max_queue_wait", "max_call_time"):
            if getattr(self, name) * 1000 >= 2**31:
                raise ValueError(f"{name} is too large")
        # int32 on the wire (ServerLimits, Analysis.iterations, MoveAnalysis.visits).
        for name in ("max_iterations", "default_iterations", "max_playouts",
                     "default_playouts", "max_queue", "max_concurrent_rpcs",
                     "max_searches_per_client", "max_message_bytes"):
            if getattr(self, name) >= 2**31:
                raise ValueError(f"{name} is too large: at most {2**31 - 1}")

    def with_overrides(self, **overrides: Any) -> ServerConfig:
        """A copy with the non-None ``overrides`` applied (unknown names raise TypeError)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown server setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})
