"""Small helpers shared by the search modules (seed derivation, chance sampling, the
values a tree backs up)."""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Sequence
from math import exp

from engine.game import Outcome

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


def backup_values(outcome: Outcome, margin_scale: float | None) -> tuple[float, ...]:
    """What a playout adds to every node on its path: utilities, win shares, scores.

    Each part has one entry per seat.  The utility (what selection maximises) is the
    win share, or with ``margin_scale`` the logistic of the seat's score margin over
    its best opponent divided by the scale (see :mod:`engine.search.config`).
    """
    rewards = tuple(float(r) for r in outcome.rewards)
    scores = tuple(float(s) for s in outcome.scores)
    if margin_scale is None or len(scores) < 2:
        return rewards + rewards + scores
    utilities = []
    for seat, own in enumerate(scores):
        margin = own - max(x for other, x in enumerate(scores) if other != seat)
        z = -margin / margin_scale
        # exp overflows past ~709; the utility is 0 to double precision long before
        utilities.append(0.0 if z > 700.0 else 1.0 / (1.0 + exp(z)))
    return tuple(utilities) + rewards + scores
