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

A cluster's address is checked before Ray starts (:func:`parse_cluster_address`), and
joining one is bounded (:data:`CONNECT_TIMEOUT`): nothing listening, a token Ray refuses or
another Ray version end in one :class:`ClusterError` naming the address and the likely
cause.  A Ray started here (``local``) keeps every port on 127.0.0.1
(:func:`loopback_node`).  While Ray runs, what it prints for the driver (a
node's death, its workers' lines) goes to stderr: stdout carries the command's output.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import re
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.game import FurnaceError

#: How often Ray runs a task again after its worker process or node died.  A job that
#: raises is not retried: it would raise again, its result depending only on its arguments.
RAY_TASK_RETRIES = 3
#: What to install for ``--cluster``.
CLUSTER_INSTALL = "pip install 'furnace[cluster]'"
#: How long joining a cluster may take, in seconds, before it fails naming the likely
#: cause; ``FURNACE_CLUSTER_TIMEOUT`` sets another.  Ray's own wait for a head that does
#: not answer has no end.
CONNECT_TIMEOUT = 60.0
#: Ray's switch (read by ``ray._private.ray_constants``) whose "0" keeps a node's address
#: on the loopback: Ray otherwise rewrites 127.0.0.1 to the machine's outward address
#: and its servers listen on every interface.
RAY_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: What ``--cluster`` takes, for error messages.
ADDRESS_FORMS = ("local, auto, HOST:PORT (a head's GCS port, 6379 by default) or "
                 "ray://HOST:PORT (Ray Client, 10001 by default)")
_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                       r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")

Job = tuple[Any, ...]
#: ``(index in jobs, result)`` as the jobs finish; a generator, so that a caller can close
#: it (``contextlib.closing``) and cancel the jobs not finished.
Results = Generator[tuple[int, Any], None, None]


class ClusterError(FurnaceError):
    """A ``--cluster`` address that is not one, or a cluster that could not be joined."""


@dataclass(frozen=True)
class ClusterAddress:
    """What ``--cluster`` names: ``local`` (a Ray started here), ``auto`` (the one running
    here), a head's GCS address ``HOST:PORT`` or a Ray Client address ``ray://HOST:PORT``."""

    text: str
    kind: Literal["local", "auto", "gcs", "client"]
    host: str = ""
    port: int = 0

    @property
    def loopback(self) -> bool:
        """Whether the address is on this machine's loopback (127.0.0.0/8, ::1, localhost),
        which Ray would rewrite to the machine's outward address."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_cluster_address(text: str) -> ClusterAddress:
    """``text`` as a :class:`ClusterAddress`; :class:`ClusterError` when it is none.

    >>> parse_cluster_address("10.0.0.5:6379")
    ClusterAddress(text='10.0.0.5:6379', kind='gcs', host='10.0.0.5', port=6379)
    >>> parse_cluster_address("ray://[::1]:10001").host
    '::1'
    >>> parse_cluster_address("127.0.0.1")
    Traceback (most recent call last):
    ...
    engine.batch.ClusterError: --cluster 127.0.0.1 has no port: give local, auto, HOST:PORT (a head's GCS port, 6379 by default) or ray://HOST:PORT (Ray Client, 10001 by default)
    """
    if text in ("local", "auto"):
        return ClusterAddress(text, text)  # type: ignore[arg-type]
    kind: Literal["gcs", "client"] = "gcs"
    rest = text
    scheme, sep, after = text.partition("://")
    if sep:
        if scheme != "ray":
            raise ClusterError(f"--cluster {text}: {scheme}:// is not a Ray address; give "
                               f"{ADDRESS_FORMS}")
        kind, rest = "client", after
    if rest.startswith("["):  # [IPv6]:PORT
        host, bracket, port_text = rest[1:].partition("]")
        if not bracket or not port_text.startswith(":"):
            raise ClusterError(f"--cluster {text} has no port: give {ADDRESS_FORMS}")
        port_text = port_text[1:]
    else:
        host, colon, port_text = rest.rpartition(":")
        if not colon:
            raise ClusterError(f"--cluster {text} has no port: give {ADDRESS_FORMS}")
    if not _valid_host(host):
        raise ClusterError(f"--cluster {text}: {host!r} is not a host name or an IP "
                           f"address; give {ADDRESS_FORMS}")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ClusterError(f"--cluster {text}: the port {port_text!r} is not a number "
                           "from 1 to 65535")
    return ClusterAddress(text, kind, host, int(port_text))


def _valid_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return bool(_HOSTNAME.fullmatch(host)) and not host.replace(".", "").isdigit()


def connect_timeout() -> float:
    """:data:`CONNECT_TIMEOUT`, or the seconds ``FURNACE_CLUSTER_TIMEOUT`` gives."""
    text = os.environ.get("FURNACE_CLUSTER_TIMEOUT", "")
    if not text:
        return CONNECT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ClusterError(f"FURNACE_CLUSTER_TIMEOUT={text}: give a positive number of "
                           "seconds")
    return seconds


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
    workers, default: every core), every port of it on 127.0.0.1; ``auto`` joins the
    cluster running here (``ray start``, or the driver of ``ray job submit``); anything
    else is a cluster's address (``ray://head:10001`` or ``head:6379``, see
    :func:`parse_cluster_address`), joined within ``timeout`` seconds (default
    :func:`connect_timeout`).  ``say`` hears what is being started or joined (default:
    a line on stderr).  A Ray already initialised in this process (a test's) is used as
    it is and left running.
    """

    def __init__(self, address: str, num_cpus: int | None = None,
                 timeout: float | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        where = parse_cluster_address(address)
        timeout = connect_timeout() if timeout is None else timeout
        say = say or _say
        ray = import_ray()
        self._ray = ray
        self._owns = not ray.is_initialized()
        self._restore_output = ray_prints_to_stderr(ray)
        try:
            if self._owns and where.kind == "local":
                # "local" is Ray's own word for a new cluster: without an address,
                # ray.init joins the last cluster started here (even a dead one).
                say(f"furnace: starting a local Ray ({num_cpus or os.cpu_count()} CPUs), "
                    "every port on 127.0.0.1 ...")
                with loopback_node(ray), run_token():
                    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                             log_to_driver=False, configure_logging=False)
            elif self._owns:
                say(f"furnace: joining the Ray cluster at {address} (at most {timeout:g} s) "
                    "...")
                # A loopback head is joined where it is: Ray would try the machine's
                # outward address instead, where a node started on the loopback is not.
                with loopback_node(ray) if where.kind == "gcs" and where.loopback \
                        else contextlib.nullcontext():
                    join_cluster(ray, where, timeout)
        except BaseException:
            self._restore_output()
            raise
        self._remotes: dict[Callable[..., Any], Any] = {}

    def __enter__(self) -> RayBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._owns:
                self._ray.shutdown()
        finally:
            self._restore_output()

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


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def loopback_node(ray: Any) -> Iterator[None]:
    """Inside, a Ray node started in this process takes 127.0.0.1 for its address, and its
    servers (GCS, raylet, object manager, agents, workers) listen there alone.

    Ray 2.60 has no option for it: ``_node_ip_address="127.0.0.1"`` is rewritten to the
    machine's outward address, and the servers listen on every interface unless the
    node's address is a loopback one.  Its switch :data:`RAY_LOOPBACK_SWITCH` (meant for
    single-machine Ray on macOS and Windows) keeps the loopback address; it is read when
    Ray is imported, so it is set both where Ray reads it in this process and in the
    environment of the processes the node starts.  tests/engine/test_ray_batch.py checks
    the sockets of a local run.
    """
    constants = ray._private.ray_constants
    saved_env = os.environ.get(RAY_LOOPBACK_SWITCH)
    saved = constants.ENABLE_RAY_CLUSTER
    os.environ[RAY_LOOPBACK_SWITCH] = "0"
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved
        if saved_env is None:
            os.environ.pop(RAY_LOOPBACK_SWITCH, None)
        else:
            os.environ[RAY_LOOPBACK_SWITCH] = saved_env


#: What sets Ray's token auth (Ray reads them; a user's choice is left alone).
RAY_AUTH_SETTINGS = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


@contextlib.contextmanager
def run_token() -> Iterator[None]:
    """Inside, a new local Ray takes a token of this run's (``RAY_AUTH_TOKEN``, which its
    processes inherit), unless the user set Ray's auth already.

    Ray turns token auth on for a cluster ``ray.init`` starts, and without a token it
    writes one to ``~/.ray/auth_token``, where a later ``ray start --head`` finds it and
    turns token auth on for a cluster that knew nothing of it.  A run's own token leaves
    the file alone and still keeps other users of the machine out.
    """
    saved = {name: os.environ.get(name) for name in RAY_AUTH_SETTINGS}
    if not any(saved.values()):
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    try:
        yield
    finally:
        # As they were: Ray also sets RAY_AUTH_MODE=token here, which would send the next
        # local Ray of this process (fuzz-states starts several) to ~/.ray/auth_token.
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def ray_prints_to_stderr(ray: Any) -> Callable[[], None]:
    """Send what Ray prints for the driver (a node's death, a worker's output) to stderr,
    where Ray sends part of it to stdout; returns what undoes it.  stdout carries the
    command's output alone (``--json | jq`` must parse)."""
    worker = ray._private.worker
    original = worker.print_to_stdstream
    if getattr(original, "furnace_to_stderr", False):
        return lambda: None

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr.furnace_to_stderr = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr

    def restore() -> None:
        worker.print_to_stdstream = original

    return restore


#: The likely causes of a head that answers but does not take this driver.
TOKEN_CAUSE = ("the cluster wants a token this driver lacks or has wrong (Ray's token auth, "
               "on by default for a cluster Ray starts): set RAY_AUTH_MODE=token and give "
               "the head's token in ~/.ray/auth_token or RAY_AUTH_TOKEN (`ray "
               "get-auth-token` on the head prints it)")
VERSION_CAUSE = "the cluster runs another version of Ray or Python than this driver"


def join_cluster(ray: Any, where: ClusterAddress, timeout: float) -> None:
    """``ray.init`` on the cluster at ``where`` within ``timeout`` seconds, or a
    :class:`ClusterError` naming the address and the likely cause."""
    deadline = time.monotonic() + timeout
    if where.kind in ("gcs", "client"):
        probe(where, timeout)
    elif where.kind == "auto":
        found, source = auto_address(ray)
        try:
            leads_to = parse_cluster_address(found) if found else None
        except ClusterError:  # a form of Ray's own (an http:// address): Ray's to try
            leads_to = None
        if leads_to is not None and leads_to.kind in ("gcs", "client"):
            probe(leads_to, timeout, name=f"auto ({found}, {source})")
    outcome: dict[str, BaseException | None] = {}

    def init() -> None:
        try:
            ray.init(address=where.text, log_to_driver=False, configure_logging=False)
            outcome["error"] = None
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = exc

    # Ray's own wait for a head that does not answer has no end: it waits in a thread of
    # its own (a daemon: left behind, it does not hold the process at exit).  Its Python
    # warnings meanwhile (that a thread sets no SIGTERM handler, retries) would only bury
    # the one line said when it fails.
    with _quiet_ray():
        thread = threading.Thread(target=init, name="furnace-ray-join", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
    if "error" not in outcome:
        raise ClusterError(
            f"cannot join the Ray cluster at {where.text}: it did not answer as a Ray "
            f"cluster within {timeout:g} s (FURNACE_CLUSTER_TIMEOUT); likely causes: "
            f"{TOKEN_CAUSE}; or {VERSION_CAUSE} (this driver: Ray {ray.__version__}, "
            f"Python {sys.version_info.major}.{sys.version_info.minor}); or another "
            f"service on that port")
    error = outcome["error"]
    if error is not None:
        raise ClusterError(f"cannot join the Ray cluster at {where.text}: "
                           f"{join_failure(ray, error)}") from None


class _DropWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


@contextlib.contextmanager
def _quiet_ray() -> Iterator[None]:
    """The warnings of Ray's Python loggers off while joining (its core's own, which it
    writes to stderr itself, stay)."""
    drop = _DropWarnings()
    loggers = [logging.getLogger(name) for name in ("ray", "ray._private.worker")]
    for log in loggers:
        log.addFilter(drop)
    try:
        yield
    finally:
        for log in loggers:
            log.removeFilter(drop)


def join_failure(ray: Any, error: BaseException) -> str:
    """The likely cause of ``ray.init``'s ``error`` in one line."""
    texts: list[str] = []
    cause: BaseException | None = error
    while cause is not None and len(texts) < 5:
        texts.append(str(cause))
        cause = cause.__cause__ or cause.__context__
    text = " ".join(texts)
    auth = getattr(ray.exceptions, "AuthenticationError", ())
    if isinstance(error, auth) or re.search(r"authenticat|auth.?token|unauthenticated",
                                            text, re.IGNORECASE):
        return TOKEN_CAUSE
    if re.search(r"could not find any running ray instance", text, re.IGNORECASE):
        return ("no Ray cluster runs on this machine (start one with `ray start --head`, "
                "or give --cluster local or a head's address)")
    if re.search(r"version", text, re.IGNORECASE):
        return (f"{VERSION_CAUSE} (this driver: Ray {ray.__version__}, Python "
                f"{sys.version_info.major}.{sys.version_info.minor})")
    first = next((line.strip() for line in texts[0].splitlines() if line.strip()),
                 type(error).__name__)
    return f"{first} ({TOKEN_CAUSE}; or {VERSION_CAUSE})"


def auto_address(ray: Any) -> tuple[str | None, str]:
    """Where ``auto`` leads Ray, when it says: ``RAY_ADDRESS``, else the address of the
    cluster ``ray start`` last started on this machine (Ray's file; it stays when the
    cluster died without ``ray stop``)."""
    if os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
    try:
        found = ray._private.utils.read_ray_address()
    except Exception:  # noqa: BLE001 - a Ray without that file: Ray finds its own way
        found = None
    return (found or None), "the cluster `ray start` last started on this machine"


def probe(where: ClusterAddress, timeout: float, name: str | None = None) -> None:
    """Whether something listens at ``where`` (named ``name``) at all: a refused or
    unanswered connection is said at once, not after Ray's retries."""
    name = f"cannot join the Ray cluster at {name or where.text}"
    try:
        with socket.create_connection((where.host, where.port), timeout=timeout):
            pass
    except socket.gaierror as exc:
        raise ClusterError(f"{name}: the host {where.host} is not known "
                           f"({exc.strerror})") from None
    except ConnectionRefusedError:
        raise ClusterError(f"{name}: nothing listens on port {where.port} of {where.host} "
                           "(no head started there, or it listens on another port or "
                           "address: `ray start --head` prints its own)") from None
    except TimeoutError:
        raise ClusterError(f"{name}: no answer from {where.host} within {timeout:g} s "
                           "(the host is down, or a firewall drops the connection)") from None
    except OSError as exc:
        raise ClusterError(f"{name}: {exc.strerror or exc}") from None


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


def run_in_order(fn: Callable[..., Any], jobs: Sequence[Job], workers: int = 1,
                 cluster: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 on_result: Callable[[int, Any], None] | None = None,
                 in_process: Callable[..., Any] | None = None) -> list[Any]:
    """``fn(*job)`` of every job, in the jobs' order: in this process, or on
    :func:`open_batch`'s workers when :func:`batched` says so.  ``progress(done, total)``
    hears of each finished job and ``on_result(index, result)`` gets it as it finishes
    (to save it: a long run stopped keeps what it finished).  ``in_process`` runs a job
    here instead of ``fn`` (one that holds what a job only names, say a game object
    that no registry knows)."""
    results: list[Any] = [None] * len(jobs)

    def finished(done: int, index: int, result: Any) -> None:
        results[index] = result
        if on_result is not None:
            on_result(index, result)
        if progress is not None:
            progress(done, len(jobs))

    if not batched(cluster, workers):
        local = fn if in_process is None else in_process
        for index, job in enumerate(jobs):
            finished(index + 1, index, local(*job))
        return results
    with open_batch(workers, cluster) as batch, contextlib.closing(batch.run(fn, jobs)) as ran:
        for done, (index, result) in enumerate(ran, 1):
            finished(done, index, result)
    return results

