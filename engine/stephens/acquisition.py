"""Committing to contracts and funding investments: the ``acquire`` decision.

Plate glass from the lower left furnace lets a player commit to one of the five
face-up contracts, paying the influence printed beside its space, into one of 3
slots for contracts to fulfil (L323-L346); from the lower right furnace, fund an
investment for coins, into the row of its cube colour (any row without cubes,
L387-L447).  Abilities: C2 takes 2 cards with a white cube (both priced where they
lie, the refill waiting for the end, L823-L829); C3 discards the cheapest card
first when a card could be acquired after it, the display sliding and refilling at
once (L831-L836); C4 takes 1 off one card, never below 1 (L838-L845).  The "acquire" supply bonus takes one card of
either kind, with C3 and C4 but not C2 (L1838-L1840; docs/rules/stephens.md A-6).

One outcome, one move sequence: the discount goes on the first card where it saves
something (a card costing 1 gains nothing from it); a second card lies on a
dearer space than the first, except an investment going to the same row as the
first, where the order of the two decides their columns (A-40).  Taking nothing
(``skip``) is always possible ("you may", L328, L394).

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=1, num_players=2)
>>> open_acquisition(state, 0, CONTRACTS, white=True)   # 2 influence: costs 1 and 2
>>> [move_to_text(state, m) for m in acquire_moves(state, state.decisions[-1])]
['contract crown-04', 'contract colonies-06', 'skip']
"""

from __future__ import annotations

from engine.game import Event
from engine.stephens.abilities import has_ability
from engine.stephens.displays import (
    PILES,
    card_id,
    cards_after_discard,
    costs,
    discard_cheapest,
    display,
    slide_and_refill,
)
from engine.stephens.frames import Frame
from engine.stephens.investments import investment_rows
from engine.stephens.moves import (
    CONTRACT,
    DISCARD_CHEAPEST,
    INVESTMENT,
    SKIP,
    encode,
    kind_of,
    move_to_text,
    pack,
    payload_of,
    unpack,
)
from engine.stephens.position import EMPTY, Position
from engine.stephens.vocabulary import COLOURS, CONTRACTS, INVESTMENTS
from engine.wording import count

EITHER = 2
__all__ = ["CONTRACTS", "EITHER", "INVESTMENTS", "acquire_moves", "acquire_reason",
           "apply_acquire", "move_to_text", "open_acquisition"]


def open_acquisition(state: Position, seat: int, kind: int, white: bool) -> None:
    """Push ``seat``'s acquisition of ``kind`` (CONTRACTS, INVESTMENTS or EITHER);
    ``white``: it comes with plate glass from a furnace (C2 applies)."""
    cat = state.catalogue
    player = state.players[seat]
    left = 1
    if white and has_ability(cat, player, "two-cards"):
        left = cat.disks[cat.disk_with("two-cards")].n
    state.decisions.append(Frame.make(
        "acquire", seat, pile=kind, left=left,
        discount=int(has_ability(cat, player, "discount")),
        cheapest=int(has_ability(cat, player, "discard-cheapest")), first=-1, row=-1))


def price(state: Position, frame: Frame, pile: int, space: int) -> tuple[int, bool]:
    """(what the card on ``space`` costs this player, whether the discount is used)."""
    cost = costs(state, pile)[space]
    if frame.num("discount") and cost > 1:
        cat = state.catalogue
        cut = cat.disks[cat.disk_with("discount")].n
        return max(1, cost - cut), True
    return cost, False


def _budget(state: Position, seat: int, pile: int) -> int:
    player = state.players[seat]
    return player.influence if pile == CONTRACTS else player.coins


def _space_allowed(frame: Frame, space: int, row: int = -1) -> bool:
    first = frame.num("first")
    return first < 0 or space > first or (row >= 0 and row == frame.num("row"))


def _acquirable_after_discard(state: Position, frame: Frame, pile: int) -> bool:
    """Whether C3 may discard the cheapest card of ``pile``: "before acquiring the new
    one" (L831-L832), so only when a card of that pile could be acquired after it (a
    contract slot free, a card the player can pay for on the display the discard
    leaves; a price is the space's, so which card the deck reveals does not matter)."""
    if pile == CONTRACTS and len(state.players[frame.seat].contracts) >= \
            state.catalogue.board.contract_slots:
        return False
    budget = _budget(state, frame.seat, pile)
    return any(price(state, frame, pile, space)[0] <= budget
               for space in range(cards_after_discard(state, pile)))


def acquire_moves(state: Position, frame: Frame) -> list[int]:
    seat, kind = frame.seat, frame.num("pile")
    player = state.players[seat]
    out = []
    if frame.num("cheapest") and frame.num("first") < 0:
        for pile in (CONTRACTS, INVESTMENTS):
            if kind in (pile, EITHER) and _acquirable_after_discard(state, frame, pile):
                out.append(encode(DISCARD_CHEAPEST, pile))
    if kind in (CONTRACTS, EITHER) and len(player.contracts) < \
            state.catalogue.board.contract_slots:
        for space, card in enumerate(state.contract_display):
            if card != EMPTY and _space_allowed(frame, space) and \
                    price(state, frame, CONTRACTS, space)[0] <= player.influence:
                out.append(encode(CONTRACT, card))
    if kind in (INVESTMENTS, EITHER):
        for space, card in enumerate(state.investment_display):
            if card == EMPTY or price(state, frame, INVESTMENTS, space)[0] > player.coins:
                continue
            for row in investment_rows(state.catalogue, card):
                if _space_allowed(frame, space, row):
                    out.append(encode(INVESTMENT, pack([card, row])))
    out.append(encode(SKIP))
    return out


def acquire_reason(state: Position, frame: Frame, move: int) -> str | None:
    cat = state.catalogue
    seat, kind = frame.seat, frame.num("pile")
    what, payload = kind_of(move), payload_of(move)
    if what == SKIP:
        return None if payload == 0 else "skip takes nothing more"
    if what == DISCARD_CHEAPEST:
        if payload not in (CONTRACTS, INVESTMENTS):
            return "discard the cheapest contract or investment"
        if kind not in (payload, EITHER):
            return f"this is an acquisition of {PILES[kind]}s"
        if not has_ability(cat, state.players[seat], "discard-cheapest"):
            return "discarding the cheapest card needs the ability C3"
        if not frame.num("cheapest") or frame.num("first") >= 0:
            return "the cheapest card may be discarded only once, before acquiring"
        if all(c == EMPTY for c in display(state, payload)):
            return f"the {PILES[payload]} display is empty"
        if not _acquirable_after_discard(state, frame, payload):
            return (f"the cheapest card is discarded only before acquiring a new one, and "
                    f"no {PILES[payload]} could be acquired after it")
        return None
    pile = CONTRACTS if what == CONTRACT else INVESTMENTS
    if kind not in (pile, EITHER):
        return f"this is an acquisition of {PILES[kind]}s"
    card, row = (payload, -1) if pile == CONTRACTS else unpack(payload, 2)
    names = cat.contracts if pile == CONTRACTS else cat.investments
    if pile == CONTRACTS and payload >= len(names) or not 0 <= card < len(names):
        return f"there is no {PILES[pile]} {card}"
    spaces = display(state, pile)
    if card not in spaces:
        return f"{card_id(state, pile, card)} is not on the {PILES[pile]} display"
    space = spaces.index(card)
    player = state.players[seat]
    if pile == CONTRACTS and len(player.contracts) >= cat.board.contract_slots:
        return f"you already hold {cat.board.contract_slots} contracts to fulfil"
    if pile == INVESTMENTS:
        rows = investment_rows(cat, card)
        if row not in rows:
            colours = [COLOURS[cat.board.investment_rows[r]] for r in rows]
            return (f"{card_id(state, pile, card)} goes in the {' or '.join(colours)} "
                    f"row")
    if not _space_allowed(frame, space, row):
        return ("take the second card from a dearer space than the first (the order of "
                "two cards matters only for two investments in one row)")
    cost, _ = price(state, frame, pile, space)
    have = _budget(state, seat, pile)
    if cost > have:
        return f"{card_id(state, pile, card)} costs {_price(pile, cost)}; you have {have}"
    return None


def _price(pile: int, cost: int) -> str:
    """A card's price in what its pile is paid with: contracts in influence, the rest in
    coins."""
    return f"{cost} influence" if pile == CONTRACTS else count(cost, "coin")


def apply_acquire(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    """Play a legal acquisition move; the frame is on top of the stack."""
    seat = frame.seat
    what, payload = kind_of(move), payload_of(move)
    if what == SKIP:
        _finish(state, frame, events)
        return
    if what == DISCARD_CHEAPEST:
        discard_cheapest(state, payload, events)
        state.decisions[-1] = frame.with_(cheapest=0, pile=payload)
        return
    player = state.players[seat]
    pile = CONTRACTS if what == CONTRACT else INVESTMENTS
    card, row = (payload, -1) if pile == CONTRACTS else unpack(payload, 2)
    spaces = display(state, pile)
    space = spaces.index(card)
    cost, discounted = price(state, frame, pile, space)
    spaces[space] = EMPTY
    if pile == CONTRACTS:
        player.influence -= cost
        player.contracts.append(card)
    else:
        player.coins -= cost
        player.investments[row].append(card)
    where = "" if pile == CONTRACTS else \
        f" into the {COLOURS[state.catalogue.board.investment_rows[row]]} row"
    events.append(Event(f"P{seat + 1} takes {PILES[pile]} {card_id(state, pile, card)}"
                        f"{where} for {_price(pile, cost)}"))
    frame = frame.with_(left=frame.num("left") - 1, first=space, row=row, pile=pile,
                        cheapest=0, discount=0 if discounted else frame.num("discount"))
    state.decisions[-1] = frame
    if frame.num("left") == 0:
        _finish(state, frame, events)


def _finish(state: Position, frame: Frame, events: list[Event]) -> None:
    """The acquisition ends: the display slides and refills."""
    state.decisions.pop()
    kind = frame.num("pile")
    for pile in (CONTRACTS, INVESTMENTS):
        if kind in (pile, EITHER):
            slide_and_refill(state, pile, events)
