"""Samara (Cwali, 2015) for 2-5 players: vocabulary, rules, catalogue, state description,
render and kernel bridge."""

from engine.samara.catalogue import Catalogue, CatalogueError, load_catalogue
from engine.samara.features import FEATURE_NAMES, FEATURES
from engine.samara.rules import SamaraGame
from engine.samara.state import SamaraState
from engine.samara.vocabulary import INFO, decode_move, encode_move

GAME = SamaraGame()

__all__ = [
    "FEATURES",
    "FEATURE_NAMES",
    "GAME",
    "INFO",
    "Catalogue",
    "CatalogueError",
    "SamaraGame",
    "SamaraState",
    "decode_move",
    "encode_move",
    "load_catalogue",
]
