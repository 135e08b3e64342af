"""Supplying the small factories with the cubes reserved on investments (R6).

Every reserved cube must be used (L1200-L1203), distributed as valid combinations
of the factories; each combination supplied gives its bonus, a factory may take the
same combination several times, and a cube counts in one combination only
(L1204-L1216).  A supply is a multiset of combinations; it is written canonically
as the non-decreasing sequence of their catalogue indices, so each distinct
supply has exactly one spelling.

The simple bonuses (influence up to the cap, coins, an accessory of the player's
choice) are taken here; acquiring a contract or investment and assigning a worker
need decisions of their own, so :func:`supply_factories` returns them to the
caller.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=0, num_players=2)
>>> state.players[0].reserved = [1, 0, 1]   # 1 orange, 1 black
>>> ids = [b.id for b in state.catalogue.bonuses]
>>> [[ids[b] for b in plan] for plan in supply_plans(state, 0)]
[['b1', 'b2'], ['b1', 'b3'], ['b5']]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine.game import IllegalMoveError
from engine.stephens.abilities import gain_influence
from engine.stephens.components import Catalogue
from engine.stephens.position import Position
from engine.stephens.vocabulary import WOODEN_NAMES
from engine.wording import count

#: Bonuses that open a decision of their own (piece 2 resolves them).
FOLLOW_UPS = ("acquire", "assign")


def supply_plans(state: Position, seat: int) -> list[tuple[int, ...]]:
    """Every way to supply all of ``seat``'s reserved cubes, each as a non-decreasing
    sequence of bonus indices, in lexicographic order."""
    bonuses = state.catalogue.bonuses
    out: list[tuple[int, ...]] = []

    def extend(start: int, left: tuple[int, ...], plan: tuple[int, ...]) -> None:
        if not any(left):
            out.append(plan)
            return
        for b in range(start, len(bonuses)):
            deliver = bonuses[b].deliver
            if all(d <= h for d, h in zip(deliver, left, strict=True)):
                extend(b, tuple(h - d for d, h in zip(deliver, left, strict=True)), plan + (b,))

    extend(0, tuple(state.players[seat].reserved), ())
    return out


def supply_reason(state: Position, seat: int, plan: Sequence[int]) -> str | None:
    """Why ``plan`` is not a way for ``seat`` to supply its reserved cubes, or None."""
    bonuses = state.catalogue.bonuses
    if any(not 0 <= b < len(bonuses) for b in plan):
        return "unknown supply combination"
    if list(plan) != sorted(plan):
        return "list the combinations in catalogue order"
    delivered = [sum(bonuses[b].deliver[i] for b in plan) for i in range(3)]
    reserved = state.players[seat].reserved
    if delivered != reserved:
        have = ", ".join(f"{n} {c}" for c, n in zip(WOODEN_NAMES, reserved, strict=True) if n)
        give = ", ".join(f"{n} {c}" for c, n in zip(WOODEN_NAMES, delivered, strict=True) if n)
        return (f"every reserved cube must be supplied, each in one combination: you have "
                f"{have or 'none'}, the combinations take {give or 'none'}")
    return None


def supply_factories(state: Position, seat: int, plan: Sequence[int],
                     accessory_types: Sequence[int] = ()) -> list[int]:
    """Supply ``plan``: the cubes go into the factories, the simple bonuses to
    ``seat`` (one accessory type per accessory bonus, in ``plan`` order).  Returns
    the bonuses that still need their own decision (acquire, assign), in order."""
    reason = supply_reason(state, seat, plan)
    cat = state.catalogue
    wanted = sum(cat.bonuses[b].gain == "accessory" for b in plan if 0 <= b < len(cat.bonuses))
    if reason is None and len(accessory_types) != wanted:
        reason = f"name {count(wanted, 'accessory type')}, one per accessory bonus"
    if reason is None and any(not 0 <= t < len(cat.accessories) for t in accessory_types):
        reason = "unknown accessory type"
    if reason is not None:
        raise IllegalMoveError(reason)
    player = state.players[seat]
    types = iter(accessory_types)
    follow_ups = []
    for b in plan:
        bonus = cat.bonuses[b]
        factory = state.factories[bonus.factory]
        for i in range(3):
            factory[i] += bonus.deliver[i]
            player.reserved[i] -= bonus.deliver[i]
        if bonus.gain == "influence":
            gain_influence(cat, player, bonus.n)
        elif bonus.gain == "coin":
            player.coins += bonus.n
        elif bonus.gain == "accessory":
            player.accessories[next(types)] += bonus.n
        else:
            follow_ups.append(b)
    return follow_ups


@cache
def completable(deliveries: tuple[tuple[int, int, int], ...], start: int,
                left: tuple[int, int, int]) -> bool:
    """Whether ``left`` cubes can be supplied exactly with combinations from ``start`` on
    (``deliveries``: :func:`deliveries_of`)."""
    if not any(left):
        return True
    for b in range(start, len(deliveries)):
        d = deliveries[b]
        if all(x <= h for x, h in zip(d, left, strict=True)):
            rest = (left[0] - d[0], left[1] - d[1], left[2] - d[2])
            if completable(deliveries, b, rest):
                return True
    return False


def deliveries_of(catalogue: Catalogue) -> tuple[tuple[int, int, int], ...]:
    """The cubes (orange, pink, black) each supply combination takes, in catalogue order."""
    return tuple(b.deliver for b in catalogue.bonuses)
