"""The random stream of playouts, identical in pure Python and in the C kernels.

Rollouts draw moves with SplitMix64 (``moves[next() % len(moves)]``) so that a
search gives the same answer whether or not a compiled kernel is present.

>>> rng = PlayoutRng(1)
>>> [rng.next() % 10 for _ in range(5)]
[5, 9, 0, 5, 1]
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1


class PlayoutRng:
    """SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and easy to mirror in C."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An index in ``range(n)``."""
        return self.next() % n

    def unit(self) -> float:
        """A float in [0, 1) from the top 53 bits."""
        return (self.next() >> 11) * (1.0 / (1 << 53))
