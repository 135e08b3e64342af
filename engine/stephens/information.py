"""What the players see of a Stephens position, and positions consistent with it.

Nobody holds private information: what is hidden is hidden from everyone, the
order of the cards still to come.  The contract and investment decks are face
down; the profession decks are face up, so their top cards are seen but the
order below is not.  Solo: the Automa's deck is face down; its bag's contents are
known (21 cubes minus every cube it placed, all placed in view), not the order they
come out in, which the generator decides.  So ``observation(seat)`` is the same for every seat and for
the host (``None``), and ``determinize`` reshuffles exactly those unseen
sequences and redraws the generator, reading nothing hidden: the unseen cards
are sorted before they are shuffled.

>>> from engine.stephens.setup import new_state
>>> import random
>>> state = new_state(seed=2, num_players=2)
>>> view = observation(state, 0)
>>> view == observation(state, 1) == observation(state, None), "rng" in view
(True, False)
>>> view["contracts"]["deck"], view["professions"]["red_deck"]["count"]
(34, 21)
>>> determinize(state, 0, random.Random(1)).observation(0) == view
True
"""

from __future__ import annotations

import random
from typing import Any, TypeVar

from engine.stephens.encoding import state_to_json
from engine.stephens.position import Position

P = TypeVar("P", bound=Position)


def observation(state: Position, seat: int | None) -> dict[str, Any]:
    """Everything any seat sees, as JSON-ready data (``seat`` changes nothing)."""
    data = state_to_json(state)
    del data["rng"]
    for kind in ("contracts", "investments"):
        data[kind]["deck"] = len(data[kind]["deck"])
    professions = data["professions"]
    for name in ("red_deck", "blue_deck"):
        deck = professions[name]
        professions[name] = {"count": len(deck), "top": deck[-1] if deck else None}
    if "solo" in data:  # the Automa's deck is face down; its bag is 21 cubes minus those placed
        data["solo"]["automa_deck"] = len(data["solo"]["automa_deck"])
    return data


def determinize(state: P, observer: int | None, rng: random.Random) -> P:
    """A position with the same observation: the face-down decks (the Automa's too) and
    the profession decks below their tops reshuffled with ``rng``, the generator (the
    Automa's bag draws) redrawn."""
    twin = state.clone()
    for deck in (twin.contract_deck, twin.investment_deck, twin.automa_deck):
        _reshuffle(deck, rng)
    for deck in twin.profession_decks:
        if deck:
            top = deck.pop()
            _reshuffle(deck, rng)
            deck.append(top)
    twin.rng = [rng.getrandbits(64)]
    return twin


def _reshuffle(cards: list[int], rng: random.Random) -> None:
    cards.sort()
    rng.shuffle(cards)
