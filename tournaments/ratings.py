"""Ratings from head-to-head results: a Bradley-Terry fit on the Elo scale.

The model: spec ``i`` scores against spec ``j`` with probability
``1 / (1 + 10 ** ((R_j - R_i) / 400))``, so a 400-point gap means 10:1 odds.  A
game's point is its win share (a draw or a shared win counts half, see
:class:`~engine.game.Outcome`); the fit maximises the likelihood of the points
scored, treating a half point as half a win.

* **Anchor.**  Only differences are identified, so one spec (the *anchor*) is
  fixed at 0 and every rating is relative to it.  :func:`fit_ratings` anchors the
  first name unless told otherwise; ``furnace ladder`` anchors ``random`` when it
  plays, else its first spec.
* **Regularisation.**  A spec that won every game against the rest has an infinite
  maximum-likelihood rating.  Every pair that played gets ``virtual_draws``
  virtual drawn games (default one: half a point to each side), the kind of
  prior Coulom's bayeselo uses.  The fit is then always finite and keeps the
  order; it pulls each pair's score share towards one half by
  ``n / (n + virtual_draws)`` for ``n`` real games, which is small once there
  are many games per pair (100 games at a 76% score: 197.8 instead of 200.2 Elo).  Pairs that never played get
  no virtual games: a disconnected comparison graph stays an error.
* **Intervals.**  ``se`` is the standard error of ``R_i - R_anchor`` from the
  inverse observed Fisher information of the anchored (regularised) fit; ``ci95``
  is ``elo +- 1.96 se``.  The anchor's own interval is ``(0, 0)``.  Two intervals
  that do not overlap (:func:`intervals_overlap`) mean clearly different
  strengths; for the interval of one difference, with the covariance of both
  ratings accounted for, use :meth:`RatingFit.difference`.

>>> fit = fit_ratings([Pairing("mcts:100", "random", games=100, score=76.0)],
...                   anchor="random")
>>> fit.anchor, round(fit["random"].elo, 1), round(fit["mcts:100"].elo, 1)
('random', 0.0, 197.8)
>>> [round(x) for x in fit["mcts:100"].ci95]
[119, 277]
>>> intervals_overlap(fit["mcts:100"], fit["random"])
False
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.game import FurnaceError

if TYPE_CHECKING:
    import numpy as np

# numpy is imported by the functions that fit: engine.search exports this module,
# and every worker process imports engine.search, which numpy would slow down
# several times over.

#: Elo points per unit of natural log-odds.
ELO_PER_NAT = 400.0 / math.log(10.0)
#: Virtual drawn games added to every pair that played (see the module docstring).
DEFAULT_VIRTUAL_DRAWS = 1.0

_Z95 = 1.959963984540054


class RatingError(FurnaceError):
    """Results that give no ratings: a disconnected comparison graph, bad counts..."""


@dataclass(frozen=True)
class Pairing:
    """Results of ``a`` against ``b``: ``games`` played, ``score`` points of ``a``
    (``b`` scored ``games - score``).

    >>> Pairing("greedy", "random", games=10, score=7.5).share
    0.75
    """

    a: str
    b: str
    games: float
    score: float

    @property
    def share(self) -> float:
        """``a``'s points per game (0.5 when no game was played)."""
        return self.score / self.games if self.games else 0.5


@dataclass(frozen=True)
class Rating:
    """One spec's rating: ``elo`` relative to the anchor, its standard error ``se``
    and 95% interval ``ci95`` (both relative to the anchor), and the real games it
    played and points it scored (virtual draws not included)."""

    name: str
    elo: float
    se: float
    ci95: tuple[float, float]
    games: float
    score: float

    @property
    def share(self) -> float:
        """Points per game over all the spec's games (0.5 when it played none)."""
        return self.score / self.games if self.games else 0.5


@dataclass(frozen=True)
class RatingFit:
    """The fitted ratings, in the order of the names given, and their covariance
    (Elo squared, relative to the anchor: the anchor's row and column are zero)."""

    ratings: tuple[Rating, ...]
    anchor: str
    virtual_draws: float
    covariance: tuple[tuple[float, ...], ...]

    def __getitem__(self, name: str) -> Rating:
        for rating in self.ratings:
            if rating.name == name:
                return rating
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.ratings)

    def ranked(self) -> list[Rating]:
        """The ratings, best first (equal ratings keep the order given)."""
        # Rounded so that specs with the same results, whose fitted ratings differ
        # only by the fit's rounding noise, are ranked in the order given.
        return sorted(self.ratings, key=lambda r: -round(r.elo, 6))

    def difference(self, a: str, b: str, z: float = _Z95) -> tuple[float, tuple[float, float]]:
        """``R_a - R_b`` and its interval (``z`` standard errors, 95% by default),
        using the covariance of the two ratings, so it is narrower than the
        intervals of ``a`` and ``b`` taken separately when they move together.

        >>> fit = fit_ratings([Pairing("x", "y", 50, 25.0), Pairing("y", "z", 50, 25.0)])
        >>> diff, (lo, hi) = fit.difference("z", "x")
        >>> round(diff, 6) == 0.0, lo < 0 < hi
        (True, True)
        """
        i, j = self.names.index(a), self.names.index(b)
        var = self.covariance[i][i] + self.covariance[j][j] - 2.0 * self.covariance[i][j]
        diff = self.ratings[i].elo - self.ratings[j].elo
        half = z * math.sqrt(max(var, 0.0))
        return diff, (diff - half, diff + half)


def intervals_overlap(x: Rating, y: Rating) -> bool:
    """Whether the 95% intervals of ``x`` and ``y`` share a point.

    >>> r = lambda lo, hi: Rating("r", (lo + hi) / 2, 1.0, (lo, hi), 10, 5)
    >>> intervals_overlap(r(0, 100), r(90, 200)), intervals_overlap(r(0, 100), r(101, 200))
    (True, False)
    """
    return x.ci95[0] <= y.ci95[1] and y.ci95[0] <= x.ci95[1]


def fit_ratings(
    results: Iterable[Pairing],
    names: Sequence[str] | None = None,
    anchor: str | None = None,
    virtual_draws: float = DEFAULT_VIRTUAL_DRAWS,
) -> RatingFit:
    """Bradley-Terry ratings on the Elo scale by (regularised) maximum likelihood.

    ``results`` may name a pair several times, in either order; they add up.
    ``names`` fixes the order of the ratings (default: order of first appearance);
    every name must have played (one without games is unconnected).  ``anchor``
    (default: the first name) is fixed at 0.  ``virtual_draws`` drawn games are added to each pair
    that played; with 0 the plain maximum-likelihood fit is returned, which
    exists only when no group of specs scored every point against the rest.

    Raises :class:`RatingError` (a ``ValueError``) for negative counts, a score
    outside ``0..games``, an unknown anchor, or results that do not connect every
    name to every other (ratings across unconnected groups are undefined).
    """
    import numpy as np

    if not (virtual_draws >= 0.0 and math.isfinite(virtual_draws)):
        raise RatingError(f"virtual_draws must be a finite number >= 0, not {virtual_draws!r}")
    pairings = list(results)
    order: list[str] = list(names) if names is not None else []
    if len(set(order)) != len(order):
        raise RatingError(f"names must be distinct: {order}")
    index = {name: i for i, name in enumerate(order)}
    for p in pairings:
        for name in (p.a, p.b):
            if name not in index:
                if names is not None:
                    raise RatingError(f"{name!r} has results but is not among the names")
                index[name] = len(order)
                order.append(name)
    k = len(order)
    if k == 0:
        raise RatingError("no names to rate")
    anchor = order[0] if anchor is None else anchor
    if anchor not in index:
        raise RatingError(f"the anchor {anchor!r} is not among the names {order}")

    games = np.zeros((k, k))
    points = np.zeros((k, k))  # points[i, j]: what i scored against j
    for p in pairings:
        if not (math.isfinite(p.games) and math.isfinite(p.score)):
            raise RatingError(f"{p.a} vs {p.b}: games and score must be finite")
        if p.games < 0 or not 0.0 <= p.score <= p.games:
            raise RatingError(f"{p.a} vs {p.b}: score {p.score} must be in 0..games "
                              f"({p.games})")
        if p.a == p.b:
            if p.games:
                raise RatingError(f"{p.a} cannot play against itself")
            continue
        i, j = index[p.a], index[p.b]
        games[i, j] += p.games
        games[j, i] += p.games
        points[i, j] += p.score
        points[j, i] += p.games - p.score
    _check_connected(order, games > 0, "played")

    played = games > 0
    n = games + virtual_draws * played
    w = points + 0.5 * virtual_draws * played
    if virtual_draws == 0.0:
        # Without the prior a finite maximum needs every group to have scored
        # against every other: the "scored against" graph must be strongly connected.
        _check_connected(order, w > 0, "scored a point against")
        _check_connected(order, (w > 0).T, "conceded a point to")

    theta = _newton(n, w, index[anchor])
    free = [i for i in range(k) if i != index[anchor]]
    cov = np.zeros((k, k))
    if free:
        info = _fisher_information(n, theta)[np.ix_(free, free)]
        cov[np.ix_(free, free)] = np.linalg.inv(info) * ELO_PER_NAT**2

    ratings = []
    for i, name in enumerate(order):
        elo = float(theta[i] * ELO_PER_NAT)
        se = math.sqrt(max(float(cov[i, i]), 0.0))
        ratings.append(Rating(name=name, elo=elo, se=se,
                              ci95=(elo - _Z95 * se, elo + _Z95 * se),
                              games=float(games[i].sum()), score=float(points[i].sum())))
    return RatingFit(ratings=tuple(ratings), anchor=anchor, virtual_draws=float(virtual_draws),
                     covariance=tuple(tuple(float(v) for v in row) for row in cov))


def _check_connected(names: Sequence[str], edges: np.ndarray, verb: str) -> None:
    """Raise unless every name is reachable from the first along ``edges[i, j]``."""
    import numpy as np

    seen = {0}
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(edges[i]):
            if int(j) not in seen:
                seen.add(int(j))
                frontier.append(int(j))
    if len(seen) < len(names):
        inside = [names[i] for i in sorted(seen)]
        outside = [n for i, n in enumerate(names) if i not in seen]
        if verb == "played":
            raise RatingError(
                f"the results are not connected: {', '.join(inside)} never played "
                f"{', '.join(outside)} (directly or through others), so their ratings "
                "cannot be compared")
        raise RatingError(
            f"no finite ratings without virtual draws: {', '.join(inside)} never {verb} "
            f"{', '.join(outside)}")


def _fisher_information(n: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Minus the Hessian of the log-likelihood (natural units); it does not depend
    on the outcomes, so observed and expected information coincide."""
    import numpy as np

    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
    weights = n * p * p.T
    info = -weights
    np.fill_diagonal(info, weights.sum(axis=1) - np.diag(weights))
    return info


def _log_likelihood(n: np.ndarray, w: np.ndarray, theta: np.ndarray) -> float:
    import numpy as np

    diff = theta[:, None] - theta[None, :]
    # log sigmoid(d) = -log(1 + e^-d), computed without overflow.
    return float((w * -np.logaddexp(0.0, -diff)).sum())


def _newton(n: np.ndarray, w: np.ndarray, anchor: int, tol: float = 1e-10,
            max_steps: int = 200) -> np.ndarray:
    """Maximise the (concave) log-likelihood over the ratings with the anchor held
    at 0: Newton steps, halved until the likelihood does not drop."""
    import numpy as np

    k = len(n)
    theta = np.zeros(k)
    free = [i for i in range(k) if i != anchor]
    if not free:
        return theta
    value = _log_likelihood(n, w, theta)
    for _ in range(max_steps):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        gradient = (w - n * p).sum(axis=1)[free]
        info = _fisher_information(n, theta)[np.ix_(free, free)]
        step = np.linalg.solve(info, gradient)
        scale = 1.0
        while True:
            candidate = theta.copy()
            candidate[free] += scale * step
            new_value = _log_likelihood(n, w, candidate)
            if new_value >= value - 1e-12 * abs(value) or scale < 1e-8:
                break
            scale /= 2.0
        theta, value = candidate, new_value
        if float(np.max(np.abs(scale * step))) < tol:
            return theta
    raise RatingError("the rating fit did not converge")  # pragma: no cover - concave
