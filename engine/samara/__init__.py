"""Samara (Cwali, 2015) for 2-5 players: rules, catalogue and kernel bridge."""

from engine.samara.catalogue import Catalogue, CatalogueError, load_catalogue
from engine.samara.rules import INFO, SamaraGame, SamaraState, decode_move, encode_move

GAME = SamaraGame()

__all__ = [
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
