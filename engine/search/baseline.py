"""The plain-UCT baseline of ``uct`` bot specs: the search as it was, kept that way.

Search improvements (priors, informed playouts, a learned evaluator...) go into the
default search, the one ``mcts``, ``ismcts`` and ``level`` specs, the CLI and the gRPC
server run, and are measured against this baseline: ``mcts:2000`` against ``uct:2000``
in ``furnace arena``.  Such a comparison means something only if the baseline does not
move, so a ``uct`` bot (:class:`~engine.search.bots.UctBot`) builds its tree with a
:class:`BaselineConfig`, and the promise is that such a tree runs, now and after any
later change, the search ``uct`` was introduced with:

* UCT (MCTS), or single-observer ISMCTS in a hidden-information game, chosen by
  :func:`~engine.search.dispatch.make_tree` as for ``mcts``; untried moves expanded in
  a random order, leaves valued by uniformly random playouts (full ones, or
  ``playout_depth`` random moves and then ``State.heuristic()``);
* the search's own exploration constant (:data:`~engine.search.mcts.DEFAULT_C`, or
  :data:`~engine.search.ismcts.DEFAULT_ISMCTS_C` in ISMCTS) and no heuristic prior;
* the games' settings as their entries in :mod:`engine.search.config` stood before the
  first improvement, frozen here in :data:`BASELINE_ENTRIES`: Oh My Goods!' margin
  scale of 3, Stephens' margin scale of 20 and playouts truncated after 20 moves,
  everything else at :class:`~engine.search.config.SearchConfig`'s defaults.  A game's
  entry may change since (a tuned ``c``, truncated playouts, a prior): those are the
  improvements an ``mcts`` against ``uct`` comparison measures, so the baseline does
  not follow them;
* every setting added to :class:`~engine.search.config.SearchConfig` later at its
  default, which by that module's rule keeps the old behaviour;
* and an improvement that is not switched by a setting, or whose setting defaults to
  on, must check :func:`is_baseline` on the tree's configuration and stay off.

A spec's own options still apply to a baseline tree (``uct:500:m=0``, ``uct:500:c=1``).

tests/search/test_levels.py pins ``uct`` analyses that fail if the baseline search
changes, and checks that a baseline tree ignores every improvement switched on in the
game's configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import GameInfo, State
from engine.search.config import SearchConfig, game_name

#: The baseline's settings per game (``GameInfo.name``): the search configuration entries
#: as they stood before the first search improvement.  A game not named here (one added
#: later, a toy game) gets the defaults.
BASELINE_ENTRIES: dict[str, dict[str, float | int]] = {
    "oh-my-goods": {"margin_scale": 3.0},
    "stephens": {"margin_scale": 20.0, "playout_depth": 20},
}


@dataclass(frozen=True)
class BaselineConfig(SearchConfig):
    """A :class:`~engine.search.config.SearchConfig` that marks its tree as the plain-UCT
    baseline (see the module docstring); build it with :func:`baseline_config`.

    A subclass rather than a flag field, so that the mark survives the overrides the
    trees apply (``dataclasses.replace`` keeps the class) without a change to
    :mod:`engine.search.config`.
    """


def baseline_config(game: State | GameInfo | str) -> BaselineConfig:
    """The baseline's settings for ``game`` (a state, its ``GameInfo`` or its name):
    its :data:`BASELINE_ENTRIES` entry, everything else at its default."""
    return BaselineConfig(**BASELINE_ENTRIES.get(game_name(game), {}))  # type: ignore[arg-type]


def is_baseline(config: SearchConfig) -> bool:
    """Whether a tree with this configuration is the plain-UCT baseline (``uct`` specs),
    which a search improvement must leave alone."""
    return isinstance(config, BaselineConfig)
