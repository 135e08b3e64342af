"""Assigning a worker: creating a profession or reinforcing one, and the disk it unlocks.

Creating takes one of the six face-up professions to a place of its side allowed
by the placement rule, pays the master space's cost and puts a disk there as the
master (L451-L485, L596-L620); reinforcing puts an apprentice on the free second
space of a card in play whose master is another colour, paying that space's cost
(L647-L674).  Either way a disk leaves the player board, and the player then
chooses which ability it unlocks (an ``unlock`` decision, L286-L287).  Without a
disk left neither is possible (L642-L645).  The same moves serve the turn's action
and the "assign a worker" supply bonus (L1851-L1853).

>>> from engine.stephens.setup import new_state
>>> from engine.stephens.vocabulary import FN_UL
>>> state = new_state(seed=1, num_players=2)
>>> card = state.face_up_professions()[1]
>>> create_reason(state, 0, card, FN_UL) is None
True
"""

from __future__ import annotations

from engine.game import Event
from engine.stephens.abilities import unlockable_disks
from engine.stephens.components import Space
from engine.stephens.displays import take_profession
from engine.stephens.frames import Frame
from engine.stephens.placement import placement_reason, reinforce_reason
from engine.stephens.position import EMPTY, Position
from engine.stephens.vocabulary import AUTOMA, PLACES, side_of_place
from engine.wording import count


def disks_left(state: Position, seat: int) -> int:
    """Disks still on ``seat``'s player board (pending unlock choices count as taken)."""
    pending = sum(f.kind == "unlock" and f.seat == seat for f in state.decisions)
    lost = state.players[seat].lost_disk >= 0  # opponent card: that disk is never used
    return len(state.catalogue.disks) - state.players[seat].disks_taken - pending - lost


def cap_reason(state: Position, seat: int) -> str | None:
    """Solo: why one more worker would break the cap, or None.  Your workers (masters
    and apprentices) may never exceed the Automa's by more than 3 (L1564-L1568)."""
    if not state.solo:
        return None
    mine, automa = state.workers_of(seat), state.workers_of(AUTOMA)
    if mine + 1 <= automa + SOLO_WORKER_LEAD:
        return None
    return (f"solo: your workers may not exceed the Automa's by more than "
            f"{SOLO_WORKER_LEAD} (you have {mine}, the Automa {automa})")


#: Solo: how many more workers than the Automa the player may have (L1564-L1568).
SOLO_WORKER_LEAD = 3


def _cost_reason(state: Position, seat: int, space: Space, what: str) -> str | None:
    player = state.players[seat]
    if player.coins < space.coins:
        return f"{what} costs {count(space.coins, 'coin')}; you have {player.coins}"
    if player.influence < space.influence:
        return f"{what} costs {space.influence} influence; you have {player.influence}"
    return None


def create_reason(state: Position, seat: int, card: int, place: int) -> str | None:
    """Why ``seat`` may not create profession ``card`` at ``place`` now, or None."""
    cat = state.catalogue
    if not 0 <= card < len(cat.professions):
        return f"there is no profession {card}"
    if not 0 <= place < len(PLACES):
        return f"there is no place {place}"
    prof = cat.professions[card]
    if card not in state.face_up_professions():
        return f"{prof.id} is not one of the six face-up professions"
    if disks_left(state, seat) == 0:
        return "you have no disk left on your player board"
    reason = placement_reason(state, seat, card, place) or cap_reason(state, seat)
    if reason is not None:
        return reason
    return _cost_reason(state, seat, prof.spaces[0], f"the master space of {prof.id}")


def reinforce_check(state: Position, seat: int, card: int) -> str | None:
    """Why ``seat`` may not reinforce profession ``card`` now, or None."""
    cat = state.catalogue
    if not 0 <= card < len(cat.professions):
        return f"there is no profession {card}"
    reason = reinforce_reason(state, seat, card)
    if reason is not None:
        return reason
    if disks_left(state, seat) == 0:
        return "you have no disk left on your player board"
    reason = cap_reason(state, seat)
    if reason is not None:
        return reason
    prof = cat.professions[card]
    return _cost_reason(state, seat, prof.spaces[1], f"the apprentice space of {prof.id}")


def create_options(state: Position, seat: int) -> list[tuple[int, int]]:
    """Every (card, place) ``seat`` may create now, face-up order then place order."""
    if disks_left(state, seat) == 0 or cap_reason(state, seat) is not None:
        return []
    cat = state.catalogue
    player = state.players[seat]
    out = []
    for card in state.face_up_professions():
        if card == EMPTY:
            continue
        prof = cat.professions[card]
        space = prof.spaces[0]
        if player.coins < space.coins or player.influence < space.influence:
            continue
        for place in range(len(PLACES)):
            if side_of_place(place) == prof.side and \
                    placement_reason(state, seat, card, place) is None:
                out.append((card, place))
    return out


def reinforce_options(state: Position, seat: int) -> list[int]:
    """Every card ``seat`` may reinforce now, by catalogue index."""
    if disks_left(state, seat) == 0 or cap_reason(state, seat) is not None:
        return []
    cards = sorted(c for cards in state.places for c in cards)
    return [c for c in cards if reinforce_check(state, seat, c) is None]


def _pay(state: Position, seat: int, space: Space) -> None:
    player = state.players[seat]
    player.coins -= space.coins
    player.influence -= space.influence


def create(state: Position, seat: int, card: int, place: int, events: list[Event]) -> None:
    """Take the card, attach it, pay, place the master; the unlock decision follows."""
    prof = state.catalogue.professions[card]
    take_profession(state, card, events)
    state.places[place].append(card)
    _pay(state, seat, prof.spaces[0])
    state.master[card] = seat
    events.append(Event(f"P{seat + 1} creates {prof.id} at {PLACES[place]}"
                        + (f", paying {_paid(prof.spaces[0])}" if _paid(prof.spaces[0])
                           else "")))
    push_unlock(state, seat)


def reinforce(state: Position, seat: int, card: int, events: list[Event]) -> None:
    prof = state.catalogue.professions[card]
    _pay(state, seat, prof.spaces[1])
    state.apprentice[card] = seat
    events.append(Event(f"P{seat + 1} reinforces {prof.id}"
                        + (f", paying {_paid(prof.spaces[1])}" if _paid(prof.spaces[1])
                           else "")))
    push_unlock(state, seat)


def _paid(space: Space) -> str:
    parts = [count(space.coins, "coin")] if space.coins else []
    parts += [f"{space.influence} influence"] if space.influence else []
    return " and ".join(parts)


def push_unlock(state: Position, seat: int) -> None:
    state.decisions.append(Frame.make("unlock", seat))


def unlock_options(state: Position, seat: int) -> list[int]:
    """The disks ``seat`` may take off now (only the lowest influence disk: the others
    are dominated, docs/rules/stephens.md A-24)."""
    return unlockable_disks(state.catalogue, state.players[seat])
