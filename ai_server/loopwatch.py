"""A watchdog of the server's event loop: any stretch of code that holds it is caught.

Everything that answers a client, health probes included, runs on one event loop;
code that holds the loop for a tenth of a second holds every call for as long.
:class:`LoopWatchdog` pings the loop from a thread of its own every ``interval``
seconds (``call_soon_threadsafe``) and times the answer.  When the loop has not
answered within ``threshold`` seconds, the watchdog looks at what the loop's thread
is running at that moment, and once the loop answers it records a :class:`Stall`:
how long it lasted, the loop thread's stack, and how much of it the garbage
collector took.  A stall is logged as a warning (at most one line a minute, with a
count) with the stack of the code that held the loop, and counted in the metrics.

A loop that is late only because its thread did not get a core (a busy machine)
sits in its selector's wait when looked at: such a stall is recorded as ``idle``,
not as code holding the loop.  The test suite runs every server it starts under
this watchdog and fails a test during which code held a loop (``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass

from ai_server.logs import RateLimitedLogger

log = logging.getLogger(__name__)

#: Stalls kept by a watchdog (the oldest are dropped).
MAX_KEPT = 100
#: Frames of the loop thread's stack that mean it waits for events: nothing holds it.
_WAITING = frozenset({("selectors.py", "select"), ("selectors.py", "_select")})


@dataclass(frozen=True)
class Stall:
    """The loop answered ``seconds`` late; ``stack`` is what its thread ran meanwhile."""

    seconds: float
    stack: str
    #: Seconds of it the garbage collector ran (in any thread: it holds the GIL).
    gc_seconds: float
    #: The loop's thread was waiting for events: a busy machine, not code holding it.
    idle: bool
    #: Code (not the machine, not the collector) held the loop past the threshold.
    held_by_code: bool

    def describe(self) -> str:
        gc_part = f", {self.gc_seconds * 1000:.0f} ms of it garbage collection" \
            if self.gc_seconds else ""
        return f"the event loop was held {self.seconds * 1000:.0f} ms{gc_part}:\n{self.stack}"


class _GcClock:
    """Seconds the garbage collector has run in this process (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._started: float | None = None

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.total += time.perf_counter() - self._started
            self._started = None


_gc_clock = _GcClock()
gc.callbacks.append(_gc_clock)


class LoopWatchdog:
    """Watch ``loop``: stalls over ``threshold`` seconds, looked for every ``interval``.

    Start it from the loop's own thread (:meth:`start` notes which thread runs it).
    ``stalls`` holds the last :data:`MAX_KEPT` stalls; ``count`` counts them all,
    ``held`` those where code held the loop.
    """

    #: Every stall of every watchdog in this process where code held the loop (for
    #: tests: see the module docstring).
    held_anywhere: list[Stall] = []

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float = 0.1,
                 interval: float = 0.02) -> None:
        self.loop = loop
        self.threshold = threshold
        self.interval = interval
        self.stalls: list[Stall] = []
        self.count = 0
        self.held = 0
        self._loop_thread: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warn = RateLimitedLogger(log, 60.0)

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._thread = threading.Thread(target=self._watch, name="furnace-loop-watchdog",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def _stack(self) -> tuple[str, bool]:
        """The loop thread's stack now, and whether it is waiting for events."""
        frame = sys._current_frames().get(self._loop_thread or 0)
        if frame is None:
            return "(the loop's thread is gone)", True
        summary = traceback.extract_stack(frame)
        innermost = summary[-1] if summary else None
        idle = innermost is not None and (
            innermost.filename.rsplit("/", 1)[-1], innermost.name) in _WAITING
        return "".join(traceback.format_list(summary[-12:])), idle

    def _watch(self) -> None:
        answered = threading.Event()
        while not self._stop.is_set():
            answered.clear()
            sent = time.perf_counter()
            gc_before = _gc_clock.total
            try:
                self.loop.call_soon_threadsafe(answered.set)
            except RuntimeError:  # the loop is closed
                return
            if not answered.wait(self.threshold):
                stack, idle = self._stack()
                while not answered.wait(0.5):
                    if self._stop.is_set() or self.loop.is_closed():
                        return
                seconds = time.perf_counter() - sent
                collected = _gc_clock.total - gc_before
                self._record(Stall(seconds, stack, collected, idle,
                                   not idle and seconds - collected >= self.threshold))
            self._stop.wait(self.interval)

    def _record(self, stall: Stall) -> None:
        self.count += 1
        self.stalls = [*self.stalls[-(MAX_KEPT - 1):], stall]
        if stall.held_by_code:
            self.held += 1
            LoopWatchdog.held_anywhere.append(stall)
            self._warn.warning("%s", stall.describe())
