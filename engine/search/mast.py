"""MAST playouts: a leaf evaluator whose playouts prefer moves that have done well.

The Move-Average Sampling Technique (Finnsson and Bjornsson, "Simulation-Based
Approach to General Game Playing", 2008) keeps, for every seat and move, the mean
utility of the playouts in which the seat played the move, and plays later playouts
epsilon-greedily over those means (Tak, Winands and Bjornsson 2012 found the
epsilon-greedy form stronger than the Gibbs sampling of the original).  It needs no
knowledge of the game: moves are integer codes, hashed into a table
(:mod:`engine.guided_playout`), so it is the same for every game.

:class:`MastEvaluator` is an :class:`~engine.search.evaluate.Evaluator`: each
evaluation plays one guided playout (``state.guided_playout`` where a kernel has
it, else :func:`engine.guided_playout.guided_playout` on the rules), at most
``depth`` moves before the heuristic values the position as in a truncated playout,
then folds the playout's decisions into the table with the utilities the tree backs
up (:func:`~engine.search._common.backup_values`: the configuration's margin scale
and solo target).  A search owns one evaluator (``SearchConfig.evaluator()`` makes a
fresh one), so the table lives as long as one search, and a fixed seed still gives
the same answer.  Only the playout's decisions are recorded, not the tree's (the
tree has its own statistics for those).

Unplayed moves start at :data:`INITIAL_VALUE`, the utility of an even game, so a
move that has lost more often than not falls behind moves never tried.

Switched on per game by ``SearchConfig.mast_epsilon`` or per bot by the spec option
``mast=EPSILON`` (:mod:`engine.search.bots`); docs/strength.md has the measurements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.fastpath import load_kernel
from engine.game import TERMINAL, Outcome, State
from engine.guided_playout import MOVE_SLOT_BITS, MOVE_SLOTS, guided_playout
from engine.search._common import Solo, backup_values, solo_utility
from engine.search.evaluate import ValueModel, heuristic_outcome, learned_scores, values_outcome

#: The value of a move no playout has played yet: an even game's utility.
INITIAL_VALUE = 0.5
#: Decisions of one playout that are recorded; later ones are played, not learned from.
TRACE_LENGTH = 4096


def record_playout_python(values: Any, counts: Any, trace: Any, recorded: int,
                          utilities: Any) -> None:
    """The pure-Python twin of ``ext.move_values.record_playout``: each recorded
    decision's entry becomes the running mean of its seat's utilities."""
    for k in range(recorded):
        index = int(trace[k])
        seat = index >> MOVE_SLOT_BITS
        counts[index] += 1.0
        values[index] += (utilities[seat] - values[index]) / counts[index]


def _record_playout() -> Any:
    module = load_kernel("ext.move_values")
    return record_playout_python if module is None else module.record_playout


class MastEvaluator:
    """Epsilon-greedy MAST playouts (see the module docstring).

    ``epsilon``: the chance of a uniformly random move at each decision (``1``: a
    uniform playout that still learns; ``0``: always the best-valued move);
    ``depth``: ``0`` to play to the end, else at most that many moves and then
    ``State.heuristic()``; ``margin_scale`` and ``solo_scale``: the utility the table
    learns, as the tree's; ``model``: a value model
    (:class:`~engine.search.evaluate.ValueModel`) that values the position after a
    truncated playout (:func:`~engine.search.evaluate.learned_scores`) instead of
    ``heuristic()``.
    """

    def __init__(self, epsilon: float, depth: int = 0, margin_scale: float | None = None,
                 solo_scale: float = 20.0, model: ValueModel | None = None) -> None:
        if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) \
                or not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"MAST epsilon must be a number from 0 to 1, not {epsilon!r}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"playout depth must be a non-negative integer, not {depth!r}")
        self.epsilon = float(epsilon)
        self.depth = depth
        self.margin_scale = margin_scale
        self.solo_scale = solo_scale
        self.model = model
        self.values: np.ndarray | None = None
        self.counts: np.ndarray | None = None
        self.trace = np.zeros(TRACE_LENGTH, dtype=np.int32)
        self._solo: Solo | None = None
        self._record = _record_playout()

    def _table_for(self, state: State) -> None:
        size = state.num_players * MOVE_SLOTS
        self.values = np.full(size, INITIAL_VALUE)
        self.counts = np.zeros(size)
        self._solo = solo_utility(state, self.solo_scale)

    def table(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray, Solo | None]:
        """The move-value table (values, counts), the trace buffer and the solo target,
        made for ``state``'s seats on first use (a compiled tree updates them in place)."""
        if self.values is None:
            self._table_for(state)
        assert self.values is not None and self.counts is not None
        return self.values, self.counts, self.trace, self._solo

    def evaluate(self, state: State, seed: int) -> Outcome:
        if self.values is None:
            self._table_for(state)
        values, trace = self.values, self.trace
        fast = getattr(state, "guided_playout", None)
        if fast is not None:
            recorded = fast(seed, values, self.epsilon, trace, self.depth)
        else:
            recorded = guided_playout(state, seed, values, self.epsilon, trace, self.depth)
        if state.current_player() == TERMINAL:
            outcome = state.outcome()
        elif self.model is None:
            outcome = heuristic_outcome(state)
        else:
            outcome = values_outcome(learned_scores(self.model, state))
        if recorded:
            utilities = backup_values(outcome, self.margin_scale, self._solo)
            self._record(values, self.counts, trace, recorded,
                         np.asarray(utilities[:state.num_players], dtype=np.float64))
        return outcome

    def compiled_leaf(self, search_state: State) -> tuple[Any, ...] | None:
        """The compiled core's description (see
        :meth:`~engine.search.evaluate.RolloutEvaluator.compiled_leaf`).  The table is made
        here if it has none yet (as the first evaluation would), and the core works on
        this evaluator's own arrays."""
        if type(self) is not MastEvaluator:
            return None
        values, counts, trace, solo = self.table(search_state)
        model = () if self.model is None else (self.model.weights,
                                               self.model.level_weights or ())
        return ("mast", self.epsilon, self.depth, self.margin_scale, solo, values, counts,
                trace, *model)

    def __repr__(self) -> str:
        return f"MastEvaluator(epsilon={self.epsilon}, depth={self.depth})"
