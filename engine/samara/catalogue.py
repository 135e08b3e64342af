"""Samara's component catalogue: board spots, building tiles, tool sets.

The data lives in ``catalogue.json`` beside this module; :func:`load_catalogue`
validates a file and rejects a broken one with a message naming the entry and
field, so a user who owns the game can swap in the real tile list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
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

TOOL_NAMES = ("saw", "compass", "square", "glass-a", "glass-b")
SAW, COMPASS, SQUARE, GLASS_A, GLASS_B = range(5)

POWERS = (
    "boat",
    "barracks",
    "weight_room",
    "ruin",
    "hospital",
    "tombstone",
    "prison",
    "sculpture",
    "vase",
    "university",
    "school",
    "bridge",
    "hermit_house",
)
#: Powers that last for the rest of the game once the tile is taken.
LASTING_POWERS = ("university", "school", "bridge", "hermit_house")


@dataclass(frozen=True)
class Tile:
    id: str
    name: str
    prestige: int
    saws: int
    trowels: int
    glass: int
    power: str | None

    @property
    def tools_needed(self) -> int:
        return self.saws + self.trowels + self.glass


@dataclass(frozen=True)
class Spot:
    row: int  # labor strength needed, 1-4
    col: int  # months needed, 1-9
    tools: tuple[int, int, int, int]  # tools laid at setup for 2, 3, 4, 5 players

    @property
    def label(self) -> str:
        return f"r{self.row}c{self.col}"


@dataclass(frozen=True)
class Catalogue:
    rows: int
    columns: int
    spots: tuple[Spot, ...]
    tiles: tuple[Tile, ...]
    tiles_used: int
    tool_set: tuple[int, int, int, int, int]  # per player, in TOOL_NAMES order
    pawn_men: int
    pawn_women: int
    start_month: int
    #: The JSON data this catalogue was read from (what ``GameInfo.catalogue`` sends):
    #: a front end draws card faces from it, the rules never read it.
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def tile_index(self, tile_id: str) -> int:
        for i, tile in enumerate(self.tiles):
            if tile.id == tile_id:
                return i
        raise KeyError(tile_id)

    def spot_index(self, label: str) -> int:
        for i, spot in enumerate(self.spots):
            if spot.label == label:
                return i
        raise KeyError(label)



def parse_catalogue(data: Any) -> Catalogue:
    """Validate catalogue data (already decoded from JSON) and build a :class:`Catalogue`.

    Raises :class:`CatalogueError` naming the entry and field, whatever the data holds.
    """
    return parse_guarded(_parse_catalogue, data, "Samara")


def _parse_catalogue(data: Any) -> Catalogue:
    if not isinstance(data, dict):
        raise CatalogueError("catalogue: top level must be a JSON object")
    if data.get("game") != "samara":
        raise CatalogueError(f"catalogue: field 'game' must be 'samara', got {data.get('game')!r}")
    board = _field(data, "board", "catalogue", dict)
    rows = _field(board, "rows", "board", int, 1, 4)
    columns = _field(board, "columns", "board", int, 1, 12)
    tool_set_data = _field(data, "tool_set_per_player", "catalogue", dict)
    tool_set = tuple(
        _field(tool_set_data, name, "tool_set_per_player", int, 0, 2) for name in TOOL_NAMES
    )
    if tool_set[GLASS_B] > tool_set[GLASS_A]:
        raise CatalogueError("tool_set_per_player: a glass-b tool needs a glass-a tool per set")
    pawns = _field(data, "pawns_per_player", "catalogue", dict)
    men = _field(pawns, "men", "pawns_per_player", int, 2, 9)
    women = _field(pawns, "women", "pawns_per_player", int, 1, 9)
    if men + women > 5:
        # A move names the mover's workers in the current month with a 5-bit mask.
        raise CatalogueError(f"pawns_per_player: {men + women} pawns, at most 5 are supported")
    tiles_used = _field(data, "tiles_used", "catalogue", int, 1)
    start_month = _field(data, "start_month", "catalogue", int, 0, 11)

    spots: list[Spot] = []
    seen_cells: set[tuple[int, int]] = set()
    for i, entry in enumerate(_field(data, "spots", "catalogue", list)):
        where = f"spots[{i}]"
        if not isinstance(entry, dict):
            raise CatalogueError(f"{where}: must be an object")
        row = _field(entry, "row", where, int, 1, rows)
        col = _field(entry, "col", where, int, 1, columns)
        where = f"spots[{i}] (r{row}c{col})"
        if (row, col) in seen_cells:
            raise CatalogueError(f"{where}: two spots on the same board cell")
        seen_cells.add((row, col))
        counts = _field(entry, "tools", where, list)
        if len(counts) != 4 or any(
            isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts
        ):
            raise CatalogueError(
                f"{where}: field 'tools' must be 4 non-negative integers (2/3/4/5 players), "
                f"got {counts!r}"
            )
        _source(entry, where)
        spots.append(Spot(row, col, (counts[0], counts[1], counts[2], counts[3])))
    if len(spots) != tiles_used:
        raise CatalogueError(
            f"catalogue: {len(spots)} spots but tiles_used is {tiles_used}; every spot gets a tile"
        )
    for k, players in enumerate((2, 3, 4, 5)):
        laid = sum(s.tools[k] for s in spots)
        if laid != players * sum(tool_set):
            raise CatalogueError(
                f"spots: tools laid for {players} players add up to {laid}, but {players} tool "
                f"sets hold {players * sum(tool_set)}"
            )

    tiles: list[Tile] = []
    seen_ids: set[str] = set()
    for i, entry in enumerate(_field(data, "tiles", "catalogue", list)):
        where = f"tiles[{i}]"
        if not isinstance(entry, dict):
            raise CatalogueError(f"{where}: must be an object")
        tile_id = _field(entry, "id", where, str)
        where = f"tiles[{i}] ({tile_id})"
        if tile_id in seen_ids:
            raise CatalogueError(f"{where}: duplicate tile id")
        seen_ids.add(tile_id)
        power = entry.get("power")
        if power is not None and power not in POWERS:
            raise CatalogueError(f"{where}: unknown power {power!r} (known: {', '.join(POWERS)})")
        _source(entry, where)
        tiles.append(
            Tile(
                id=tile_id,
                name=_field(entry, "name", where, str),
                prestige=_field(entry, "prestige", where, int, -20, 50),
                saws=_field(entry, "saws", where, int, 0, tool_set[SAW]),
                trowels=_field(entry, "trowels", where, int, 0, tool_set[COMPASS] + tool_set[SQUARE]),
                glass=_field(entry, "glass", where, int, 0, tool_set[GLASS_A] + tool_set[GLASS_B]),
                power=power,
            )
        )
    if len(tiles) < tiles_used:
        raise CatalogueError(f"catalogue: {len(tiles)} tiles, fewer than the {tiles_used} spots")
    powers = [t.power for t in tiles if t.power]
    for power in set(powers):
        if powers.count(power) > 1:
            raise CatalogueError(f"tiles: power {power!r} appears on more than one tile")
    return Catalogue(
        rows=rows,
        columns=columns,
        spots=tuple(spots),
        tiles=tuple(tiles),
        tiles_used=tiles_used,
        tool_set=tool_set,  # type: ignore[arg-type]
        pawn_men=men,
        pawn_women=women,
        start_month=start_month,
        data=catalogue_copy(data),
    )


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Load and validate a catalogue file (the packaged default when ``path`` is None)."""
    if path is None:
        return default_catalogue()
    return parse_catalogue(read_catalogue_json(path))


@cache
def default_catalogue() -> Catalogue:
    return parse_catalogue(packaged_catalogue_json("engine.samara"))
