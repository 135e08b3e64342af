"""The interface every search tree offers, and the settings every tree is built from.

:class:`~engine.search.mcts.MCTS` and :class:`~engine.search.ismcts.ISMCTS` each grow
one of two trees: a Python one (the oracle, and the pure-Python path) or a compiled
twin (``ext/search_core.pyx``, :mod:`engine.search.compiled`).  Both are built from the
same :class:`TreeSettings` and answer through the same small interface, so the search
chooses its tree once, when it is built, and never asks again which one it has;
``furnace check-search`` compares two objects of one interface.

A new selection rule or leaf value goes into both trees: selection is described by
:class:`Selection` (read by both), a leaf by its evaluator
(:meth:`~engine.search.evaluate.RolloutEvaluator.compiled_leaf`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.game import State
from engine.search._common import Solo, root_candidates, solo_utility
from engine.search.analysis import RootStats
from engine.search.budget import BudgetedSearch
from engine.search.config import SearchConfig
from engine.search.evaluate import Evaluator
from engine.search.move_prior import PriorModel

#: Statistics at the root: its visits, its sums (win shares then scores, one per seat
#: each), and ``(move, visits, sums)`` of every visited child in creation order.
RootStatistics = tuple[int, list[float], list[tuple[int, int, list[float]]]]


@dataclass(frozen=True)
class Selection:
    """How a tree picks the child to follow at a node where every move has a child.

    UCT: the child maximising ``mean utility + c * sqrt(ln N / n)`` for the seat to move
    (``N`` is the parent's visits in MCTS, the child's availability in ISMCTS).  With a
    ``prior_weight`` it is progressive bias: each child's heuristic utility, taken when
    the child was made at the scale ``prior_scale``, counts as ``prior_weight`` playouts
    in its mean.  Both trees read the rule from here, and check-search proves them equal
    with every rule a game's configuration sets.

    With a ``move_prior`` (:mod:`engine.search.move_prior`) and a ``move_weight``, each
    child also gets ``move_weight * probability / (visits + 1)``, its move's probability
    by the prior over the moves legal there (the logit taken when the child was made).
    """

    prior_weight: float = 0.0
    prior_scale: float | None = None
    move_weight: float = 0.0
    move_prior: PriorModel | None = None

    @property
    def rule(self) -> str:
        """The rule's name, as the docs and reports call it."""
        if self.move_weight and self.move_prior is not None:
            return "progressive bias (learned move prior)"
        return "progressive bias" if self.prior_weight else "UCT"

    @property
    def move_bias(self) -> float:
        """The move prior's weight, 0 without a model."""
        return self.move_weight if self.move_prior is not None else 0.0


@dataclass(frozen=True)
class TreeSettings:
    """Everything a tree needs to know of the search that grows it, in one object.

    ``c`` is the exploration constant, ``margin_scale`` and ``solo`` turn an outcome
    into the utility selection maximises (:func:`~engine.search._common.backup_values`),
    ``evaluator`` values a new leaf, ``root_moves`` are the only moves tried at the root
    (``None``: every legal move) and ``observer`` is whose information an ISMCTS uses
    (``-1`` in MCTS, which sees everything).
    """

    num_players: int
    c: float
    margin_scale: float | None
    solo: Solo | None
    selection: Selection
    evaluator: Evaluator
    root_moves: tuple[int, ...] | None = None
    observer: int = -1

    @property
    def width(self) -> int:
        """How many numbers a node sums: utilities, win shares and scores, one per seat."""
        return 3 * self.num_players


def tree_settings(state: State, config: SearchConfig, default_c: float,
                  evaluator: Evaluator | None = None, root_moves: Sequence[int] | None = None,
                  observer: int = -1) -> TreeSettings:
    """The settings of a tree searching ``state`` (the position the tree is rooted at)
    under ``config`` (resolved for ``state``'s seats,
    :func:`~engine.search.config.resolve_config`): its exploration constant, else
    ``default_c`` (the search's own); ``evaluator`` instead of the configuration's;
    ``root_moves`` checked against the legal moves
    (:func:`~engine.search._common.root_candidates`)."""
    return TreeSettings(
        num_players=state.num_players,
        c=config.exploration(default_c),
        margin_scale=config.margin_scale,
        solo=solo_utility(state, config.solo_scale),
        selection=Selection(config.prior_weight, config.prior_margin_scale(),
                            config.move_prior_weight, config.move_prior_model()),
        evaluator=config.evaluator(state.num_players) if evaluator is None else evaluator,
        root_moves=None if root_moves is None else
        tuple(root_candidates(state.legal_moves(), root_moves)),
        observer=observer,
    )


class SearchTree(Protocol):
    """What :class:`~engine.search.mcts.MCTS` asks of its tree (Python or compiled)."""

    def iterate(self) -> None:
        """Grow the tree by one iteration."""

    def root_statistics(self) -> RootStatistics:
        """The root's statistics (:data:`RootStatistics`)."""

    def principal_variation(self, max_length: int = 64) -> Sequence[int]:
        """The moves along the best children from the root (chance outcomes included)."""


class InformationSetTree(Protocol):
    """What :class:`~engine.search.ismcts.ISMCTS` asks of its tree (Python or compiled).

    A node's move text depends on the determinization that made the node, so the tree
    keeps a *context* per node and turns it into text on demand.
    """

    def iterate(self) -> None:
        """Grow the tree by one iteration (one new determinization)."""

    def root_statistics(self) -> RootStatistics:
        """The root's statistics (:data:`RootStatistics`)."""

    def principal_variation(self, max_length: int = 64) -> Sequence[tuple[int, object, int]]:
        """``(move, context, mover)`` along the best children from the root (the mover
        :data:`~engine.game.CHANCE` for a chance outcome)."""

    def child_context(self, move: int) -> object:
        """The context of the root's child for ``move`` (``KeyError`` without one)."""

    def text_in_context(self, move: int, context: object) -> str:
        """The text of ``move`` in the determinization a node's ``context`` records."""

    def availability(self, *moves: int) -> tuple[int, int, int]:
        """``(n, avail, parent_n)`` of the node reached by ``moves`` (``KeyError``)."""


class TreeSearch(BudgetedSearch):
    """What :class:`~engine.search.mcts.MCTS` and :class:`~engine.search.ismcts.ISMCTS`
    share: the tree they grow (:attr:`tree`, Python or compiled, chosen once when the
    search is built; :attr:`python_reason` says why it is the Python one, empty when
    compiled), its iterations, and root statistics read from it."""

    tree: Any
    python_reason: str
    settings: TreeSettings

    @property
    def compiled(self) -> bool:
        """Whether the tree runs in compiled code (:mod:`engine.search.compiled`)."""
        return not self.python_reason

    def _iteration(self) -> Callable[[], None]:
        iterate: Callable[[], None] = self.tree.iterate
        return iterate

    def _root_stats(self, player: int, pv: list[int],
                    pv_texts: list[str] | None = None) -> RootStats:
        """The :class:`~engine.search.analysis.RootStats` of the tree so far, for
        ``player`` (the seat to move), with the principal variation ``pv``."""
        visits, totals, rows = self.tree.root_statistics()
        return RootStats(
            player=player,
            num_players=self.settings.num_players,
            iterations=self.iterations,
            elapsed=self.elapsed,
            visits=visits,
            totals=list(totals),
            moves=[move for move, _n, _sums in rows],
            move_visits=[n for _move, n, _sums in rows],
            move_totals=[list(sums) for _move, _n, sums in rows],
            pv=pv,
            pv_texts=pv_texts,
        )
