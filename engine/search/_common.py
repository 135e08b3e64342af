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


def root_candidates(legal: Sequence[int], root_moves: Sequence[int]) -> list[int]:
    """The legal moves a tree may try at its root when the caller names them
    (``root_moves``), in ``legal``'s order: a review forces the move a player made into
    a search of its own, so that its figures are measured as the best move's are.
    ``ValueError`` for a move that is not legal, or for none at all."""
    wanted = set(root_moves)
    if not wanted:
        raise ValueError("root_moves names no move")
    missing = wanted.difference(legal)
    if missing:
        raise ValueError(f"root_moves {sorted(missing)} are not legal at the root")
    return [m for m in legal if m in wanted]


#: A one-seat game's utility: (target score, scale); see :func:`solo_utility`.
Solo = tuple[float, float]


def solo_utility(state: object, scale: float) -> Solo | None:
    """``(target, scale)`` for a one-seat game whose state names a target score
    (``State.solo_target()``), else None: the game supplies the target, the search
    configuration the scale (``SearchConfig.solo_scale``)."""
    if getattr(state, "num_players", 0) != 1:
        return None
    target = state.solo_target()  # type: ignore[attr-defined]
    return None if target is None else (float(target), float(scale))


def _logistic(z: float) -> float:
    # exp overflows past ~709; the utility is 0 to double precision long before
    return 0.0 if z > 700.0 else 1.0 / (1.0 + exp(z))


def backup_values(outcome: Outcome, margin_scale: float | None,
                  solo: Solo | None = None) -> tuple[float, ...]:
    """What a playout adds to every node on its path: utilities, win shares, scores.

    Each part has one entry per seat.  The utility (what selection maximises) is the
    win share, or with ``margin_scale`` the logistic of the seat's score margin over
    its best opponent divided by the scale (see :mod:`engine.search.config`).

    A lone seat's win share is always 1, so a one-seat game with ``solo = (target,
    scale)`` values its score against the target instead: ``1 / (1 + exp(-(score -
    target) / scale))``, in both the utility and the reported share (what the
    analysis shows as the seat's "win probability": a soft chance of reaching the
    target).

    >>> from engine.game import Outcome
    >>> backup_values(Outcome((160.0,), (1.0,)), None, (160.0, 20.0))
    (0.5, 0.5, 160.0)
    """
    rewards = tuple(float(r) for r in outcome.rewards)
    scores = tuple(float(s) for s in outcome.scores)
    if solo is not None and len(scores) == 1:
        target, scale = solo
        value = _logistic(-(scores[0] - target) / scale)
        return (value, value, scores[0])
    if margin_scale is None or len(scores) < 2:
        return rewards + rewards + scores
    utilities = []
    for seat, own in enumerate(scores):
        margin = own - max(x for other, x in enumerate(scores) if other != seat)
        utilities.append(_logistic(-margin / margin_scale))
    return tuple(utilities) + rewards + scores
