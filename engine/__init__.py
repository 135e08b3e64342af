"""Furnace's game engine: the game protocol, the registry and the games themselves."""

from engine.game import (
    CHANCE,
    TERMINAL,
    FurnaceError,
    Game,
    GameInfo,
    GameOption,
    IllegalMoveError,
    InvalidOptionError,
    InvalidStateError,
    MoveParseError,
    Outcome,
    State,
    UnknownGameError,
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "FurnaceError",
    "Game",
    "GameInfo",
    "GameOption",
    "IllegalMoveError",
    "InvalidOptionError",
    "InvalidStateError",
    "MoveParseError",
    "Outcome",
    "State",
    "UnknownGameError",
]
