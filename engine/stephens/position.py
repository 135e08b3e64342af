"""A Stephens position as data: the board, the displays and decks, every player board.

The position is flat: lists of small integers (catalogue indices of cards, counts of
cubes by colour, per-disk flags), so that a compiled twin can mirror it field for
field.  It knows no rules: the functions of the rule modules read and change it,
and :class:`engine.stephens.state.StephensState` adds the game protocol on top.
A card's index is its position in the catalogue's tuple of that kind
(``catalogue.professions``, ``.contracts``, ``.investments``); ``-1`` marks an
empty space.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=3, num_players=2)
>>> [p.coins for p in state.players], state.army, state.furnaces
([4, 4], 55, [4, 4, 4, 4])
>>> state.current_seat(), state.decisions[-1].kind
(0, 'accessory')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from engine.game import GameInfo, GameOption
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

INFO = GameInfo(
    name="stephens",
    title="Stephens",
    min_players=1,
    max_players=4,
    perfect_information=False,
    has_chance=True,
    options=(
        GameOption("difficulty", "normal",
                   "solo: easy, normal or hard (the final reset at army 20, 25 or 30; the "
                   "rank table and the opponent card's target score)"),
        GameOption("opponent", "none",
                   "solo: an opponent card, opponent-1 ... opponent-5 or random (none: the plain "
                   "solo game)"),
    ),
    description="Glassmakers of Marinha Grande: take glass and products, create professions, "
                "commit to contracts and fund investments before the French army arrives. "
                "One player plays solo against the Automa.",
)


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
    # Solo opponent cards (engine/stephens/solo.py): the space all four influence disks
    # are stacked on (0: their printed spaces), the disk whose ability is unavailable.
    influence_stack: int = 0
    lost_disk: int = -1

    def copy(self) -> Player:
        return Player(self.coins, self.influence, self.vp, self.forest, self.dune,
                      list(self.cubes), list(self.accessories), list(self.unlocked),
                      list(self.contracts), [list(r) for r in self.investments],
                      list(self.reserved), [list(r) for r in self.fulfilled],
                      list(self.placed_accessories), self.influence_stack, self.lost_disk)

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


class Position:
    """A Stephens position: every field of the game, and nothing that plays it.
    Mutable; :meth:`clone` copies every list (into the same class)."""

    def __init__(self, catalogue: Catalogue | None, num_players: int) -> None:
        self.catalogue = catalogue or default_catalogue()
        cat = self.catalogue
        self.num_players = num_players
        self.rng = [0]  # SplitMix64 state, boxed so helpers can advance it
        self.round = 1  # rounds counted from the start player, seat 0
        self.end_round = 0  # the round in which the end was triggered; 0: not yet
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
        # The solo game (num_players == 1): the Automa and the solo rules.
        self.difficulty = 1  # index into catalogue.solo.difficulties
        self.opponent = -1  # index into catalogue.solo.opponents; -1: none
        self.automa_deck: list[int] = []  # face down; the top is last
        self.automa_revealed: list[int] = []  # the revealed pile; the top is last
        self.bag = [0, 0, 0]  # the Automa's hidden supply: orange, pink, black
        self.final_reset = 0  # solo: 1 once the final reset phase has begun

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
        """Masters and apprentices of ``seat`` on profession cards (``AUTOMA``: the
        Automa's)."""
        return self.master.count(seat) + self.apprentice.count(seat)

    @property
    def solo(self) -> bool:
        """One player against the Automa."""
        return self.num_players == 1

    def final_space(self) -> int:
        """Solo: the army space whose reset is the final one (20/25/30, 25 with an
        opponent card, L1554-L1559, L1799-L1800)."""
        solo = self.catalogue.solo
        if self.opponent >= 0:
            return solo.opponent_final_reset
        return solo.difficulties[self.difficulty].final_reset

    # -- copies -------------------------------------------------------------------------
    def clone(self) -> Self:
        twin = type(self).__new__(type(self))
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
        twin.automa_deck = list(self.automa_deck)
        twin.automa_revealed = list(self.automa_revealed)
        twin.bag = list(self.bag)
        return twin
