"""The search a game gets: MCTS with perfect information, ISMCTS with hidden information.

Callers that should not care which (the bots, the CLI, the server, root-parallel
search) go through here, so a hidden-information game is never searched with
its hidden parts in view.  The choice reads only ``state.info.perfect_information``.
"""

from __future__ import annotations

from typing import Any

from engine.game import State
from engine.search._common import GAME_MARGIN, MarginScale
from engine.search.analysis import Analysis
from engine.search.ismcts import DEFAULT_ISMCTS_C, ISMCTS
from engine.search.mcts import DEFAULT_C, MCTS

_BUDGET_KEYS = frozenset(
    {
        "iterations",
        "time_limit",
        "c",
        "seed",
        "should_stop",
        "on_progress",
        "progress_interval",
    }
)


def search_kind(state: State) -> str:
    """``"mcts"`` for a perfect-information game, ``"ismcts"`` otherwise (from ``state.info``)."""
    return "mcts" if state.info.perfect_information else "ismcts"


def make_tree(
    state: State, c: float | None = None, seed: int | None = None, observer: int | None = None,
    margin_scale: MarginScale = GAME_MARGIN,
) -> MCTS | ISMCTS:
    """The search tree that suits ``state``'s game, for the seat to move.

    ``c=None`` takes that search's own default exploration constant, ``margin_scale``
    the game's utility (:data:`~engine.search._common.GAME_MARGIN`).  ``observer``,
    when given, is whose information the search may use: it must be able to know
    the mover's moves (:meth:`~engine.game.State.moves_known_to`), so in a
    hidden-information game it must be the seat to move.
    """
    player = state.current_player()
    if observer is not None and player >= 0 and not state.moves_known_to(observer):
        raise ValueError(f"seat {player} is to move: seat {observer} cannot search for it, "
                         f"its moves depend on what seat {observer} cannot see")
    if search_kind(state) == "mcts":
        return MCTS(state, c=DEFAULT_C if c is None else c, seed=seed, margin_scale=margin_scale)
    return ISMCTS(state, observer, c=DEFAULT_ISMCTS_C if c is None else c, seed=seed,
                  margin_scale=margin_scale)


def search_for(state: State, observer: int | None = None, **budget: Any) -> Analysis:
    """Search ``state`` with the search that suits its game (:func:`make_tree`).

    ``budget`` takes the keyword arguments the two share: ``iterations``,
    ``time_limit``, ``c``, ``seed``, ``should_stop``, ``on_progress``,
    ``progress_interval``.  ``c`` defaults to each search's own default.
    """
    unknown = sorted(set(budget) - _BUDGET_KEYS)
    if unknown:
        raise TypeError(f"search_for() got unexpected keyword arguments: {', '.join(unknown)}")
    tree = make_tree(state, budget.pop("c", None), budget.pop("seed", None), observer)
    return tree.search(**budget)
