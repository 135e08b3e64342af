"""Bench: wall-clock time and iterations of a timed root-parallel search.

    python scripts/bench_parallel.py [--workers 2] [--time-limit 1.0] [--calls 3] [--warm-up]

In a fresh process (so the first call pays whatever start-up it pays), searches a
2-player Samara position (deal 7, 20 seeded random plies) with
``parallel_search(state, workers, time_limit=...)`` ``--calls`` times, timing each
call from just before to just after it, then with one in-process search
(``search_for``) of the same time limit, and prints each call's wall-clock
seconds and iterations.  ``--warm-up`` first starts the workers with
``engine.search.warm_up`` (and prints how long that took).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from engine import registry
from engine.game import State
from engine.search import parallel_search, search_for


def position(deal: int = 7, plies: int = 20) -> State:
    """Samara, 2 players, deal ``deal`` then ``plies`` seeded random moves."""
    state = registry.new_game("samara", deal, 2)
    rng = random.Random(deal)
    for _ in range(plies):
        if state.current_player() >= 0:
            moves = state.legal_moves()
        else:
            moves = [m for m, _ in state.chance_outcomes()]
        state.apply(moves[rng.randrange(len(moves))])
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=1.0)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--warm-up", action="store_true")
    args = parser.parse_args()
    state = position()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.warm_up:
        from engine.search import warm_up

        start = time.monotonic()
        warm_up(args.workers, games=["samara"])
        print(f"warm_up: {time.monotonic() - start:.3f} s")
    for call in range(1, args.calls + 1):
        start = time.monotonic()
        found = parallel_search(state, args.workers, time_limit=args.time_limit, seed=call)
        wall = time.monotonic() - start
        print(f"parallel_search call {call}: {wall:.3f} s wall-clock, "
              f"{found.iterations} iterations, elapsed {found.elapsed:.3f} s, "
              f"{found.stop_reason}")
    start = time.monotonic()
    one = search_for(state, time_limit=args.time_limit, seed=1)
    wall = time.monotonic() - start
    print(f"one in-process search: {wall:.3f} s wall-clock, {one.iterations} iterations")


if __name__ == "__main__":
    main()
