"""How a game review judges a move: its search budget and the losses behind each label.

A review (:mod:`engine.search.review`) measures what the move a seat played gave up
against the search's best move, in two units: the seat's **win probability** (0-1;
in a one-seat game the soft chance of reaching its target score, see
:func:`~engine.search._common.backup_values`) and **points** of the seat's expected
score margin (its expected score minus the best expected score of another seat; one
seat alone: its expected score, so the points it falls short of the target by).
A move is labelled by the worse of the two losses:

* ``best`` - the search's best move, or no loss on either measure;
* ``good`` - a loss, below both ``inaccuracy`` thresholds;
* ``inaccuracy``, ``mistake``, ``blunder`` - the loss in probability or in points
  reaches that label's threshold (the highest label reached wins).

What a point is worth differs by game (Samara's scores run to about 100, Oh My
Goods!' final margins are a few points), so the thresholds are data per game, kept
here beside the search configuration (:mod:`engine.search.config`) and keyed the
same way, by ``GameInfo.name``; a game without an entry gets
:data:`DEFAULT_REVIEW`.  The search knows no game: nothing else branches on a name.

>>> review_settings_for("samara").label(0.02, 1.0)
'good'
>>> review_settings_for("samara").label(0.12, 0.0)
'mistake'
>>> review_settings_for("samara").label(0.0, 13.0)
'blunder'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.game import GameInfo, State
from engine.search.config import LEAF_VALUES, game_name

#: The labels, from no loss to the largest.
LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
#: The labels a threshold starts (the others need none).
GRADED = LABELS[2:]
#: The labels that stand only if a deeper look agrees (:attr:`ReviewSettings.confirm`).
CONFIRMED = LABELS[3:]


@dataclass(frozen=True)
class ReviewSettings:
    """A game's review: its default budget and its label thresholds.

    ``probability`` and ``points`` hold the losses at which a move becomes an
    inaccuracy, a mistake and a blunder (in that order, each increasing): win
    probability from 0 to 1, and points of expected score margin.
    """

    #: Iterations of each search of a review unless the caller gives a budget.
    budget: int
    probability: tuple[float, float, float]
    points: tuple[float, float, float]
    #: How many times a loss is measured before a label above ``good`` stands: a
    #: decision whose first measurement reaches ``inaccuracy`` is measured again, with
    #: fresh seeds, up to this many times in all, and keeps the measurement with the
    #: smallest loss (:meth:`severity`).  1: once.  For a game whose losses at its
    #: budget spread as wide as a label's step, so that one lucky measurement would
    #: flag a sound move (docs/review.md, "What the labels are worth").
    measurements: int = 1
    #: Whether the review's searches play uniformly random playouts where the game's
    #: search plays MAST ones (``SearchConfig.mast_epsilon``).  MAST steers each
    #: search's playouts by move averages that search learnt from its own first
    #: playouts, so two searches of the same move, seeded apart, can disagree by more
    #: than a label's step; random playouts measure a move the same way every time
    #: (docs/review.md, "What the labels are worth").
    random_playouts: bool = False
    #: The leaf value of the review's searches where it differs from the game's search
    #: (``SearchConfig.leaf_value``; None: the game's).  A learned leaf is fitted to
    #: margins with a ridge penalty, so its margins are smaller than the game's points
    #: that the point thresholds are written in.
    leaf_value: str | None = None
    #: The forecast map the review's figures go through (:mod:`engine.forecast`):
    #: ``"search"``, fitted to the game's own search, or ``"playouts"``, fitted to random
    #: playouts to the end, for a review whose searches' leaves are those
    #: (``random_playouts`` with a leaf played to the end).
    forecast_source: str = "search"
    #: How many times deeper the look is that a mistake or a blunder must pass before
    #: it stands: such a decision's pair of searches is run again with this many times
    #: the budget (and a fresh seed), and the decision keeps that look's losses and
    #: label, whatever they are.  1: no deeper look.  For a game where a strong
    #: player's sound moves are flagged at the budget (docs/review.md, "A strong bot's
    #: moves").
    confirm: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) \
                or self.budget < 2:
            raise ValueError(f"a review budget is an integer of at least 2 iterations (the "
                             f"best and the played move are both searched), not "
                             f"{self.budget!r}")
        for name in ("probability", "points"):
            values = tuple(float(v) for v in getattr(self, name))
            if len(values) != len(GRADED) or not all(math.isfinite(v) and v > 0
                                                     for v in values) \
                    or list(values) != sorted(set(values)):
                raise ValueError(f"{name} thresholds are {len(GRADED)} increasing positive "
                                 f"numbers ({', '.join(GRADED)}), not {values!r}")
            object.__setattr__(self, name, values)
        if self.leaf_value is not None and self.leaf_value not in LEAF_VALUES:
            raise ValueError(f"leaf_value is one of {', '.join(LEAF_VALUES)} or None, not "
                             f"{self.leaf_value!r}")
        if self.forecast_source not in ("search", "playouts"):
            raise ValueError(f"forecast_source is search or playouts, not "
                             f"{self.forecast_source!r}")
        if isinstance(self.measurements, bool) or not isinstance(self.measurements, int) \
                or not 1 <= self.measurements <= 5:
            raise ValueError(f"measurements is an integer from 1 to 5, not "
                             f"{self.measurements!r}")
        if isinstance(self.confirm, bool) or not isinstance(self.confirm, int) \
                or not 1 <= self.confirm <= 20:
            raise ValueError(f"confirm is an integer from 1 (no deeper look) to 20, not "
                             f"{self.confirm!r}")

    def label(self, probability_loss: float, points_loss: float, best: bool = False) -> str:
        """The label of a move that lost ``probability_loss`` and ``points_loss`` against
        the best move (``best``: it is the best move)."""
        level = 0
        for k in range(len(GRADED)):
            if probability_loss >= self.probability[k] or points_loss >= self.points[k]:
                level = k + 1
        if level:
            return GRADED[level - 1]
        return "best" if best or (probability_loss <= 0 and points_loss <= 0) else "good"

    def severity(self, probability_loss: float, points_loss: float) -> float:
        """The larger of a move's two losses as a share of the blunder thresholds
        (0 for no loss; 1 or more: a blunder)."""
        return max(probability_loss / self.probability[-1], points_loss / self.points[-1],
                   0.0)

    def accuracy(self, probability_loss: float, points_loss: float) -> float:
        """A move's accuracy, 0-100: 100 with no loss, falling linearly to 0 at a
        blunder's loss (:meth:`severity`)."""
        return 100.0 * max(0.0, 1.0 - self.severity(probability_loss, points_loss))

    def flags(self, probability_loss: float, points_loss: float) -> bool:
        """Whether the losses reach a label above ``good`` (``inaccuracy`` or worse)."""
        return probability_loss >= self.probability[0] or points_loss >= self.points[0]

    def to_json(self) -> dict[str, object]:
        return {"budget": self.budget, "measurements": self.measurements,
                "confirm": self.confirm,
                "random_playouts": self.random_playouts, "leaf_value": self.leaf_value,
                "forecast_source": self.forecast_source,
                "probability": dict(zip(GRADED, self.probability, strict=True)),
                "points": dict(zip(GRADED, self.points, strict=True))}


#: A game without an entry: thresholds in win probability as chess sites use them
#: (a drop of 5, 10 and 20 points of percentage), and points on the scale of a
#: game scored in tens.
DEFAULT_REVIEW = ReviewSettings(budget=1000, probability=(0.05, 0.10, 0.20),
                                points=(3.0, 6.0, 12.0))

#: Each game's review settings, by ``GameInfo.name``.  The probability thresholds are
#: the default's everywhere; the points follow each game's scale of scores.
REVIEW_SETTINGS: dict[str, ReviewSettings] = {
    # Winning scores of 60-100 points, margins of tens between levels 1 and 4.  Searches
    # of the same move with MAST playouts, seeded apart, spread by 4-10 points at 1,000
    # iterations as at 10,000, random playouts by 1-4; measured twice, the smallest loss
    # kept, 78% of the mistakes and blunders keep their label at 10 times the budget
    # and lose more there (docs/review.md, "What the labels are worth").  Those figures
    # are full random playouts', so the review keeps them whatever leaf play uses, and
    # its figures go through the forecast map fitted to random playouts to the end.
    # A level-5 bot's moves flagged at 1,000 were confirmed at 10 times the budget half
    # the time; a mistake or blunder now stands only if a look 4 times deeper agrees
    # (73% confirmed; docs/review.md, "A strong bot's moves").
    "samara": ReviewSettings(budget=1000, probability=(0.05, 0.10, 0.20),
                             points=(3.0, 6.0, 12.0), measurements=2, random_playouts=True,
                             leaf_value="heuristic", forecast_source="playouts", confirm=4),
    # Final margins are a few points (the search's margin scale is 3 points).  4,000
    # iterations, as long as 1,000 took on the Python tree: the moves flagged at 1,000
    # lost less when searched 10 times longer, those flagged at 4,000 do not
    # (docs/review.md, "What the labels are worth").
    "oh-my-goods": ReviewSettings(budget=4000, probability=(0.05, 0.10, 0.20),
                                  points=(1.0, 2.0, 4.0)),
    # Scores in the hundreds, margin scale and solo scale 20 points; a game of about
    # 110 decisions a seat: 1,000 iterations (a quarter of the time 300 took on the
    # Python tree before the solo kernel and the compiled search).
    # Reviewed with the leaf its play uses (the learned one), whose figures the forecast
    # map fitted to that search puts back in points: the heuristic leaf, which it was
    # reviewed with before forecasts because the learned leaf's ridge-shrunk margins put
    # few losses past the point thresholds, disagreed with the bots on most flags.
    "stephens": ReviewSettings(budget=1000, probability=(0.05, 0.10, 0.20),
                               points=(5.0, 10.0, 20.0)),
}


def review_settings_for(game: State | GameInfo | str) -> ReviewSettings:
    """The review settings of ``game`` (a state, its ``GameInfo`` or its name)."""
    return REVIEW_SETTINGS.get(game_name(game), DEFAULT_REVIEW)
