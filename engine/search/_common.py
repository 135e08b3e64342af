"""Small helpers shared by the search modules (seed derivation, chance sampling)."""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Sequence

_SEED_MASK = (1 << 63) - 1


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from ``parts`` (ints, strings), the same in every process.

    Uses a cryptographic hash of ``repr(parts)`` rather than ``hash()``, so it does not
    depend on ``PYTHONHASHSEED``.
    """
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & _SEED_MASK


def cumulative(weights: Sequence[float]) -> list[float]:
    """Running sums of ``weights`` (the last entry is the total)."""
    total = 0.0
    out: list[float] = []
    for w in weights:
        total += float(w)
        out.append(total)
    return out


def sample_index(cum: Sequence[float], rng: random.Random) -> int:
    """An index drawn with probability proportional to the steps of ``cum``."""
    i = bisect_right(cum, rng.random() * cum[-1])
    last = len(cum) - 1
    return i if i < last else last


def sample_chance(outcomes: Sequence[tuple[int, float]], rng: random.Random) -> int:
    """A chance move drawn by probability from ``State.chance_outcomes()``."""
    if not outcomes:
        raise ValueError("chance node without outcomes")
    return outcomes[sample_index(cumulative([p for _, p in outcomes]), rng)][0]
