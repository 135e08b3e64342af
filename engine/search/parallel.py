"""Root-parallel search: independent trees in worker processes, root statistics summed.

The trees are MCTS for a perfect-information game and single-observer ISMCTS
for the seat to move otherwise (:func:`~engine.search.dispatch.make_tree`), so a
hidden-information game is never searched with its hidden cards in view.

Each tree is grown from the position rebuilt from ``state.to_json()`` (through
:mod:`engine.registry`, or a caller-supplied picklable ``rebuild`` function) with
its share of the budget, and gives its :class:`~engine.search.analysis.RootStats`;
the calling process merges them, in tree order, with
:func:`~engine.search.analysis.merge_root_stats` into one :class:`Analysis`.

Tree ``i`` uses seed ``seed`` for ``i == 0`` and ``derive_seed(seed, "worker", i)``
otherwise, and tree ``i`` of ``w`` gets ``iterations // w`` iterations plus one
for the first ``iterations % w`` trees.  So for a fixed seed, worker count and
iteration budget the result is deterministic (apart from ``elapsed``), whichever
process grows which tree, and with ``workers=1`` it is exactly
``search_for(state, iterations=..., seed=seed, c=c)`` (``mcts_search`` or
``ismcts_search``), run in-process.

The search settings are the game's (:func:`~engine.search.config.config_for`, looked
up in the parent) or the ``config`` given, and travel to the workers with the task,
so every tree is searched alike.

**The worker pool.**  The workers are a module-level :class:`~engine.processes.WarmPool`
(``spawn`` context, safe with threads and on every platform), started by the first
call (or :func:`warm_up`), grown to the largest ``workers`` asked for and kept for the
next calls: only the first pays for starting processes (a few tenths of a second: the
engine, numpy, the game's kernel).  A worker that died (killed, out of memory) is
replaced by a new one on the next call; its call, if it had one, raised
:class:`~engine.processes.WorkerDiedError`.  A forked child starts a pool of its own
rather than use its parent's.  The pool closes at interpreter exit.  It serves one
call at a time: a call made while another thread's call has it uses a pool of its
own for that call (or pass ``pool``, from :func:`make_pool`).

**The time limit** is wall-clock seconds for the whole call, counted from its entry:
the call makes an absolute deadline of it on ``time.monotonic()`` (one clock for
every process of the machine: ``CLOCK_MONOTONIC`` on Linux, and likewise on macOS and
Windows), and every tree searches until that deadline, with whatever time is left
when it is ready to grow, so starting workers, loading the game and rebuilding the
state all come out of the budget.  When the call finds as many workers ready and
idle as trees, every tree grows in a worker and the calling thread waits (without
the GIL); otherwise (a first call, workers still starting or busy) the calling
process grows tree 0 itself, so that it has a tree by the deadline whatever the
workers' start-up costs.  At the deadline the call takes the trees that are back,
waits up to :data:`LATE_REPLY_GRACE` more for those still being answered, and
answers without the others (a worker that gets to a tree after the deadline does not
grow it).  Only if no tree is back does it wait longer, for the trees that did grow
(past their deadline, each stops after the iteration it is in), and if none did it
grows one iteration itself.  So a timed call returns within some tens of
milliseconds of its limit (the calling process's own tree, when it grows one, also
takes about a millisecond per thousand iterations to free; workers free theirs after
their replies are sent).  An iteration budget waits for every tree.
"""

from __future__ import annotations

import atexit
import os
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from engine.game import State
from engine.processes import WarmPool, announce_start, drop_after_reply
from engine.search._common import derive_seed
from engine.search.analysis import Analysis, RootStats, build_analysis, merge_root_stats
from engine.search.budget import STOP_ITERATIONS, STOP_TIME_LIMIT, check_budget
from engine.search.config import SearchConfig, resolve_config
from engine.search.dispatch import make_tree
from engine.search.ismcts import ISMCTS
from engine.search.mcts import MCTS

#: Rebuilds a state from ``State.to_json()`` data in a worker; must be a picklable
#: top-level function.
Rebuild = Callable[[dict[str, Any]], State]

#: Seconds a timed call waits past its deadline for the trees still out (a worker
#: that finished its last iteration and is sending its reply) before it answers
#: without them.
LATE_REPLY_GRACE = 0.05

#: What a worker imports when it starts, before it says it is ready: this module and
#: MAST playouts' numpy (a tenth of a second, which a search would otherwise pay).
PRELOAD = (__name__, "engine.search.mast")


def registry_rebuild(data: dict[str, Any]) -> State:
    """The default rebuild: ``registry.get_game(data["game"]).state_from_json(data)``."""
    from engine import registry

    return registry.get_game(data["game"]).state_from_json(data)


def worker_seed(seed: int, index: int) -> int:
    """The search seed of worker ``index`` (worker 0 keeps ``seed`` itself)."""
    return seed if index == 0 else derive_seed(seed, "worker", index)


def split_iterations(iterations: int, workers: int) -> list[int]:
    """``iterations`` shared out as evenly as possible, the first workers get the rest."""
    base, extra = divmod(iterations, workers)
    return [base + (1 if i < extra else 0) for i in range(workers)]


def make_pool(workers: int) -> WarmPool:
    """A pool of ``workers`` processes of one's own, to pass to :func:`parallel_search`.

    Calls normally share the module's pool; a pool of one's own is for calls from
    several threads at once (a pool serves one call at a time).  Its workers start in
    the background; close it with ``pool.close()`` (or use it as a context manager).
    """
    return WarmPool(workers, preload=PRELOAD)


def _load_games(games: tuple[str, ...]) -> None:
    """A worker task: load these games (modules, kernels, catalogues) ahead of searches."""
    from engine import registry

    for name in games:
        registry.get_game(name)


def warm_up(workers: int, *, games: Iterable[str] = (), pool: WarmPool | None = None,
            timeout: float | None = None) -> None:
    """Start the shared pool with at least ``workers`` processes and wait until they are ready.

    Then even the first :func:`parallel_search` call of this process finds its workers
    started.  ``games`` (registry names) are loaded in every worker too (a game's first
    search in a worker otherwise loads it, some tens of milliseconds).  ``pool``: warm
    that pool (from :func:`make_pool`) instead of the shared one.  Raises
    ``TimeoutError`` when the workers are not ready after ``timeout`` seconds.
    """
    _check_workers(workers)
    if pool is not None:
        _warm(pool, workers, tuple(games), timeout)
        return
    with _shared_lock:
        _warm(_shared_pool(workers), workers, tuple(games), timeout)


def _warm(pool: WarmPool, workers: int, games: tuple[str, ...], timeout: float | None) -> None:
    pool.revive()
    pool.grow(workers)
    until = None if timeout is None else time.monotonic() + timeout
    tickets = [pool.submit(i, _load_games, games) for i in range(pool.size)]
    if len(pool.collect(tickets, until)) < len(tickets):
        pool.forget(tickets)
        raise TimeoutError(f"the search workers were not ready after {timeout} s")


# -- the shared pool ---------------------------------------------------------------------
_shared: WarmPool | None = None
#: Held by the call using the shared pool (one call at a time).
_shared_lock = threading.Lock()


def _shared_pool(workers: int) -> WarmPool:
    """The shared pool, with at least ``workers`` processes (caller holds the lock).

    One that is not usable (inherited by a forked child) is replaced by a new one;
    dead workers are replaced by the call (:meth:`~engine.processes.WarmPool.revive`).
    """
    global _shared
    if _shared is not None and not _shared.usable():
        _shared = None
    if _shared is None:
        _shared = WarmPool(workers, preload=PRELOAD)
    else:
        _shared.grow(workers)
    return _shared


def _close_shared() -> None:
    """At interpreter exit (registered after multiprocessing's own exit handler, so run
    before it): the workers leave."""
    if _shared is not None:
        _shared.close()


def _forget_shared() -> None:
    """In a forked child: the parent's pool is not ours (its workers are left alone)."""
    global _shared, _shared_lock
    _shared = None
    _shared_lock = threading.Lock()


atexit.register(_close_shared)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_shared)


# -- searching -------------------------------------------------------------------------
def _grow_tree(
    data: dict[str, Any],
    rebuild: Rebuild,
    iterations: int | None,
    deadline: float | None,
    seed: int,
    config: SearchConfig | None,
) -> MCTS | ISMCTS | None:
    """Rebuild the state and search it until ``iterations`` or the ``time.monotonic()``
    ``deadline``; ``None`` when the deadline has passed before the search could start."""
    if deadline is not None and time.monotonic() >= deadline:
        return None
    tree = make_tree(rebuild(data), config, seed=seed)
    time_limit = None
    if deadline is not None:  # what is left once the tree is ready to grow
        time_limit = deadline - time.monotonic()
        if time_limit <= 0:
            return None
    announce_start()
    tree.search(iterations, time_limit)
    return tree


def _search_worker(
    data: dict[str, Any],
    rebuild: Rebuild,
    iterations: int | None,
    deadline: float | None,
    seed: int,
    config: SearchConfig | None = None,
) -> RootStats | None:
    """Run in a worker process: one tree's root statistics (``None``: started too late).

    The tree is freed after the reply is sent (:func:`~engine.processes.drop_after_reply`).
    """
    tree = _grow_tree(data, rebuild, iterations, deadline, seed, config)
    if tree is None:
        return None
    drop_after_reply(tree)
    return tree.root_stats()


def _search_here(*task: Any) -> RootStats | None:
    """One tree grown in this process; it is freed before the statistics are returned."""
    tree = _grow_tree(*task)
    return None if tree is None else tree.root_stats()


def _check_workers(workers: int) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, not {workers!r}")


def parallel_search(
    state: State,
    workers: int,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    c: float | None = None,
    rebuild: Rebuild | None = None,
    pool: WarmPool | None = None,
    config: SearchConfig | None = None,
) -> Analysis:
    """Search ``state`` with ``workers`` independent trees and merge their root statistics.

    ``iterations`` is the total budget (split between the trees); ``time_limit`` is
    wall-clock seconds for the whole call, counted from its entry: starting workers,
    rebuilding the state and merging included (see the module docstring); give at
    least one.  ``c`` defaults to the exploration constant of the search the game gets
    (MCTS or ISMCTS).  ``config`` defaults to the game's search configuration.
    ``seed=None`` draws a random seed (not reproducible).  ``rebuild`` defaults to
    :func:`registry_rebuild`.  ``pool`` defaults to the module's shared pool (started
    on first use, kept warm, see :func:`warm_up`); ``workers=1`` searches in-process.
    """
    entry = time.monotonic()
    _check_workers(workers)
    check_budget(iterations, time_limit)
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    config = resolve_config(state, config).overridden(c=c)
    if workers == 1:
        remaining = None if time_limit is None else max(time_limit - (time.monotonic() - entry),
                                                        1e-6)
        return make_tree(state, config, seed=seed).search(iterations, remaining)
    if iterations is not None and iterations < workers:
        workers = iterations

    make_tree(state, config)  # fail fast (chance/terminal root) before starting
    deadline = entry + time_limit if time_limit is not None else None
    data = state.to_json()
    fn = rebuild if rebuild is not None else registry_rebuild
    shares: list[int | None] = (
        list(split_iterations(iterations, workers)) if iterations is not None else [None] * workers
    )
    tasks = [(data, fn, shares[i], deadline, worker_seed(seed, i), config)
             for i in range(workers)]
    if pool is not None:
        if not pool.usable():
            raise ValueError("this pool is closed, or another process's")
        pool.grow(workers)
        parts = _run_trees(pool, tasks, deadline)
    elif _shared_lock.acquire(blocking=False):
        try:
            parts = _run_trees(_shared_pool(workers), tasks, deadline)
        finally:
            _shared_lock.release()
    else:  # another thread's call has the shared pool: one of our own, for this call
        own = WarmPool(workers - 1, preload=PRELOAD)
        try:
            parts = _run_trees(own, tasks, deadline)
        finally:
            own.close(wait=False)
    merged = merge_root_stats([parts[i] for i in sorted(parts)])
    merged.elapsed = time.monotonic() - entry
    finished = iterations is not None and merged.iterations >= iterations
    return replace(build_analysis(state, merged),
                   stop_reason=STOP_ITERATIONS if finished else STOP_TIME_LIMIT)


def _run_trees(pool: WarmPool, tasks: list[tuple[Any, ...]],
               deadline: float | None) -> dict[int, RootStats]:
    """Grow tree ``i`` from ``tasks[i]``; the root statistics of those back in time, by ``i``.

    With as many ready, idle workers as trees, every tree grows in a worker (the calling
    thread waits without the GIL); otherwise this process grows tree 0 itself, so that a
    call that finds its workers starting or busy still has a tree by its deadline.
    Dead workers are replaced first.
    """
    pool.revive()
    pool.poll()
    idle = pool.idle()
    here = len(idle) < len(tasks)
    trees = range(int(here), len(tasks))
    targets = (idle + [i for i in range(pool.size) if i not in idle])[:len(trees)]
    tickets: dict[int, int] = {}  # ticket -> tree
    parts: dict[int, RootStats | None] = {}
    try:
        for target, i in zip(targets, trees, strict=True):
            tickets[pool.submit(target, _search_worker, *tasks[i])] = i
        if here:
            parts[0] = _search_here(*tasks[0])
        replies = pool.collect(tickets, deadline, grace=LATE_REPLY_GRACE)
        if deadline is not None and all(
                stats is None for stats in [*parts.values(), *replies.values()]):
            # Nothing in time (a machine so loaded that the workers stalled): the trees
            # growing now are past their deadline, so they answer at once.
            replies.update(pool.collect(t for t in tickets if pool.started(t)))
    except BaseException:
        pool.abandon(tickets)  # killed: long tasks must not hold the workers
        raise
    pool.forget(t for t in tickets if t not in replies)
    parts.update((tickets[t], stats) for t, stats in replies.items())
    found = {i: stats for i, stats in parts.items() if stats is not None}
    if not found:  # no worker even started in time: one iteration here, for an answer
        data, rebuild, _, _, seed, config = tasks[0]
        stats = _search_here(data, rebuild, 1, None, seed, config)
        assert stats is not None
        found[0] = stats
    return found
