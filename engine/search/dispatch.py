"""The search a game gets: MCTS with perfect information, ISMCTS with hidden information.

Callers that should not care which (the bots, the CLI, the server, root-parallel
search) go through here, so a hidden-information game is never searched with
its hidden parts in view.  The choice reads only ``state.info.perfect_information``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.game import State
from engine.search.analysis import Analysis
from engine.search.ismcts import DEFAULT_ISMCTS_C, ISMCTS, ismcts_search
from engine.search.mcts import DEFAULT_C, MCTS, mcts_search

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


def make_tree(state: State, c: float | None = None, seed: int | None = None) -> MCTS | ISMCTS:
    """The search tree that suits ``state``'s game, for the seat to move.

    ``c=None`` takes that search's own default exploration constant.
    """
    if search_kind(state) == "mcts":
        return MCTS(state, c=DEFAULT_C if c is None else c, seed=seed)
    return ISMCTS(state, c=DEFAULT_ISMCTS_C if c is None else c, seed=seed)


def search_for(state: State, observer: int | None = None, **budget: Any) -> Analysis:
    """Search ``state`` with the search that suits its game: MCTS when
    ``state.info.perfect_information``, ISMCTS for ``observer`` otherwise.

    ``budget`` takes the keyword arguments the two share: ``iterations``,
    ``time_limit``, ``c``, ``seed``, ``should_stop``, ``on_progress``,
    ``progress_interval``.  ``c`` defaults to each search's own default.  For a
    perfect-information game ``observer``, when given, must be the seat to move.
    """
    options: Mapping[str, Any] = budget
    unknown = sorted(set(options) - _BUDGET_KEYS)
    if unknown:
        raise TypeError(f"search_for() got unexpected keyword arguments: {', '.join(unknown)}")
    if search_kind(state) == "mcts":
        player = state.current_player()
        if observer is not None and player >= 0 and observer != player:
            raise ValueError(f"seat {player} is to move, cannot search for observer {observer}")
        kwargs = dict(options)
        kwargs.setdefault("c", DEFAULT_C)
        return mcts_search(state, **kwargs)
    kwargs = dict(options)
    kwargs.setdefault("c", DEFAULT_ISMCTS_C)
    return ismcts_search(state, observer, **kwargs)
