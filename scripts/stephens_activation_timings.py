#!/usr/bin/env python
"""Time Stephens' activations of many workers in one row, on both paths.

    python scripts/stephens_activation_timings.py                    # 13 and 17 workers
    python scripts/stephens_activation_timings.py --positions 18 --paths kernel
    python scripts/stephens_activation_timings.py --repeat 5         # best of 5

The positions are in ``tests/stephens/positions``: ``activation_of_N_workers.json``,
a 2-player position at the decision of a seat with N workers in one row (13: reached
in a ladder game against random; 17: a test's random playout; 18: every disk of a
seat on workers of one row, the most one seat can have).  For each it prints, in
milliseconds (the best of ``--repeat`` runs):

* ``load``: ``state_from_json``, the loader with every check (the same code on both
  paths: the server loads every state it is sent this way);
* ``twin``: the kernel twin of the loaded state (``KernelState.from_reference``);
* ``moves``: the legal moves of the activation decision, on the reference rules
  (``reference``) or in the kernel (``kernel``), worked out afresh; with both paths,
  whether they are the same moves in the same order.

docs/rules/stephens.md quotes its figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.stephens import GAME, fast  # noqa: E402

POSITIONS = ROOT / "tests" / "stephens" / "positions"
NAMES = {13: "thirteen", 17: "seventeen", 18: "eighteen"}


def best_of(repeat: int, run: Callable[[Any], Any],
            setup: Callable[[], Any] = lambda: None) -> tuple[float, Any]:
    """The shortest of ``repeat`` runs of ``run(setup())`` (``setup`` not timed), and
    what the last returned."""
    best, result = float("inf"), None
    for _ in range(repeat):
        given = setup()
        start = time.perf_counter()
        result = run(given)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", default="13,17",
                        help="workers in the row, comma-separated, of 13, 17, 18")
    parser.add_argument("--paths", default="kernel,reference",
                        help="kernel, reference or both (comma-separated)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, the best kept")
    args = parser.parse_args(argv)
    paths = args.paths.split(",")
    kernel = fast.kernel_module()
    if "kernel" in paths and kernel is None:
        print("kernel not built or FURNACE_PURE_PYTHON set: reference path only")
        paths = [p for p in paths if p != "kernel"]
    for workers in (int(n) for n in args.positions.split(",")):
        data = json.loads((POSITIONS / f"activation_of_{NAMES[workers]}_workers.json")
                          .read_text())
        seconds, state = best_of(args.repeat, lambda _, data=data: GAME.state_from_json(data))
        print(f"{workers} workers  load             {seconds * 1000:11.2f} ms")
        found: dict[str, list[int]] = {}
        if "kernel" in paths:
            assert kernel is not None
            def twin(s: Any = state) -> Any:
                return kernel.KernelState.from_reference(s)

            seconds, _ = best_of(args.repeat, lambda _: twin())
            print(f"{workers} workers  twin             {seconds * 1000:11.2f} ms")
            # a fresh twin each time: a twin keeps its legal moves once worked out
            seconds, moves = best_of(args.repeat, lambda t: t.legal_moves(), twin)
            found["kernel"] = moves
            print(f"{workers} workers  moves, kernel    {seconds * 1000:11.2f} ms  ({len(moves)} moves)")
        if "reference" in paths:
            def fresh(s: Any = state) -> Any:
                copy = s.clone()
                copy.touched()  # forget the legal moves a state keeps
                return copy

            seconds, moves = best_of(args.repeat, lambda f: f.legal_moves(), fresh)
            found["reference"] = moves
            print(f"{workers} workers  moves, reference {seconds * 1000:11.2f} ms  ({len(moves)} moves)")
        if len(found) == 2:
            same = found["kernel"] == found["reference"]
            print(f"{workers} workers  the same moves in the same order on both paths: {same}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
