"""A watchdog of the server's event loop: any stretch of code that holds it is caught.

Everything that answers a client, health probes included, runs on one event loop;
code that holds the loop for a tenth of a second holds every call for as long.
:class:`LoopWatchdog` pings the loop from a thread of its own every ``interval``
seconds (``call_soon_threadsafe``) and times the answer.  When the loop has not
answered within ``threshold`` seconds, the watchdog looks at what the loop's thread
is running at that moment, and once the loop answers it records a :class:`Stall`:
how long it lasted, the loop thread's stack, how much of it the garbage collector
took, and where the loop thread's time went.  A stall held by code is logged as a
warning (at most one line a minute, with a count) with the stack of the code that
held the loop, and counted in the metrics.

A late loop is either *held* (code of ours ran on it, or slept or blocked on it) or
*starved* (its thread was ready to run and waited for a core: a busy machine).  The
two are told apart by the loop thread's own clocks across the stall, read when the
ping is sent and, on the loop, when it is answered (:func:`thread_clock`: the
thread's CPU time from ``pthread_getcpuclockid`` and, on Linux, its run-queue wait
from ``/proc/self/task/<tid>/schedstat``).  The stall's seconds split into

* ``cpu``: the loop thread ran (code, or the loop's own bookkeeping);
* ``waited``: it was runnable and waited for a core (the machine's doing);
* the rest, *blocked*: it was off the CPU of its own accord: in a ``sleep``, a
  blocking read or write, a lock, waiting for the GIL, or in the selector's wait.

Blocked time is held by code unless the loop thread was seen in the loop's own
machinery (its selector's wait, or asyncio reading its wake-up pipe:
:data:`_LOOP_OWN`) or waiting on another thread of this process (in a ``futex``
wait, Linux's ``/proc/self/task/<tid>/syscall``: for the GIL, which a thread of ours
holds while it waits for a core, or for a lock) -- ``time.sleep`` or a blocking
socket call on the loop shows the code that made it, and is held.  (So a lock held
long by another thread's slow work is not caught here: a known gap; a loaded machine
makes GIL waits of hundreds of ms after any non-blocking ``send`` or ``recv``, which is
why a transport's write and read count among the loop's own frames.)  So the time code held the loop is
``cpu + blocked (unless the loop's own) - gc``, and the stall is ``held_by_code``
when that reaches ``threshold``.  A loop thread that is merely not scheduled adds to
``waited`` only, and is recorded as starved, whatever frame it was preempted in.

Without a run-queue figure (not Linux), off-CPU time counts as blocked (a
conservative guess: ``time.sleep`` is still caught; a starved thread seen in our
code is not told from a sleeping one).  Without a thread CPU clock the
classification is the stack's alone: ``idle`` (the loop's own machinery) or held.

The test suite runs every server it starts under this watchdog and fails a test
during which code held a loop (``tests/conftest.py``); a starved loop does not fail
it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from ai_server.logs import RateLimitedLogger

log = logging.getLogger(__name__)

#: Stalls kept by a watchdog (the oldest are dropped).
MAX_KEPT = 100
#: Innermost frames of the loop thread that are the loop's own machinery, not code
#: holding it: its selector's wait, and asyncio reading its wake-up pipe (a thread
#: that waits there for a core or for the GIL is late through no code of ours).
_LOOP_OWN = frozenset({("selectors.py", "select"), ("selectors.py", "_select"),
                       ("base_events.py", "_run_once"),
                       ("selector_events.py", "_read_from_self"),
                       ("selector_events.py", "_process_self_data"),
                       ("selector_events.py", "_process_events"),
                       # A transport's write on a non-blocking socket never blocks in
                       # the kernel: time off the CPU there is a wait for the GIL after
                       # the send (another thread of ours held it), which the single
                       # futex sample below can miss.  Its CPU still counts as held.
                       ("selector_events.py", "write"),
                       ("selector_events.py", "_write_ready"),
                       ("selector_events.py", "sendto"),
                       # The same send, to the loop's own wake-up socket
                       # (call_soon_threadsafe from a callback on the loop).
                       ("selector_events.py", "_write_to_self"),
                       # And a transport's read: ``recv`` on a non-blocking socket
                       # returns at once, so time off the CPU in it is the GIL taken
                       # back (the protocol's own code, called after, is a deeper
                       # frame).  A test run saw 343 ms there with 2 ms of CPU.
                       ("selector_events.py", "_read_ready__data_received"),
                       ("selector_events.py", "_read_ready__get_buffer"),
                       # This watchdog's own answer to a late ping, reading the loop
                       # thread's clocks: the ``open`` of a /proc file lets the GIL go,
                       # and taking it back is no code's (a suite run at load 4 saw 801
                       # ms there with 3 ms of CPU).  Its CPU still counts as held.
                       ("loopwatch.py", "answer"), ("loopwatch.py", "read"),
                       ("loopwatch.py", "waited")})
#: Linux's ``futex`` system call number (waiting for the GIL or a lock), by machine.
_FUTEX = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}.get(platform.machine())


def waiting_on_a_thread(native_id: int | None) -> bool:
    """Whether the thread ``native_id`` of this process sits in a ``futex`` wait now."""
    if _FUTEX is None or not native_id:
        return False
    try:
        with open(f"/proc/self/task/{native_id}/syscall", "rb") as call:
            return call.read().split(maxsplit=1)[0] == str(_FUTEX).encode()
    except (OSError, IndexError):
        return False


#: The same, kept under its former name.
_WAITING = _LOOP_OWN


def is_loop_own(filename: str, function: str) -> bool:
    """Whether a loop thread seen in ``function`` of ``filename`` (its innermost frame) is
    in the loop's own machinery (:data:`_LOOP_OWN`), where time off the CPU is no code's."""
    return (filename.rsplit("/", 1)[-1], function) in _LOOP_OWN


@dataclass(frozen=True)
class ThreadTimes:
    """A thread's clocks: seconds it ran, and seconds it waited for a core (None:
    unknown here)."""

    cpu: float
    waited: float | None


#: Reads one thread's :class:`ThreadTimes` (from any thread); None when it cannot.
ThreadClock = Callable[[], "ThreadTimes | None"]


def thread_clock(ident: int, native_id: int | None) -> ThreadClock | None:
    """A reader of the clocks of the thread ``ident`` (``native_id``: its kernel id),
    or None where this platform has no per-thread CPU clock."""
    try:
        clock_id = time.pthread_getcpuclockid(ident)
        time.clock_gettime(clock_id)
    except (AttributeError, OSError):
        return None
    schedstat = f"/proc/self/task/{native_id}/schedstat" if native_id else None

    def waited() -> float | None:
        nonlocal schedstat
        if schedstat is None:
            return None
        try:
            with open(schedstat, "rb") as stats:
                # "<ns on the CPU> <ns runnable on a run queue> <timeslices>"
                return int(stats.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            schedstat = None  # not Linux, or no scheduler statistics: not again
            return None

    def read() -> ThreadTimes | None:
        try:
            return ThreadTimes(time.clock_gettime(clock_id), waited())
        except OSError:  # the thread is gone
            return None

    return read


@dataclass(frozen=True)
class Stall:
    """The loop answered ``seconds`` late; ``stack`` is what its thread ran meanwhile."""

    seconds: float
    stack: str
    #: Seconds of it the garbage collector ran (in any thread: it holds the GIL).
    gc_seconds: float
    #: The loop's thread was seen in the loop's own machinery (:data:`_LOOP_OWN`).
    idle: bool
    #: Code (not the machine, not the collector) held the loop past the threshold.
    held_by_code: bool
    #: Seconds the loop's thread ran during the stall (None: no thread CPU clock).
    cpu_seconds: float | None = None
    #: Seconds it was runnable and waited for a core (None: unknown).
    waited_seconds: float | None = None

    @property
    def starved(self) -> bool:
        """Late, but not held by code: the machine (or the collector) took the time."""
        return not self.held_by_code

    def describe(self) -> str:
        gc_part = f", {self.gc_seconds * 1000:.0f} ms of it garbage collection" \
            if self.gc_seconds else ""
        cpu_part = f", its thread ran {self.cpu_seconds * 1000:.0f} ms" \
            if self.cpu_seconds is not None else ""
        wait_part = f", waited {self.waited_seconds * 1000:.0f} ms for a core" \
            if self.waited_seconds is not None else ""
        verb = "held" if self.held_by_code else "late (starved, not held)"
        return (f"the event loop was {verb} {self.seconds * 1000:.0f} ms"
                f"{gc_part}{cpu_part}{wait_part}:\n{self.stack}")


def classify(seconds: float, gc_seconds: float, loop_own: bool,
             before: ThreadTimes | None, after: ThreadTimes | None,
             threshold: float) -> tuple[bool, float | None, float | None]:
    """Whether code held the loop through a stall of ``seconds`` (see the module's
    docstring), with the loop thread's CPU and run-queue seconds across it."""
    if before is None or after is None:  # no thread clock: the stack's word alone
        return not loop_own and seconds - gc_seconds >= threshold, None, None
    cpu = min(max(after.cpu - before.cpu, 0.0), seconds)
    waited = None if before.waited is None or after.waited is None else \
        min(max(after.waited - before.waited, 0.0), seconds - cpu)
    blocked = seconds - cpu - (waited or 0.0)
    held = cpu + (0.0 if loop_own else blocked) - gc_seconds
    return held >= threshold, cpu, waited


class _Ping:
    """One ping of the loop; the loop fills in when it answered and its clocks then."""

    __slots__ = ("sent", "answered_at", "times", "done", "threshold", "clock")

    def __init__(self, threshold: float, clock: ThreadClock | None) -> None:
        self.threshold = threshold
        self.clock = clock
        self.done = threading.Event()
        self.answered_at = 0.0
        self.times: ThreadTimes | None = None
        self.sent = 0.0

    def answer(self) -> None:  # on the loop: as little as can be unless it is late
        self.answered_at = time.perf_counter()
        if self.clock is not None and self.answered_at - self.sent >= self.threshold:
            self.times = self.clock()
        self.done.set()


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
    ``held`` those where code held the loop.  ``clock_for`` makes the reader of the
    loop thread's clocks from its ``threading.get_ident()`` and kernel id
    (:func:`thread_clock`; tests inject their own).
    """

    #: Every stall of every watchdog in this process where code held the loop (for
    #: tests: see the module docstring).
    held_anywhere: list[Stall] = []

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float = 0.1,
                 interval: float = 0.02,
                 clock_for: Callable[[int, int | None], ThreadClock | None] = thread_clock,
                 ) -> None:
        self.loop = loop
        self.threshold = threshold
        self.interval = interval
        self.stalls: list[Stall] = []
        self.count = 0
        self.held = 0
        self._loop_thread: int | None = None
        self._loop_native: int | None = None
        self._clock_for = clock_for
        self._clock: ThreadClock | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warn = RateLimitedLogger(log, 60.0)

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._loop_native = threading.get_native_id()
        self._clock = self._clock_for(self._loop_thread, threading.get_native_id())
        self._thread = threading.Thread(target=self._watch, name="furnace-loop-watchdog",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def _stack(self) -> tuple[str, bool]:
        """The loop thread's stack now, and whether it is in the loop's own machinery."""
        frame = sys._current_frames().get(self._loop_thread or 0)
        if frame is None:
            return "(the loop's thread is gone)", True
        summary = traceback.extract_stack(frame)
        innermost = summary[-1] if summary else None
        own = innermost is not None and is_loop_own(innermost.filename, innermost.name)
        return "".join(traceback.format_list(summary[-12:])), own

    def _watch(self) -> None:
        while not self._stop.is_set():
            ping = _Ping(self.threshold, self._clock)
            before = self._clock() if self._clock is not None else None
            gc_before = _gc_clock.total
            ping.sent = time.perf_counter()
            try:
                self.loop.call_soon_threadsafe(ping.answer)
            except RuntimeError:  # the loop is closed
                return
            if not ping.done.wait(self.threshold):
                stack, own = self._stack()
                on_thread = waiting_on_a_thread(self._loop_native)
                while not ping.done.wait(0.5):
                    if self._stop.is_set() or self.loop.is_closed():
                        return
                # Timed on the loop's side: a watchdog thread that is itself late
                # to see the answer does not lengthen the stall.
                seconds = ping.answered_at - ping.sent
                if seconds >= self.threshold:
                    collected = _gc_clock.total - gc_before
                    held, cpu, waited = classify(seconds, collected, own or on_thread,
                                                 before, ping.times, self.threshold)
                    self._record(Stall(seconds, stack, collected, own, held, cpu, waited))
            self._stop.wait(self.interval)

    def _record(self, stall: Stall) -> None:
        self.count += 1
        self.stalls = [*self.stalls[-(MAX_KEPT - 1):], stall]
        if stall.held_by_code:
            self.held += 1
            LoopWatchdog.held_anywhere.append(stall)
            self._warn.warning("%s", stall.describe())
