"""Stephens' components as value types: what a validated catalogue holds.

Cards and board pieces are referred to by their index in the catalogue's tuples,
so a position is lists of small integers; :mod:`engine.stephens.catalogue` builds
these from ``catalogue.json``.

>>> Track(13, 4, (0, 4, 8), (0, 7, 15)).vp_at(5)
7
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine.stephens.vocabulary import ANY, COLOURS, DECKS, INFLUENCE_DISK


@dataclass(frozen=True)
class Atom:
    """One icon of a benefit or a payment: ``n`` of ``kind`` (``of``: a colour or
    accessory type for cubes and accessories, ``ANY`` for "any", else 0)."""

    kind: str
    of: int
    n: int

    def describe(self, cat: Catalogue) -> str:
        if self.kind == "cube":
            return f"{self.n} {'any' if self.of == ANY else COLOURS[self.of]} cube"
        if self.kind == "accessory":
            return f"{self.n} {'any' if self.of == ANY else cat.accessories[self.of]} accessory"
        return f"{self.n} {self.kind}"


@dataclass(frozen=True)
class Option:
    """One way to collect a benefit: pay everything in ``pay`` (maybe nothing),
    then gain everything in ``gain``."""

    pay: tuple[Atom, ...]
    gain: tuple[Atom, ...]

    def describe(self, cat: Catalogue) -> str:
        gain = " + ".join(a.describe(cat) for a in self.gain)
        if not self.pay:
            return gain
        return "pay " + " + ".join(a.describe(cat) for a in self.pay) + ": " + gain


@dataclass(frozen=True)
class Benefit:
    """The bottom of a profession card: a gain, a trade, or a choice between them."""

    kind: str  # "gain", "trade" or "choice"
    options: tuple[Option, ...]

    def describe(self, cat: Catalogue) -> str:
        return " | ".join(o.describe(cat) for o in self.options)


@dataclass(frozen=True)
class Space:
    """A worker space and what placing a worker there costs (the red-cross icon)."""

    coins: int
    influence: int


@dataclass(frozen=True)
class Profession:
    id: str
    name: str
    deck: int  # index into DECKS
    side: int  # LEFT or RIGHT: where the worker illustration is
    spaces: tuple[Space, ...]  # the master's space, then maybe the apprentice's
    benefit: Benefit

    @property
    def has_apprentice_space(self) -> bool:
        return len(self.spaces) == 2


@dataclass(frozen=True)
class Contract:
    id: str
    type: int  # index into Catalogue.contract_types
    cubes: tuple[int, ...]  # per colour
    accessories: tuple[int, ...]  # specific accessories, per type: returned to the supply
    any_accessories: int  # accessories of the player's choice: stay on the card

    @property
    def cube_count(self) -> int:
        """The cubes depicted, which is what final scoring multiplies (L1335-L1339)."""
        return sum(self.cubes)


@dataclass(frozen=True)
class Investment:
    id: str
    colour: int  # a wooden colour, or ANY for a card without cubes (it fits any row)
    cubes: int
    vp: int
    forest: int  # spaces to go down on activation
    dune: int


@dataclass(frozen=True)
class Furnace:
    id: str
    colour: int
    action: str  # FURNACE_ACTIONS
    start_cubes: int
    solo_start_cubes: int


@dataclass(frozen=True)
class SupplyBonus:
    """A valid combination for one small factory and what supplying it gives."""

    id: str
    factory: int  # index into SMALL_FACTORIES
    deliver: tuple[int, int, int]  # orange, pink, black
    gain: str  # BONUS_GAINS
    n: int


@dataclass(frozen=True)
class Track:
    """The Forest or the Dune track: spaces 0..spaces-1, sectors worth VP at the end."""

    spaces: int
    start: int
    sector_from: tuple[int, ...]
    sector_vp: tuple[int, ...]

    @property
    def top(self) -> int:
        return self.spaces - 1

    def vp_at(self, position: int) -> int:
        vp = 0
        for first, value in zip(self.sector_from, self.sector_vp, strict=True):
            if position >= first:
                vp = value
        return vp


@dataclass(frozen=True)
class Army:
    """The French army on the Scoring track and the furnace refills printed there."""

    start: int
    step: int
    refills: tuple[tuple[int, tuple[int, int, int]], ...]  # (space, cubes for 4/3/2 players)

    def refill(self, space: int, players: int) -> int:
        """Cubes per empty furnace when the army stops on ``space``; the solo game uses
        the 2-player value (docs/rules/stephens.md)."""
        column = {4: 0, 3: 1}.get(players, 2)
        for at, cubes in self.refills:
            if at == space:
                return cubes[column]
        raise KeyError(space)

    @property
    def spaces(self) -> tuple[int, ...]:
        return tuple(at for at, _ in self.refills)


@dataclass(frozen=True)
class Disk:
    """A disk on the player board: an influence blocker or an ability.

    ``vp``/``per``/``n`` are the numbers the ability's icon shows (unused ones 0).
    """

    id: str
    effect: str
    space: int  # influence disks: the Influence space it blocks
    requires: tuple[int, ...]  # disks that must be off the board first
    vp: int = 0
    per: int = 0
    n: int = 0


@dataclass(frozen=True)
class PlayerBoard:
    coins: int
    influence_start: int
    influence_max: int
    disks: int  # per colour, workers and markers
    contract_slots: int
    investment_rows: tuple[int, ...]  # the wooden colour of each row
    contract_rows: tuple[int, ...]  # the contract type of each fulfilled-contract row


@dataclass(frozen=True)
class AutomaAction:
    kind: str  # AUTOMA_ACTIONS
    start: int  # furnace or small factory index; unused for professions
    direction: int  # index into DIRECTIONS
    costs: tuple[int, ...]  # display costs a white cube removes (furnace cards)
    position: int  # profession display position (profession cards)


@dataclass(frozen=True)
class AutomaCard:
    id: str
    action: AutomaAction
    disk: bool  # the disk-placement symbol
    supply_cubes: int
    supply_start: int  # small factory
    supply_direction: int


@dataclass(frozen=True)
class Opponent:
    id: str
    effect: str
    n: int
    ability: int  # disk index for "ability-unavailable", else -1


@dataclass(frozen=True)
class Difficulty:
    id: str
    final_reset: int  # army space that makes a reset the final one
    ranks: tuple[int, int]  # the highest Apprentice score, the lowest Glassblower score
    opponent_target: int


@dataclass(frozen=True)
class Solo:
    furnace_cubes: int
    worker_supply: tuple[int, ...]
    bag: tuple[int, int, int]
    difficulties: tuple[Difficulty, ...]
    rank_names: tuple[str, ...]
    automa_cards: tuple[AutomaCard, ...]
    opponents: tuple[Opponent, ...]
    opponent_final_reset: int


#: The profession abilities' disks were named P1 and P2, which read like the players
#: ("P2 unlocks P2"); positions and move texts saved with the old names still read.
FORMER_DISK_IDS = {"P1": "PR1", "P2": "PR2"}


def disk_effect_text(disk: Disk) -> str:
    """What a disk does, in a player's words (the rulebook's, shortened)."""
    effect, vp, per, n = disk.effect, disk.vp, disk.per, disk.n
    texts = {
        INFLUENCE_DISK: f"blocks the influence track at {disk.space}",
        "reset-vp": f"{vp} VP each reset",
        "final-cubes": f"{vp} VP per {per} cubes left at the end",
        "final-coins": f"{vp} VP per {per} coins left at the end",
        "final-influence": f"{vp} VP per {per} influence left at the end",
        "final-accessories": f"{vp} VP per set of 3 different accessories at the end",
        "discard-professions": "may discard 2 face-up professions of a colour at turn start",
        "equal-placement": "a profession may go to a factory with as many as the one below",
        "cube-replacement": f"{per} cubes of a colour stand for 1 of another in a contract",
        "two-cards": f"with a white cube, take {n} contract or investment cards",
        "discard-cheapest": "may discard the cheapest contract or investment before taking one",
        "discount": f"contracts and investments cost {n} less (at least 1)",
        "products": f"take up to {n} cubes from a small factory",
    }
    return texts.get(effect, effect)


@dataclass(frozen=True)
class Catalogue:
    accessories: tuple[str, ...]
    accessory_names: tuple[str, ...]
    accessory_counts: tuple[int, ...]
    contract_types: tuple[str, ...]
    contract_type_names: tuple[str, ...]
    furnaces: tuple[Furnace, ...]  # in FURNACES order
    master_vp: tuple[int, ...]  # per place, in PLACES order
    bonuses: tuple[SupplyBonus, ...]
    contract_costs: tuple[int, ...]
    investment_costs: tuple[int, ...]
    profession_display: int  # face-up cards beside each deck
    army: Army
    forest: Track
    dune: Track
    board: PlayerBoard
    disks: tuple[Disk, ...]  # the influence disks, then the 14 abilities
    professions: tuple[Profession, ...]
    contracts: tuple[Contract, ...]
    investments: tuple[Investment, ...]
    solo: Solo
    #: The JSON data this catalogue was read from (what ``GameInfo.catalogue`` sends):
    #: a front end draws card faces from it, the rules never read it.
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def deck(self, name: str) -> list[int]:
        """Indices of the professions of one deck ("red", "blue" or "start")."""
        kind = DECKS.index(name)
        return [i for i, p in enumerate(self.professions) if p.deck == kind]

    @cached_property
    def profession_ids(self) -> dict[str, int]:
        return {p.id: i for i, p in enumerate(self.professions)}

    @cached_property
    def contract_ids(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.contracts)}

    @cached_property
    def investment_ids(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.investments)}

    @cached_property
    def disk_ids(self) -> dict[str, int]:
        return {d.id: i for i, d in enumerate(self.disks)}

    def profession(self, ident: str) -> Profession:
        return self.professions[self.profession_ids[ident]]

    def contract(self, ident: str) -> Contract:
        return self.contracts[self.contract_ids[ident]]

    def investment(self, ident: str) -> Investment:
        return self.investments[self.investment_ids[ident]]

    def disks_with(self, effect: str) -> list[int]:
        """The disks carrying ``effect``, in catalogue order."""
        return [i for i, d in enumerate(self.disks) if d.effect == effect]

    def disk_with(self, effect: str) -> int:
        """The one disk carrying ``effect`` (not for ``products``, which has three)."""
        (index,) = self.disks_with(effect)
        return index

    @property
    def influence_disks(self) -> list[int]:
        return self.disks_with(INFLUENCE_DISK)
