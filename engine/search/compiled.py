"""Which searches run their tree in compiled code, and how their settings get there.

The MCTS and ISMCTS trees have compiled twins (``ext/search_core.pyx``) that grow the
same nodes from the same random numbers, so a search answers the same with either; the
compiled one makes no Python object per node or per iteration.  A tree runs compiled
when all of this holds, and in Python otherwise (the oracle, and the pure-Python path):

* the position it searches is a kernel's (``state.search_state()`` has a
  ``search_handle``, and the kernel module offers ``search_ops``);
* its leaf evaluator describes itself to the core (``compiled_leaf``): full random
  playouts (:class:`~engine.search.evaluate.RolloutEvaluator`), truncated ones
  (:class:`~engine.search.evaluate.TruncatedPlayoutEvaluator`, where the kernel can
  stop a playout early), MAST playouts (:class:`~engine.search.mast.MastEvaluator`) or
  a learned leaf value (:class:`~engine.search.evaluate.LearnedEvaluator`, over the
  kernel's features);
* the ISMCTS does not check every determinization (``check_determinizations``, a debug
  mode that needs the Python objects);
* ``FURNACE_PYTHON_TREE`` is not set (``1`` keeps every tree in Python: a switch for
  comparing the two, like ``FURNACE_PURE_PYTHON`` for the kernels).

The trees take ``compiled=None`` (compiled when it can be), ``True`` (compiled, or
``ValueError`` saying why not) or ``False`` (Python).
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

from engine.fastpath import load_kernel
from engine.search.evaluate import Evaluator
from engine.search.tree import TreeSettings


def python_tree_forced() -> bool:
    """Whether ``FURNACE_PYTHON_TREE`` keeps every search tree in Python."""
    return os.environ.get("FURNACE_PYTHON_TREE", "").strip() not in ("", "0", "false", "no")


def core_module() -> Any:
    """The compiled search module, or None (not built, or a pure path forced)."""
    return load_kernel("ext.search_core")


def kernel_ops(search_state: Any) -> Any:
    """The kernel's ``search_ops()`` capsule for a kernel position, else None."""
    if not hasattr(search_state, "search_handle"):
        return None
    module = sys.modules.get(type(search_state).__module__)
    ops = getattr(module, "search_ops", None)
    return None if ops is None else ops()


def compiled_tree_or_reason(kind: str, compiled: bool | None, search_state: Any,
                            rng: random.Random, settings: TreeSettings) -> tuple[Any, str]:
    """``(compiled tree, "")`` when the ``kind`` search (``"MCTS"`` or ``"ISMCTS"``) runs
    its tree compiled, else ``(None, why not)``; raises ``ValueError`` with the reason
    when ``compiled`` is True.  The compiled tree is built from the same ``settings`` as
    the Python one, and describes the same search (:mod:`engine.search.tree`)."""
    if compiled is False:
        return None, "the Python tree was asked for"
    reason = ""
    module = None
    ops = None
    leaf = None
    if compiled is None and python_tree_forced():
        reason = "FURNACE_PYTHON_TREE is set"
    else:
        module = core_module()
        if module is None:
            reason = "the compiled search is not built (or FURNACE_PURE_PYTHON is set)"
        else:
            ops = kernel_ops(search_state)
            if ops is None:
                reason = "the position has no kernel twin"
            else:
                leaf = compiled_leaf(settings.evaluator, search_state)
                if leaf is None:
                    reason = (f"the compiled {kind} does not know the evaluator "
                              f"{settings.evaluator!r}")
    if not reason:
        try:
            tree = getattr(module, f"Compiled{kind}")(ops, search_state, rng, settings, leaf)
            return tree, ""
        except ValueError as error:  # e.g. a kernel that cannot stop a playout early
            reason = str(error)
    if compiled:
        raise ValueError(f"no compiled {kind} here: {reason}")
    return None, reason


def compiled_leaf(evaluator: Evaluator, search_state: Any) -> tuple[Any, ...] | None:
    """How the compiled core values leaves as ``evaluator`` does: the evaluator's own
    ``compiled_leaf(search_state)``, or None for an evaluator that has none (it keeps
    the tree in Python)."""
    describe = getattr(evaluator, "compiled_leaf", None)
    return None if describe is None else describe(search_state)
