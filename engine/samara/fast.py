"""Bridge to the compiled Samara kernel (``ext/samara_kernel.pyx``), if it is built.

The kernel is optional: without it (or with ``FURNACE_PURE_PYTHON=1``) search
runs on the reference rules in :mod:`engine.samara.state`.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from engine.fastpath import load_kernel

if TYPE_CHECKING:
    from engine.game import State
    from engine.samara.state import SamaraState

KERNEL_MODULE = "ext.samara_kernel"


def kernel_module() -> ModuleType | None:
    return load_kernel(KERNEL_MODULE)


def kernel_twin(state: SamaraState) -> State | None:
    """A kernel-backed copy of ``state``, or None when the kernel is not available."""
    module = kernel_module()
    if module is None:
        return None
    return module.KernelState.from_reference(state)
