"""Which searches run their tree in compiled code, and how their settings get there.

The MCTS and ISMCTS trees have compiled twins (``ext/search_core.pyx``) that grow the
same nodes from the same random numbers, so a search answers the same with either; the
compiled one makes no Python object per node or per iteration.  A tree runs compiled
when all of this holds, and in Python otherwise (the oracle, and the pure-Python path):

* the position it searches is a kernel's (``state.search_state()`` has a
  ``search_handle``, and the kernel module offers ``search_ops``);
* its leaf evaluator is one the core knows: full random playouts
  (:class:`~engine.search.evaluate.RolloutEvaluator`), truncated ones
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
import sys
from typing import Any

from engine.fastpath import load_kernel
from engine.search.evaluate import (
    Evaluator,
    LearnedEvaluator,
    RolloutEvaluator,
    TruncatedPlayoutEvaluator,
)
from engine.search.mast import MastEvaluator


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


def leaf_spec(evaluator: Evaluator, search_state: Any) -> tuple[Any, ...] | None:
    """The core's description of ``evaluator``, or None for one it does not know.  A MAST
    evaluator's table is made here if it has none yet (as its first evaluation would),
    and the core works on the evaluator's own arrays."""
    if type(evaluator) is RolloutEvaluator:
        return ("rollout",)
    if type(evaluator) is TruncatedPlayoutEvaluator:
        assert isinstance(evaluator, TruncatedPlayoutEvaluator)
        return ("truncated", evaluator.depth)
    if type(evaluator) is LearnedEvaluator:
        assert isinstance(evaluator, LearnedEvaluator)
        return ("learned", evaluator.depth, evaluator.model.weights,
                evaluator.model.level_weights or ())
    if type(evaluator) is MastEvaluator:
        assert isinstance(evaluator, MastEvaluator)
        values, counts, trace, solo = evaluator.table(search_state)
        return ("mast", evaluator.epsilon, evaluator.depth, evaluator.margin_scale, solo,
                values, counts, trace)
    return None


def compiled_tree_or_reason(kind: str, compiled: bool | None, search_state: Any,
                            evaluator: Evaluator, build: Any) -> tuple[Any, str]:
    """``(core tree, "")`` when the tree runs compiled, else ``(None, why not)``; raises
    ``ValueError`` with the reason when ``compiled`` is True.  ``build(module, ops, leaf)``
    makes the core tree (``kind`` names the search in messages)."""
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
                leaf = leaf_spec(evaluator, search_state)
                if leaf is None:
                    reason = f"the compiled {kind} does not know the evaluator {evaluator!r}"
    if not reason:
        try:
            return build(module, ops, leaf), ""
        except ValueError as error:  # e.g. a kernel that cannot stop a playout early
            reason = str(error)
    if compiled:
        raise ValueError(f"no compiled {kind} here: {reason}")
    return None, reason
