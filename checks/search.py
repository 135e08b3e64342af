"""Prove the compiled search trees answer exactly as the Python trees.

:func:`check_search` reaches seeded positions of a game (every player count and boolean
option in turn, a random number of random moves into a game) and searches each twice
with the same seed and iteration budget: once with the Python tree, the oracle, and once
with the compiled one (:mod:`engine.search.compiled`).  The two analyses must be equal
in everything but the time taken: the visits, win probabilities and expected scores of
every root move, the best move, the principal variation and its texts.  The search
settings cycle through the game's own configuration and variants of it (progressive
bias, full random playouts, bare win shares, a learned leaf value after random or MAST
moves where the game ships a model, a learned move prior, alone, with progressive bias and in playouts, where it
ships one), so each leaf evaluator and utility the compiled tree knows is compared.  A position whose compiled tree cannot run (no kernel
for that player count) is counted as skipped, with the reason.

>>> from engine import registry
>>> report = check_search(registry.get_game("samara"), positions=2, seed=1)  # doctest: +SKIP
>>> report["mismatches"]  # doctest: +SKIP
0
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from checks.kernel import game_options
from engine.game import FurnaceError, Game, State
from engine.search import ISMCTS, MCTS, SearchConfig, config_for, make_tree
from engine.search.analysis import Analysis
from engine.search.compiled import core_module
from engine.search.config import HEURISTIC_LEAF, LEARNED_LEAF, MAST_PLAYOUTS

Progress = Callable[[int, int], None]

#: Descriptions kept in the report (the count covers every mismatch).
MAX_EXAMPLES = 5
#: The depth of the prior (or MAST) playouts compared in a game searched with full
#: playouts.
PRIOR_PLAYOUT_DEPTH = 10
#: The most random moves played to reach a position (a Stephens game takes 200-500).
MAX_PLIES = 400


def search_variants(config: SearchConfig) -> list[tuple[str, SearchConfig]]:
    """The settings compared, by name: the game's configuration first, a learned leaf
    value where the game ships a value model, and a learned move prior where it ships
    one."""
    variants = [
        ("game settings", config),
        ("progressive bias", replace(config, prior_weight=2.0)),
        ("full random playouts", replace(config, playout_depth=0, mast_epsilon=None)),
        ("win shares", replace(config, margin_scale=None, prior_weight=1.0)),
    ]
    if config.value_model is not None:
        variants.append(("learned leaf", replace(config, leaf_value=LEARNED_LEAF,
                                                 mast_epsilon=None)))
        variants.append(("learned leaf after MAST playouts", replace(
            config, leaf_value=LEARNED_LEAF, learned_playouts=MAST_PLAYOUTS,
            learned_depth=config.learned_depth or config.playout_depth or PRIOR_PLAYOUT_DEPTH)))
    if config.move_prior is not None:
        weight = config.move_prior_weight or 1.0
        variants.append(("learned move prior", replace(config, move_prior_weight=weight,
                                                       prior_weight=0.0)))
        variants.append(("move prior and progressive bias",
                         replace(config, move_prior_weight=2.0 * weight, prior_weight=1.0)))
        variants.append(("prior playouts", replace(
            config, leaf_value=HEURISTIC_LEAF, prior_playouts=0.2,
            playout_depth=config.playout_depth or PRIOR_PLAYOUT_DEPTH)))
    return variants


def _position(game: Game, index: int, seed: int, counts: tuple[int, ...]) -> State | None:
    """Position ``index``: a seeded random game played to its end, then replayed to a
    ply drawn uniformly from its length (None if that position has no seat to move)."""
    rng = random.Random(seed * 1000003 + index)
    players = counts[index % len(counts)]
    options = game_options(game, index, counts)
    state = game.new_game(seed + index, players, options)
    played: list[int] = []
    while state.current_player() >= 0 and len(played) < MAX_PLIES:
        moves = state.legal_moves()
        if not moves:
            break
        played.append(rng.choice(moves))
        state.apply(played[-1])
    if not played:
        return None
    state = game.new_game(seed + index, players, options)
    for move in played[:rng.randrange(len(played))]:
        state.apply(move)
    return state if state.current_player() >= 0 and state.legal_moves() else None


def _difference(python: MCTS | ISMCTS, compiled: MCTS | ISMCTS) -> str:
    """How two searches of one position differ: first what their trees answer through
    their one interface (:mod:`engine.search.tree`), then the analyses built on it."""
    for name, a, b in (
            ("root statistics", python.tree.root_statistics(),
             compiled.tree.root_statistics()),
            ("principal variation", python.principal_variation(),
             compiled.principal_variation())):
        if a != b:
            return f"{name}: Python {a!r} vs compiled {b!r}"[:400]
    return _analysis_difference(python.analysis(), compiled.analysis())


def _analysis_difference(python: Analysis, compiled: Analysis) -> str:
    for item in fields(Analysis):
        a, b = getattr(python, item.name), getattr(compiled, item.name)
        if item.name != "elapsed" and a != b:
            return f"{item.name}: Python {a!r} vs compiled {b!r}"[:400]
    return ""


def check_search(game: Game, positions: int, seed: int, iterations: int = 300,
                 players: int | None = None,
                 progress: Progress | None = None) -> dict[str, Any]:
    """Search ``positions`` seeded positions of ``game`` with both trees and compare.

    Position ``i`` is reached from seed ``seed + i`` (see :func:`_position`); it is
    searched for the seat to move with seed ``seed + i`` and ``iterations`` iterations,
    under the variants of :func:`search_variants` in turn.  ``players`` fixes the player
    count (default: every count of the game in turn).  Raises :class:`FurnaceError`
    when the compiled search is not built (or ``FURNACE_PURE_PYTHON`` is set).
    """
    if isinstance(positions, bool) or not isinstance(positions, int) or positions < 0:
        raise FurnaceError(f"positions must be a non-negative integer, not {positions!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise FurnaceError(f"iterations must be a positive integer, not {iterations!r}")
    if core_module() is None:
        raise FurnaceError("the compiled search is not built (or FURNACE_PURE_PYTHON is set)")
    name = game.info.name
    if players is not None:
        game.info.check_players(players)
    counts = (players,) if players is not None else tuple(game.info.player_counts)
    variants = search_variants(config_for(name))
    compared = 0
    mismatches = 0
    skipped: dict[str, int] = {}
    examples: list[str] = []
    for i in range(positions):
        state = _position(game, i, seed, counts)
        label = f"position {i} (seed {seed + i}, {counts[i % len(counts)]} players"
        variant, config = variants[i % len(variants)]
        if state is None:
            skipped["no seat to move"] = skipped.get("no seat to move", 0) + 1
        else:
            fast = make_tree(state, config, seed=seed + i)
            if not fast.compiled:
                reason = fast.python_reason
                skipped[reason] = skipped.get(reason, 0) + 1
            else:
                fast.search(iterations)
                python = make_tree(state, config, seed=seed + i, compiled=False)
                python.search(iterations)
                compared += 1
                problem = _difference(python, fast)
                if problem:
                    mismatches += 1
                    if len(examples) < MAX_EXAMPLES:
                        examples.append(f"{label}, {variant}): {problem}")
        if progress is not None:
            progress(i + 1, positions)
    return {"game": name, "positions": positions, "iterations": iterations,
            "compared": compared, "mismatches": mismatches, "skipped": skipped,
            "examples": examples}
