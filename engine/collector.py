"""Holding off the garbage collector's full passes while a search runs.

A search tree is a few hundred thousand long-lived objects that reference counting
alone frees.  Python's full (oldest-generation) collection walks all of them each
time the tree has grown by a quarter: in a 5-second Samara search that was up to
0.2 s at a time and a tenth of the search's time, and a pause that could carry a
search past its caller's deadline.  Young passes keep running, so the cyclic
garbage an iteration leaves is still collected.

The setting is the process's: searches in several threads share one hold, and
the thresholds come back when the last of them ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: The oldest generation's threshold while a search runs: never reached.
NO_FULL_PASSES = 1 << 30

_lock = threading.Lock()
_holders = 0
_saved_threshold: tuple[int, ...] = ()


@contextmanager
def without_full_collections() -> Iterator[None]:
    """Run the block without full collections; young ones still run."""
    global _holders, _saved_threshold
    with _lock:
        if not _holders:
            _saved_threshold = gc.get_threshold()
            gc.set_threshold(*_saved_threshold[:2], NO_FULL_PASSES)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if not _holders:
                gc.set_threshold(*_saved_threshold)
