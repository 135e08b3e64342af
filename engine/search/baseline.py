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
* the settings of the game's entry in :mod:`engine.search.config` that existed then,
  :data:`BASELINE_SETTINGS` (``margin_scale``, ``playout_depth``, ``c``,
  ``solo_scale``), read from the entry: they are measurements of the game, not search
  improvements, and both sides of an ``mcts`` against ``uct`` comparison share them, so
  the comparison isolates what the search gained;
* every setting added to :class:`~engine.search.config.SearchConfig` later at its
  default, which by that module's rule keeps the old behaviour;
* and an improvement that is not switched by a setting, or whose setting defaults to
  on, must check :func:`is_baseline` on the tree's configuration and stay off.

Today nothing has been added: a ``uct`` spec plays exactly like the ``mcts`` spec with
the same options and seed, which tests/search/test_levels.py checks, together with
pinned ``uct`` analyses that fail if the baseline search changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import GameInfo, State
from engine.search.config import SearchConfig, config_for

#: The settings a baseline takes from the game's search configuration; any other
#: setting of :class:`~engine.search.config.SearchConfig` stays at its default.
BASELINE_SETTINGS = ("margin_scale", "playout_depth", "c", "solo_scale")


@dataclass(frozen=True)
class BaselineConfig(SearchConfig):
    """A :class:`~engine.search.config.SearchConfig` that marks its tree as the plain-UCT
    baseline (see the module docstring); build it with :func:`baseline_config`.

    A subclass rather than a flag field, so that the mark survives the overrides the
    trees apply (``dataclasses.replace`` keeps the class) without a change to
    :mod:`engine.search.config`.
    """


def baseline_config(game: State | GameInfo | str) -> BaselineConfig:
    """The baseline's settings for ``game``: :data:`BASELINE_SETTINGS` from its entry
    (:func:`~engine.search.config.config_for`), everything else at its default."""
    entry = config_for(game)
    return BaselineConfig(**{name: getattr(entry, name) for name in BASELINE_SETTINGS})


def is_baseline(config: SearchConfig) -> bool:
    """Whether a tree with this configuration is the plain-UCT baseline (``uct`` specs),
    which a search improvement must leave alone."""
    return isinstance(config, BaselineConfig)
