"""Bridge to the compiled Stephens kernel (``ext/stephens_kernel.pyx``), if built.

The kernel is optional: without it (or with ``FURNACE_PURE_PYTHON=1``) search
runs on the reference rules in :mod:`engine.stephens`.
"""

from __future__ import annotations

from types import ModuleType

from engine.fastpath import kernel_twin_or_none, load_kernel
from engine.game import State
from engine.stephens.position import Position

KERNEL_MODULE = "ext.stephens_kernel"


def kernel_module() -> ModuleType | None:
    return load_kernel(KERNEL_MODULE)


def kernel_twin(state: Position) -> State | None:
    """A kernel-backed copy of ``state``, or None when the kernel is not available.

    Also None for a (hand-made) state outside the kernel's fixed bounds, so search
    falls back to the reference rules instead of failing.  The kernel plays every
    player count, the solo game against the Automa included.
    """
    twin: State | None = kernel_twin_or_none(KERNEL_MODULE, state)
    return twin
