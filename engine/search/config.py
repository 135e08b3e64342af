"""Search settings per game: data the search reads, kept with the search.

A game's rules say nothing about how to search it; what suits a game (how a
playout's result becomes a utility, how a leaf is valued, how widely to explore)
is recorded here, keyed by ``GameInfo.name``, as a :class:`SearchConfig`.  The
search looks its game's entry up (:func:`config_for`) and never branches on a
game's name otherwise; a game without an entry gets :data:`DEFAULT_CONFIG`
(win shares, full random playouts, each search's own exploration constant).

:func:`~engine.search.dispatch.make_tree`, :func:`~engine.search.dispatch.search_for`,
:func:`~engine.search.parallel.parallel_search` (which hands the entry to its
workers), the bots and everything built on them (the CLI, the arena, the gRPC
server's worker) pick the entry up by themselves.  Callers override single
settings: the trees take ``margin_scale``, ``playout_depth``, ``evaluator`` and ``c``
arguments, and bot specs take ``m=SCALE``, ``d=DEPTH``, ``c=FLOAT``, ``p=WEIGHT``,
``mast=EPSILON``, ``v=LEAF`` and ``model=PATH`` (:mod:`engine.search.bots`).

The settings:

* ``margin_scale`` - when set, the utility the tree maximises is the logistic of
  the seat's final score margin over its best opponent divided by this scale,
  ``1 / (1 + exp(-margin / margin_scale))``, instead of the bare win share: in a
  game whose random playouts rank players unreliably the margin says more about a
  position.  Analyses still report win shares and scores
  (:func:`~engine.search._common.backup_values`).
* ``playout_depth`` - ``0``: leaves are valued by full random playouts (the default);
  ``N``: by ``N`` random moves and then ``State.heuristic()``
  (:class:`~engine.search.evaluate.TruncatedPlayoutEvaluator`), for games whose
  playouts are long.  See :mod:`engine.search.evaluate` for when that is wise.
* ``c`` - the game's UCT exploration constant; ``None``: the search's own default
  (:data:`~engine.search.mcts.DEFAULT_C`, :data:`~engine.search.ismcts.DEFAULT_ISMCTS_C`).
* ``solo_scale`` - a one-seat game (its state names a target score,
  ``State.solo_target()``) is searched for ``1 / (1 + exp(-(score - target) /
  solo_scale))``, in the units of its score; a lone seat's win share, always 1, would
  give the search nothing to maximise (:func:`~engine.search._common.backup_values`).

* ``prior_weight`` - progressive bias from the game's cheap evaluation: each new
  child is valued once by ``State.heuristic()`` (:func:`~engine.search.evaluate.prior_utility`)
  and selection counts that value as ``prior_weight`` playouts of the child, so
  ``(sum of utilities + prior_weight * prior) / (visits + prior_weight)`` replaces the
  mean (exploration still counts real visits).  ``0``: off, the plain UCT of
  :mod:`engine.search.baseline`.  Its effect fades as real playouts come in.
* ``prior_scale`` - the heuristic's score margin over the best opponent becomes the
  prior's utility through ``1 / (1 + exp(-margin / prior_scale))``; ``None``: the
  ``margin_scale``, or the bare win share (1 for the leader) when that is ``None``.
* ``mast_epsilon`` - informed playouts: ``None`` (the default) plays uniformly random
  moves; a number from 0 to 1 plays MAST playouts (:mod:`engine.search.mast`), each
  move the best by the search's running move averages, or with that probability a
  uniformly random one.  They stop at ``playout_depth`` like random ones.
* ``levels`` - the game's strength levels 1-5 (:mod:`engine.search.levels`): each
  level's iteration budget and move choice; :data:`~engine.search.levels.LEVELS` unless
  the game's ladder needs a table of its own (a game where more search soon stops
  paying spreads its levels over smaller budgets).

* ``leaf_value`` - what values a leaf after its playout: ``"heuristic"`` (the default,
  ``State.heuristic()``) or ``"learned"``: the game's fitted value model
  (:class:`~engine.search.evaluate.LearnedEvaluator`, docs/learned-values.md), after
  uniformly random moves (a learned leaf does not play MAST playouts).
* ``value_model`` - the model a learned leaf reads: ``package:file`` for a model shipped
  in a package, or the path of a model file (no ``:`` in it); a bot spec names one
  with ``model=PATH``.
* ``learned_depth`` - the random moves before a learned leaf is valued, where they
  differ from ``playout_depth`` (``None``: the same): a game searched with full
  playouts still needs a few moves before its model, and an explicit playout depth
  (:meth:`SearchConfig.overridden`, a bot's ``d=``) sets both.
* ``learned_margin_scale`` - the ``margin_scale`` of a search with a learned leaf,
  where it differs (``None``: the same): a model forecasts the final margin, which
  says by how much the leader leads where a playout's end only says who won, so a game
  searched for the bare win share may be searched for the margin with its model.  A
  caller's margin scale (a bot's ``m=``) sets both; a one-seat game, which keeps the
  heuristic leaf, keeps ``margin_scale`` too.

* ``move_prior`` - a learned move prior (:mod:`engine.search.move_prior`, a file that
  ``furnace fit-prior`` writes): ``package:file`` or a path, as ``value_model``; ``None``:
  none.  A bot spec names one with ``mp=PATH`` (``mp=off``: none).
* ``move_prior_weight`` - how much the move prior counts in selection: each child gets
  ``weight * probability / (visits + 1)`` (:class:`~engine.search.tree.Selection`);
  ``0``: off.  A bot spec's ``mpw=WEIGHT``.
* ``learned_playouts`` - the moves before a learned leaf: ``"random"`` (the default,
  uniformly random) or ``"mast"``: MAST playouts at ``mast_epsilon`` (0.3 where the game
  sets none), then the model.  A bot spec's ``lp=random|mast``.
* ``prior_playouts`` - playouts that follow the move prior
  (:class:`~engine.search.move_prior.PriorPlayoutEvaluator`): ``None`` (the default)
  plays the playouts the other settings say; a number from 0 to 1 plays ``playout_depth``
  moves each drawn by the prior's probabilities, or with that probability uniformly,
  then the heuristic.  It takes effect with a ``move_prior`` and a ``playout_depth``
  only, and gives way to a learned leaf.  A bot spec's ``pp=EPSILON`` (``pp=off``: none).

Later settings belong here too, as new fields with defaults that keep today's
behaviour.

>>> config_for("oh-my-goods").margin_scale
3.0
>>> config_for("chess") == DEFAULT_CONFIG
True
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
from dataclasses import dataclass, replace

from engine.game import GameInfo, State
from engine.search.evaluate import Evaluator, LearnedEvaluator, ValueModel, playout_evaluator
from engine.search.levels import LEVELS, Level, check_levels, get_level
from engine.search.move_prior import PriorModel, PriorPlayoutEvaluator

#: The ``margin_scale`` argument of the searches that means "what the game's search
#: configuration says"; ``None`` means the bare win share.
GAME_MARGIN = "game"
MarginScale = float | None | str

#: ``learned_playouts``: the moves before a learned leaf.
RANDOM_PLAYOUTS = "random"
MAST_PLAYOUTS = "mast"
LEARNED_PLAYOUTS = (RANDOM_PLAYOUTS, MAST_PLAYOUTS)
#: The MAST epsilon of a learned leaf's MAST playouts in a game that sets none.
DEFAULT_MAST_EPSILON = 0.3

#: ``leaf_value``: what values a leaf after the playout (``heuristic()`` or the model).
HEURISTIC_LEAF = "heuristic"
LEARNED_LEAF = "learned"
LEAF_VALUES = (HEURISTIC_LEAF, LEARNED_LEAF)


@functools.cache
def shipped_model(resource: str) -> ValueModel:
    """The value model ``resource`` names (read once per process): ``package:file``, a
    file shipped in a package, or else (no ``:`` in it) the path of a model file."""
    if ":" not in resource:
        return ValueModel.load(resource)
    return ValueModel.from_json(json.loads(_resource_text(resource)))


def _resource_text(resource: str) -> str:
    package, _, name = resource.partition(":")
    return importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")


@functools.cache
def shipped_prior(resource: str) -> PriorModel:
    """The move prior ``resource`` names (read once per process), as
    :func:`shipped_model` reads a value model."""
    if ":" not in resource:
        return PriorModel.load(resource)
    return PriorModel.from_json(json.loads(_resource_text(resource)))


@dataclass(frozen=True)
class SearchConfig:
    """How one game is searched (see the module docstring for each setting)."""

    margin_scale: float | None = None
    playout_depth: int = 0
    c: float | None = None
    solo_scale: float = 20.0
    prior_weight: float = 0.0
    prior_scale: float | None = None
    mast_epsilon: float | None = None
    levels: tuple[Level, ...] = LEVELS
    leaf_value: str = HEURISTIC_LEAF
    value_model: str | None = None
    learned_depth: int | None = None
    learned_margin_scale: float | None = None
    move_prior: str | None = None
    move_prior_weight: float = 0.0
    prior_playouts: float | None = None
    learned_playouts: str = RANDOM_PLAYOUTS

    def __post_init__(self) -> None:
        for name in ("margin_scale", "prior_scale", "learned_margin_scale"):
            self._positive_or_none(name)
        depth = self.playout_depth
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"playout_depth must be a non-negative integer (0: full "
                             f"playouts), not {depth!r}")
        c = self.c
        if c is not None and (isinstance(c, bool | str) or not _finite(c) or c < 0):
            raise ValueError(f"c must be a non-negative number or None, not {c!r}")
        solo = self.solo_scale
        if isinstance(solo, bool | str) or not _finite(solo) or not solo > 0:
            raise ValueError(f"solo_scale must be a positive number, not {solo!r}")
        object.__setattr__(self, "solo_scale", float(solo))
        weight = self.prior_weight
        if isinstance(weight, bool | str) or not _finite(weight) or weight < 0:
            raise ValueError(f"prior_weight must be a non-negative number (0: no prior), "
                             f"not {weight!r}")
        object.__setattr__(self, "prior_weight", float(weight))
        epsilon = self.mast_epsilon
        if epsilon is not None:
            if isinstance(epsilon, bool | str) or not _finite(epsilon) \
                    or not 0 <= epsilon <= 1:
                raise ValueError(f"mast_epsilon must be a number from 0 to 1 or None "
                                 f"(uniform playouts), not {epsilon!r}")
            object.__setattr__(self, "mast_epsilon", float(epsilon))
        check_levels(self.levels)
        if self.leaf_value not in LEAF_VALUES:
            raise ValueError(f"leaf_value must be one of {', '.join(LEAF_VALUES)}, "
                             f"not {self.leaf_value!r}")
        if self.leaf_value == LEARNED_LEAF and self.value_model is None:
            raise ValueError("a learned leaf value needs a value_model (package:file or a path)")
        learned = self.learned_depth
        if learned is not None and (isinstance(learned, bool) or not isinstance(learned, int)
                                    or learned < 0):
            raise ValueError(f"learned_depth must be a non-negative integer or None, "
                             f"not {learned!r}")
        move_weight = self.move_prior_weight
        if isinstance(move_weight, bool | str) or not _finite(move_weight) or move_weight < 0:
            raise ValueError(f"move_prior_weight must be a non-negative number (0: off), "
                             f"not {move_weight!r}")
        object.__setattr__(self, "move_prior_weight", float(move_weight))
        if self.learned_playouts not in LEARNED_PLAYOUTS:
            raise ValueError(f"learned_playouts must be one of {', '.join(LEARNED_PLAYOUTS)}, "
                             f"not {self.learned_playouts!r}")
        playouts = self.prior_playouts
        if playouts is not None:
            if isinstance(playouts, bool | str) or not _finite(playouts) \
                    or not 0 <= playouts <= 1:
                raise ValueError(f"prior_playouts must be a number from 0 to 1 or None, "
                                 f"not {playouts!r}")
            object.__setattr__(self, "prior_playouts", float(playouts))
        # Numbers as floats, so that equal settings compare and print alike.
        if c is not None:
            object.__setattr__(self, "c", float(c))

    def _positive_or_none(self, name: str) -> None:
        value = getattr(self, name)
        if value is None:
            return
        if isinstance(value, bool | str) or not _finite(value) or not value > 0:
            raise ValueError(f"{name} must be a positive number or None, not {value!r}")
        object.__setattr__(self, name, float(value))  # as a float: equal settings compare alike

    def evaluator(self, num_players: int | None = None) -> Evaluator:
        """A new leaf evaluator for a game of ``num_players`` seats (``None``: any):
        full playouts, or truncated ones at ``playout_depth``; MAST-guided ones
        (:mod:`engine.search.mast`, a fresh table) with ``mast_epsilon``; a learned leaf
        value (uniformly random moves, then the model) with ``leaf_value`` learned,
        whatever ``mast_epsilon`` says, in a game of two seats or more.  A model predicts
        the margins between seats (its fit has no intercept, docs/learned-values.md), and
        a seat alone has none: a one-seat game keeps the heuristic leaf."""
        if self.leaf_value == LEARNED_LEAF and num_players != 1:
            assert self.value_model is not None
            depth = self.playout_depth if self.learned_depth is None else self.learned_depth
            if self.learned_playouts == MAST_PLAYOUTS and depth:
                from engine.search.mast import MastEvaluator

                epsilon = DEFAULT_MAST_EPSILON if self.mast_epsilon is None \
                    else self.mast_epsilon
                return MastEvaluator(epsilon, depth, self.margin_scale, self.solo_scale,
                                     shipped_model(self.value_model))
            return LearnedEvaluator(depth, shipped_model(self.value_model))
        if self.prior_playouts is not None and self.move_prior is not None \
                and self.playout_depth:
            return PriorPlayoutEvaluator(self.playout_depth, shipped_prior(self.move_prior),
                                         self.prior_playouts)
        if self.mast_epsilon is not None:
            from engine.search.mast import MastEvaluator

            return MastEvaluator(self.mast_epsilon, self.playout_depth, self.margin_scale,
                                 self.solo_scale)
        return playout_evaluator(self.playout_depth)

    def level(self, number: int) -> Level:
        """Strength level ``number`` (1-5) of this game's table; ``ValueError`` otherwise."""
        return get_level(number, self.levels)

    def move_prior_model(self) -> PriorModel | None:
        """The move prior the trees read: the model ``move_prior`` names when its weight
        is not 0, else None."""
        if self.move_prior is None or not self.move_prior_weight:
            return None
        return shipped_prior(self.move_prior)

    def prior_margin_scale(self) -> float | None:
        """The scale that turns the prior's heuristic margin into a utility:
        ``prior_scale``, else ``margin_scale`` (``None``: the bare win share)."""
        return self.margin_scale if self.prior_scale is None else self.prior_scale

    def exploration(self, default: float) -> float:
        """The exploration constant: the game's ``c``, else the search's ``default``."""
        return float(default if self.c is None else self.c)

    def overridden(self, *, c: float | None = None, margin_scale: MarginScale = GAME_MARGIN,
                   playout_depth: int | None = None,
                   prior_weight: float | None = None,
                   num_players: int | None = None) -> SearchConfig:
        """This configuration with the settings a caller gave instead of the game's:
        ``c`` (``None``: keep), ``margin_scale`` (:data:`GAME_MARGIN`: keep; ``None``: the bare win share; a
        learned leaf's scale too), ``playout_depth`` (``None``: keep; ``0``: full
        playouts; a learned leaf's depth too) and ``prior_weight`` (``None``: keep;
        ``0``: no prior).  A search that values its leaves by the model
        (:meth:`evaluator` for ``num_players`` seats) is searched at
        ``learned_margin_scale`` when the caller gave no scale; the result has no
        ``learned_margin_scale`` left, so overriding it again changes nothing more."""
        config = self
        if c is not None:
            config = replace(config, c=c)
        if prior_weight is not None:
            config = replace(config, prior_weight=prior_weight)
        if margin_scale != GAME_MARGIN:
            if isinstance(margin_scale, str):
                raise ValueError(f"margin_scale must be positive, None or {GAME_MARGIN!r}, "
                                 f"not {margin_scale!r}")
            config = replace(config, margin_scale=margin_scale, learned_margin_scale=None)
        elif config.learned_margin_scale is not None:
            learned = config.leaf_value == LEARNED_LEAF and num_players != 1
            config = replace(config, learned_margin_scale=None,
                             margin_scale=config.learned_margin_scale if learned
                             else config.margin_scale)
        if playout_depth is not None:
            config = replace(config, playout_depth=playout_depth, learned_depth=None)
        return config


#: The ``move_prior`` of :class:`SearchOverrides` (a bot spec's ``mp=off``) that searches
#: without a move prior whatever the game's configuration says.
NO_MOVE_PRIOR = "off"
#: The move prior's weight when a caller names a model for a game whose configuration
#: gives it none.
DEFAULT_MOVE_WEIGHT = 1.0

#: The ``mast_epsilon`` of :class:`SearchOverrides` (a bot spec's ``mast=off``) that plays
#: uniformly random playouts whatever the game's configuration says.
UNIFORM_PLAYOUTS = "off"


@dataclass(frozen=True)
class SearchOverrides:
    """A caller's changes to a game's search configuration, in one object (a bot spec's
    options): ``None`` (``margin_scale``: :data:`GAME_MARGIN`) keeps the game's setting.

    ``c``, ``margin_scale``, ``playout_depth`` and ``prior_weight`` as in
    :meth:`SearchConfig.overridden`; ``mast_epsilon`` a MAST epsilon, or
    :data:`UNIFORM_PLAYOUTS`; ``leaf_value`` one of :data:`LEAF_VALUES`; ``value_model``
    a model file (``package:file`` or a path) for a learned leaf; ``move_prior`` a move
    prior file, or :data:`NO_MOVE_PRIOR`, and ``move_prior_weight`` its weight (naming a
    model for a game whose weight is 0 gives it :data:`DEFAULT_MOVE_WEIGHT`).
    """

    c: float | None = None
    margin_scale: MarginScale = GAME_MARGIN
    playout_depth: int | None = None
    prior_weight: float | None = None
    mast_epsilon: float | str | None = None
    leaf_value: str | None = None
    value_model: str | None = None
    move_prior: str | None = None
    move_prior_weight: float | None = None
    prior_playouts: float | str | None = None
    learned_playouts: str | None = None

    def __post_init__(self) -> None:
        playouts = self.prior_playouts
        if isinstance(playouts, str) and playouts != NO_MOVE_PRIOR:
            raise ValueError(f"prior_playouts must be a number, None or {NO_MOVE_PRIOR!r}, "
                             f"not {playouts!r}")
        epsilon = self.mast_epsilon
        if isinstance(epsilon, str) and epsilon != UNIFORM_PLAYOUTS:
            raise ValueError(f"mast_epsilon must be a number, None or {UNIFORM_PLAYOUTS!r}, "
                             f"not {epsilon!r}")
        if self.value_model is not None and self.leaf_value not in (None, LEARNED_LEAF):
            raise ValueError(f"a value model is a learned leaf value, not leaf_value "
                             f"{self.leaf_value!r}")

    def applied_to(self, config: SearchConfig, state: State) -> SearchConfig:
        """``config`` (a game's) with these changes, settled for ``state``'s seats
        (:func:`resolve_config`); ``ValueError`` for a value model of another game."""
        if self.leaf_value is not None:
            config = replace(config, leaf_value=self.leaf_value)
        if self.value_model is not None:
            game = game_name(state)
            fitted_for = shipped_model(self.value_model).game
            if fitted_for != game:
                raise ValueError(f"the value model {self.value_model} was fitted for "
                                 f"{fitted_for}, not {game}")
            config = replace(config, leaf_value=LEARNED_LEAF, value_model=self.value_model)
        epsilon = self.mast_epsilon
        if epsilon is not None:
            config = replace(config, mast_epsilon=None if isinstance(epsilon, str) else epsilon)
        if self.move_prior == NO_MOVE_PRIOR:
            config = replace(config, move_prior=None)
        elif self.move_prior is not None:
            fitted_for = shipped_prior(self.move_prior).game
            if fitted_for != game_name(state):
                raise ValueError(f"the move prior {self.move_prior} was fitted for "
                                 f"{fitted_for}, not {game_name(state)}")
            config = replace(config, move_prior=self.move_prior,
                             move_prior_weight=config.move_prior_weight or DEFAULT_MOVE_WEIGHT)
        if self.move_prior_weight is not None:
            config = replace(config, move_prior_weight=self.move_prior_weight)
        if self.learned_playouts is not None:
            config = replace(config, learned_playouts=self.learned_playouts)
        playouts = self.prior_playouts
        if isinstance(playouts, str):  # NO_MOVE_PRIOR, checked when made
            config = replace(config, prior_playouts=None)
        elif playouts is not None:
            if config.move_prior is None:
                raise ValueError("prior playouts need a move prior (mp=PATH)")
            config = replace(config, prior_playouts=playouts)
        return config.overridden(c=self.c, margin_scale=self.margin_scale,
                                 playout_depth=self.playout_depth,
                                 prior_weight=self.prior_weight,
                                 num_players=state.num_players)


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


#: Settings of a game without an entry in :data:`SEARCH_CONFIGS`.
DEFAULT_CONFIG = SearchConfig()

#: Oh My Goods!' strength levels.  With the default table levels 4 and 5 (1,500 and 6,000
#: ISMCTS iterations) came out 45 Elo apart; this one keeps level 5, moves the default
#: levels 1-3 up a place and adds a weaker level 1 (48/60 against random, 12.5/60
#: against the 50-iteration level).  Its ladder meets every expectation of the levels:
#: +283, +456, +916, +1192, +1426 Elo over random, 60 games per pair; docs/strength.md.
OH_MY_GOODS_LEVELS = (
    Level(1, iterations=20, temperature=0.75),
    Level(2, iterations=50, temperature=0.5),
    Level(3, iterations=200, temperature=0.25),
    Level(4, iterations=300, temperature=0.1),
    Level(5, iterations=6000, temperature=0.0),
)

#: Samara's strength levels: the default table's levels 1-3, and levels 4 and 5 at four
#: times its budgets.  Since the learned leaf became Samara's default search an
#: iteration costs about a fifth of one with a full MAST playout; four times the
#: iterations keep levels 4 and 5 at about the time a move took before, levels 1-3 stay
#: the weak levels they were.  Ladder: docs/strength.md.
SAMARA_LEVELS = (
    Level(1, iterations=50, temperature=0.5),
    Level(2, iterations=200, temperature=0.25),
    Level(3, iterations=300, temperature=0.1),
    Level(4, iterations=6000, temperature=0.0),
    Level(5, iterations=24000, temperature=0.0),
)

#: Stephens' strength levels.  A Stephens game is long (about 110 decisions a seat), so a
#: small difference a move adds up to a sure win: with the table before this one (100,
#: 250, 500, 1,000 and 3,000 iterations) each of levels 2, 3 and 4 swept the level below
#: it, 12 games to 0, and such sweeps leave the ladder's intervals wide, while 3,000
#: iterations played almost like 1,000 (7 of 12 games).  The levels were then chosen with
#: 12-game arenas between neighbours to score 75-92% against the level below (the
#: default table's level 1, 50 iterations, won only 7 of 10 games against random).
#: Ladder: docs/strength.md.
STEPHENS_LEVELS = (
    Level(1, iterations=100, temperature=0.5),
    Level(2, iterations=200, temperature=0.3),
    Level(3, iterations=300, temperature=0.2),
    Level(4, iterations=600, temperature=0.075),
    Level(5, iterations=1000, temperature=0.0),
)

#: The search settings of 2026-11-30 (the default before learned move priors), by
#: ``GameInfo.name``, kept as they are: ``classic`` bot specs search with them
#: (:func:`classic_config`), so that every later change of the default can be measured
#: against the same opponent (``furnace arena GAME --bots mcts:t=0.1,classic:t=0.1``).
#: :data:`SEARCH_CONFIGS` starts from them.
CLASSIC_CONFIGS: dict[str, SearchConfig] = {
    # c from a sweep of mcts:2000:c=C against uct:2000 (c 1.4), 40 games each: 0.35
    # 24/40, 0.7 27/40, 1.0 21/40.  A heuristic prior (prior_scale 5) did not pay:
    # p=3 19/40, p=10 22/40, p=30 20/40.  MAST playouts against that search
    # (mcts:2000:mast=E against mcts:2000, 40 games each): E 0.1 30/40, 0.2 29/40,
    # 0.3 31/40, 0.5 23/40.  docs/strength.md.
    # The learned leaf value is the default since it passed the adoption arenas (141 of
    # 200 two-player games at equal time against those MAST playouts, more wins at 3
    # and 4 players; docs/learned-values.md, "Adoption"): 10 random moves (of a random
    # game's 70-90), then the model, searched for the margin (5 VP) the model forecasts,
    # its scores at the model's level (heuristic() is the present prestige here).
    # v=heuristic is the search with MAST playouts, for the bare win share, as before.
    "samara": SearchConfig(c=0.7, mast_epsilon=0.3, levels=SAMARA_LEVELS,
                           leaf_value=LEARNED_LEAF, learned_margin_scale=5.0,
                           value_model="engine.samara:value-model.json", learned_depth=10),
    # Random playouts end close together (a typical winning margin is a few VP), so
    # search is steered by the margin: measured in docs/rules/oh-my-goods.md (3 since
    # the two-goods chain rule; it was 5).
    # Leaves: 20 random moves, then the heuristic (points and the promise in hand), which
    # beat full random playouts (uct:2000) in 25 of 30 games at 2,000 iterations, and
    # 160 of 200 as the default search; docs/strength.md.  Those 20 moves MAST-guided
    # (mcts:2000:mast=E against mcts:2000, 30 games each): E 0.1 20/30, 0.3 20/30.
    # A learned leaf value (v=learned, the same 20 moves but uniformly random, then the
    # model; docs/learned-values.md) is shipped but not the default.
    "oh-my-goods": SearchConfig(margin_scale=3.0, playout_depth=20, mast_epsilon=0.3,
                                levels=OH_MY_GOODS_LEVELS,
                                value_model="engine.oh_my_goods:value-model.json"),
    # A game whose random playouts are long (hundreds of decisions) may be given a
    # playout_depth, once its heuristic() has been measured against full playouts.
    # Stephens: a random game is 200-500 decisions (about 15 full playouts a second in
    # pure Python), so leaves are valued by 20 random moves and the heuristic, a
    # forecast of the final score in VP.  Margin scale 20 from a sweep against greedy
    # (5, 10, 20: 15/20, 15/20, 20/20 games won); docs/rules/stephens.md.
    # The learned value (the same 20 moves, uniformly random, then the model) is the
    # default since it passed the adoption arenas: 167 of 200 two-player games at equal
    # time, more wins at 3 and 4 players; the levels' ladder was run again with it
    # (docs/learned-values.md, "Adoption").  Solo keeps the heuristic (evaluator()).
    "stephens": SearchConfig(margin_scale=20.0, playout_depth=20, levels=STEPHENS_LEVELS,
                             leaf_value=LEARNED_LEAF,
                             value_model="engine.stephens:value-model.json"),
}


#: Each game's search settings, by ``GameInfo.name``: :data:`CLASSIC_CONFIGS` with what
#: changed since.  Only what differs from :data:`DEFAULT_CONFIG` needs an entry.
SEARCH_CONFIGS: dict[str, SearchConfig] = dict(CLASSIC_CONFIGS)
# Every game ships a learned move prior (``furnace fit-prior``, docs/learned-values.md,
# "Learned move priors"), off in the default search (weight 0): at equal time none has
# passed the adoption bar against the classic search.  A bot spec turns it on with
# ``mpw=WEIGHT`` (``pp=EPSILON``: in the playouts too).
for _name, _package in (("samara", "samara"), ("oh-my-goods", "oh_my_goods"),
                        ("stephens", "stephens")):
    SEARCH_CONFIGS[_name] = replace(CLASSIC_CONFIGS[_name],
                                    move_prior=f"engine.{_package}:move-prior.json")


def classic_config(game: State | GameInfo | str) -> SearchConfig:
    """The classic search settings of ``game`` (:data:`CLASSIC_CONFIGS`; a game without
    an entry there gets :data:`DEFAULT_CONFIG`)."""
    return CLASSIC_CONFIGS.get(game_name(game), DEFAULT_CONFIG)


def game_name(game: State | GameInfo | str) -> str:
    """The ``GameInfo.name`` of ``game`` (a state, its ``GameInfo`` or its name)."""
    if isinstance(game, str):
        return game
    if isinstance(game, GameInfo):
        return game.name
    return game.info.name


def config_for(game: State | GameInfo | str) -> SearchConfig:
    """The search settings of ``game`` (a state, its ``GameInfo`` or its name)."""
    return SEARCH_CONFIGS.get(game_name(game), DEFAULT_CONFIG)


def resolve_config(state: State, config: SearchConfig | None = None) -> SearchConfig:
    """The settings a search of ``state`` uses: ``config`` (default: the game's entry,
    :func:`config_for`) settled for ``state``'s seats (:meth:`SearchConfig.overridden`:
    a learned leaf's own margin scale where the leaf is learned)."""
    base = config_for(state) if config is None else config
    if not isinstance(base, SearchConfig):
        raise TypeError(f"config must be a SearchConfig, not {type(base).__name__}")
    return base.overridden(num_players=state.num_players)
