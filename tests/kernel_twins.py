"""Helpers for testing a compiled kernel against its game's reference rules.

Shared by the game-independent kernel tests (``tests/test_kernel_protocol.py``)
and by each game's own ``test_kernel.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest

from checks.kernel import game_options
from engine.game import Game, State


def kernel_state_or_skip(fast: ModuleType, title: str) -> Any:
    """The ``KernelState`` class of a game's kernel (``fast`` is its bridge module).

    Without the kernel (not built, or ``FURNACE_PURE_PYTHON`` set) the calling
    test module is skipped, so call this at module level only.
    """
    kernel = fast.kernel_module()
    if kernel is None:
        pytest.skip(f"{title} kernel not built (or FURNACE_PURE_PYTHON set)",
                    allow_module_level=True)
    return kernel.KernelState


def assert_same(ref: State, k: Any) -> None:
    """The kernel state ``k`` is the reference state ``ref``, as far as search can tell."""
    assert k.legal_moves() == ref.legal_moves()
    assert k.current_player() == ref.current_player()
    assert k.is_terminal() == ref.is_terminal()
    assert k.to_json() == ref.to_json()


def game_setups(game: Game, games: int, counts: Sequence[int] | None = None
                ) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """(seed, players, options) of ``games`` games: every player count (of ``counts``,
    by default every count of the game) meets every combination of the boolean options
    (the same cycle as :func:`check_kernel`)."""
    counts = counts or game.info.player_counts
    for g in range(games):
        yield 100 + g, counts[g % len(counts)], game_options(game, g, counts)


def random_positions(game: Game, seed: int, players: int,
                     options: dict[str, Any]) -> Iterator[Any]:
    """The positions of one seeded random game, the final one included.

    The same state object is yielded each time, moved on: clone it to keep one.
    """
    state = game.new_game(seed, players, options)
    rng = random.Random(seed)
    while True:
        yield state
        moves = state.legal_moves()
        if not moves:
            return
        state.apply(rng.choice(moves))
