"""Tournaments between bots: a tool above the product (the CLI's ``arena`` and ``ladder``).

* :mod:`tournaments.arena` plays seeded games between bot specs, seats rotated, with
  Wilson intervals;
* :mod:`tournaments.ratings` fits Bradley-Terry (Elo-scaled) ratings with intervals;
* :mod:`tournaments.ladder` runs a round robin of bots, resumable, and rates them.

They use the engine's protocol and bots; nothing in the product imports them.
"""

from tournaments.arena import play_game, run_arena, wilson_interval
from tournaments.ladder import LadderError, run_ladder
from tournaments.ratings import (
    Pairing,
    Rating,
    RatingError,
    RatingFit,
    fit_ratings,
    intervals_overlap,
)

__all__ = [
    "LadderError",
    "Pairing",
    "Rating",
    "RatingError",
    "RatingFit",
    "fit_ratings",
    "intervals_overlap",
    "play_game",
    "run_arena",
    "run_ladder",
    "wilson_interval",
]
