"""The search a game gets: MCTS with perfect information, ISMCTS with hidden information.

Callers that should not care which (the bots, the CLI, the server, root-parallel
search) go through here, so a hidden-information game is never searched with
its hidden parts in view.  The choice reads only ``state.info.perfect_information``;
the settings (margin scale, leaf evaluator, exploration constant) come from the
game's search configuration (:mod:`engine.search.config`) unless the caller overrides them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game import State
from engine.search.analysis import Analysis
from engine.search.config import SearchConfig, resolve_config
from engine.search.evaluate import Evaluator
from engine.search.ismcts import ISMCTS
from engine.search.mcts import MCTS

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
    state: State, config: SearchConfig | None = None, *, seed: int | None = None,
    observer: int | None = None, evaluator: Evaluator | None = None,
    root_moves: Sequence[int] | None = None, compiled: bool | None = None,
) -> MCTS | ISMCTS:
    """The search that suits ``state``'s game, for the seat to move.

    Settings come from ``config`` (default: the game's,
    :func:`~engine.search.config.config_for`; a caller's own exploration constant,
    margin scale, playout depth or prior weight go in with
    :meth:`~engine.search.config.SearchConfig.overridden`); without a ``c`` each search
    takes its own default.  ``observer``, when given, is whose information the search
    may use: it must be able to know the mover's moves
    (:meth:`~engine.game.State.moves_known_to`): where the mover's private information
    decides them it must be the seat to move.  ``evaluator`` values the leaves instead
    of the configuration's; ``root_moves``, when given, are the only moves the tree
    tries at the root (a review's played move searched against the best one).
    ``compiled`` picks the compiled tree or the Python one
    (:mod:`engine.search.compiled`; ``None``: compiled where it can run).
    """
    player = state.current_player()
    if observer is not None and player >= 0 and not state.moves_known_to(observer):
        raise ValueError(f"seat {player} is to move: seat {observer} cannot search for it, "
                         f"its moves depend on what seat {observer} cannot see")
    if search_kind(state) == "mcts":
        return MCTS(state, config, seed=seed, evaluator=evaluator, root_moves=root_moves,
                    compiled=compiled)
    return ISMCTS(state, observer, config, seed=seed, evaluator=evaluator,
                  root_moves=root_moves, compiled=compiled)


def search_for(state: State, observer: int | None = None, *,
               config: SearchConfig | None = None, **budget: Any) -> Analysis:
    """Search ``state`` with the search that suits its game (:func:`make_tree`).

    ``budget`` takes the keyword arguments the two share: ``iterations``,
    ``time_limit``, ``c``, ``seed``, ``should_stop``, ``on_progress``,
    ``progress_interval``.  ``config`` defaults to the game's search configuration,
    ``c`` to its exploration constant or else each search's own default.
    """
    unknown = sorted(set(budget) - _BUDGET_KEYS)
    if unknown:
        raise TypeError(f"search_for() got unexpected keyword arguments: {', '.join(unknown)}")
    c = budget.pop("c", None)
    if c is not None:
        config = resolve_config(state, config).overridden(c=c)
    tree = make_tree(state, config, seed=budget.pop("seed", None), observer=observer)
    return tree.search(**budget)
