"""Independent jobs handed out to workers: a local process pool, or a Ray cluster.

The batch commands (arena, ladder, selfplay, ``check-games``, ``check-kernel``,
``fuzz-states``) submit their games, or batches of games, through :func:`open_batch` and
take the results as they finish (:meth:`Batch.run`).  A job is a module-level function
and its arguments; its result depends on nothing but them, so where it ran never changes
it: a run on a cluster equals a run at home game for game.

* :class:`LocalBatch` is the process pool of :func:`engine.processes.process_pool`
  (no new dependency; the default).
* :class:`RayBatch` sends each job to a Ray cluster as a task (the optional extra
  ``furnace[cluster]``).  Ray retries a task whose worker or node was lost
  (:data:`RAY_TASK_RETRIES`); leaving :meth:`Batch.run` early (Ctrl-C, an error) cancels
  the tasks not finished.

Ray is imported only when a cluster is asked for: without it, everything else works.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from engine.game import FurnaceError

#: How often Ray runs a task again after its worker process or node died.  A job that
#: raises is not retried: it would raise again, its result depending only on its arguments.
RAY_TASK_RETRIES = 3
#: What to install for ``--cluster``.
CLUSTER_INSTALL = "pip install 'furnace[cluster]'"

Job = tuple[Any, ...]
#: ``(index in jobs, result)`` as the jobs finish; a generator, so that a caller can close
#: it (``contextlib.closing``) and cancel the jobs not finished.
Results = Generator[tuple[int, Any], None, None]


class JobLostError(RuntimeError):
    """A job's worker died (killed, a crash in compiled code, a node lost) for good."""


class Batch(Protocol):
    """Where independent jobs run; a context manager that frees its workers on exit."""

    def run(self, fn: Callable[..., Any], jobs: Sequence[Job],
            on_lost: Callable[[int], None] | None = None) -> Results:
        """Run ``fn(*job)`` for each job; yield ``(index in jobs, result)`` as each finishes.

        A job that raises raises here.  A job whose worker died (a crash, a lost node,
        after Ray's retries) raises :class:`JobLostError`, or with ``on_lost`` is handed
        to it by index and the others go on.  Closing the iterator before the end (an error or
        Ctrl-C in the caller's loop) cancels the jobs not finished.
        """
        ...  # pragma: no cover - a protocol

    def __enter__(self) -> Batch: ...  # pragma: no cover - a protocol

    def __exit__(self, *exc: object) -> None: ...  # pragma: no cover - a protocol


class LocalBatch:
    """Jobs in ``workers`` local processes that die with this one (``start_method``: as
    :func:`~engine.processes.process_pool`'s, ``None`` to fork and inherit data)."""

    def __init__(self, workers: int, start_method: str | None = "spawn") -> None:
        from engine.processes import process_pool

        self.workers = workers
        self._pool = process_pool(workers, start_method=start_method)

    def __enter__(self) -> LocalBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self._pool.shutdown(wait=True)
            return
        # Left on Ctrl-C or an error: the queued jobs are cancelled, and those already
        # in a worker are stopped with it; the interpreter would otherwise wait for them
        # at exit (the executor joins its processes), however long they play.
        workers = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.kill()

    def run(self, fn: Callable[..., Any], jobs: Sequence[Job],
            on_lost: Callable[[int], None] | None = None) -> Results:
        futures: dict[Future[Any], int] = {self._pool.submit(fn, *job): i
                                           for i, job in enumerate(jobs)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait_futures(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        result = future.result()
                    except BrokenProcessPool as exc:  # every job not finished fails with it
                        if on_lost is None:
                            raise JobLostError(str(exc)) from exc
                        on_lost(futures[future])
                        continue
                    yield futures[future], result
        finally:
            for future in pending:
                future.cancel()


class RayBatch:
    """Jobs as tasks of a Ray cluster.

    ``address``: ``local`` starts a cluster of this machine for the run (``num_cpus``
    workers, default: every core), ``auto`` joins the cluster running here (``ray start``,
    or the driver of ``ray job submit``), anything else is a cluster's address
    (``ray://head:10001`` or ``head:6379``).  A Ray already initialised in this process
    (a test's) is used as it is and left running.
    """

    def __init__(self, address: str, num_cpus: int | None = None) -> None:
        ray = import_ray()
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            if address == "local":
                # "local" is Ray's own word for a new cluster: without an address,
                # ray.init joins the last cluster started here (even a dead one).
                ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                         log_to_driver=False, configure_logging=False)
            else:
                try:
                    ray.init(address=address, log_to_driver=False, configure_logging=False)
                except ConnectionError as exc:
                    raise FurnaceError(f"cannot join the Ray cluster at {address}: {exc}") \
                        from None
        self._remotes: dict[Callable[..., Any], Any] = {}

    def __enter__(self) -> RayBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._owns:
            self._ray.shutdown()

    def _remote(self, fn: Callable[..., Any]) -> Any:
        if fn not in self._remotes:
            self._remotes[fn] = self._ray.remote(fn).options(
                max_retries=RAY_TASK_RETRIES, retry_exceptions=False, num_cpus=1)
        return self._remotes[fn]

    def run(self, fn: Callable[..., Any], jobs: Sequence[Job],
            on_lost: Callable[[int], None] | None = None) -> Results:
        ray = self._ray
        lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError)
        task = self._remote(fn)
        refs = {task.remote(*job): i for i, job in enumerate(jobs)}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        result = ray.get(ref)
                    except lost as exc:  # still lost after RAY_TASK_RETRIES runs
                        if on_lost is None:
                            raise JobLostError(str(exc)) from exc
                        on_lost(refs[ref])
                        continue
                    yield refs[ref], result
        finally:
            cancel(ray, pending)


def cancel(ray: Any, refs: Sequence[Any]) -> None:
    """Cancel the Ray tasks ``refs`` (force: a game has no point to stop at) and wait
    until none of them holds a worker."""
    for ref in refs:
        ray.cancel(ref, force=True)
    for ref in refs:
        try:
            ray.get(ref)
        except Exception:  # noqa: BLE001, S110 - cancelled, or its worker was killed
            pass


def import_ray() -> Any:
    """The ``ray`` module; :class:`FurnaceError` saying how to install it when it is not."""
    try:
        import ray
    except ImportError:
        raise FurnaceError(f"--cluster needs Ray, an optional extra: {CLUSTER_INSTALL}") \
            from None
    return ray


def open_batch(workers: int = 1, cluster: str | None = None,
               start_method: str | None = "spawn") -> Batch:
    """A :class:`RayBatch` on ``cluster`` when one is named, else a :class:`LocalBatch` of
    ``workers`` processes.  With ``cluster="local"``, ``workers > 1`` caps the local
    cluster's size."""
    if cluster:
        return RayBatch(cluster, num_cpus=workers if workers > 1 else None)
    return LocalBatch(max(1, workers), start_method=start_method)


def batched(cluster: str | None, workers: int) -> bool:
    """Whether the jobs go to workers (a cluster, or more than one process) rather than
    run in this process."""
    return bool(cluster) or workers > 1

