"""Root-parallel search: independent trees in worker processes, root statistics summed.

The trees are MCTS for a perfect-information game and single-observer ISMCTS
for the seat to move otherwise (:func:`~engine.search.dispatch.make_tree`), so a
hidden-information game is never searched with its hidden cards in view.

Each worker rebuilds the position from ``state.to_json()`` (through
:mod:`engine.registry`, or a caller-supplied picklable ``rebuild`` function),
searches it with its share of the budget and returns its
:class:`~engine.search.analysis.RootStats`; the parent merges them with
:func:`~engine.search.analysis.merge_root_stats` into one :class:`Analysis`.

Worker ``i`` uses seed ``seed`` for ``i == 0`` and ``derive_seed(seed, "worker", i)``
otherwise, and worker ``i`` of ``w`` gets ``iterations // w`` iterations plus one
for the first ``iterations % w`` workers.  So for a fixed seed, worker count and
iteration budget the result is deterministic (apart from ``elapsed``), and with
``workers=1`` it is exactly ``search_for(state, iterations=..., seed=seed, c=c)``
(``mcts_search`` or ``ismcts_search``), run in-process.

The search settings are the game's (:func:`~engine.search.config.config_for`, looked
up in the parent) or the ``config`` given, and travel to the workers with the task,
so every tree is searched alike.

Processes are started with the ``spawn`` context (safe with threads and on
every platform).  Starting a pool costs a few hundred milliseconds, so callers
that search repeatedly should create one with :func:`make_pool` and pass it in;
with a ``time_limit`` the deadline is fixed before the workers start, so pool
start-up time counts against it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import replace
from typing import Any

from engine.game import State
from engine.processes import process_pool
from engine.search._common import derive_seed
from engine.search.analysis import Analysis, RootStats, build_analysis, merge_root_stats
from engine.search.budget import STOP_ITERATIONS, STOP_TIME_LIMIT, check_budget
from engine.search.config import SearchConfig, config_for
from engine.search.dispatch import make_tree

#: Rebuilds a state from ``State.to_json()`` data in a worker; must be a picklable
#: top-level function.
Rebuild = Callable[[dict[str, Any]], State]


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


def make_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool (``spawn`` context) to reuse across :func:`parallel_search` calls."""
    return process_pool(workers)


def _search_worker(
    data: dict[str, Any],
    rebuild: Rebuild,
    iterations: int | None,
    deadline: float | None,
    seed: int,
    c: float | None,
    config: SearchConfig | None = None,
) -> RootStats:
    """Run in a worker process: rebuild the state, search it, return its root statistics."""
    state = rebuild(data)
    time_limit = None
    if deadline is not None:
        # Wall-clock deadline shared by all processes; at least a sliver of time.
        time_limit = max(deadline - time.time(), 1e-3)
    tree = make_tree(state, c, seed, config=config)
    tree.search(iterations, time_limit)
    return tree.root_stats()


def parallel_search(
    state: State,
    workers: int,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    c: float | None = None,
    rebuild: Rebuild | None = None,
    pool: Executor | None = None,
    config: SearchConfig | None = None,
) -> Analysis:
    """Search ``state`` with ``workers`` independent trees and merge their root statistics.

    ``iterations`` is the total budget (split between workers); ``time_limit``
    is wall-clock seconds for the whole call; give at least one.  ``c`` defaults
    to the exploration constant of the search the game gets (MCTS or ISMCTS).
    ``config`` defaults to the game's search configuration.
    ``seed=None`` draws a random seed (not reproducible).  ``rebuild`` defaults to
    :func:`registry_rebuild`; ``pool`` defaults to a fresh spawn pool for this
    call (ignored with ``workers=1``, which searches in-process).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, not {workers!r}")
    check_budget(iterations, time_limit)
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    if config is None:
        config = config_for(state)
    if workers == 1:
        return make_tree(state, c, seed, config=config).search(iterations, time_limit)
    if iterations is not None and iterations < workers:
        workers = iterations

    make_tree(state, c, config=config)  # fail fast (chance/terminal root) before starting
    start = time.perf_counter()
    deadline = time.time() + time_limit if time_limit is not None else None
    data = state.to_json()
    fn = rebuild if rebuild is not None else registry_rebuild
    shares: list[int | None] = (
        list(split_iterations(iterations, workers)) if iterations is not None else [None] * workers
    )
    own_pool = pool is None
    executor = pool if pool is not None else make_pool(workers)
    try:
        futures = [
            executor.submit(_search_worker, data, fn, shares[i], deadline, worker_seed(seed, i), c,
                            config)
            for i in range(workers)
        ]
        parts = [f.result() for f in futures]
    finally:
        if own_pool:
            executor.shutdown(wait=True, cancel_futures=True)
    merged = merge_root_stats(parts)
    merged.elapsed = time.perf_counter() - start
    finished = iterations is not None and merged.iterations >= iterations
    return replace(build_analysis(state, merged),
                   stop_reason=STOP_ITERATIONS if finished else STOP_TIME_LIMIT)
