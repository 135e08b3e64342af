"""The registry of games: look a game up by name, list what is available.

>>> from engine import registry
>>> [info.name for info in registry.list_games()]
['samara', 'oh-my-goods', 'stephens']
>>> registry.get_game("chess")
Traceback (most recent call last):
...
engine.game.UnknownGameError: unknown game 'chess' (available: samara, oh-my-goods, stephens)
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.game import Game, GameInfo, State, UnknownGameError

# Game name -> module that defines ``GAME`` (a Game instance).  Imported lazily so
# that listing games stays cheap and one broken game cannot break the others.
_MODULES: dict[str, str] = {
    "samara": "engine.samara",
    "oh-my-goods": "engine.oh_my_goods",
    "stephens": "engine.stephens",
}
_LOADED: dict[str, Game] = {}


def game_names() -> list[str]:
    return list(_MODULES)


def get_game(name: str) -> Game:
    """The :class:`Game` registered under ``name`` (case and ``_``/``-`` insensitive)."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in _MODULES:
        raise UnknownGameError(f"unknown game {name!r} (available: {', '.join(_MODULES)})")
    if key not in _LOADED:
        _LOADED[key] = importlib.import_module(_MODULES[key]).GAME
    return _LOADED[key]


def list_games() -> list[GameInfo]:
    return [get_game(name).info for name in _MODULES]


def new_game(
    name: str, seed: int, num_players: int, options: dict[str, Any] | None = None
) -> State:
    """Shortcut for ``get_game(name).new_game(seed, num_players, options)``."""
    return get_game(name).new_game(seed, num_players, options)


def state_from_json(data: dict[str, Any]) -> State:
    """Rebuild a state of whichever game ``data["game"]`` names."""
    from engine.game import InvalidStateError

    if not isinstance(data, dict) or "game" not in data:
        raise InvalidStateError("saved state must be a JSON object with a 'game' field")
    return get_game(data["game"]).state_from_json(data)
