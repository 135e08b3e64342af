"""Positions for the load test, sampled from real self-play games and cached.

The load test must send what real clients send: positions from the middle and
end of real games, not only new ones.  :func:`load_positions` plays seeded
games between the engine's quick bots (greedy against random, seats
alternated), keeps every position where a seat is to move, samples
``count`` of them evenly over the games, and stores each with the move played
there (a legal move to check and apply).  The result is cached as JSON (per
game, player count, seed and count); a cached file whose positions the game no
longer loads is made again.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

#: Bumped when the cached file's layout changes.
CACHE_VERSION = 1
#: Bots of the self-play games (cycled over seats, rotated per game).
BOTS = ("greedy", "random")


def cache_dir() -> Path:
    """Where positions are cached: ``$FURNACE_CACHE_DIR`` or ``~/.cache/furnace``."""
    base = os.environ.get("FURNACE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "furnace")
    return Path(base) / "loadtest"


def sample_positions(game_name: str, players: int, count: int = 200, seed: int = 1,
                     games: int | None = None) -> list[dict[str, Any]]:
    """``count`` positions (``{"state": JSON, "move": text, "ply": n, "game": i}``) of
    seeded self-play games where a seat is to move."""
    from engine import registry
    from engine.game import CHANCE, TERMINAL
    from engine.search import make_bot
    from tournaments import play_game

    game = registry.get_game(game_name)
    games = games or max(4, count // 25)
    rng = random.Random(seed)
    candidates: list[dict[str, Any]] = []
    for index in range(games):
        bots = [make_bot(BOTS[(seat + index) % len(BOTS)]) for seat in range(players)]
        state = game.new_game(seed * 1000 + index, players, {})
        replay = state.clone()
        _, moves = play_game(state, bots, random.Random(seed * 1000 + index), max_moves=5000)
        for ply, move in enumerate(moves):
            player = replay.current_player()
            if player not in (CHANCE, TERMINAL):
                candidates.append({"state": replay.to_json(), "move": replay.move_to_text(move),
                                   "ply": ply, "game": index})
            replay.apply(move)
    if not candidates:
        raise ValueError(f"self-play games of {game_name} gave no position with a seat to move")
    rng.shuffle(candidates)
    chosen = candidates[:count]
    chosen.sort(key=lambda p: (p["game"], p["ply"]))
    return chosen


def _valid(game_name: str, positions: list[dict[str, Any]]) -> bool:
    from engine import registry

    game = registry.get_game(game_name)
    try:
        for position in positions:
            state = game.state_from_json(position["state"])
            if state.why_illegal(state.parse_move(position["move"])) is not None:
                return False
    except Exception:  # noqa: BLE001 - any failure: the cache is stale, make it again
        return False
    return bool(positions)


def load_positions(game_name: str, players: int, count: int = 200, seed: int = 1,
                   directory: Path | None = None) -> tuple[list[dict[str, Any]], Path]:
    """Cached positions (made on first use); returns them and the cache file."""
    from engine import registry

    name = registry.get_game(game_name).info.name
    folder = directory if directory is not None else cache_dir()
    path = folder / f"{name}-{players}p-seed{seed}-{count}-v{CACHE_VERSION}.json"
    if path.exists():
        try:
            data = json.loads(path.read_text())
            positions = data["positions"]
            if data.get("version") == CACHE_VERSION and _valid(name, positions):
                return positions, path
        except (OSError, ValueError, KeyError, TypeError):
            pass
    positions = sample_positions(name, players, count, seed)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"version": CACHE_VERSION, "game": name,
                                         "players": players, "seed": seed, "bots": BOTS,
                                         "positions": positions}))
        temporary.replace(path)
    except OSError:
        pass  # a read-only home: the positions still serve this run
    return positions, path
