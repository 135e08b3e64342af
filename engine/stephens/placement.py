"""Where a worker may go: the placement rules for creating and reinforcing professions.

Red professions go on the left side, blue ones on the right, starting ones on the
side of their illustration (L470-L481).  On each side a factory must end with
fewer professions than the factory immediately below it; the upper furnaces take
any number (L596-L604).  With the "equal" ability (P2) the counts may also end
equal, never higher (L887-L895).  Counts include every player's cards.

>>> from engine.stephens.setup import new_state
>>> from engine.stephens.vocabulary import FN_UL, SF_LL
>>> state = new_state(seed=0, num_players=2)
>>> cat = state.catalogue
>>> placement_reason(state, 0, cat.profession_ids["stoker"], FN_UL) is None
True
>>> placement_reason(state, 0, cat.profession_ids["packer"], FN_UL)
'packer is a blue profession: it goes on the right side'
"""

from __future__ import annotations

from engine.stephens.abilities import has_ability
from engine.stephens.position import Position
from engine.stephens.vocabulary import (
    DECKS,
    NOBODY,
    PLACES,
    SIDES,
    START,
    TIERS,
    place_below,
    side_of_place,
)


def placement_reason(state: Position, seat: int, card: int, place: int) -> str | None:
    """Why ``seat`` may not attach profession ``card`` to ``place`` now, or None.

    Only the placement rules: taking the card from the display, paying the space
    and having a disk left are the turn's business.
    """
    cat = state.catalogue
    prof = cat.professions[card]
    if not 0 <= place < len(PLACES):
        return f"there is no place {place}"
    if side_of_place(place) != prof.side:
        what = "starting" if prof.deck == START else DECKS[prof.deck]
        return f"{prof.id} is a {what} profession: it goes on the {SIDES[prof.side]} side"
    below = place_below(place)
    if below is None:
        return None
    after = len(state.places[place]) + 1
    limit = len(state.places[below])
    equal_ok = has_ability(cat, state.players[seat], "equal-placement")
    if after < limit or (equal_ok and after == limit):
        return None
    bound = "no more" if equal_ok else "fewer"
    return (f"{PLACES[place]} would hold {after} professions; a factory must hold {bound} "
            f"than the {TIERS[below % 3]} below it ({PLACES[below]}: {limit})")


def reinforce_reason(state: Position, seat: int, card: int) -> str | None:
    """Why ``seat`` may not put an apprentice on profession ``card``, or None (L670-L674)."""
    prof = state.catalogue.professions[card]
    if state.place_of(card) is None:
        return f"{prof.id} is not in play"
    if not prof.has_apprentice_space:
        return f"{prof.id} has no apprentice space"
    if state.apprentice[card] != NOBODY:
        return f"{prof.id} already has an apprentice"
    if state.master[card] == seat:
        return f"the master of {prof.id} is your own worker"
    return None


def placement_holds(state: Position, equal_allowed: bool) -> str | None:
    """Whether the professions on the board could have been placed by the rules: every
    factory holds fewer (or, when ``equal_allowed``, no more) than the one below it,
    unless it is empty.  Returns what is wrong, or None."""
    for place, cards in enumerate(state.places):
        below = place_below(place)
        if below is None or not cards:
            continue
        limit = len(state.places[below])
        if len(cards) > limit or (len(cards) == limit and not equal_allowed):
            return (f"{PLACES[place]} holds {len(cards)} professions and {PLACES[below]} below "
                    f"it {limit}")
    return None
