"""The card displays: taking, discarding, sliding and refilling.

Contracts and investments lie face up on five spaces, cheapest first, above
face-down decks.  A card taken leaves a hole; at the end of the acquisition the
remaining cards slide toward the cheapest space and the dear end is refilled from
the deck (L344-L346, L409-L411); an empty deck leaves spaces empty (no reshuffle
is mentioned).  Profession decks are face up: the top card is one of the six
choices, taking it shows the next one at once, and a display space is refilled
from the top (L451-L468).  A profession deck that runs out is rebuilt from its
discard pile, shuffled (L466-L468).

Every draw is reported as an event: the revealed card is public from then on.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=1, num_players=2)
>>> taken = state.contract_display[1]; state.contract_display[1] = EMPTY
>>> events = []; slide_and_refill(state, CONTRACTS, events)
>>> EMPTY in state.contract_display, len(state.contract_deck), len(events)
(False, 33, 1)
"""

from __future__ import annotations

from engine.game import Event
from engine.stephens.opponents import closed_space
from engine.stephens.position import EMPTY, Position
from engine.stephens.randomness import shuffle
from engine.stephens.vocabulary import CONTRACTS

PILES = ("contract", "investment")


def display(state: Position, pile: int) -> list[int]:
    return state.contract_display if pile == CONTRACTS else state.investment_display


def deck(state: Position, pile: int) -> list[int]:
    return state.contract_deck if pile == CONTRACTS else state.investment_deck


def discard_pile(state: Position, pile: int) -> list[int]:
    return state.contract_discard if pile == CONTRACTS else state.investment_discard


def card_id(state: Position, pile: int, card: int) -> str:
    cat = state.catalogue
    return (cat.contracts if pile == CONTRACTS else cat.investments)[card].id


def costs(state: Position, pile: int) -> tuple[int, ...]:
    cat = state.catalogue
    return cat.contract_costs if pile == CONTRACTS else cat.investment_costs


def _room(state: Position, pile: int) -> int:
    """The display spaces cards may lie on (an opponent card may close one)."""
    return len(display(state, pile)) - (state.opponent >= 0
                                        and closed_space(state, pile) is not None)


def cards_after_discard(state: Position, pile: int) -> int:
    """How many cards the display of ``pile``, slid and refilled, holds after C3 discards
    its cheapest one: they lie on the cheapest spaces, whichever the deck reveals."""
    held = sum(c != EMPTY for c in display(state, pile))
    return min(_room(state, pile), held - 1 + len(deck(state, pile))) if held else 0


def slide_and_refill(state: Position, pile: int, events: list[Event]) -> None:
    """Slide the cards toward the cheapest space and refill the dear end from the deck."""
    spaces = display(state, pile)
    cards = [c for c in spaces if c != EMPTY]
    source = deck(state, pile)
    revealed = []
    room = _room(state, pile)
    while len(cards) < room and source:
        cards.append(source.pop())
        revealed.append(card_id(state, pile, cards[-1]))
    spaces[:] = cards + [EMPTY] * (len(spaces) - len(cards))
    if revealed:
        events.append(Event(f"new {PILES[pile]} {'card' if len(revealed) == 1 else 'cards'} "
                            f"on the display: "
                            f"{', '.join(revealed)}"))


def discard_cheapest(state: Position, pile: int, events: list[Event]) -> None:
    """Ability C3: the card on the cheapest occupied space goes to the discard pile, the
    others slide and the deck refills the display at once (L831-L836)."""
    spaces = display(state, pile)
    space = next(k for k, c in enumerate(spaces) if c != EMPTY)
    card = spaces[space]
    spaces[space] = EMPTY
    discard_pile(state, pile).append(card)
    events.append(Event(f"P{state.decisions[-1].seat + 1} discards the cheapest "
                        f"{PILES[pile]}, {card_id(state, pile, card)}"))
    slide_and_refill(state, pile, events)


# -- professions ------------------------------------------------------------------------
#: The display spaces of each colour, the one beside its deck first.
DISPLAY_SPACES = ((0, 1), (3, 2))


def _name(state: Position, card: int) -> str:
    return state.catalogue.professions[card].id


def _renew_deck(state: Position, colour: int, events: list[Event]) -> None:
    """An empty deck is rebuilt from its shuffled discard pile (L466-L468)."""
    deck_cards = state.profession_decks[colour]
    pile = state.profession_discards[colour]
    if deck_cards or not pile:
        return
    deck_cards.extend(sorted(pile))
    pile.clear()
    shuffle(state.rng, deck_cards)
    events.append(Event(f"the {('red', 'blue')[colour]} profession deck is rebuilt from its "
                        f"discard pile; {_name(state, deck_cards[-1])} on top"))


def _draw_top(state: Position, colour: int, events: list[Event]) -> int:
    deck_cards = state.profession_decks[colour]
    if not deck_cards:
        return EMPTY
    card = deck_cards.pop()
    _renew_deck(state, colour, events)
    if deck_cards:
        events.append(Event(f"{_name(state, deck_cards[-1])} is now on top of the "
                            f"{('red', 'blue')[colour]} profession deck"))
    return card


def take_profession(state: Position, card: int, events: list[Event]) -> None:
    """Take a face-up profession: a deck top shows the next card, a display space is
    refilled from its deck."""
    for colour, spaces in enumerate(DISPLAY_SPACES):
        deck_cards = state.profession_decks[colour]
        if deck_cards and deck_cards[-1] == card:
            _draw_top(state, colour, events)
            return
        for space in spaces:
            if state.profession_display[space] == card:
                state.profession_display[space] = _draw_top(state, colour, events)
                return
    raise AssertionError(f"{_name(state, card)} is not face up")


def discard_professions(state: Position, colour: int, events: list[Event]) -> None:
    """Ability P1: the two display cards of ``colour`` are discarded and replaced from
    the deck, never the deck top itself (L876-L885)."""
    spaces = DISPLAY_SPACES[colour]
    gone = [state.profession_display[s] for s in spaces]
    state.profession_discards[colour].extend(gone)
    events.append(Event(f"P{state.decisions[-1].seat + 1} discards "
                        f"{' and '.join(_name(state, c) for c in gone)}"))
    for space in spaces:
        state.profession_display[space] = EMPTY
    _renew_deck(state, colour, events)
    for space in spaces:
        state.profession_display[space] = _draw_top(state, colour, events)


