"""Oh My Goods!'s component catalogue: the 110 cards.

The data lives in ``catalogue.json`` beside this module; :func:`load_catalogue`
validates a file and rejects a broken one with a message naming the entry and
field, so a user who owns the game can swap in the real card list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from engine.validation import (
    CatalogueError,
    catalogue_copy,
    packaged_catalogue_json,
    parse_guarded,
    read_catalogue_json,
)
from engine.validation import catalogue_field as _field
from engine.validation import check_source as _source

RESOURCES = ("wood", "clay", "grain", "wool", "stone")
COLOURS = ("blue", "red", "white", "yellow", "green", "gray")
TOTAL_CARDS = 110
ANY = "any"  # the Glassmaker's "any N resources"
EXTRA_CARD = "card"  # a Market Office giving +1 card in phase 1


@dataclass(frozen=True)
class Building:
    """A building type: colour, the good it makes, that good's value, its chain inputs."""

    id: str
    name: str
    colour: str
    good: str | None
    value: int
    chain: tuple[str, ...]

    @property
    def production(self) -> bool:
        return self.colour != "gray"


@dataclass(frozen=True)
class Card:
    """A deck card: a resource on the left, a building on the face."""

    id: str
    building: int  # index into Catalogue.buildings
    cost: int
    vp: int
    inputs: tuple[tuple[str, int], ...]  # (resource or "any", count)
    resource: str
    half_sun: bool
    market: str | None  # Market Office: a resource or "card"


@dataclass(frozen=True)
class Face:
    cost: int
    vp: int
    needs: tuple[tuple[str, int], ...]  # (colour, count)


@dataclass(frozen=True)
class Assistant:
    id: str
    faces: tuple[Face, Face]


@dataclass(frozen=True)
class Charburner:
    id: str
    inputs: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Catalogue:
    buildings: tuple[Building, ...]
    charburners: tuple[Charburner, ...]
    workers: tuple[str, ...]
    assistants: tuple[Assistant, ...]
    cards: tuple[Card, ...]
    #: The JSON data this catalogue was read from (what ``GameInfo.catalogue`` sends):
    #: a front end draws card faces from it, the rules never read it.
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def charburner_building(self) -> int:
        return self.building_index("charburner")

    def building_index(self, building_id: str) -> int:
        for i, b in enumerate(self.buildings):
            if b.id == building_id:
                return i
        raise KeyError(building_id)

    @cached_property
    def card_ids(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.cards)}

    @cached_property
    def assistant_ids(self) -> dict[str, int]:
        return {a.id: i for i, a in enumerate(self.assistants)}

    def card_index(self, card_id: str) -> int:
        return self.card_ids[card_id]

    def assistant_index(self, assistant_id: str) -> int:
        return self.assistant_ids[assistant_id]



def _counts(entry: dict[str, Any], name: str, where: str, allowed: tuple[str, ...],
            what: str) -> tuple[tuple[str, int], ...]:
    value = _field(entry, name, where, dict)
    out = []
    for key, n in value.items():
        if key not in allowed:
            raise CatalogueError(
                f"{where}: field {name!r} has unknown {what} {key!r} (known: {', '.join(allowed)})")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 20:
            raise CatalogueError(f"{where}: field {name!r}.{key} must be an integer 1..20, "
                                 f"got {n!r}")
        out.append((key, n))
    return tuple(out)


def _entries(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    entries = _field(data, name, "catalogue", list)
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise CatalogueError(f"{name}[{i}]: must be an object")
    return entries


def _unique_id(entry: dict[str, Any], where: str, seen: set[str]) -> tuple[str, str]:
    ident = _field(entry, "id", where, str)
    where = f"{where} ({ident})"
    if ident in seen:
        raise CatalogueError(f"{where}: duplicate id")
    seen.add(ident)
    _source(entry, where)
    return ident, where


def parse_catalogue(data: Any) -> Catalogue:
    """Validate catalogue data (already decoded from JSON) and build a :class:`Catalogue`.

    Raises :class:`CatalogueError` naming the entry and field, whatever the data holds.
    """
    return parse_guarded(_parse_catalogue, data, "Oh My Goods!")


def _parse_catalogue(data: Any) -> Catalogue:
    if not isinstance(data, dict):
        raise CatalogueError("catalogue: top level must be a JSON object")
    if data.get("game") != "oh-my-goods":
        raise CatalogueError(
            f"catalogue: field 'game' must be 'oh-my-goods', got {data.get('game')!r}")
    if "resources" in data and data["resources"] != list(RESOURCES):
        raise CatalogueError(f"catalogue: field 'resources' must be {list(RESOURCES)}")
    seen: set[str] = set()

    buildings: list[Building] = []
    for i, entry in enumerate(_entries(data, "buildings")):
        ident, where = _unique_id(entry, f"buildings[{i}]", seen)
        colour = _field(entry, "colour", where, str)
        if colour not in COLOURS:
            raise CatalogueError(f"{where}: field 'colour' must be one of {COLOURS}, "
                                 f"got {colour!r}")
        good = entry.get("good")
        if good is not None and not isinstance(good, str):
            raise CatalogueError(f"{where}: field 'good' must be a string or null")
        if (good is None) != (colour == "gray"):
            raise CatalogueError(f"{where}: field 'good': production buildings make a good, "
                                 f"gray buildings none")
        chain = _field(entry, "chain", where, list)
        if len(chain) > 2:
            raise CatalogueError(f"{where}: field 'chain' has more than 2 items")
        if not all(isinstance(item, str) for item in chain):
            raise CatalogueError(f"{where}: field 'chain' must list resources and goods by name")
        buildings.append(Building(ident, _field(entry, "name", where, str), colour, good,
                                  _field(entry, "value", where, int, 0, 50), tuple(chain)))
    goods = {b.good for b in buildings if b.good}
    for i, b in enumerate(buildings):
        if [x.good for x in buildings].count(b.good) > 1 and b.good:
            raise CatalogueError(f"buildings[{i}] ({b.id}): field 'good': {b.good!r} is made "
                                 f"by two building types")
        for item in b.chain:
            if item not in RESOURCES and item not in goods:
                raise CatalogueError(f"buildings[{i}] ({b.id}): field 'chain' has unknown "
                                     f"resource or good {item!r}")
        if sum(item in RESOURCES for item in b.chain) > 1:
            raise CatalogueError(f"buildings[{i}] ({b.id}): field 'chain' may hold at most one "
                                 f"resource")
    by_id = {b.id: k for k, b in enumerate(buildings)}
    if "charburner" not in by_id or buildings[by_id["charburner"]].colour != "blue":
        raise CatalogueError("buildings: a blue building with id 'charburner' is required")

    charburners = []
    for i, entry in enumerate(_entries(data, "charburners")):
        ident, where = _unique_id(entry, f"charburners[{i}]", seen)
        charburners.append(Charburner(ident, _counts(entry, "inputs", where, RESOURCES,
                                                     "resource")))
    workers = []
    for i, entry in enumerate(_entries(data, "workers")):
        ident, _ = _unique_id(entry, f"workers[{i}]", seen)
        workers.append(ident)
    if len(charburners) < 4 or len(workers) < 4:
        raise CatalogueError("catalogue: 4 charburners and 4 workers are needed for 4 players")

    assistants = []
    for i, entry in enumerate(_entries(data, "assistants")):
        ident, where = _unique_id(entry, f"assistants[{i}]", seen)
        faces = _field(entry, "faces", where, list)
        if len(faces) != 2:
            raise CatalogueError(f"{where}: field 'faces' must hold exactly 2 faces")
        parsed = []
        for k, face in enumerate(faces):
            fw = f"{where}.faces[{k}]"
            if not isinstance(face, dict):
                raise CatalogueError(f"{fw}: must be an object")
            parsed.append(Face(_field(face, "cost", fw, int, 0, 50),
                               _field(face, "vp", fw, int, 0, 20),
                               _counts(face, "needs", fw, COLOURS, "colour")))
        assistants.append(Assistant(ident, (parsed[0], parsed[1])))
    if len(assistants) < 8:
        raise CatalogueError("catalogue: 8 assistants are needed for 4 players")

    cards = []
    for i, entry in enumerate(_entries(data, "deck")):
        ident, where = _unique_id(entry, f"deck[{i}]", seen)
        bid = _field(entry, "building", where, str)
        if bid not in by_id or bid == "charburner":
            raise CatalogueError(f"{where}: field 'building' names unknown building {bid!r}")
        building = buildings[by_id[bid]]
        resource = _field(entry, "resource", where, str)
        if resource not in RESOURCES:
            raise CatalogueError(f"{where}: field 'resource' must be one of "
                                 f"{', '.join(RESOURCES)}, got {resource!r}")
        half_sun = _field(entry, "half_sun", where, bool)
        inputs = _counts(entry, "inputs", where, (*RESOURCES, ANY), "resource")
        if building.production and not inputs:
            raise CatalogueError(f"{where}: field 'inputs': a production building needs inputs")
        if any(k == ANY for k, _ in inputs) and len(inputs) != 1:
            raise CatalogueError(f"{where}: field 'inputs': 'any' cannot be mixed with "
                                 f"named resources")
        market = entry.get("market")
        if building.production:
            if market is not None:
                raise CatalogueError(f"{where}: field 'market' is only for gray buildings")
        elif market not in (*RESOURCES, EXTRA_CARD):
            raise CatalogueError(f"{where}: field 'market' must be a resource or 'card', "
                                 f"got {market!r}")
        cards.append(Card(ident, by_id[bid], _field(entry, "cost", where, int, 0, 50),
                          _field(entry, "vp", where, int, 0, 20), inputs, resource, half_sun,
                          market))
    if sum(c.half_sun for c in cards) < 8:
        raise CatalogueError("deck: fewer than 8 half suns; the market could never open")
    total = len(charburners) + len(workers) + len(assistants) + len(cards)
    if total != TOTAL_CARDS:
        raise CatalogueError(
            f"catalogue: {total} cards ({len(charburners)} charburners, {len(workers)} workers, "
            f"{len(assistants)} assistants, {len(cards)} deck cards); the game has "
            f"{TOTAL_CARDS}")
    return Catalogue(tuple(buildings), tuple(charburners), tuple(workers), tuple(assistants),
                     tuple(cards), catalogue_copy(data))


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Load and validate a catalogue file (the packaged default when ``path`` is None)."""
    if path is None:
        return default_catalogue()
    return parse_catalogue(read_catalogue_json(path))


@cache
def default_catalogue() -> Catalogue:
    return parse_catalogue(packaged_catalogue_json("engine.oh_my_goods"))
