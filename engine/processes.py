"""Worker processes that do not outlive the process that started them.

A ``ProcessPoolExecutor`` worker runs its task to the end even when its parent is
gone: killing ``furnace arena`` or ``check-games`` left its workers playing games,
unwatched, for minutes.  :func:`process_pool` starts workers (``spawn`` context, safe
with threads) that the kernel kills when their parent dies (Linux
``PR_SET_PDEATHSIG``; elsewhere nothing changes).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies.

    Returns False where that is not available (not Linux, or no ``prctl``).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        return libc.prctl(pr_set_pdeathsig, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return False


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
