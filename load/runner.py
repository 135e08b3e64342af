"""Running a load test: the server under test, locust's runner, what is measured.

Everything here runs under gevent: :func:`prepare` imports locust (which
monkey-patches the process) and starts gRPC's gevent integration before any
channel exists, as locust's documentation asks for gRPC users.

* :class:`LocalServer` runs ``python -m ai_server serve`` on loopback, on any free
  port, with metrics on, and the per-client quota off (every user comes from
  one address, which the server would count as one client).
* :func:`run_step` runs ``users`` players (:class:`~load.users.
  FurnacePlayer`) with locust's library API (an ``Environment`` and its local
  runner), waits until they are all spawned, then measures for ``duration``
  seconds: every call (from locust's ``request`` events, :class:`Collector`), the
  server's metrics (scraped every :data:`SCRAPE_EVERY` seconds: its CPU and its
  workers', its searches and iterations), this process's CPU and the machine's
  load.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Seconds between two scrapes of the server's metrics during a step.
SCRAPE_EVERY = 2.0
#: Seconds the server gets to drain between two steps of a sweep.
SETTLE_SECONDS = 3.0

_prepared = False


def prepare() -> None:
    """Import locust (gevent monkey-patching) and start gRPC's gevent integration."""
    global _prepared
    if _prepared:
        return
    import importlib

    importlib.import_module("locust")  # first: it monkey-patches the process for gevent
    grpc_gevent = importlib.import_module("grpc.experimental.gevent")
    grpc_gevent.init_gevent()
    _prepared = True


# -- the server under test --------------------------------------------------------------------
class LocalServer:
    """``python -m ai_server serve`` on 127.0.0.1 (any free port), metrics on, quota off."""

    def __init__(self, log_path: Path, workers: int, max_queue: int | None = None,
                 worker_nice: int | None = None, extra: list[str] | None = None) -> None:
        self.log_path = log_path
        self.command = [sys.executable, "-m", "ai_server", "serve", "--host", "127.0.0.1",
                        "--port", "0", "--metrics-port", "0", "--workers", str(workers),
                        "--max-searches-per-client", "0", "--log-level", "WARNING"]
        if max_queue is not None:
            self.command += ["--max-queue", str(max_queue)]
        if worker_nice is not None:
            self.command += ["--worker-nice", str(worker_nice)]
        self.command += extra or []
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.metrics_url = ""

    def start(self, timeout: float = 120.0) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log, start_new_session=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.log_path.read_text(errors="replace")
            listening = re.search(r"listening on (\S+):(\d+)", text)
            metrics = re.search(r"metrics on (http://\S+)", text)
            if listening and metrics:
                self.address = f"{listening.group(1)}:{listening.group(2)}"
                self.metrics_url = metrics.group(1)
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited (status {self.process.returncode}): "
                                   f"{text.strip()[-500:]}")
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not start in {timeout:g} s")

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def stop(self, timeout: float = 20.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


# -- measurements -----------------------------------------------------------------------------
def scrape(url: str, timeout: float = 5.0) -> dict[str, float]:
    """Sums of the server's metrics by name (``{}`` when unreachable).

    ``furnace_requests_total`` also by method and status:
    ``furnace_requests_total{BestMove,OK}``.
    """
    from prometheus_client.parser import text_string_to_metric_families

    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:  # noqa: S310 - our URL
            text = reply.read().decode("utf-8")
    except (OSError, ValueError):
        return {}
    values: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            values[sample.name] = values.get(sample.name, 0.0) + sample.value
            if sample.name == "furnace_requests_total":
                key = f"{sample.name}{{{sample.labels.get('method')},{sample.labels.get('status')}}}"
                values[key] = values.get(key, 0.0) + sample.value
    return values


def machine_busy() -> tuple[float, float] | None:
    """Busy and total jiffies of the whole machine (``/proc/stat``), or None."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])
    return float(total - idle), float(total)


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Sample:
    """One finished call: when it ended (seconds into the step), its RPC, latency, status."""

    t: float
    rpc: str
    ms: float
    code: str
    reason: str | None = None
    iterations: int | None = None
    search_s: float | None = None


@dataclass
class Collector:
    """Listener of locust's ``request`` event: keeps the calls that end while measuring."""

    samples: list[Sample] = field(default_factory=list)
    started: float = 0.0
    active: bool = False
    #: Every call seen, measured or not (by RPC), to check the whole mix ran.
    seen: dict[str, int] = field(default_factory=dict)

    def begin(self) -> None:
        self.samples = []
        self.started = time.monotonic()
        self.active = True

    def end(self) -> float:
        self.active = False
        return time.monotonic() - self.started

    def on_request(self, request_type: str = "", name: str = "", response_time: float = 0.0,
                   response_length: int = 0, response: Any = None, context: Any = None,
                   exception: BaseException | None = None, **_: Any) -> None:
        self.seen[name] = self.seen.get(name, 0) + 1
        if not self.active:
            return
        code, reason = "OK", None
        iterations = search_s = None
        if exception is not None:
            code, reason = describe_failure(exception)
        elif response is not None and name in ("BestMove", "Analyze"):
            analysis = getattr(response, "analysis", None)
            if analysis is not None:
                iterations = int(analysis.iterations)
                search_s = float(analysis.elapsed_seconds)
        self.samples.append(Sample(time.monotonic() - self.started, name, float(response_time),
                                   code, reason, iterations, search_s))


def describe_failure(exception: BaseException) -> tuple[str, str | None]:
    """The status code name and ErrorInfo reason of a failed call."""
    import grpc

    if isinstance(exception, grpc.RpcError) and hasattr(exception, "code"):
        from clients.furnace_client import error_details

        try:
            info = error_details(exception)
        except Exception:  # noqa: BLE001 - a status without readable details
            code = exception.code()
            return (code.name if code is not None else "UNKNOWN"), None
        return str(info["code"]), info["reason"]
    return type(exception).__name__, None


@dataclass
class Probe:
    """One look at the server and this machine during a step."""

    t: float
    server_cpu_s: float | None
    workers_cpu_s: float | None
    searches: float | None
    iterations: float | None
    loadgen_cpu_s: float
    machine: tuple[float, float] | None
    metrics: dict[str, float] = field(default_factory=dict)


def probe(started: float, metrics_url: str | None) -> Probe:
    values = scrape(metrics_url) if metrics_url else {}
    # A labelled counter has no sample before its first count: zero, when scraped.
    zero = 0.0 if values else None
    return Probe(
        t=time.monotonic() - started,
        server_cpu_s=values.get("process_cpu_seconds_total"),
        workers_cpu_s=values.get("furnace_search_worker_cpu_seconds_total"),
        searches=values.get("furnace_searches_total", zero),
        iterations=values.get("furnace_search_iterations_total", zero),
        loadgen_cpu_s=own_cpu_seconds(),
        machine=machine_busy(),
        metrics=values,
    )


@dataclass
class StepData:
    """What one step measured (turned into numbers by :mod:`load.report`)."""

    users: int
    duration: float
    samples: list[Sample]
    probes: list[Probe]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    spawn_seconds: float
    seen: dict[str, int]


def run_step(user_class: type, host: str, users: int, spawn_rate: float, duration: float,
             metrics_url: str | None,
             progress: Callable[[dict[str, Any]], None] | None = None) -> StepData:
    """Run ``users`` players for ``duration`` seconds (after they are all spawned)."""
    import gevent
    from locust.env import Environment

    environment = Environment(user_classes=[user_class], host=host, stop_timeout=5.0)
    collector = Collector()
    environment.events.request.add_listener(collector.on_request)
    runner = environment.create_local_runner()
    load_before = os.getloadavg()
    spawn_start = time.monotonic()
    runner.start(users, spawn_rate=spawn_rate)
    while runner.user_count < users and time.monotonic() - spawn_start < 120 + users / spawn_rate:
        gevent.sleep(0.1)
    spawn_seconds = time.monotonic() - spawn_start
    collector.begin()
    probes = [probe(collector.started, metrics_url)]
    next_probe = SCRAPE_EVERY
    try:
        while True:
            elapsed = time.monotonic() - collector.started
            if elapsed >= duration:
                break
            gevent.sleep(min(0.25, duration - elapsed))
            if time.monotonic() - collector.started >= next_probe:
                probes.append(probe(collector.started, metrics_url))
                next_probe += SCRAPE_EVERY
                if progress is not None:
                    progress({"elapsed": time.monotonic() - collector.started,
                              "duration": duration, "users": runner.user_count,
                              "samples": collector.samples, "probes": probes})
        measured = collector.end()
        probes.append(probe(collector.started, metrics_url))
    finally:
        collector.active = False
        runner.quit()
        environment.events.request.remove_listener(collector.on_request)
    return StepData(users=users, duration=measured, samples=collector.samples, probes=probes,
                    load_before=load_before, load_after=os.getloadavg(),
                    spawn_seconds=spawn_seconds, seen=dict(collector.seen))
