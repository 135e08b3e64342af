"""The worker pools: processes the server manages itself, a bounded queue, fair shares.

The server has two: the search pool (BestMove, Analyze, EstimateScores) and the call
pool (every other call's game work: loading and validating a position, legal moves,
checks, applies).  Both are a :class:`WorkerPool`.

* ``workers`` processes are ``spawn``-ed (:func:`ai_server.worker.worker_main`),
  each with its own connection (a ``multiprocessing`` pipe) that carries its jobs,
  their results and Analyze progress.  One dispatcher thread waits on every
  connection and every process sentinel at once
  (``multiprocessing.connection.wait``) and hands queued jobs to idle workers.
* A worker that dies fails only the job it was running (UNAVAILABLE,
  ``WORKER_FAILED``: retry), and a replacement is started at once (after a
  back-off if workers die before they are even ready).  A worker stuck far past
  the time its job had to stop by is killed the same way.
* Bounds: at most ``workers + max_queue`` jobs are outstanding (running or
  waiting), at most ``max_per_client`` of them for one client, and a job that
  cannot start by its ``start_by`` time (the server's maximum queue wait, or the
  time its own budget or deadline ends) is refused rather than run late.  These
  refusals are RESOURCE_EXHAUSTED with a retry delay estimated from the pool's
  state (the soonest time a running job will free a worker).
* Fair shares that conserve work: an idle worker always takes a waiting job, so a
  lone client (or a site's backend calling for all its players) gets every worker.
  Shares bind only when clients compete: a client is entitled to ``workers`` divided
  by the clients with jobs running or waiting (at least one worker, at most
  ``max_running_share`` of them).  A worker that comes free takes the oldest job of
  the client that runs the fewest (of those, the one served longest ago).  A job
  whose client runs fewer than its entitlement and finds no worker *preempts* a job
  of a client running more than its own, once that job has run ``preempt_after``
  seconds: a search is asked to stop and answers its best move so far (stop reason
  ``PREEMPTED``); a killable job's worker is killed and its call answered
  UNAVAILABLE (``PREEMPTED``, retry).  When the queue is full, a job of a client with
  fewer jobs outstanding pushes out the newest waiting job of the client with the
  most (that job is refused QUEUE_FULL, with a retry delay).
* A short lane: ``short_workers`` more workers take only *short* jobs, those that
  must end within ``short_job`` seconds of their submission (their budget or their
  deadline says so), so that a short call never waits behind long work, whatever
  the number of clients sending long work; among short jobs the same fair order
  holds.  Short jobs take the other workers too when one is free.
* Spares: ``spares`` more processes stay started and idle, so that a worker killed
  (a job over its time or memory) is replaced at once: at most ``workers`` (plus the
  short lane's) run jobs at a time, and a spare is one of the idle processes, while
  the replacement of the killed one starts.  A client whose job was killed goes last
  among the clients running as few jobs as it does, and starts no other killable job
  until the killed worker's replacement is ready: on a loaded machine, where starting
  a worker takes seconds, a client killed again and again would otherwise take the
  spares one after the other, and another client's cheap call would wait for a
  replacement to start.
* Jobs that cannot be asked to stop (``killable``: game code with no stop check,
  the call pool's) end by their worker being killed when they outrun their
  ``stop_by`` (DEADLINE_EXCEEDED, ``TOO_EXPENSIVE``), when their worker's resident
  memory passes ``memory_limit`` (RESOURCE_EXHAUSTED, ``TOO_EXPENSIVE``; read every
  :data:`MEMORY_TICK` seconds) or when their caller is gone.
* Stopping: each worker slot has a byte in an array shared with the workers.
  Setting it asks the running job to stop between two search iterations:
  :data:`~ai_server.worker.FLAG_CANCEL` when its caller is gone (the result is
  dropped), :data:`~ai_server.worker.FLAG_SHUTDOWN` when the server stops (the job
  answers its best move so far).  A worker gets its next job only once the last
  one stopped.
* Workers die with the server (``PR_SET_PDEATHSIG`` and a lifeline pipe, see
  :mod:`ai_server.worker`); they are started by the dispatcher thread, which
  lives as long as the pool, because the kernel ties the death signal to the
  thread that started the process.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import logging
import math
import multiprocessing
import os
import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from multiprocessing.connection import wait as wait_any
from typing import Any

import grpc

from ai_server import errors, worker
from ai_server.logs import RateLimitedLogger
from ai_server.observe import process_cpu_seconds

log = logging.getLogger(__name__)

#: Seconds a job may run past the time it had to stop by before its worker is killed
#: as stuck: searches check their time between two iterations, within milliseconds,
#: unless one step of the game itself runs long.
STUCK_AFTER = 3.0
#: Seconds a job told to stop (its caller gone, or the server stopping) may take to do
#: so before its worker is killed: searches stop between two iterations, within
#: milliseconds, unless one step of the game itself runs long.
STOP_GRACE = 2.0
#: Back-off before restarting a worker that died before it was ready (doubles).
RESPAWN_BACKOFF = 0.5
MAX_RESPAWN_BACKOFF = 30.0
#: Seconds the workers get to exit on close before they are killed.
EXIT_TIMEOUT = 2.0
#: Shortest retry delay advised.
MIN_RETRY = 0.05
#: Longest sleep of the dispatcher between two looks at the clock.
TICK = 1.0
#: The same while a killable job runs in a pool with a memory cap: how often the
#: job's resident memory is read.
MEMORY_TICK = 0.2

#: Seconds a job must have run before it may be preempted for a waiting client's.
PREEMPT_AFTER = 0.5
#: A killable job (a call's game work) still running after this many seconds is no
#: cheap call: its worker drops this many scheduling priority steps, so that the
#: cheap calls of other workers get the cores first.
DEMOTE_AFTER = 0.2
DEMOTE_NICE = 10
#: The lanes a running job occupies.
GENERAL = "general"
SHORT = "short"

#: Kills of jobs that ran too long or did not stop: what clients sending costly
#: positions cause, so they are logged at most once every ten seconds, with a count.
_kills_log = RateLimitedLogger(log, 10.0)

_ids = itertools.count(1)
#: Every pool, for :func:`_end_lifelines` at exit.
_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def _end_lifelines() -> None:
    """At interpreter exit, end every pool's lifeline so that its workers exit.

    Registered after ``multiprocessing.util`` (imported above), so it runs before
    multiprocessing joins its children at exit (workers ignore the SIGTERM it sends).
    """
    for pool in list(_POOLS):
        with pool._lock:
            pool._closing = True  # no replacements for the workers that now exit
        pool._lifeline_w.close()


atexit.register(_end_lifelines)


def exhausted(message: str, reason: str, retry_after: float,
              **metadata: str) -> errors.RequestError:
    """A RESOURCE_EXHAUSTED refusal that advises when to retry."""
    return errors.RequestError(
        grpc.StatusCode.RESOURCE_EXHAUSTED, f"{message}; retry in {retry_after:.2f} s",
        reason=reason, metadata=metadata, retry_after=retry_after)


def exhausted_unavailable(message: str, retry_after: float) -> errors.RequestError:
    """The answer of a killable job preempted for another client's: retry later."""
    return errors.RequestError(
        grpc.StatusCode.UNAVAILABLE, f"{message}; retry in {retry_after:.2f} s",
        reason=errors.PREEMPTED, retry_after=retry_after)


def _shutting_down(what: str) -> errors.RequestError:
    return errors.RequestError(grpc.StatusCode.UNAVAILABLE,
                               f"the server is shutting down: {what}; retry on another server",
                               reason=errors.SHUTTING_DOWN)


class Job:
    """One submitted job: await :meth:`result`; :meth:`cancel` when its caller is gone."""

    def __init__(self, pool: WorkerPool, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any], *, client: str, stop_by: float, start_by: float,
                 timed: bool, progress: Callable[[Any], None] | None,
                 killable: bool = False, what: str = "", report_wait: bool = False) -> None:
        self.pool = pool
        self.id = next(_ids)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.client = client
        #: ``time.monotonic()`` by which the job's own budget or deadline stops it.
        self.stop_by = stop_by
        #: Latest time it may start; still queued then, it is refused.
        self.start_by = start_by
        #: True when it will most likely run until ``stop_by`` (a time budget).
        self.timed = timed
        #: True when the job cannot be asked to stop: its worker is killed instead.
        self.killable = killable
        #: What the job does, in words, for the message of a job stopped as too long.
        self.what = what or "the call's work"
        #: The job function is told how long the job waited for a worker (``queued=``).
        self.report_wait = report_wait
        self.progress = progress
        self.future: Future[Any] = Future()
        self.submitted = time.monotonic()
        self.started: float | None = None
        #: The worker said it took the job (a death before that gives it to another one).
        self.taken = False
        self.attempts = 0
        self.stopping_since: float | None = None
        self.slot: int | None = None
        #: The lane it runs in (GENERAL or SHORT), once started.
        self.lane: str | None = None
        #: It must end within the pool's ``short_job`` seconds: the short lane takes it.
        self.short = stop_by - self.submitted <= pool.short_job
        #: Stopped early for another client's job (its answer says so).
        self.preempted = False
        self.future.add_done_callback(self._on_done)

    def _on_done(self, future: Future[Any]) -> None:
        if future.cancelled():
            self.pool._cancel(self)

    def done(self) -> bool:
        return self.future.done()

    def cancel(self) -> None:
        """The caller is gone: drop the job if queued, tell its worker to stop if running."""
        self.pool._cancel(self)

    async def result(self) -> Any:
        """The job's return value; a refusal or a worker failure raises a RequestError."""
        return await asyncio.wrap_future(self.future)


class _Worker:
    def __init__(self, slot: int, process: Any, conn: Any) -> None:
        self.slot = slot
        self.process = process
        self.conn = conn
        self.pid: int = process.pid
        self.ready = False
        self.retiring = False
        self.job: Job | None = None
        self.started = time.monotonic()
        #: Set when the pool killed it: the answer its job gets.
        self.killed_for: errors.RequestError | None = None
        #: Its priority was lowered for a killable job that ran long.
        self.demoted = False

    @property
    def idle(self) -> bool:
        return self.ready and not self.retiring and self.job is None


class WorkerPool:
    """Worker processes plus the bookkeeping around them (see the module docstring).

    ``max_queue_wait`` (seconds) is the longest a job may wait for a worker,
    ``max_per_client`` the most jobs one client may have outstanding (0: no limit),
    ``max_running_share`` the share of the workers one client may run at once (at
    least one worker; 1: no such bound),
    ``short_workers`` the workers of the short lane, for jobs that end within
    ``short_job`` seconds, ``spares`` the processes kept idle to replace a killed
    worker at once, ``preempt_after`` the seconds a job runs before a waiting
    client's job may preempt it (None: never),
    ``memory_limit`` the resident memory in bytes past which a search stops (0: none),
    ``nice`` how many steps below this process's scheduling priority the workers run,
    ``name`` what the pool's workers are called in logs and process names,
    ``preload`` the modules its jobs come from, which a worker imports before it says
    it is ready.
    """

    def __init__(self, workers: int, max_queue: int, *, max_queue_wait: float = 10.0,
                 max_per_client: int = 0, max_running_share: float = 1.0,
                 short_workers: int = 0, short_job: float = 1.0, spares: int = 0,
                 preempt_after: float | None = PREEMPT_AFTER,
                 memory_limit: int = 0, nice: int = 0, name: str = "search",
                 preload: tuple[str, ...] = ()) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if max_queue < 0:
            raise ValueError(f"max_queue must be at least 0, not {max_queue}")
        if not 0 < max_running_share <= 1:
            raise ValueError(f"max_running_share must be in (0, 1], not {max_running_share}")
        if short_workers < 0 or spares < 0:
            raise ValueError("short_workers and spares must be at least 0")
        self.workers = workers
        self.short_workers = short_workers
        self.short_job = short_job
        self.spares = spares
        self.preempt_after = preempt_after
        #: Worker processes kept: the workers, the short lane's, the spares.
        self.processes = workers + short_workers + spares
        self.max_queue = max_queue
        self.capacity = workers + short_workers + max_queue
        self.max_queue_wait = max_queue_wait
        self.max_per_client = max_per_client
        #: The most jobs one client runs at once.
        self.max_running_per_client = max(1, math.ceil(workers * max_running_share - 1e-9))
        self.memory_limit = memory_limit
        self.nice = nice
        #: Whether this process may raise a worker's priority back (CAP_SYS_NICE, e.g.
        #: root): then the workers of long killable jobs are demoted while they run.
        self._can_restore = _can_raise_priority()
        self.name = name
        self.preload = tuple(preload)
        self._ctx = multiprocessing.get_context("spawn")
        self.flags = self._ctx.RawArray("b", self.processes)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: deque[Job] = deque()
        self._slots: list[_Worker | None] = [None] * self.processes
        self._respawn_at: dict[int, float] = dict.fromkeys(range(self.processes), 0.0)
        self._backoff: dict[int, float] = dict.fromkeys(range(self.processes), RESPAWN_BACKOFF)
        self._clients: Counter[str] = Counter()
        #: When a job of each client with jobs outstanding last started.
        self._served: dict[str, float] = {}
        #: The slots whose worker was killed for a client's job, and whose replacement
        #: is not ready yet: that client's killable jobs wait for it.
        self._owed: dict[int, str] = {}
        self._lifeline_r, self._lifeline_w = self._ctx.Pipe(duplex=False)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._closing = False
        self._closed_at: float | None = None
        #: Workers started to replace one that died or retired.
        self.restarts = 0
        #: Workers killed because their job ran too long (or its caller left).
        self.kills = 0
        #: Jobs stopped early (or killed) for a waiting client's job.
        self.preemptions = 0
        #: CPU seconds of the workers that have exited.
        self.exited_cpu = 0.0
        _POOLS.add(self)
        self._thread = threading.Thread(target=self._run, name="furnace-pool", daemon=True)
        self._thread.start()

    # -- looking at the pool --------------------------------------------------------
    @property
    def outstanding(self) -> int:
        """Jobs running (until their worker stopped) or waiting."""
        with self._lock:
            return self._running_count() + len(self._queue)

    def _running_count(self) -> int:
        return sum(1 for w in self._slots if w is not None and w.job is not None)

    def worker_pids(self) -> list[int]:
        """Pids of the workers that are up (ready, busy or idle)."""
        with self._lock:
            return sorted(w.pid for w in self._slots if w is not None and w.ready)

    def busy_pids(self) -> list[int]:
        """Pids of the workers running a job (a stopping one included)."""
        with self._lock:
            return sorted(w.pid for w in self._slots if w is not None and w.job is not None)

    def searching_pids(self) -> list[int]:
        """Pids of the workers whose job has started there (the worker said so): killing
        one of these fails its call, whereas a job assigned but not yet started goes
        back to the queue for another worker."""
        with self._lock:
            return sorted(w.pid for w in self._slots
                          if w is not None and w.job is not None and w.job.taken)

    def state(self) -> dict[str, int]:
        """Counts: ``running``, ``queued``, ``idle``, ``starting`` workers, ``restarts``."""
        with self._lock:
            live = [w for w in self._slots if w is not None]
            return {
                "running": sum(1 for w in live if w.job is not None),
                "queued": len(self._queue),
                "idle": sum(1 for w in live if w.idle),
                "starting": sum(1 for w in live if not w.ready),
                "restarts": self.restarts,
            }

    def warm_up(self, timeout: float = 120.0) -> None:
        """Wait (blocking) until every worker process is up, so the first searches are fast."""
        end = time.monotonic() + timeout
        with self._changed:
            while not self._closing and not all(w is not None and w.ready
                                                for w in self._slots):
                left = end - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"the search workers did not start in {timeout:g} s")
                self._changed.wait(left)

    # -- jobs -----------------------------------------------------------------------
    def submit(self, fn: Callable[..., Any], *args: Any, client: str = "",
               stop_by: float | None = None, start_by: float | None = None,
               timed: bool = False, progress: Callable[[Any], None] | None = None,
               killable: bool = False, what: str = "", report_wait: bool = False,
               **kwargs: Any) -> Job:
        """Queue ``fn(*args, slot=..., **kwargs)`` for a worker; refuse it if over a bound.

        ``stop_by`` (``time.monotonic()``) is when the job's own budget stops it;
        ``start_by`` the latest it may start (default: the maximum queue wait, and
        never after ``stop_by``; given, it may be later than ``stop_by``, at most the
        maximum queue wait: the job then runs past its own end as little as it can).  ``progress`` is called in the dispatcher thread
        with each progress report (the job function then gets ``report=``).
        ``killable``: the job cannot be asked to stop, so its worker is killed at
        ``stop_by`` (the call answers DEADLINE_EXCEEDED, saying ``what`` took too
        long) or as soon as the caller cancels it.  ``report_wait``: the job function
        also gets ``queued=``, the seconds the job waited for a worker.
        """
        now = time.monotonic()
        stop_by = now + 3600.0 if stop_by is None else stop_by
        latest = now + self.max_queue_wait
        start_by = min(latest, stop_by) if start_by is None else min(start_by, latest)
        with self._lock:
            refusal = self._refusal(client, now)
            if refusal is not None:
                raise refusal
            pushed = self._push_out(client, now)
            job = Job(self, fn, args, kwargs, client=client, stop_by=stop_by,
                      start_by=start_by, timed=timed, progress=progress, killable=killable,
                      what=what, report_wait=report_wait)
            self._queue.append(job)
            self._clients[client] += 1
        if pushed is not None:
            _resolve(*pushed)
        self._wake()
        return job

    def admit(self, client: str = "") -> None:
        """Raise the refusal :meth:`submit` would raise for ``client`` right now, if any.

        The server asks before it decodes a search request's position, so that a
        full pool refuses at once, without doing any work for the call (``submit``
        checks again: this reserves nothing).
        """
        with self._lock:
            refusal = self._refusal(client, time.monotonic())
        if refusal is not None:
            raise refusal

    def _refusal(self, client: str, now: float) -> errors.RequestError | None:
        """Why a job of ``client`` cannot be queued now, or None (lock held)."""
        if self._closing:
            return _shutting_down(f"no new {self._what} are started")
        mine = [j for j in self._jobs() if j.client == client] if self.max_per_client else []
        if self.max_per_client and len(mine) >= self.max_per_client:
            running = [j for j in mine if j.started is not None]
            return exhausted(
                f"too many {self._what} from this client: {len(mine)} running or waiting, "
                f"at most {self.max_per_client}",
                errors.CLIENT_QUOTA, self._retry_after(running or self._running(), now),
                **{f"max_{self._what}_per_client": str(self.max_per_client)})
        if self._running_count() + len(self._queue) >= self.capacity \
                and self._crowding(client) is None:
            return self._full(now)
        return None

    @property
    def _what(self) -> str:
        """What the pool's jobs are, in refusals (and their metadata keys)."""
        return "searches" if self.name == "search" else "calls"

    def _full(self, now: float) -> errors.RequestError:
        return exhausted(
            f"too many {self._what}: {self.workers} running and {self.max_queue} waiting",
            errors.QUEUE_FULL, self._retry_after(self._running(), now),
            workers=str(self.workers), max_queue=str(self.max_queue))

    def _crowding(self, client: str) -> Job | None:
        """The job ``client`` may push out of a full queue (lock held): the newest waiting
        job of the client with the most jobs outstanding, if it has at least two more
        than ``client`` (so that the two would not just trade places); else None."""
        mine = self._clients.get(client, 0)
        newest: dict[str, Job] = {}
        for job in self._queue:
            newest[job.client] = job
        candidates = [c for c in newest if self._clients[c] >= mine + 2]
        if not candidates:
            return None
        return newest[max(candidates, key=lambda c: (self._clients[c], newest[c].submitted))]

    def _push_out(self, client: str, now: float
                  ) -> tuple[Job, None, errors.RequestError] | None:
        """Make room in a full queue for a job of ``client`` (lock held): the job pushed
        out and its refusal, to resolve once the lock is released; None if there was room."""
        if self._running_count() + len(self._queue) < self.capacity:
            return None
        job = self._crowding(client)
        assert job is not None  # _refusal let the job in
        self._queue.remove(job)
        self._release(job)
        log.info("%s %d pushed out of the full queue by another client's", self.name, job.id)
        return job, None, self._full(now)

    def _jobs(self) -> list[Job]:
        running = [w.job for w in self._slots if w is not None and w.job is not None]
        return running + list(self._queue)

    def _running(self) -> list[Job]:
        return [w.job for w in self._slots if w is not None and w.job is not None]

    @staticmethod
    def _expected_end(job: Job, now: float) -> float:
        if job.stopping_since is not None:
            return now
        if job.started is None:
            return job.stop_by
        if job.timed:
            return job.stop_by
        # An iteration budget: guess it runs about as long again as it has run so far.
        return min(job.stop_by, now + (now - job.started))

    def _retry_after(self, jobs: list[Job], now: float) -> float:
        """Seconds until the soonest of ``jobs`` should be over (at least MIN_RETRY)."""
        if not jobs:
            return MIN_RETRY
        soonest = min(self._expected_end(j, now) for j in jobs)
        return max(soonest - now, MIN_RETRY)

    def _release(self, job: Job) -> None:
        """Forget ``job`` in the per-client counts (lock held)."""
        self._clients[job.client] -= 1
        if self._clients[job.client] <= 0:
            del self._clients[job.client]
            self._served.pop(job.client, None)

    def _cancel(self, job: Job) -> None:
        dropped = False
        with self._lock:
            if job.started is None and job in self._queue:
                self._queue.remove(job)
                self._release(job)
                dropped = True
            elif job.slot is not None and job.stopping_since is None:
                current = self._slots[job.slot]
                if current is not None and current.job is job:
                    # A killable job is killed at once (the dispatcher sees the time
                    # passed); others are asked to stop.
                    job.stopping_since = time.monotonic()
                    if not self.flags[job.slot]:
                        self.flags[job.slot] = worker.FLAG_CANCEL
                    self._changed.notify_all()
        if dropped:
            job.future.cancel()
        self._wake()

    # -- shutdown -------------------------------------------------------------------
    def begin_shutdown(self) -> None:
        """Refuse new jobs; answer queued ones UNAVAILABLE (SHUTTING_DOWN)."""
        with self._lock:
            self._closing = True
            queued = list(self._queue)
            self._queue.clear()
            for job in queued:
                self._release(job)
            self._changed.notify_all()
        for job in queued:
            _resolve(job, error=_shutting_down("the search had not started"))
        self._wake()

    def stop_running(self) -> None:
        """Tell every running job to stop now and answer its best move so far."""
        with self._lock:
            now = time.monotonic()
            for w in self._slots:
                if w is not None and w.job is not None and not self.flags[w.slot]:
                    self.flags[w.slot] = worker.FLAG_SHUTDOWN
                    w.job.stopping_since = now
        self._wake()

    def close(self, timeout: float = 5.0) -> None:
        """Stop everything (blocking): queued jobs refused, running ones stopped, workers gone.

        Running jobs get ``timeout`` seconds to answer their best move so far.
        """
        self.begin_shutdown()
        self.stop_running()
        end = time.monotonic() + timeout
        with self._changed:
            while self._running_count() and time.monotonic() < end:
                self._changed.wait(max(end - time.monotonic(), 0.0))
            if self._closed_at is None:
                self._closed_at = time.monotonic()
        self._lifeline_w.close()  # the workers see end of file and exit
        self._wake()
        self._thread.join(EXIT_TIMEOUT + 5.0)

    # -- the dispatcher thread ------------------------------------------------------
    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass  # a wake-up is pending already (or the pool is gone)

    def _run(self) -> None:
        try:
            while self._step():
                pass
        except Exception:  # pragma: no cover - a bug; the pool cannot go on without it
            log.exception("search pool dispatcher failed")
        finally:
            self._finish()

    def _step(self) -> bool:
        """One round: start workers, expire, dispatch, then wait for something to happen."""
        now = time.monotonic()
        to_spawn: list[int] = []
        to_send: list[tuple[_Worker, Job]] = []
        to_kill: list[_Worker] = []
        expired: list[Job] = []
        with self._lock:
            closed = self._closed_at is not None
            live = [w for w in self._slots if w is not None]
            if closed and not live:
                return False
            if not self._closing:
                for slot, when in list(self._respawn_at.items()):
                    if when <= now:
                        del self._respawn_at[slot]
                        to_spawn.append(slot)
            for w in live:
                if closed:
                    if now > self._closed_at + EXIT_TIMEOUT:  # type: ignore[operator]
                        to_kill.append(w)
                elif w.job is not None:
                    heavy = self._over_memory(w)
                    if heavy or now >= _kill_time(w.job):
                        if w.killed_for is None:  # killed once; its death is to be seen
                            w.killed_for = self._kill_answer(w.job, now, heavy)
                            self.kills += 1
                            if w.job.killable and not w.job.preempted:
                                self._owed[w.slot] = w.job.client
                        to_kill.append(w)
            # A job told to stop no longer counts against its client's share: its caller
            # is gone, the server is stopping, or it was preempted.
            running = Counter(w.job.client for w in live
                              if w.job is not None and w.job.stopping_since is None)
            for w in to_kill:
                if w.job is not None and w.killed_for is not None and not w.job.preempted:
                    # Its client goes last among those running as few jobs.
                    self._served[w.job.client] = now
            busy = Counter(w.job.lane for w in live if w.job is not None)
            idle = [w for w in live if w.idle and w not in to_kill]
            for w in list(idle):
                if not self._queue:
                    break
                if busy[GENERAL] < self.workers:
                    lane = GENERAL
                elif busy[SHORT] < self.short_workers:
                    lane = SHORT
                else:
                    break
                # A killable job cannot be preempted in time (its worker is killed, and a
                # replacement takes a second or more): beyond its client's entitlement it
                # may not take the last free worker, and the last worker up (the others
                # restarting after kills) goes only to a client running nothing.
                keep_last: int | None = None
                if lane == GENERAL and len(idle) == 1:
                    keep_last = 1
                elif lane == GENERAL and busy[GENERAL] + 1 >= self.workers:
                    keep_last = self._entitlement(running)
                job = self._next_job(running, short_only=lane == SHORT, keep_last=keep_last)
                if job is None:
                    break
                self._queue.remove(job)
                idle.remove(w)
                running[job.client] += 1
                busy[lane] += 1
                job.slot = w.slot
                job.lane = lane
                job.started = now
                # A job that starts after its own end (it waited) still answers: the
                # stuck timer counts from now.
                job.stop_by = max(job.stop_by, now)
                job.taken = False
                job.attempts += 1
                w.job = job
                self.flags[w.slot] = 0
                to_send.append((w, job))
            preempt_at = self._preempt(live, running, to_kill, now)
            to_demote = [w for w in live if w.job is not None and w.job.killable
                         and self._can_restore and not w.demoted and w not in to_kill
                         and now >= (w.job.started or now) + DEMOTE_AFTER]
            demote_at = [(w.job.started or now) + DEMOTE_AFTER for w in live
                         if w.job is not None and w.job.killable and self._can_restore
                         and not w.demoted and w not in to_demote]
            # Jobs still waiting past their start_by are refused (one that found an
            # idle worker above runs, however short its time: it answers early).
            for job in list(self._queue):
                if now >= job.start_by:
                    self._queue.remove(job)
                    self._release(job)
                    expired.append(job)
            retry = self._retry_after(self._running(), now)
            timers = [job.start_by for job in self._queue]
            timers += list(self._respawn_at.values())
            timers += [_kill_time(w.job) for w in live if w.job is not None]
            if preempt_at is not None:
                timers.append(preempt_at)
            timers += demote_at
            if closed:
                timers.append(self._closed_at + EXIT_TIMEOUT)  # type: ignore[operator]
            waitables: dict[Any, _Worker | None] = {self._wake_r: None}
            for w in live:
                waitables[w.conn] = w
                waitables[w.process.sentinel] = w
        for job in expired:
            log.info("search %d refused: it waited %.2f s for a worker", job.id,
                     now - job.submitted)
            _resolve(job, error=exhausted(
                f"no {self.name} worker became free in time (waited {now - job.submitted:.2f} s)",
                errors.QUEUE_TIMEOUT, retry, max_queue_wait_ms=str(int(self.max_queue_wait * 1000))))
        for slot in to_spawn:
            self._spawn(slot)
        for w in to_kill:
            self._kill(w, "did not exit" if closed or w.job is None else
                       "preempted" if w.job.preempted else
                       "too long" if w.job.killable else "stuck")
        for w in to_demote:
            self._set_priority(w, demoted=True)
        for w, job in to_send:
            self._send(w, job)
        if to_spawn:
            return True  # new connections to wait on
        watch_memory = self.memory_limit and any(w.job is not None and w.job.killable
                                                 for w in live)
        timeout = min([MEMORY_TICK if watch_memory else TICK]
                      + [t - time.monotonic() for t in timers])
        # A timer already past is a kill whose death is still to be seen: no busy loop.
        ready = wait_any(list(waitables), timeout if timeout > 0 else 0.05)
        for obj in ready:
            if obj == self._wake_r:
                self._drain_wake()
        for obj in ready:
            owner = waitables.get(obj)
            if owner is not None and obj is owner.conn:
                self._receive(owner)
        for obj in ready:
            owner = waitables.get(obj)
            if owner is not None and obj == owner.process.sentinel:
                self._on_death(owner)
        return True

    def _next_job(self, running: Counter[str], short_only: bool = False,
                  keep_last: int | None = None) -> Job | None:
        """The job an idle worker takes (lock held): the oldest of the client that runs
        the fewest jobs, and among those of the client served longest ago; only short
        jobs with ``short_only`` (the short lane); with ``keep_last`` (an entitlement),
        no killable job of a client running that many already; no killable job of a
        client whose killed worker is still being replaced; None if no job fits."""
        chosen: Job | None = None
        best: tuple[int, float] | None = None
        owing = set(self._owed.values())
        for job in self._queue:  # oldest first
            if short_only and not job.short:
                continue
            if job.killable and job.client in owing:
                continue
            if keep_last is not None and job.killable and running[job.client] >= keep_last:
                continue
            rank = (running[job.client], self._served.get(job.client, float("-inf")))
            if best is None or rank < best:
                chosen, best = job, rank
        if chosen is not None:
            self._served[chosen.client] = time.monotonic()
        return chosen

    def _entitlement(self, running: Counter[str]) -> int:
        """The entitlement of each client now (lock held): the clients competing are
        those running or waiting."""
        clients = {job.client for job in self._queue} | {c for c, n in running.items() if n}
        return self.entitled(len(clients))

    def entitled(self, clients: int) -> int:
        """The workers one of ``clients`` competing clients may keep busy while others
        wait: an equal part of the workers, at least one, at most its share."""
        return max(1, min(self.max_running_per_client, self.workers // max(clients, 1)))

    def _preempt(self, live: list[_Worker], running: Counter[str], to_kill: list[_Worker],
                 now: float) -> float | None:
        """Stop jobs of clients running more than their entitlement for the waiting jobs
        of clients running fewer (lock held); the time a job becomes preemptible, when
        one will be needed then (None otherwise)."""
        if not self._queue or self.preempt_after is None:
            return None
        entitled = self._entitlement(running)
        wanted: Counter[str] = Counter()
        for job in self._queue:
            if running[job.client] + wanted[job.client] < entitled:
                wanted[job.client] += 1
        # Workers already being freed for them (jobs preempted that have not answered).
        freeing = sum(1 for w in live if w.job is not None and w.job.preempted
                      and w.job.lane == GENERAL)
        needed = sum(wanted.values()) - freeing
        later: float | None = None
        while needed > 0:
            victim: _Worker | None = None
            for w in live:
                each = w.job
                if each is None or each.lane != GENERAL or each.stopping_since is not None \
                        or w in to_kill or running[each.client] <= entitled:
                    continue
                ready_at = (each.started or now) + self.preempt_after
                if ready_at > now:
                    later = ready_at if later is None else min(later, ready_at)
                    continue
                # The newest job of the client running the most.
                if victim is None or victim.job is None or \
                        (running[each.client], each.started or 0.0) > \
                        (running[victim.job.client], victim.job.started or 0.0):
                    victim = w
            if victim is None or victim.job is None:
                return later
            job = victim.job
            job.preempted = True
            job.stopping_since = now
            running[job.client] -= 1
            self.preemptions += 1
            if job.killable:
                victim.killed_for = exhausted_unavailable(
                    f"{job.what} ran {now - (job.started or now):.2f} s on a worker beyond "
                    f"this client's share while other clients waited, and was stopped",
                    self._retry_after(self._running(), now))
                to_kill.append(victim)
            else:
                self.flags[victim.slot] = worker.FLAG_YIELD
            log.info("%s %d preempted for another client's job", self.name, job.id)
            needed -= 1
        return later

    def _over_memory(self, w: _Worker) -> bool:
        """Whether ``w`` runs a killable job and holds more memory than the pool allows."""
        if not self.memory_limit or w.job is None or not w.job.killable:
            return False
        resident = worker.resident_bytes(w.pid)
        return resident is not None and resident > self.memory_limit

    def _kill_answer(self, job: Job, now: float,
                     memory: bool = False) -> errors.RequestError:
        """What the call of a job whose worker is killed now is answered (lock held)."""
        if memory:
            return errors.RequestError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{job.what} needed more memory than the "
                f"{self.memory_limit // (1 << 20)} MiB the server allows a worker, and was "
                f"stopped; the same request would need as much again",
                reason=errors.TOO_EXPENSIVE,
                metadata={"limit_bytes": str(self.memory_limit)})
        if job.stopping_since is not None and job.killable:
            if job.slot is not None and self.flags[job.slot] == worker.FLAG_SHUTDOWN:
                return _shutting_down("the call was stopped")
            return errors.RequestError(grpc.StatusCode.CANCELLED, "the call was cancelled",
                                       reason=errors.TOO_EXPENSIVE)
        allowed = max(job.stop_by - job.submitted, 0.0)
        if job.killable:
            message = (f"{job.what} took longer than the {allowed:.2f} s this call may take "
                       f"(its deadline, or the server's limit for the call) and was stopped; "
                       f"the same request would take as long again")
        else:
            message = (f"{job.what} did not stop in time ({allowed:.2f} s allowed): one step "
                       f"of the game took too long, and the work was stopped")
        return errors.RequestError(grpc.StatusCode.DEADLINE_EXCEEDED, message,
                                   reason=errors.TOO_EXPENSIVE,
                                   metadata={"limit_ms": str(int(allowed * 1000))})

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _spawn(self, slot: int) -> None:
        conn, child_conn = self._ctx.Pipe()
        process = self._ctx.Process(
            target=worker.worker_main,
            args=(child_conn, self._lifeline_r, self.flags, slot, os.getpid(),
                  self.memory_limit, self.nice, self.name, self.preload),
            name=f"furnace-{self.name}-{slot}", daemon=True)
        try:
            process.start()
        except Exception as exc:  # noqa: BLE001 - OSError, or multiprocessing refusing
            log.error("cannot start search worker %d: %s", slot, exc)
            conn.close()
            child_conn.close()
            with self._lock:
                self._schedule_respawn(slot, ready=False)
            return
        child_conn.close()
        with self._lock:
            self._slots[slot] = _Worker(slot, process, conn)

    def _schedule_respawn(self, slot: int, ready: bool) -> None:
        """Start slot's next worker now, or after a back-off if the last never got ready."""
        if self._closing:
            return
        if ready:
            self._backoff[slot] = RESPAWN_BACKOFF
            self._respawn_at[slot] = time.monotonic()
        else:
            delay = self._backoff[slot]
            self._backoff[slot] = min(delay * 2, MAX_RESPAWN_BACKOFF)
            self._respawn_at[slot] = time.monotonic() + delay

    def _send(self, w: _Worker, job: Job) -> None:
        try:
            kwargs = job.kwargs
            if job.report_wait and job.started is not None:
                kwargs = dict(kwargs, queued=max(job.started - job.submitted, 0.0))
            w.conn.send(("job", job.id, job.fn, job.args, kwargs, job.progress is not None))
        except (OSError, EOFError):
            # The worker is gone; its death will be seen: give the job to another one.
            with self._lock:
                if w.job is job:
                    w.job = None
                    job.slot = None
                    job.started = None
                    if not self._closing:
                        self._queue.appendleft(job)
                        return
                    self._release(job)
            _resolve(job, error=_shutting_down("the search had not started"))
        except Exception as exc:  # noqa: BLE001 - a job that does not pickle: a bug
            log.exception("cannot send search %d to a worker", job.id)
            with self._lock:
                if w.job is job:
                    w.job = None
                    self._release(job)
            _resolve(job, error=exc)

    def _receive(self, w: _Worker) -> None:
        """Handle every message waiting on ``w``'s connection."""
        try:
            while w.conn.poll():
                self._handle(w, w.conn.recv())
        except (EOFError, OSError):
            pass  # it died: its sentinel tells
        except Exception:  # noqa: BLE001 - a garbled message: treat the worker as broken
            log.exception("bad message from search worker pid %d", w.pid)
            self._kill(w, "garbled")

    def _handle(self, w: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "progress":
            _, job_id, data = message
            job = w.job
            if job is not None and job.id == job_id and job.stopping_since is None \
                    and job.progress is not None and not job.done():
                try:
                    job.progress(data)
                except Exception:  # noqa: BLE001 - the listener's problem, not the pool's
                    log.exception("progress listener failed")
            return
        with self._lock:
            if kind == "ready":
                w.ready = True
                self._owed.pop(w.slot, None)
                self._backoff[w.slot] = RESPAWN_BACKOFF
                self._changed.notify_all()
                return
            if kind == "retire":
                w.retiring = True
                return
            if kind == "started":
                if w.job is not None and w.job.id == message[1]:
                    w.job.taken = True
                return
            if kind not in ("result", "error"):
                raise ValueError(f"unknown message {kind!r}")
            _, job_id, payload = message
            job = w.job
            if job is None or job.id != job_id:
                return
            w.job = None
            self.flags[w.slot] = 0
            self._release(job)
            self._changed.notify_all()
        if w.demoted:
            self._set_priority(w, demoted=False)
        if kind == "result":
            _resolve(job, result=payload)
        else:
            _resolve(job, error=payload)

    def _on_death(self, w: _Worker) -> None:
        self._receive(w)  # a result sent just before dying still counts
        cpu = process_cpu_seconds(w.pid)  # readable until the process is reaped
        w.process.join(0.5)
        with self._lock:
            self.exited_cpu += cpu or 0.0
            if self._slots[w.slot] is w:
                self._slots[w.slot] = None
            job, w.job = w.job, None
            if job is not None and not job.taken and job.attempts < 2 and not self._closing \
                    and not job.done() and job.stopping_since is None \
                    and w.killed_for is None:
                # It died before it took the job (an idle worker killed): another one will.
                job.slot = None
                job.started = None
                self._queue.appendleft(job)
                job = None
            elif job is not None:
                self._release(job)
            expected = self._closing or w.retiring or w.killed_for is not None
            if not self._closing:
                self.restarts += 1
                self._schedule_respawn(w.slot, ready=w.ready)
            self._changed.notify_all()
        w.conn.close()
        if not expected:
            log.warning("%s worker pid %d died (exit code %s)%s; starting a replacement",
                        self.name, w.pid, w.process.exitcode,
                        f" during job {job.id}" if job is not None else "")
        if job is not None and not job.done():
            _resolve(job, error=w.killed_for or errors.RequestError(
                grpc.StatusCode.UNAVAILABLE,
                f"the {self.name} worker process died during this request; a new one is "
                f"starting, retry the call", reason=errors.WORKER_FAILED))

    def _set_priority(self, w: _Worker, demoted: bool) -> None:
        """Lower ``w``'s scheduling priority for a long killable job, or restore it; a
        worker whose priority cannot be restored (that needs a privilege) is replaced."""
        base = os.getpriority(os.PRIO_PROCESS, 0) + self.nice
        try:
            os.setpriority(os.PRIO_PROCESS, w.pid, min(base + DEMOTE_NICE, 19)
                           if demoted else base)
            w.demoted = demoted
        except PermissionError:
            if not demoted:
                with self._lock:
                    w.retiring = True  # an idle worker at low priority: a fresh one instead
                self._kill(w, "retired")
        except (OSError, AttributeError):
            pass  # gone already, or no such call here: nothing to change

    def _kill(self, w: _Worker, why: str) -> None:
        if why == "stuck":
            _kills_log.warning("%s worker pid %d did not stop in time (job %d, %s); "
                               "killing it", self.name, w.pid,
                               w.job.id if w.job is not None else 0,
                               w.job.what if w.job is not None else "a job")
        elif why == "too long":
            _kills_log.info("%s worker pid %d killed: %s ran past its time (or its caller "
                            "left)", self.name, w.pid,
                            w.job.what if w.job is not None else "a job")
        try:
            w.process.kill()
        except (OSError, ValueError, AttributeError):
            pass

    def _finish(self) -> None:
        with self._lock:
            self._closing = True
            if self._closed_at is None:
                self._closed_at = time.monotonic()
            live = [w for w in self._slots if w is not None]
        for w in live:
            self._kill(w, "did not exit")
        for w in live:
            w.process.join(1.0)
            w.conn.close()
        for end in (self._wake_r, self._wake_w):
            try:
                os.close(end)
            except OSError:
                pass
        self._lifeline_r.close()


def _can_raise_priority() -> bool:
    """Whether this process holds CAP_SYS_NICE (it may undo a lowered priority)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << 23))
    except (OSError, ValueError, IndexError):
        pass
    return False


def _kill_time(job: Job) -> float:
    """When the worker running ``job`` is killed if it has not answered by then."""
    if job.killable:
        return job.stop_by if job.stopping_since is None else job.stopping_since
    if job.stopping_since is not None:
        return min(job.stopping_since + STOP_GRACE, job.stop_by + STUCK_AFTER)
    return job.stop_by + STUCK_AFTER


def _resolve(job: Job, result: Any = None, error: BaseException | None = None) -> None:
    """Answer ``job``'s future (unless its caller gave up on it already)."""
    try:
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)
    except InvalidStateError:
        pass
