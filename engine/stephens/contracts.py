"""Fulfilling personal contracts in a reset (R7): how each one can be paid.

A contract is fulfilled whole, paying every required resource from the personal
supply (L1218-L1232).  A specific accessory goes back to the supply; for an "any
accessory" the player picks the type and the tile stays on the fulfilled card,
counting for accessory sets (L1234-L1239).  With the cube-replacement ability
(C1) each required cube may instead be paid with 2 cubes of one other colour
(L818-L821).  The card goes to the free space nearest the board in the row of its
type (L1251-L1262).

A payment whose cubes are at least another payment's, colour by colour, with the
same accessories, only throws cubes away; it is not offered.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=0, num_players=2)
>>> cat, me = state.catalogue, state.players[0]
>>> crown = cat.contract_ids["crown-01"]            # 1 pink
>>> me.contracts.append(crown); me.cubes[4] = 1
>>> [p.cubes for p in fulfilment_payments(state, 0, crown)]
[(0, 0, 0, 0, 1, 0)]
>>> fulfil(state, 0, crown, fulfilment_payments(state, 0, crown)[0])
>>> me.contracts, me.fulfilled[0] == [crown], me.cubes[4]
([], True, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

from engine.game import IllegalMoveError
from engine.stephens.abilities import has_ability
from engine.stephens.components import Contract
from engine.stephens.position import Position
from engine.stephens.vocabulary import COLOURS


@dataclass(frozen=True, order=True)
class Payment:
    """What fulfilling one contract takes from the personal supply."""

    cubes: tuple[int, ...]  # per colour
    returned: tuple[int, ...]  # specific accessories, per type, back to the supply
    placed: tuple[int, ...]  # accessories of the player's choice, per type, on the card


def _cube_payments(required: tuple[int, ...], replace: int | None) -> set[tuple[int, ...]]:
    """Every cube vector paying ``required``: each cube itself or, with the
    replacement ability, ``replace`` cubes of one other colour."""
    options: set[tuple[int, ...]] = {tuple([0] * len(COLOURS))}
    for colour, count in enumerate(required):
        payers = [colour] + ([c for c in range(len(COLOURS)) if c != colour]
                             if replace else [])
        grown = set()
        for base in options:
            for chosen in combinations_with_replacement(payers, count):
                vector = list(base)
                for payer in chosen:
                    vector[payer] += 1 if payer == colour else replace or 0
                grown.add(tuple(vector))
        options = grown
    return options


def fulfilment_payments(state: Position, seat: int, contract: int) -> list[Payment]:
    """The ways ``seat`` can pay ``contract`` from its supply now, sorted; empty when
    it cannot.  Dominated payments (more cubes of some colour, none fewer, same
    accessories) are left out."""
    cat = state.catalogue
    player = state.players[seat]
    replace = None
    if has_ability(cat, player, "cube-replacement"):
        replace = cat.disks[cat.disk_with("cube-replacement")].per
    return list(_payments(cat.contracts[contract], replace, tuple(player.cubes),
                          tuple(player.accessories)))


# Legal moves at a fulfil decision ask for every contract's payments, and so does
# playing one of them; the answer depends only on these few values, and working it
# out (every cube vector, then the dominance filter) is the costliest step of a
# reset, so it is remembered.
@lru_cache(maxsize=8192)
def _payments(spec: Contract, replace: int | None, held: tuple[int, ...],
              accessories: tuple[int, ...]) -> tuple[Payment, ...]:
    cubes = [v for v in _cube_payments(spec.cubes, replace)
             if all(n <= h for n, h in zip(v, held, strict=True))]
    cubes = [v for v in cubes
             if not any(w != v and all(a <= b for a, b in zip(w, v, strict=True))
                        for w in cubes)]
    left = [h - n for h, n in zip(accessories, spec.accessories, strict=True)]
    if min(left) < 0:
        return ()
    placements = []
    for chosen in combinations_with_replacement(range(len(left)), spec.any_accessories):
        placed = [0] * len(left)
        for t in chosen:
            placed[t] += 1
        if all(p <= h for p, h in zip(placed, left, strict=True)):
            placements.append(tuple(placed))
    return tuple(sorted(Payment(c, spec.accessories, p) for c in cubes for p in placements))


def fulfil_reason(state: Position, seat: int, contract: int,
                  payment: Payment) -> str | None:
    """Why ``seat`` may not fulfil ``contract`` with ``payment``, or None."""
    cat = state.catalogue
    player = state.players[seat]
    if contract not in player.contracts:
        return f"{cat.contracts[contract].id} is not one of your contracts to fulfil"
    payments = fulfilment_payments(state, seat, contract)
    if not payments:
        return f"you cannot pay everything {cat.contracts[contract].id} requires"
    if payment not in payments:
        return f"that is not a way to pay {cat.contracts[contract].id}"
    return None


def fulfil(state: Position, seat: int, contract: int, payment: Payment) -> None:
    """Pay ``contract`` and move it to the next space of its row."""
    reason = fulfil_reason(state, seat, contract, payment)
    if reason is not None:
        raise IllegalMoveError(reason)
    cat = state.catalogue
    player = state.players[seat]
    for c, n in enumerate(payment.cubes):
        player.cubes[c] -= n
    for t in range(len(cat.accessories)):
        player.accessories[t] -= payment.returned[t] + payment.placed[t]
        player.placed_accessories[t] += payment.placed[t]
    player.contracts.remove(contract)
    row = cat.board.contract_rows.index(cat.contracts[contract].type)
    player.fulfilled[row].append(contract)
