"""The solo opponent cards' standing rules, read by the rules they change.

An opponent card (L1777-L1800) is set up once (:func:`engine.stephens.solo.setup_solo`)
and then changes ordinary rules for the whole game: the display space it closes
(:func:`closed_space`, read when a display slides and refills) and the order in
which accessories may be gained (:func:`accessory_gain_ok`, read by the accessory
decisions).  Its other effects are written into the position at setup (a lower
track, stacked influence disks, a lost ability).  Without an opponent card every
rule here allows everything.
"""

from __future__ import annotations

from engine.stephens.position import Position
from engine.stephens.vocabulary import CONTRACTS


def opponent_effect(state: Position) -> str | None:
    return state.catalogue.solo.opponents[state.opponent].effect if state.opponent >= 0 else None


def closed_space(state: Position, pile: int) -> int | None:
    """The display space of ``pile`` an opponent card closes for the game (the one
    costing 5, L1791-L1793), or None."""
    if state.opponent < 0 or opponent_effect(state) != "no-cost-5-spaces":
        return None
    cat = state.catalogue
    costs = cat.contract_costs if pile == CONTRACTS else cat.investment_costs
    n = cat.solo.opponents[state.opponent].n
    return costs.index(n) if n in costs else None


def accessory_gain_ok(state: Position, held: list[int], delta: list[int]) -> bool:
    """Opponent card "accessory-sets": a duplicate accessory only after completing the
    previous set of 3 different ones (L1784-L1786): each accessory gained must be of a
    type the player holds fewest of (counting those placed on fulfilled contracts)."""
    if opponent_effect(state) != "accessory-sets":
        return True
    placed = state.players[0].placed_accessories
    counts = [h + p + min(d, 0) for h, p, d in zip(held, placed, delta, strict=True)]
    gains = [max(d, 0) for d in delta]
    for _ in range(sum(gains)):
        low = min(counts)
        t = next((t for t, g in enumerate(gains) if g and counts[t] == low), None)
        if t is None:
            return False
        gains[t] -= 1
        counts[t] += 1
    return True
