"""Stephens (Pile Up Games, 2024) for 1-4 players: components, position, rules, scoring.

Registered as ``stephens``, for 1-4 players: one plays solo against the Automa
(:mod:`engine.stephens.solo`).
Interpretations of the rulebook: ``docs/rules/stephens.md``.
"""

from engine.stephens.catalogue import CatalogueError, default_catalogue, load_catalogue
from engine.stephens.codec import state_from_json
from engine.stephens.features import FEATURE_NAMES, FEATURES
from engine.stephens.rules import StephensGame
from engine.stephens.scoring import ScoreBreakdown, final_score, ranking, scores
from engine.stephens.setup import new_state
from engine.stephens.state import INFO, Player, StephensState

GAME = StephensGame()

__all__ = [
    "FEATURES",
    "FEATURE_NAMES",
    "GAME",
    "INFO",
    "CatalogueError",
    "Player",
    "ScoreBreakdown",
    "StephensGame",
    "StephensState",
    "default_catalogue",
    "final_score",
    "load_catalogue",
    "new_state",
    "ranking",
    "scores",
    "state_from_json",
]
