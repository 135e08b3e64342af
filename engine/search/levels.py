"""Strength levels 1-5 (1 weakest): a table per game, level -> (search budget, move choice).

A level is what a player picks from a menu ("level 3") rather than a search budget;
``level:N`` bot specs (:mod:`engine.search.bots`), ``furnace play --bots level:N``, the
arena and the gRPC server's ``BestMoveRequest.level`` all read the game's table,
``SearchConfig.levels`` (:mod:`engine.search.config`): :data:`LEVELS` unless the game
has one of its own (:func:`check_levels` says what a table must be).  Each
level runs the default search (``mcts``: MCTS, or ISMCTS in a hidden-information game,
with the game's search configuration, :func:`~engine.search.dispatch.make_tree`) for a
fixed number of iterations, then chooses a move from the root's visit counts:

* the strong levels (4 and 5 of the default and Stephens' tables, 5 of Oh My Goods!')
  play the most visited move, ``Analysis.best_move``;
* the weaker ones sample a move with probability proportional to
  ``visits ** (1 / temperature)`` over the visited moves only
  (:func:`choose_by_visits`): the higher the temperature, the likelier a move the
  search thought nearly as good, which is how a human errs.  A move the search never
  visited is never played, so a weak level is never a uniformly random player; with
  shallow budgets its visit counts are noisier, which adds a second, milder kind of
  mistake.

Budgets are iterations, not seconds, so that a level is the same player on every
machine, with or without the compiled kernel, and a fixed seed gives the same move.

The temperatures were chosen from the mean regret of each level's choice (how much win
probability it gives up against a 10,000-iteration search's estimates) on seeded random
Samara and Oh My Goods! positions: level 1 stays clearly better than a uniformly random
move (at a temperature of 1 and under 100 iterations it hardly was).  The budgets come
from ``furnace ladder`` measurements in Samara (docs/strength.md): a first table (100,
300, 1000, 2000, 5000) had only 2.5 times between the two strongest levels, which play
the most visited move alike; the next (50, 200, 600, 1500, 6000) put level 3, at 600
iterations and a low temperature, only 84 Elo below level 4, so level 3 now searches
300; with it, and again after the search gained MAST playouts, the Samara ladder met
every expectation of the levels.  In Oh My Goods! the same table's levels 4 and 5
came out only 45 Elo apart (1,500 and 6,000 ISMCTS iterations play almost alike), so
that game has a table of its own over smaller budgets
(``engine.search.config.OH_MY_GOODS_LEVELS``).  In Stephens the default table's level 1
(50 iterations) won only 7 of 10 games against random, and in its long games small
differences a move add up to sure wins, so Stephens' table searches more at the weak
levels and lies closer together, up to 1,000 iterations at level 5
(``engine.search.config.STEPHENS_LEVELS``).  Samara's default search became the learned
leaf, whose iterations cost about a fifth of a full MAST playout's, so its levels 4 and
5 search four times the default table's budgets (``engine.search.config.SAMARA_LEVELS``).  Level 5 takes under about a second a move
with the compiled kernels and seconds to tens of seconds on the pure-Python rules
(Stephens' solo game, which its kernel leaves to them).
Because the levels run the default search, their strength moves when that search
improves, and the tables should then be measured again.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from engine.search.analysis import Analysis


@dataclass(frozen=True)
class Level:
    """One strength level: its search budget and how it picks among the root's moves."""

    number: int
    #: Iterations of the level's search.
    iterations: int
    #: Temperature of the choice over the root's visit counts; 0: the most visited move.
    temperature: float

    @property
    def name(self) -> str:
        """How the level reads as a bot spec and in arena tables: ``level:3``."""
        return f"level:{self.number}"

    def choose(self, analysis: Analysis, rng: random.Random) -> int:
        """The level's move after a search whose result is ``analysis`` (draws from ``rng``
        only when the level samples)."""
        return choose_by_visits(analysis, self.temperature, rng)


#: The default table, weakest first: ``LEVELS[n - 1]`` is level ``n``.
LEVELS: tuple[Level, ...] = (
    Level(1, iterations=50, temperature=0.5),
    Level(2, iterations=200, temperature=0.25),
    Level(3, iterations=300, temperature=0.1),
    Level(4, iterations=1500, temperature=0.0),
    Level(5, iterations=6000, temperature=0.0),
)
MIN_LEVEL = LEVELS[0].number
MAX_LEVEL = LEVELS[-1].number


def valid_levels() -> str:
    """The level numbers, for error messages: ``1, 2, 3, 4, 5 (1 weakest)``."""
    return ", ".join(str(level.number) for level in LEVELS) + " (1 weakest)"


def check_levels(table: tuple[Level, ...]) -> None:
    """Raise ``ValueError`` unless ``table`` is a level table: levels 1-5 in order, each
    with a positive iteration budget and a finite temperature >= 0, budgets growing and
    temperatures falling from level to level (a stronger level never searches less)."""
    if not isinstance(table, tuple) or not all(isinstance(level, Level) for level in table):
        raise ValueError(f"a level table is a tuple of Level, not {table!r}")
    numbers = [level.number for level in table]
    if numbers != list(range(MIN_LEVEL, MAX_LEVEL + 1)):
        raise ValueError(f"a level table has levels {valid_levels()} in order, not {numbers}")
    for level in table:
        budget, temperature = level.iterations, level.temperature
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"{level.name} needs a positive integer iteration budget, "
                             f"not {budget!r}")
        if isinstance(temperature, bool) or not isinstance(temperature, int | float) \
                or not 0 <= temperature < math.inf:
            raise ValueError(f"{level.name} needs a finite temperature >= 0, "
                             f"not {temperature!r}")
    for weaker, stronger in itertools.pairwise(table):
        if stronger.iterations <= weaker.iterations or stronger.temperature > weaker.temperature:
            raise ValueError(f"{stronger.name} must search more than {weaker.name} and choose "
                             f"no more loosely: {stronger} after {weaker}")


def get_level(number: int, table: tuple[Level, ...] = LEVELS) -> Level:
    """Level ``number`` of ``table`` (a game's is ``SearchConfig.levels``); ``ValueError``
    naming the valid levels for anything else."""
    if isinstance(number, bool) or not isinstance(number, int) \
            or not MIN_LEVEL <= number <= MAX_LEVEL:
        raise ValueError(f"level must be one of {valid_levels()}, not {number!r}")
    return table[number - MIN_LEVEL]


def choose_by_visits(analysis: Analysis, temperature: float, rng: random.Random) -> int:
    """A root move of ``analysis`` drawn with probability proportional to
    ``visits ** (1 / temperature)`` among the visited moves; ``temperature`` 0 is
    ``analysis.best_move`` (the most visited move, without drawing from ``rng``).

    The moves are taken in the analysis's order (most visited first, deterministic), so
    equal analyses and equal generators give the same move.
    """
    if not temperature >= 0 or math.isinf(temperature):
        raise ValueError(f"temperature must be a finite number >= 0, not {temperature!r}")
    if temperature == 0:
        return analysis.best_move
    visited = [(m.move, m.visits) for m in analysis.moves if m.visits > 0]
    if not visited:
        raise ValueError("the search visited no move")
    most = max(visits for _, visits in visited)
    # Relative to the most visited move, so that a low temperature cannot overflow.
    weights = [math.exp(math.log(visits / most) / temperature) for _, visits in visited]
    point = rng.random() * sum(weights)
    for (move, _), weight in zip(visited, weights, strict=True):
        point -= weight
        if point < 0:
            return move
    return visited[-1][0]  # rounding left a sliver past the last weight


def choice_rng(seed: int) -> random.Random:
    """The generator of a level's choice after a search seeded with ``seed``, for callers
    that have a seed rather than a generator (the gRPC server).

    A stream of its own, not ``random.Random(seed)``: the search draws from that one, and
    a choice made from the same numbers would be correlated with the search's own draws.
    """
    return random.Random(f"furnace-level-choice:{seed}")
