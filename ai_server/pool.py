"""The search worker pool: processes, a bounded queue, cancellation, crash recovery.

* Jobs run in a :class:`~concurrent.futures.ProcessPoolExecutor` with the
  ``spawn`` context, so searches use several cores and the event loop never blocks.
* At most ``workers + max_queue`` jobs are outstanding (running or waiting); one
  more is refused with RESOURCE_EXHAUSTED instead of piling up.
* Every outstanding job owns a *slot*: a byte in an array shared with the
  workers.  Setting it asks the job to stop (client cancelled, deadline gone,
  shutdown); the worker checks it between search iterations.
* A worker that dies breaks the executor (``BrokenProcessPool``): the pool is
  recreated, jobs that were running answer UNAVAILABLE, and a job that had not
  been handed over yet is simply resubmitted.
* Analyze progress travels through queues of one ``multiprocessing`` Manager.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.managers import SyncManager
from typing import Any

import grpc

from ai_server import errors, worker

log = logging.getLogger(__name__)


class Job:
    """One submitted job: await :meth:`result`; :meth:`cancel` asks it to stop."""

    def __init__(self, pool: SearchPool, slot: int, future: Future[Any]) -> None:
        self.pool = pool
        self.slot = slot
        self.future = future

    def done(self) -> bool:
        return self.future.done()

    def cancel(self) -> None:
        """Ask the job to stop (no-op once it is done)."""
        with self.pool._lock:
            if self.future.done():
                return
            self.pool.flags[self.slot] = 1
        self.future.cancel()

    async def result(self) -> Any:
        """The job's return value; worker failures become a :class:`RequestError`."""
        try:
            return await asyncio.wrap_future(self.future)
        except BrokenProcessPool:
            self.pool.restart_if_broken()
            raise errors.RequestError(
                grpc.StatusCode.UNAVAILABLE,
                "a search worker process died during this request; the pool was restarted, "
                "retry the call",
                reason=errors.WORKER_FAILED,
            ) from None


class SearchPool:
    """Worker processes plus the bookkeeping around them (see the module docstring)."""

    def __init__(self, workers: int, max_queue: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if max_queue < 0:
            raise ValueError(f"max_queue must be at least 0, not {max_queue}")
        self.workers = workers
        self.max_queue = max_queue
        self.capacity = workers + max_queue
        self._ctx = multiprocessing.get_context("spawn")
        self.flags = self._ctx.RawArray("b", self.capacity)
        self._free = list(range(self.capacity - 1, -1, -1))
        self._lock = threading.Lock()
        self._executor = self._new_executor()
        self._manager: Any = None
        self._manager_lock = threading.Lock()
        self._closed = False
        self.restarts = 0

    # -- processes ----------------------------------------------------------------
    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=self._ctx,
            initializer=worker.init_worker,
            initargs=(self.flags,),
        )

    def warm_up(self) -> None:
        """Start every worker process now (blocking), so the first searches are fast."""
        futures = [self._executor.submit(worker.warm_up, 0.2) for _ in range(self.workers)]
        for f in futures:
            f.result()

    def worker_pids(self) -> list[int]:
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(processes)

    def restart_if_broken(self, broken: ProcessPoolExecutor | None = None) -> None:
        """Replace the executor if it (or ``broken``, when given) is broken."""
        with self._lock:
            current = self._executor
            if self._closed or (broken is not None and broken is not current):
                return
            if not getattr(current, "_broken", False) and broken is None:
                return
            log.warning("search worker pool broken; starting a new one")
            self._executor = self._new_executor()
            self.restarts += 1
        current.shutdown(wait=False, cancel_futures=True)

    # -- jobs ---------------------------------------------------------------------
    @property
    def outstanding(self) -> int:
        return self.capacity - len(self._free)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Job:
        """Submit ``fn(*args, slot=..., **kwargs)``; RESOURCE_EXHAUSTED when the queue is full."""
        with self._lock:
            if self._closed:
                raise errors.RequestError(grpc.StatusCode.UNAVAILABLE,
                                          "the server is shutting down",
                                          reason=errors.SHUTTING_DOWN)
            if not self._free:
                raise errors.RequestError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"too many searches: {self.workers} running and {self.max_queue} waiting; "
                    "retry later",
                    reason=errors.QUEUE_FULL,
                    metadata={"workers": str(self.workers), "max_queue": str(self.max_queue)},
                )
            slot = self._free.pop()
            self.flags[slot] = 0
        future: Future[Any] | None = None
        try:
            for attempt in range(2):
                executor = self._executor
                try:
                    future = executor.submit(fn, *args, slot=slot, **kwargs)
                    break
                except BrokenProcessPool:
                    if attempt:
                        raise
                    self.restart_if_broken(executor)
                except RuntimeError:
                    # Shut down under us (restart or close in another thread).
                    if self._closed or attempt:
                        raise
        except (BrokenProcessPool, RuntimeError):
            self._release(slot)
            raise errors.RequestError(grpc.StatusCode.UNAVAILABLE,
                                      "search workers are unavailable; retry the call",
                                      reason=errors.WORKER_FAILED) from None
        assert future is not None
        future.add_done_callback(lambda _f: self._release(slot))
        return Job(self, slot, future)

    def _release(self, slot: int) -> None:
        with self._lock:
            self.flags[slot] = 0
            self._free.append(slot)

    # -- progress queues ----------------------------------------------------------
    def start_manager(self) -> None:
        with self._manager_lock:
            if self._manager is None and not self._closed:
                manager = SyncManager(ctx=self._ctx)
                manager.start(initializer=worker.ignore_signals)
                self._manager = manager

    def new_queue(self) -> Any:
        """A Manager queue for progress updates (blocking: call it in a thread)."""
        for attempt in range(2):
            self.start_manager()
            try:
                return self._manager.Queue()
            except (OSError, EOFError, AttributeError):
                if attempt:
                    break
                log.warning("progress manager unavailable; restarting it")
                with self._manager_lock:
                    old, self._manager = self._manager, None
                if old is not None:
                    try:
                        old.shutdown()
                    except Exception:  # noqa: BLE001 - it is dead already
                        pass
        raise errors.RequestError(grpc.StatusCode.UNAVAILABLE,
                                  "progress streaming is unavailable; retry the call",
                                  reason=errors.WORKER_FAILED)

    # -- shutdown -----------------------------------------------------------------
    def close(self) -> None:
        """Stop every job, the processes and the manager (blocking)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for i in range(self.capacity):
                self.flags[i] = 1
            executor = self._executor
        executor.shutdown(wait=True, cancel_futures=True)
        with self._manager_lock:
            manager, self._manager = self._manager, None
        if manager is not None:
            manager.shutdown()
