"""The seeded setup of a 2-4 player game (rulebook pp. 4-5, L73-L196).

:func:`new_state` lays out the board and the player boards in the text's order and
stops where the players' setup choices begin: each player's accessory tile
(L166-L169) and the ability the master disk of their starting profession unlocks
(L186-L193).  Those are decisions on the stack, made by moves; below them waits
the first turn.  Seat 0 holds the board with the starting player icon.

>>> state = new_state(seed=1, num_players=4)
>>> sorted(len(cards) for cards in state.places)
[0, 0, 0, 0, 2, 2]
>>> [(f.kind, f.seat) for f in reversed(state.decisions)][:5]
[('accessory', 0), ('accessory', 1), ('accessory', 2), ('accessory', 3), ('unlock', 0)]
>>> state.decisions[0]
Frame(kind='turn', seat=0, context=(('stage', 0),))
"""

from __future__ import annotations

from engine.game import InvalidOptionError
from engine.stephens.catalogue import default_catalogue
from engine.stephens.components import Catalogue
from engine.stephens.frames import Frame
from engine.stephens.position import new_player
from engine.stephens.randomness import seed_state, shuffle
from engine.stephens.solo import setup_solo
from engine.stephens.state import StephensState
from engine.stephens.vocabulary import FN_UL, FN_UR, LEFT, PLACES

MIN_PLAYERS = 1
MAX_PLAYERS = 4


def new_state(seed: int, num_players: int, catalogue: Catalogue | None = None,
              difficulty: int = 1, opponent: int = -1) -> StephensState:
    """The position before the setup decisions; every random choice flows from ``seed``.

    One player plays the solo game against the Automa (:mod:`engine.stephens.solo`):
    ``difficulty`` 0-2 (easy, normal, hard), ``opponent`` an opponent card's index, -1
    for none or -2 for a random one.
    """
    if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidOptionError(
            f"Stephens is played by {MIN_PLAYERS}-{MAX_PLAYERS} players, not {num_players!r}")
    cat = catalogue or default_catalogue()
    state = StephensState(cat, num_players)
    state.rng = [seed_state(int(seed))]
    rng = state.rng

    # Profession decks face up, 2 cards of each beside them (L76-L96).
    per_colour = cat.profession_display
    for colour, name in enumerate(("red", "blue")):
        cards = cat.deck(name)
        shuffle(rng, cards)
        state.profession_decks[colour] = cards
    red, blue = state.profession_decks
    drawn_red = [red.pop() for _ in range(per_colour)]
    drawn_blue = [blue.pop() for _ in range(per_colour)]
    # The blue cards fill "the previous 2 rightmost" spaces: the first drawn lies
    # beside the blue deck, rightmost.
    state.profession_display = drawn_red + drawn_blue[::-1]

    state.furnaces = [f.start_cubes for f in cat.furnaces]  # L107-L116

    # Contracts and investments face down, 5 face up from the cheapest space (L118-L128).
    state.contract_deck = list(range(len(cat.contracts)))
    shuffle(rng, state.contract_deck)
    state.contract_display = [state.contract_deck.pop() for _ in cat.contract_costs]
    state.investment_deck = list(range(len(cat.investments)))
    shuffle(rng, state.investment_deck)
    state.investment_display = [state.investment_deck.pop() for _ in cat.investment_costs]

    state.army = cat.army.start  # L130-L133
    state.players = [new_player(cat) for _ in range(num_players)]

    # One random starting profession each, from the start player clockwise, attached
    # to the Stephens' factory on its side; the rest go back to the box (L186-L196).
    starting = cat.deck("start")
    shuffle(rng, starting)
    for seat in range(num_players):
        card = starting.pop()
        place = FN_UL if cat.professions[card].side == LEFT else FN_UR
        state.places[place].append(card)
        state.master[card] = seat
    state.box = sorted(starting)
    if num_players == 1:
        setup_solo(state, difficulty, opponent)

    # The setup decisions, in the text's order: the accessory tiles (player setup),
    # then the disks of the starting professions' masters; below them the first
    # turn, the start player's.  The stack's top is last.
    pending = [Frame.make("accessory", s) for s in range(num_players)]
    pending += [Frame.make("unlock", s) for s in range(num_players)]
    pending.append(Frame.make("turn", 0, stage=0))
    state.decisions = pending[::-1]
    assert all(p in (FN_UL, FN_UR) or not state.places[p] for p in range(len(PLACES)))
    return state
