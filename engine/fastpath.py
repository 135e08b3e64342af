"""The switch between compiled kernels and the pure-Python engine.

Setting ``FURNACE_PURE_PYTHON=1`` forces the pure path even where the kernels
are built (the msgpack pattern), so the test suite can run both ways.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any


def pure_python_forced() -> bool:
    return os.environ.get("FURNACE_PURE_PYTHON", "").strip() not in ("", "0", "false", "no")


def load_kernel(module: str) -> ModuleType | None:
    """The compiled kernel module, or None when it is not built or the pure path is forced."""
    if pure_python_forced():
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def kernel_twin_or_none(module: str, state: Any) -> Any:
    """``module``'s ``KernelState`` copy of the reference ``state``; None when the kernel
    is not built (or the pure path is forced) or refuses the state with ValueError (a
    hand-made position outside its fixed bounds, a player count it leaves to the
    reference rules), so search falls back to the reference rules."""
    kernel = load_kernel(module)
    if kernel is None:
        return None
    try:
        return kernel.KernelState.from_reference(state)
    except ValueError:
        return None
