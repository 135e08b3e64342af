"""Shuffles and draws from the SplitMix64 generator a position carries.

Every random event of a game (deck shuffles, the starting professions, refills
from reshuffled decks) draws from ``state.rng``, a boxed 64-bit SplitMix64 state,
so a position is never at CHANCE and a game replays exactly from its seed.

>>> rng = [seed_state(7)]
>>> cards = list(range(6))
>>> shuffle(rng, cards)
>>> sorted(cards) == list(range(6)) and rng[0] != seed_state(7)
True
"""

from __future__ import annotations

from engine.playout_rng import MASK64, PlayoutRng


def seed_state(seed: int) -> int:
    """The generator state a game with ``seed`` starts from."""
    return (seed * 0x9E3779B97F4A7C15 + 0x5E7E4E25) & MASK64


def below(rng: list[int], n: int) -> int:
    """An index in ``range(n)``, advancing the boxed state."""
    gen = PlayoutRng(rng[0])
    value = gen.below(n)
    rng[0] = gen.state
    return value


def shuffle(rng: list[int], items: list[int]) -> None:
    """Fisher-Yates, in place."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
