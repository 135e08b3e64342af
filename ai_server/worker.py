"""The worker processes: their main loop, and how a job running in one stops.

A worker is a ``spawn``-ed process that :mod:`ai_server.pool` starts with
:func:`worker_main`; the search pool's and the call pool's workers are alike, only
their jobs differ (:mod:`ai_server.calls`, :mod:`ai_server.jobs`).  It talks to the
server over one connection (a ``multiprocessing`` pipe): it announces itself
(``ready``), then receives one job at a time and answers it (``result`` or ``error``),
sending Analyze ``progress`` on the way.  Nothing here knows a game, a search or a
job: a job is a function the pool sends, and it stops through :class:`Stopper`.

Stopping: the pool shares one flag byte per worker (``flags[slot]``); a job stops
between two iterations once it is non-zero (:data:`FLAG_CANCEL`: the caller is
gone; :data:`FLAG_SHUTDOWN`: the server is stopping, answer the best move so far;
:data:`FLAG_YIELD`: another client's job waits for this worker, answer the best move
so far).
A search also stops at its time limit (the request's, capped by the server's maximum time,
both counted from when the server received the call), a little before the call's
deadline, or when the worker's resident memory passes the pool's memory cap (read
from ``/proc/self/statm`` every :data:`MEMORY_CHECK_EVERY` iterations).

A worker dies with the server, even one killed by SIGKILL: on Linux it asks the
kernel for SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``), and on any
system a daemon thread watches a *lifeline* pipe whose other end only the server
holds: end of file means the server is gone, and the worker exits at once.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import threading
import time
from collections.abc import Callable, MutableSequence
from typing import Any

from ai_server import stops
from engine.collector import without_full_collections
from engine.processes import set_parent_death_signal, set_process_name

#: One stop flag per worker slot (shared with the pool); set by :func:`worker_main`.
_FLAGS: MutableSequence[int] | None = None
#: What the running job leaves to free once its reply is sent (:func:`drop_after_reply`).
_DROPPED_AFTER_REPLY: list[Any] = []
#: Largest resident memory (bytes) a search may grow its worker to; 0: no cap.
_MEMORY_LIMIT = 0

# Stop flag values (the pool writes them).
FLAG_CANCEL = 1
FLAG_SHUTDOWN = 2
#: Another client's job waits for this worker: answer the best move so far.
FLAG_YIELD = 3

#: What each stop flag makes a job answer.
_FLAG_REASONS = {FLAG_CANCEL: stops.CANCELLED, FLAG_SHUTDOWN: stops.SHUTDOWN,
                 FLAG_YIELD: stops.PREEMPTED}

#: Iterations (or playouts) between two reads of the resident memory.
MEMORY_CHECK_EVERY = 256
#: After a job, a worker whose memory grew past this share of the cap (and well
#: past what it used when it started) exits, and the pool starts a fresh one.
RETIRE_SHARE = 0.75

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# -- process life -----------------------------------------------------------------------
def ignore_signals() -> None:
    """Leave SIGINT/SIGTERM/SIGHUP to the server process, which stops workers itself.

    (A Ctrl-C or a SIGTERM sent to the whole process group must not cut searches
    short: the graceful shutdown answers them with their best move so far.  SIGHUP
    makes the server reload its credentials; a worker it reached, by a closed
    terminal or a signal to the group, would die with its search.)
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def die_with_parent(parent_pid: int, lifeline: Any) -> None:
    """Make sure this process does not outlive the server (see the module docstring)."""
    set_parent_death_signal(signal.SIGKILL)  # where unavailable, the lifeline remains
    if os.getppid() != parent_pid:  # the server died before prctl took effect
        os._exit(0)

    def watch() -> None:
        try:
            while True:
                lifeline.recv_bytes()  # the server never writes: this returns only at EOF
        except (EOFError, OSError):
            pass
        os._exit(0)

    threading.Thread(target=watch, name="furnace-lifeline", daemon=True).start()


def resident_bytes(pid: int | str = "self") -> int | None:
    """The resident memory in bytes of process ``pid`` (default: this one; None where
    ``/proc`` is missing or the process is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def lower_priority(nice: int) -> None:
    """Run this process ``nice`` steps below the server's scheduling priority.

    Searches use every cycle they get; the server's front process (decoding,
    legal moves, checks, applies, refusals) must not wait behind them for a core.
    Lowering one's own priority needs no privilege; where it fails, nothing changes.
    """
    if nice > 0 and hasattr(os, "nice"):
        try:
            os.nice(nice)
        except OSError:  # pragma: no cover - e.g. a sandbox that forbids it
            pass


def worker_main(conn: Any, lifeline: Any, flags: MutableSequence[int], slot: int,
                parent_pid: int, memory_limit: int, nice: int = 0,
                name: str = "search", preload: tuple[str, ...] = ()) -> None:
    """A worker process: say ``ready``, then run jobs until told to exit (or orphaned).

    ``nice``: how far below the server's priority it runs (:func:`lower_priority`);
    ``name``: its pool's, in the process name ``furnace-NAME``; ``preload``: the
    modules its jobs come from, imported (with every game) before it says ``ready``, so
    that its first job does not pay for them.  The pool names them: the process knows
    no job.

    Messages from the pool: ``("job", id, fn, args, kwargs, progress)``, ``("exit",)``.
    To the pool: ``("ready", pid)``, ``("started", id)``, ``("progress", id, data)``,
    ``("result", id, data)``, ``("error", id, exception)`` and ``("retire",)`` (this
    worker is done: its memory grew too much; it exits right after).
    """
    global _FLAGS, _MEMORY_LIMIT
    die_with_parent(parent_pid, lifeline)
    set_process_name(f"furnace-{name}")
    ignore_signals()
    lower_priority(nice)
    _FLAGS = flags
    _MEMORY_LIMIT = memory_limit
    from engine import registry

    for module in preload:
        importlib.import_module(module)
    registry.list_games()
    start_memory = resident_bytes() or 0
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            break
        if message[0] != "job":
            break
        _, job_id, fn, args, kwargs, progress = message
        conn.send(("started", job_id))
        if progress:
            def report(data: Any, job_id: int = job_id) -> None:
                conn.send(("progress", job_id, data))

            kwargs = dict(kwargs, report=report)
        if not run_job(conn, job_id, fn, args, kwargs, slot):
            break
        if _should_retire(start_memory):
            conn.send(("retire",))
            break
    os._exit(0)


def run_job(conn: Any, job_id: int, fn: Callable[..., Any], args: tuple[Any, ...],
            kwargs: dict[str, Any], slot: int | None) -> bool:
    """Run one job and send its ``result`` (or ``error``); False when the pool is gone.

    The garbage collector's full passes wait until the reply is sent and the job's
    tree dropped: a search holds them off while it runs, and the first one after it
    would walk the whole tree (a quarter of a second after a 5-second Samara search,
    far longer for a worker at low priority on a busy machine) before the answer.
    """
    with without_full_collections():
        try:
            reply: tuple[Any, ...] = ("result", job_id, fn(*args, slot=slot, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the server turns it into a status
            reply = ("error", job_id, exc)
        return send_reply(conn, reply)


def send_reply(conn: Any, reply: tuple[Any, ...]) -> bool:
    """Send a job's ``reply``, then drop what it left to :func:`drop_after_reply`.

    False when the pool's end of the connection is gone.  A reply that does not
    pickle (an exotic exception) goes back as a plain ``RuntimeError`` instead.
    """
    try:
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return False
        except Exception as exc:  # noqa: BLE001 - e.g. an exception that does not pickle
            conn.send(("error", reply[1], RuntimeError(f"{type(exc).__name__}: {exc}")))
        return True
    finally:
        _DROPPED_AFTER_REPLY.clear()


def drop_after_reply(thing: Any) -> None:
    """Keep ``thing`` alive until the running job's reply is sent.

    Freeing a search tree of 100,000 nodes takes about a tenth of a second: done
    when the job returns, it would come out of the margin a call near its deadline
    has left to get its answer back.
    """
    _DROPPED_AFTER_REPLY.append(thing)


def _should_retire(start_memory: int) -> bool:
    """Whether this worker grew so much that a fresh one would serve better."""
    if not _MEMORY_LIMIT:
        return False
    for attempt in range(2):
        now = resident_bytes()
        if now is None or now <= RETIRE_SHARE * _MEMORY_LIMIT or now <= 1.25 * start_memory:
            return False
        if not attempt:
            gc.collect()  # maybe cycles hold the memory: free them and look again
    return True


# -- stopping -----------------------------------------------------------------------------
def flag(slot: int | None) -> int:
    return _FLAGS[slot] if slot is not None and _FLAGS is not None else 0


class Stopper:
    """The ``should_stop`` of a job: its flag, the memory cap, and optional end times.

    ``why`` says what stopped it (a stop reason), once it answered True.
    """

    def __init__(self, slot: int | None, ends: tuple[tuple[float, str], ...] = ()) -> None:
        self.why = ""
        flags, index = (_FLAGS, slot) if slot is not None and _FLAGS is not None else (None, 0)
        memory_limit = _MEMORY_LIMIT
        count = 0

        def should_stop() -> bool:
            nonlocal count
            if flags is not None and flags[index]:
                self.why = _FLAG_REASONS.get(flags[index], stops.SHUTDOWN)
                return True
            count += 1
            if memory_limit and count % MEMORY_CHECK_EVERY == 1:
                resident = resident_bytes()
                if resident is not None and resident > memory_limit:
                    self.why = stops.MEMORY
                    return True
            if ends:
                now = time.monotonic()
                for end, reason in ends:
                    if now >= end:
                        self.why = reason
                        return True
            return False

        self.should_stop = should_stop


def crash() -> None:  # pragma: no cover - runs in a worker that dies
    """Kill this worker process abruptly (tests of pool recovery)."""
    os._exit(13)


def hog_job(size: int, *, slot: int | None = None) -> int:
    """Take ``size`` bytes of memory, a megabyte at a time, then hold them for a minute,
    deaf to the stop flag: a job that must be killed (tests)."""
    held = []
    for _ in range(size >> 20):
        held.append(bytearray(1 << 20))
        time.sleep(0.001)
    time.sleep(60)
    return len(held)


def sleep_job(seconds: float, *, slot: int | None = None) -> int:
    """Sleep up to ``seconds``, stopping early on the flag; the worker's pid (tests)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not flag(slot):
        time.sleep(0.01)
    return os.getpid()
