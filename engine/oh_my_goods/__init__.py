"""Oh My Goods! (Pfister, 2015) for 2-4 players: rules and card catalogue."""

from engine.oh_my_goods.catalogue import Catalogue, CatalogueError, load_catalogue
from engine.oh_my_goods.features import FEATURE_NAMES, FEATURES
from engine.oh_my_goods.rules import OhMyGoodsGame
from engine.oh_my_goods.state import OhMyGoodsState
from engine.oh_my_goods.vocabulary import INFO, decode_move, encode_move

GAME = OhMyGoodsGame()

__all__ = [
    "FEATURES",
    "FEATURE_NAMES",
    "GAME",
    "INFO",
    "Catalogue",
    "CatalogueError",
    "OhMyGoodsGame",
    "OhMyGoodsState",
    "decode_move",
    "encode_move",
    "load_catalogue",
]
