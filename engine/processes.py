"""Worker processes that do not outlive the process that started them.

A ``ProcessPoolExecutor`` worker runs its task to the end even when its parent is
gone: killing ``furnace arena`` or ``check-games`` left its workers playing games,
unwatched, for minutes.  :func:`process_pool` starts workers (``spawn`` context, safe
with threads) that the kernel kills when their parent dies (Linux
``PR_SET_PDEATHSIG``; elsewhere nothing changes).

:class:`WarmPool` keeps its workers up between calls, for callers that run short
tasks often and must not pay a process start each time (root-parallel search,
:func:`engine.search.parallel.parallel_search`).  Its workers watch their parent
instead (a lifeline thread on the parent's sentinel, any OS): the death signal is
tied to the *thread* that started a process, and a pool may outlive that thread.
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for
from multiprocessing.process import BaseProcess
from typing import Any


def _prctl(option: int, value: Any) -> bool:
    """Linux ``prctl(option, value)``; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return False


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies.

    Returns False where that is not available (not Linux, or no ``prctl``).
    """
    pr_set_pdeathsig = 1
    return _prctl(pr_set_pdeathsig, int(sig))


def set_process_name(name: str) -> bool:
    """Name this process ``name`` (its first 15 bytes) where ``ps``, ``top`` and
    ``/proc/PID/comm`` show it; False where that is not available."""
    import ctypes

    pr_set_name = 15
    return _prctl(pr_set_name, ctypes.c_char_p(name.encode()[:15]))


def _die_with_parent(parent_pid: int) -> None:
    set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def process_pool(workers: int, start_method: str | None = "spawn") -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that die with this process.

    ``start_method`` is multiprocessing's (``None``: the platform's default, e.g. to
    let forked workers inherit data built before the pool).
    """
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context(start_method),
                               initializer=_die_with_parent, initargs=(os.getpid(),))


# -- a pool that stays warm ----------------------------------------------------------------
#: What the running task leaves to free once its reply is sent (:func:`drop_after_reply`).
_DROPPED_AFTER_REPLY: list[Any] = []
#: True in a :class:`WarmPool` worker.
_IN_WARM_WORKER = False
#: In a worker, the connection to the pool and the running task's ticket.
_TASK: tuple[Connection, int] | None = None
#: Seconds :meth:`WarmPool.close` gives its workers to exit before it kills them.
CLOSE_TIMEOUT = 1.0


class WorkerDiedError(RuntimeError):
    """A :class:`WarmPool` worker died (killed, out of memory) while it had a task."""


def drop_after_reply(thing: Any) -> None:
    """In a :class:`WarmPool` worker, keep ``thing`` alive until the task's reply is sent.

    Freeing a search tree takes about a millisecond per thousand nodes: done when the
    task returns, it would delay the reply of a call near its deadline.  Outside a
    worker (a task run in the calling process) nothing is kept.
    """
    if _IN_WARM_WORKER:
        _DROPPED_AFTER_REPLY.append(thing)


def announce_start() -> None:
    """In a :class:`WarmPool` worker, tell the pool the running task is past its start-up.

    :meth:`WarmPool.collect` waits its ``grace`` only for tasks that did.  Elsewhere,
    and a second time, nothing happens.
    """
    global _TASK
    if _TASK is not None:
        conn, ticket = _TASK
        _TASK = None
        conn.send(("started", ticket))


def _exit_with_parent(sentinel: Any) -> None:
    """A worker's lifeline thread: exit at once when the parent process is gone."""
    wait_for([sentinel])
    os._exit(0)


def _warm_worker(conn: Connection, preload: tuple[str, ...]) -> None:
    """A :class:`WarmPool` worker's main loop: one task at a time, answered in order.

    Messages to the pool: ``("ready", pid)`` once started, then for each task
    ``("result", ticket, value)`` or ``("error", ticket, exception)``, after
    ``("started", ticket)`` if the task called :func:`announce_start`.  ``None`` or
    the end of the connection ends the loop.  The garbage collector's full passes wait while a
    task runs and until its reply is sent and what it dropped is freed.
    """
    global _IN_WARM_WORKER, _TASK
    _IN_WARM_WORKER = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    parent = multiprocessing.parent_process()
    if parent is not None:  # its sentinel is readable once the parent is gone (any OS)
        threading.Thread(target=_exit_with_parent, args=(parent.sentinel,),
                         name="furnace-lifeline", daemon=True).start()
    for name in preload:
        importlib.import_module(name)
    from engine.collector import without_full_collections

    try:
        conn.send(("ready", os.getpid()))
    except (EOFError, OSError):  # the pool closed while this worker started
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        ticket, payload = message
        _TASK = (conn, ticket)
        with without_full_collections():
            try:
                fn, args = pickle.loads(payload)
                reply: tuple[Any, ...] = ("result", ticket, fn(*args))
            except Exception as exc:  # noqa: BLE001 - the caller gets it back
                reply = ("error", ticket, exc)
            try:
                try:
                    conn.send(reply)
                except (EOFError, OSError):
                    return
                except Exception as exc:  # noqa: BLE001 - e.g. a value that does not pickle
                    conn.send(("error", ticket, RuntimeError(f"{type(exc).__name__}: {exc}")))
            finally:
                reply = ()
                _TASK = None
                _DROPPED_AFTER_REPLY.clear()


class _Worker:
    __slots__ = ("process", "conn", "ready", "pending")

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        #: It said ``ready`` (started and imported its ``preload`` modules).
        self.ready = False
        #: Tickets sent and not answered yet, oldest first.
        self.pending: list[int] = []


class WarmPool:
    """Worker processes (``spawn`` context) that stay up between calls.

    Each worker has a pipe of its own and runs the tasks sent to it one at a time, in
    order: :meth:`submit` names the worker, so the caller decides where each task
    runs.  Replies come back by ticket (:meth:`collect`, which can stop waiting at a
    time and leave late replies to be dropped on arrival, :meth:`forget`).  Workers
    import the ``preload`` modules when they start and then say they are ready
    (:meth:`idle` lists the ready ones with nothing to do).

    Workers die with this process (a lifeline thread watches the parent), ignore
    SIGINT, and free what a task handed to :func:`drop_after_reply` only after its
    reply is sent.  A worker that dies makes :meth:`collect` raise
    :class:`WorkerDiedError` for its task and :meth:`revive` replaces it;
    :meth:`abandon` kills workers still busy with tasks nobody will wait for.  One
    caller at a time: the pool is not thread-safe.  It belongs to the process that made
    it (in a forked child it is not :meth:`usable`).
    """

    def __init__(self, size: int = 0, *, preload: Iterable[str] = ()) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._preload = tuple(preload)
        self._workers: list[_Worker] = []
        self._tickets = itertools.count(1)
        #: Replies received and not collected yet: ticket -> (succeeded, value).
        self._replies: dict[int, tuple[bool, Any]] = {}
        #: Tickets whose replies are dropped when they come.
        self._forgotten: set[int] = set()
        #: Tickets whose task has started and not answered yet.
        self._started: set[int] = set()
        self._owner = os.getpid()
        self.closed = False
        self.grow(size)

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def size(self) -> int:
        """How many workers the pool has."""
        return len(self._workers)

    @property
    def pids(self) -> list[int]:
        """The workers' process ids, in worker order."""
        return [w.process.pid or 0 for w in self._workers]

    def grow(self, size: int) -> None:
        """Start workers until there are ``size`` (the new ones start in the background)."""
        while len(self._workers) < size:
            self._workers.append(self._start(len(self._workers)))

    def _start(self, index: int) -> _Worker:
        here, there = self._context.Pipe()
        process = self._context.Process(target=_warm_worker, args=(there, self._preload),
                                        name=f"furnace-warm-{index}", daemon=True)
        process.start()
        there.close()
        return _Worker(process, here)

    def usable(self) -> bool:
        """Not closed, and used from the process that made it (not a fork's copy)."""
        return not self.closed and os.getpid() == self._owner

    def dead(self) -> list[int]:
        """The workers that have died (killed, out of memory), in worker order."""
        return [i for i, w in enumerate(self._workers) if not w.process.is_alive()]

    def revive(self) -> list[int]:
        """Replace the dead workers by new ones (starting in the background); their indexes.

        Their unanswered tasks are lost (:meth:`collect` raised
        :class:`WorkerDiedError` for them, or will not find them).
        """
        dead = self.dead()
        for index in dead:
            self._replace(index)
        return dead

    def _replace(self, index: int) -> None:
        worker = self._workers[index]
        self._stop(worker, kill=True)
        self._forgotten.difference_update(worker.pending)
        self._started.difference_update(worker.pending)
        self._workers[index] = self._start(index)

    def poll(self) -> None:
        """Take in the messages already there (ready workers, replies), without waiting."""
        for worker in self._workers:
            self._drain(worker)

    def _drain(self, worker: _Worker) -> None:
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "ready":
                    worker.ready = True
                    continue
                if message[0] == "started":
                    self._started.add(message[1])
                    continue
                kind, ticket, value = message
                worker.pending.remove(ticket)
                self._started.discard(ticket)
                if ticket in self._forgotten:
                    self._forgotten.discard(ticket)
                else:
                    self._replies[ticket] = (kind == "result", value)
        except (EOFError, OSError):  # it died: its sentinel tells
            pass

    def idle(self) -> list[int]:
        """The workers ready and with no task, in worker order (after :meth:`poll`)."""
        return [i for i, w in enumerate(self._workers) if w.ready and not w.pending]

    def submit(self, index: int, fn: Callable[..., Any], *args: Any) -> int:
        """Send ``fn(*args)`` to worker ``index`` (after its earlier tasks); its ticket."""
        worker = self._workers[index]
        ticket = next(self._tickets)
        payload = pickle.dumps((fn, args))
        try:
            worker.conn.send((ticket, payload))
        except OSError as exc:  # it died since the last look
            raise WorkerDiedError(f"worker {worker.process.pid} is gone") from exc
        worker.pending.append(ticket)
        return ticket

    def started(self, ticket: int) -> bool:
        """Whether the task ``ticket`` announced its start (:func:`announce_start`) and has
        not answered yet, as last seen."""
        return ticket in self._started

    def collect(self, tickets: Iterable[int], until: float | None = None, *,
                grace: float = 0.0) -> dict[int, Any]:
        """The values of the tasks ``tickets`` that answer in time (by ticket).

        Waits for every task until ``until`` (a ``time.monotonic()`` time; ``None``:
        until all answer), then up to ``grace`` seconds more for those that announced
        their start (:func:`announce_start`).  A task that raised raises here (its
        exception), once the waiting is over; a worker that died with one of these
        tasks raises :class:`WorkerDiedError`.  Late tasks are left pending (see
        :meth:`forget` and :meth:`abandon`).
        """
        wanted = set(tickets)
        while True:
            missing = wanted - self._replies.keys()
            now = time.monotonic()
            if until is not None and now >= until:
                missing &= self._started
            if not missing:
                break
            timeout = None if until is None else (
                until - now if now < until else until + grace - now)
            if timeout is not None and timeout <= 0:
                break
            busy = [w for w in self._workers if missing.intersection(w.pending)]
            if not busy:  # lost with a replaced worker
                break
            ready = wait_for([w.conn for w in busy] + [w.process.sentinel for w in busy],
                             timeout)
            for worker in busy:
                if worker.conn in ready or worker.process.sentinel in ready:
                    self._drain(worker)
                    if not worker.process.is_alive() and missing.intersection(worker.pending):
                        raise WorkerDiedError(
                            f"worker {worker.process.pid} died (exit code "
                            f"{worker.process.exitcode}) while it had a task")
        answered = {t: self._replies.pop(t) for t in wanted if t in self._replies}
        for succeeded, value in answered.values():
            if not succeeded:
                raise value
        return {t: value for t, (_, value) in answered.items()}

    def forget(self, tickets: Iterable[int]) -> None:
        """Drop the replies of ``tickets``, now or when they come."""
        for ticket in tickets:
            if self._replies.pop(ticket, None) is None and any(
                    ticket in w.pending for w in self._workers):
                self._forgotten.add(ticket)

    def abandon(self, tickets: Iterable[int]) -> None:
        """Kill the workers still busy with any of ``tickets`` (:meth:`revive` replaces
        them): nobody will wait for these tasks, and they must not hold the workers."""
        dropped = set(tickets)
        self.poll()
        for worker in self._workers:
            if dropped.intersection(worker.pending):
                self._stop(worker, kill=True)
        for ticket in dropped:
            self._replies.pop(ticket, None)

    def close(self, *, wait: bool = True) -> None:
        """Ask the workers to exit (they finish a running task first).

        ``wait``: wait for them, up to :data:`CLOSE_TIMEOUT` seconds, then kill those
        still there.  Without it they exit on their own.
        """
        if self.closed:
            return
        self.closed = True
        if os.getpid() != self._owner:  # a forked child's copy: leave them alone
            return
        for worker in self._workers:
            self._stop(worker, kill=False)
        if wait:
            end = time.monotonic() + CLOSE_TIMEOUT
            for worker in self._workers:
                worker.process.join(max(0.0, end - time.monotonic()))
                if worker.process.is_alive():
                    worker.process.kill()
                    worker.process.join()

    @staticmethod
    def _stop(worker: _Worker, *, kill: bool) -> None:
        try:
            worker.conn.send(None)
        except (OSError, ValueError):
            pass
        worker.conn.close()
        if kill and worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
