"""Bridge to the compiled Oh My Goods! kernel (``ext/oh_my_goods_kernel.pyx``), if built.

The kernel is optional: without it (or with ``FURNACE_PURE_PYTHON=1``) search
runs on the reference rules in :mod:`engine.oh_my_goods.state`.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from engine.fastpath import kernel_twin_or_none, load_kernel

if TYPE_CHECKING:
    from engine.game import State
    from engine.oh_my_goods.state import OhMyGoodsState

KERNEL_MODULE = "ext.oh_my_goods_kernel"


def kernel_module() -> ModuleType | None:
    return load_kernel(KERNEL_MODULE)


def kernel_twin(state: OhMyGoodsState) -> State | None:
    """A kernel-backed copy of ``state``, or None when the kernel is not available.

    Also None for a (hand-made) state outside the kernel's fixed bounds, so search
    falls back to the reference rules instead of failing.
    """
    twin: State | None = kernel_twin_or_none(KERNEL_MODULE, state)
    return twin
