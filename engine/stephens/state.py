"""A Stephens position: the board, the displays and decks, every player board.

The state is flat: lists of small integers (catalogue indices of cards, counts of
cubes by colour, per-disk flags), so that a compiled twin can mirror it field for
field.  It knows no rules: the functions of the rule modules read and change it.
A card's index is its position in the catalogue's tuple of that kind
(``catalogue.professions``, ``.contracts``, ``.investments``); ``-1`` marks an
empty space.

Piece 1 of Stephens models the position, its serialization, what players see and
the final score; the moves and the turn flow (piece 2) make it an
:class:`engine.game.State`.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=3, num_players=2)
>>> [p.coins for p in state.players], state.army, state.furnaces
([4, 4], 55, [4, 4, 4, 4])
>>> state.current_seat(), state.decisions[-1].kind
(0, 'accessory')
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine.stephens.catalogue import default_catalogue
from engine.stephens.components import Catalogue
from engine.stephens.frames import Frame
from engine.stephens.vocabulary import (
    COLOURS,
    DISPLAY_POSITIONS,
    NOBODY,
    PLACES,
    SMALL_FACTORIES,
)

EMPTY = -1


@dataclass
class Player:
    """One player board and the player's personal supply."""

    coins: int
    influence: int
    vp: int  # the Scoring track; unbounded (the printed track ends at 55)
    forest: int
    dune: int
    cubes: list[int]  # personal supply, per colour (COLOURS)
    accessories: list[int]  # personal supply, per accessory type
    unlocked: list[int]  # per disk of the catalogue: 1 once taken off the player board
    contracts: list[int] = field(default_factory=list)  # to fulfil (at most 3)
    investments: list[list[int]] = field(default_factory=list)  # per row, leftmost first
    reserved: list[int] = field(default_factory=lambda: [0, 0, 0])  # orange, pink, black
    fulfilled: list[list[int]] = field(default_factory=list)  # per row, nearest the board first
    placed_accessories: list[int] = field(default_factory=list)  # per type, on fulfilled cards

    def copy(self) -> Player:
        return Player(self.coins, self.influence, self.vp, self.forest, self.dune,
                      list(self.cubes), list(self.accessories), list(self.unlocked),
                      list(self.contracts), [list(r) for r in self.investments],
                      list(self.reserved), [list(r) for r in self.fulfilled],
                      list(self.placed_accessories))

    @property
    def disks_taken(self) -> int:
        return sum(self.unlocked)


def new_player(catalogue: Catalogue) -> Player:
    """A player board as player setup leaves it, before the accessory choice (L141-L184)."""
    board = catalogue.board
    return Player(
        coins=board.coins, influence=board.influence_start, vp=0,
        forest=catalogue.forest.start, dune=catalogue.dune.start,
        cubes=[0] * len(COLOURS), accessories=[0] * len(catalogue.accessories),
        unlocked=[0] * len(catalogue.disks),
        investments=[[] for _ in board.investment_rows],
        fulfilled=[[] for _ in board.contract_rows],
        placed_accessories=[0] * len(catalogue.accessories))


class StephensState:
    """A Stephens position.  Mutable; :meth:`clone` copies every list."""

    def __init__(self, catalogue: Catalogue | None, num_players: int) -> None:
        self.catalogue = catalogue or default_catalogue()
        cat = self.catalogue
        self.num_players = num_players
        self.rng = [0]  # SplitMix64 state, boxed so helpers can advance it
        self.round = 1  # rounds counted from the start player, seat 0
        self.active = 0  # whose turn it is
        self.army = cat.army.start
        self.furnaces = [0] * len(cat.furnaces)
        self.factories = [[0, 0, 0] for _ in SMALL_FACTORIES]  # orange, pink, black
        # Profession decks are face up: the top (last) card is visible and takeable.
        self.profession_decks: list[list[int]] = [[], []]  # red, blue
        self.profession_display = [EMPTY] * 4  # left to right: red, red, blue, blue
        self.profession_discards: list[list[int]] = [[], []]
        self.box: list[int] = []  # starting professions left over at setup
        self.places: list[list[int]] = [[] for _ in PLACES]  # attached cards, in order
        self.master = [NOBODY] * len(cat.professions)
        self.apprentice = [NOBODY] * len(cat.professions)
        self.contract_deck: list[int] = []  # face down; the top is last
        self.contract_display = [EMPTY] * len(cat.contract_costs)  # cheapest first
        self.contract_discard: list[int] = []
        self.investment_deck: list[int] = []
        self.investment_display = [EMPTY] * len(cat.investment_costs)
        self.investment_discard: list[int] = []
        self.players: list[Player] = []
        self.decisions: list[Frame] = []  # the decision stack; the top is last

    # -- who decides ------------------------------------------------------------------
    def current_seat(self) -> int | None:
        """The seat owning the top decision, or None when nothing is pending."""
        return self.decisions[-1].seat if self.decisions else None

    # -- reading the board ----------------------------------------------------------
    def face_up_professions(self) -> list[int]:
        """The six face-up professions left to right: red deck top, the display, blue
        deck top (``EMPTY`` where there is none)."""
        red, blue = self.profession_decks
        row = [red[-1] if red else EMPTY, *self.profession_display, blue[-1] if blue else EMPTY]
        assert len(row) == DISPLAY_POSITIONS
        return row

    def place_of(self, card: int) -> int | None:
        """The place a profession is attached to, or None when it is not in play."""
        for place, cards in enumerate(self.places):
            if card in cards:
                return place
        return None

    def workers_of(self, seat: int) -> int:
        """Masters and apprentices of ``seat`` on profession cards."""
        return self.master.count(seat) + self.apprentice.count(seat)

    # -- copies and views -------------------------------------------------------------
    def clone(self) -> StephensState:
        twin = StephensState.__new__(StephensState)
        twin.__dict__.update(self.__dict__)
        twin.rng = list(self.rng)
        twin.furnaces = list(self.furnaces)
        twin.factories = [list(f) for f in self.factories]
        twin.profession_decks = [list(d) for d in self.profession_decks]
        twin.profession_display = list(self.profession_display)
        twin.profession_discards = [list(d) for d in self.profession_discards]
        twin.box = list(self.box)
        twin.places = [list(p) for p in self.places]
        twin.master = list(self.master)
        twin.apprentice = list(self.apprentice)
        twin.contract_deck = list(self.contract_deck)
        twin.contract_display = list(self.contract_display)
        twin.contract_discard = list(self.contract_discard)
        twin.investment_deck = list(self.investment_deck)
        twin.investment_display = list(self.investment_display)
        twin.investment_discard = list(self.investment_discard)
        twin.players = [p.copy() for p in self.players]
        twin.decisions = list(self.decisions)  # frames are immutable
        return twin

    def to_json(self) -> dict[str, Any]:
        from engine.stephens.codec import state_to_json

        return state_to_json(self)

    def observation(self, seat: int | None) -> dict[str, Any]:
        from engine.stephens.information import observation

        return observation(self, seat)

    def determinize(self, observer: int | None, rng: random.Random) -> StephensState:
        from engine.stephens.information import determinize

        return determinize(self, observer, rng)

    def render(self, observer: int | None = None) -> str:
        from engine.stephens.render import render_view

        return render_view(self.observation(observer), self.catalogue)

    # -- scoring --------------------------------------------------------------------
    def scores(self) -> list[float]:
        from engine.stephens.scoring import scores

        return [float(s) for s in scores(self)]

    def ranking(self) -> list[list[int]]:
        from engine.stephens.scoring import ranking

        return ranking(self)
