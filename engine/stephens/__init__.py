"""Stephens (Pile Up Games, 2024): components, position and scoring (piece 1 of 3).

Not registered in :mod:`engine.registry` yet: the moves and the turn flow come with
piece 2.  Interpretations of the rulebook: ``docs/rules/stephens.md``.
"""

from engine.stephens.catalogue import CatalogueError, default_catalogue, load_catalogue
from engine.stephens.codec import state_from_json
from engine.stephens.scoring import ScoreBreakdown, final_score, ranking, scores
from engine.stephens.setup import new_state
from engine.stephens.state import Player, StephensState

__all__ = [
    "CatalogueError",
    "Player",
    "ScoreBreakdown",
    "StephensState",
    "default_catalogue",
    "final_score",
    "load_catalogue",
    "new_state",
    "ranking",
    "scores",
    "state_from_json",
]
