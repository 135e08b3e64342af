"""Stephens' components: professions, contracts, investments, the boards, the solo cards.

The data lives in ``catalogue.json`` beside this module.  :func:`parse_catalogue`
validates it and rejects a broken file with a :class:`CatalogueError` naming the
entry and field, so a user who owns the game can swap in the real card list.
Every entry says where its values come from (``source``, and ``field_sources``
for single fields); ``docs/rules/stephens.md`` explains every reconstruction.

>>> cat = default_catalogue()
>>> [len(cat.deck(d)) for d in ("red", "blue", "start")], len(cat.contracts), len(cat.investments)
([23, 23, 4], 39, 32)
>>> cat.profession("doctor").benefit.describe(cat)
'pay 1 any cube: 3 influence'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from engine.stephens.components import (
    Army,
    Atom,
    AutomaAction,
    AutomaCard,
    Benefit,
    Catalogue,
    Contract,
    Difficulty,
    Disk,
    Furnace,
    Investment,
    Opponent,
    Option,
    PlayerBoard,
    Profession,
    Solo,
    Space,
    SupplyBonus,
    Track,
)
from engine.stephens.vocabulary import (
    ABILITY_EFFECTS,
    ANY,
    ATOM_KINDS,
    AUTOMA_ACTIONS,
    BONUS_GAINS,
    COLOURS,
    DECKS,
    DIRECTIONS,
    DISPLAY_POSITIONS,
    EFFECT_COPIES,
    FURNACE_ACTIONS,
    FURNACES,
    GLASS,
    INFLUENCE_DISK,
    PLACES,
    SIDES,
    SMALL_FACTORIES,
    START,
    TYPED_ATOMS,
    WHITE,
    WOODEN,
    WOODEN_NAMES,
)
from engine.validation import (
    CatalogueError,
    catalogue_copy,
    packaged_catalogue_json,
    parse_guarded,
    read_catalogue_json,
)
from engine.validation import catalogue_field as _field
from engine.validation import check_source as _source

#: Component counts the rulebook states (L53-L69, L1472, L1538).
RED_CARDS = BLUE_CARDS = 23
START_CARDS = 4
CONTRACTS = 39
INVESTMENTS = 32
ACCESSORY_TILES = 24
ACCESSORY_TYPES = 3
CONTRACT_TYPES = 3
AUTOMA_CARDS = 10
WORKER_SUPPLY_SPACES = 10
OPPONENT_CARDS = 5
ABILITIES = 14
INFLUENCE_DISKS = 4
#: Disks that are not workers: the Scoring, Forest and Dune markers (L175-L184).
MARKER_DISKS = 3
DISPLAY_SPACES = 5
CONTRACT_SLOTS = 3

_META = ("source", "field_sources", "ref", "note")
OPPONENT_EFFECTS = ("tracks-lower", "accessory-sets", "influence-disks-stacked",
                    "no-cost-5-spaces", "ability-unavailable")


# -- parsing helpers -----------------------------------------------------------------------
def _fail(where: str, message: str) -> CatalogueError:
    return CatalogueError(f"{where}: {message}")


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "must be an object")
    return value


def _entries(data: dict[str, Any], name: str, where: str) -> list[dict[str, Any]]:
    entries = _field(data, name, where, list)
    for i, entry in enumerate(entries):
        _obj(entry, f"{name}[{i}]")
    return entries


def _no_unknown(entry: dict[str, Any], where: str, fields: tuple[str, ...]) -> None:
    for key in entry:
        if key not in fields and key not in _META:
            raise _fail(where, f"unknown field {key!r} (known: {', '.join(fields)})")


def _meta(entry: dict[str, Any], where: str) -> None:
    """``source`` is required; ``field_sources`` must name fields of the entry."""
    _source(entry, where)
    overrides = entry.get("field_sources", {})
    if not isinstance(overrides, dict):
        raise _fail(where, "field 'field_sources' must be an object")
    for path, source in overrides.items():
        base = path.split("[")[0].split(".")[0]
        if base not in entry or base in _META:
            raise _fail(where, f"field 'field_sources' names {path!r}, which is not a field")
        _source({"source": source}, f"{where}.field_sources.{path}")
    for key in ("ref", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise _fail(where, f"field {key!r} must be a string")


def _choice(entry: dict[str, Any], name: str, where: str, choices: tuple[str, ...]) -> int:
    value = _field(entry, name, where, str)
    if value not in choices:
        raise _fail(where, f"field {name!r} must be one of {', '.join(choices)}, got {value!r}")
    return choices.index(value)


def _setting(data: dict[str, Any], name: str, where: str, kind: type,
             lo: int | None = None, hi: int | None = None) -> Any:
    """A ``{"value": ..., "source": ...}`` setting's value."""
    entry = _obj(_field(data, name, where, dict), f"{where}.{name}")
    _meta(entry, f"{where}.{name}")
    return _field(entry, "value", f"{where}.{name}", kind, lo, hi)


def _counts(entry: dict[str, Any], name: str, where: str, names: tuple[str, ...],
            what: str, extra: tuple[str, ...] = ()) -> dict[str, int]:
    value = _field(entry, name, where, dict)
    for key, n in value.items():
        if key not in names and key not in extra:
            raise _fail(where, f"field {name!r} has unknown {what} {key!r} "
                               f"(known: {', '.join(names + extra)})")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
            raise _fail(where, f"field {name!r}.{key} must be an integer 1..10, got {n!r}")
    return dict(value)


class _Ids:
    """Every id in the catalogue is unique across all components."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, entry: dict[str, Any], where: str) -> tuple[str, str]:
        ident = _field(entry, "id", where, str)
        where = f"{where} ({ident})"
        if not ident or ident in self.seen:
            raise _fail(where, "duplicate id" if ident else "empty id")
        self.seen.add(ident)
        _meta(entry, where)
        return ident, where


def _atoms(value: Any, where: str, accessories: tuple[str, ...], paying: bool) -> tuple[Atom, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of icons")
    atoms = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        item = _obj(item, at)
        kinds = [k for k in item if k in ATOM_KINDS]
        if len(kinds) != 1 or any(k not in ATOM_KINDS and k != "n" for k in item):
            raise _fail(at, f"must hold exactly one of {', '.join(ATOM_KINDS)} (and 'n' for "
                            f"cubes and accessories), got {sorted(item)}")
        kind = kinds[0]
        if paying and kind == "vp":
            raise _fail(at, "victory points cannot be paid")
        if kind in TYPED_ATOMS:
            names = COLOURS if kind == "cube" else accessories
            of = item[kind]
            if of != "any" and of not in names:
                raise _fail(at, f"field {kind!r} must be 'any' or one of {', '.join(names)}, "
                                f"got {of!r}")
            # The iconography gives and takes "any" cube or accessory only (L1812-L1822,
            # L1832); the activation plans rely on it to choose colours after a plan.
            if of != "any":
                raise _fail(at, f"a profession {'pays' if paying else 'gives'} 'any' {kind}, "
                                f"not {of!r}")
            # "When the icon does not depict any number, you gain or pay 1" (L1803).
            n = _field(item, "n", at, int, 1, 10) if "n" in item else 1
            atoms.append(Atom(kind, ANY if of == "any" else names.index(of), n))
        else:
            if "n" in item:
                raise _fail(at, f"field 'n' is only for cubes and accessories; write "
                                f"{{{kind!r}: N}}")
            atoms.append(Atom(kind, 0, _field(item, kind, at, int, 1, 10)))
    return tuple(atoms)


def _option(value: Any, where: str, accessories: tuple[str, ...]) -> tuple[str, Option]:
    value = _obj(value, where)
    if "pay" in value:
        if set(value) != {"pay", "gain"}:
            raise _fail(where, "a trade holds exactly 'pay' and 'gain'")
        if not value["pay"]:
            raise _fail(f"{where}.pay", "a trade must pay something")
        return "trade", Option(_atoms(value["pay"], f"{where}.pay", accessories, True),
                               _atoms(value.get("gain"), f"{where}.gain", accessories, False))
    if set(value) != {"gain"}:
        raise _fail(where, "must be {gain: [...]}, {pay: [...], gain: [...]} or "
                           "{choice: [...]}")
    return "gain", Option((), _atoms(value["gain"], f"{where}.gain", accessories, False))


def _benefit(value: Any, where: str, accessories: tuple[str, ...]) -> Benefit:
    value = _obj(value, where)
    if "choice" in value:
        alternatives = value["choice"]
        if set(value) != {"choice"} or not isinstance(alternatives, list) \
                or len(alternatives) < 2:
            raise _fail(where, "a choice holds only 'choice', a list of at least 2 options")
        options = tuple(_option(alt, f"{where}.choice[{i}]", accessories)[1]
                        for i, alt in enumerate(alternatives))
        if len(set(options)) != len(options):
            raise _fail(where, "a choice offers the same option twice")
        return Benefit("choice", options)
    kind, option = _option(value, where, accessories)
    return Benefit(kind, (option,))


def _space(value: Any, where: str) -> Space:
    value = _obj(value, where)
    for key in value:
        if key not in ("coin", "influence"):
            raise _fail(where, f"a worker space costs coins or influence, not {key!r}")
    return Space(_field(value, "coin", where, int, 1, 10) if "coin" in value else 0,
                 _field(value, "influence", where, int, 1, 10) if "influence" in value else 0)


# -- the sections ---------------------------------------------------------------------------
def _professions(data: dict[str, Any], ids: _Ids,
                 accessories: tuple[str, ...]) -> tuple[Profession, ...]:
    out = []
    for i, entry in enumerate(_entries(data, "professions", "catalogue")):
        ident, where = ids(entry, f"professions[{i}]")
        _no_unknown(entry, where, ("id", "name", "deck", "side", "spaces", "benefit"))
        deck = _choice(entry, "deck", where, DECKS)
        side = _choice(entry, "side", where, SIDES)
        # Red cards show the worker on the left, blue ones on the right (L470-L478).
        if deck != START and side != deck:
            raise _fail(where, f"field 'side': a {DECKS[deck]} profession belongs on the "
                               f"{SIDES[deck]} side, not the {SIDES[side]}")
        spaces = _field(entry, "spaces", where, list)
        if not 1 <= len(spaces) <= 2:
            raise _fail(where, "field 'spaces' must hold 1 or 2 worker spaces")
        parsed = tuple(_space(s, f"{where}.spaces[{k}]") for k, s in enumerate(spaces))
        out.append(Profession(ident, _field(entry, "name", where, str), deck, side, parsed,
                              _benefit(_field(entry, "benefit", where, dict), f"{where}.benefit",
                                       accessories)))
    counts = {name: sum(p.deck == k for p in out) for k, name in enumerate(DECKS)}
    expected = {"red": RED_CARDS, "blue": BLUE_CARDS, "start": START_CARDS}
    if counts != expected:
        raise _fail("professions", f"the game has {RED_CARDS} red, {BLUE_CARDS} blue and "
                                   f"{START_CARDS} starting professions, not "
                                   f"{counts['red']}/{counts['blue']}/{counts['start']}")
    for side, name in enumerate(SIDES):
        starting = sum(p.deck == START and p.side == side for p in out)
        if starting != START_CARDS // 2:
            raise _fail("professions", f"{START_CARDS // 2} starting professions belong on "
                                       f"the {name} side, not {starting} (L480-L481)")
    return tuple(out)


def _contracts(data: dict[str, Any], ids: _Ids, types: tuple[str, ...],
               accessories: tuple[str, ...]) -> tuple[Contract, ...]:
    out = []
    for i, entry in enumerate(_entries(data, "contracts", "catalogue")):
        ident, where = ids(entry, f"contracts[{i}]")
        _no_unknown(entry, where, ("id", "type", "cubes", "accessories"))
        kind = _choice(entry, "type", where, types)
        cubes = _counts(entry, "cubes", where, COLOURS, "colour")
        wanted = _counts(entry, "accessories", where, accessories, "accessory type", ("any",))
        if not cubes and not wanted:
            raise _fail(where, "fields 'cubes' and 'accessories': a contract requires "
                               "something")
        out.append(Contract(ident, kind, tuple(cubes.get(c, 0) for c in COLOURS),
                            tuple(wanted.get(a, 0) for a in accessories), wanted.get("any", 0)))
    if len(out) != CONTRACTS:
        raise _fail("contracts", f"the game has {CONTRACTS} contracts, not {len(out)}")
    for k, name in enumerate(types):
        if not any(c.type == k for c in out):
            raise _fail("contracts", f"no contract of type {name!r}")
    return tuple(out)


def _investments(data: dict[str, Any], ids: _Ids) -> tuple[Investment, ...]:
    out = []
    for i, entry in enumerate(_entries(data, "investments", "catalogue")):
        ident, where = ids(entry, f"investments[{i}]")
        _no_unknown(entry, where, ("id", "cubes", "vp", "forest", "dune"))
        # A card shows cubes of one wooden colour or none (L435-L447).
        cubes = _counts(entry, "cubes", where, WOODEN_NAMES, "wooden colour")
        if len(cubes) > 1:
            raise _fail(where, "field 'cubes': an investment depicts cubes of one colour only")
        colour, n = next(iter(cubes.items())) if cubes else (None, 0)
        vp = _field(entry, "vp", where, int, 0, 10)
        if not n and not vp:
            raise _fail(where, "fields 'cubes' and 'vp': an investment gives something")
        out.append(Investment(ident, ANY if colour is None else WOODEN[WOODEN_NAMES.index(colour)],
                              n, vp, _field(entry, "forest", where, int, 0, 5),
                              _field(entry, "dune", where, int, 0, 5)))
    if len(out) != INVESTMENTS:
        raise _fail("investments", f"the game has {INVESTMENTS} investments, not {len(out)}")
    return tuple(out)


def _accessories(data: dict[str, Any], ids: _Ids) -> tuple[tuple[str, ...], tuple[str, ...],
                                                           tuple[int, ...]]:
    entries = _entries(data, "accessories", "catalogue")
    parsed = []
    for i, entry in enumerate(entries):
        ident, where = ids(entry, f"accessories[{i}]")
        _no_unknown(entry, where, ("id", "name", "count"))
        parsed.append((ident, _field(entry, "name", where, str),
                       _field(entry, "count", where, int, 1, ACCESSORY_TILES)))
    if len(parsed) != ACCESSORY_TYPES:
        raise _fail("accessories", f"the game has {ACCESSORY_TYPES} accessory types (sets of 3 "
                                   f"different ones score, L866-L869), not {len(parsed)}")
    if sum(n for _, _, n in parsed) != ACCESSORY_TILES:
        raise _fail("accessories", f"field 'count' must add up to {ACCESSORY_TILES} tiles")
    return (tuple(p[0] for p in parsed), tuple(p[1] for p in parsed),
            tuple(p[2] for p in parsed))


def _contract_types(data: dict[str, Any], ids: _Ids) -> tuple[tuple[str, ...], tuple[str, ...]]:
    parsed = []
    for i, entry in enumerate(_entries(data, "contract_types", "catalogue")):
        ident, where = ids(entry, f"contract_types[{i}]")
        _no_unknown(entry, where, ("id", "name"))
        parsed.append((ident, _field(entry, "name", where, str)))
    if len(parsed) != CONTRACT_TYPES:
        raise _fail("contract_types", f"the game has {CONTRACT_TYPES} contract types, "
                                      f"not {len(parsed)}")
    return tuple(p[0] for p in parsed), tuple(p[1] for p in parsed)


def _by_name(entries: list[dict[str, Any]], where: str, names: tuple[str, ...],
             ids: _Ids) -> list[tuple[dict[str, Any], str]]:
    """Entries keyed by the fixed ``names``, each exactly once, returned in that order."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for i, entry in enumerate(entries):
        ident, at = ids(entry, f"{where}[{i}]")
        if ident not in names:
            raise _fail(at, f"field 'id' must be one of {', '.join(names)}")
        found[ident] = (entry, at)
    missing = [n for n in names if n not in found]
    if missing:
        raise _fail(where, f"missing {', '.join(missing)}")
    return [found[n] for n in names]


def _furnaces(board: dict[str, Any], ids: _Ids) -> tuple[Furnace, ...]:
    out = []
    for entry, where in _by_name(_entries(board, "furnaces", "board"), "board.furnaces",
                                 FURNACES, ids):
        _no_unknown(entry, where, ("id", "colour", "action", "start_cubes", "solo_start_cubes"))
        colour = _choice(entry, "colour", where, COLOURS)
        if colour not in GLASS:
            raise _fail(where, f"field 'colour': furnaces make glass "
                               f"({', '.join(COLOURS[c] for c in GLASS)})")
        action = FURNACE_ACTIONS[_choice(entry, "action", where, FURNACE_ACTIONS)]
        out.append(Furnace(entry["id"], colour, action,
                           _field(entry, "start_cubes", where, int, 1, 10),
                           _field(entry, "solo_start_cubes", where, int, 1, 10)))
    # The upper furnaces activate professions; the lower two sell plate glass, one to
    # commit to contracts and one to fund investments (L212-L234, L323-L395).
    for f in out:
        upper = f.id in PLACES
        if upper != (f.action == "activate"):
            raise _fail(f"board.furnaces ({f.id})", "field 'action': the upper furnaces "
                                                    "activate professions, the lower ones not")
        if not upper and f.colour != WHITE:
            raise _fail(f"board.furnaces ({f.id})", "field 'colour': the lower furnaces make "
                                                    "plate glass (white)")
    if sorted(f.action for f in out if f.id not in PLACES) != ["contract", "investment"]:
        raise _fail("board.furnaces", "field 'action': one lower furnace commits to "
                                      "contracts, the other funds investments")
    return tuple(out)


def _places(board: dict[str, Any]) -> tuple[int, ...]:
    out = []
    # Places share names with furnaces (FN-UL is both), so they have ids of their own.
    for entry, where in _by_name(_entries(board, "places", "board"), "board.places", PLACES,
                                 _Ids()):
        _no_unknown(entry, where, ("id", "master_vp"))
        out.append(_field(entry, "master_vp", where, int, 0, 20))
    return tuple(out)


def _bonuses(board: dict[str, Any], ids: _Ids) -> tuple[SupplyBonus, ...]:
    out = []
    for i, entry in enumerate(_entries(board, "supply_bonuses", "board")):
        ident, where = ids(entry, f"board.supply_bonuses[{i}]")
        _no_unknown(entry, where, ("id", "factory", "deliver", "gain"))
        factory = _choice(entry, "factory", where, SMALL_FACTORIES)
        deliver = _counts(entry, "deliver", where, WOODEN_NAMES, "wooden colour")
        if not deliver:
            raise _fail(where, "field 'deliver': a combination delivers at least one cube")
        gain = _counts(entry, "gain", where, BONUS_GAINS, "bonus")
        if len(gain) != 1:
            raise _fail(where, "field 'gain' must name exactly one bonus")
        kind, n = next(iter(gain.items()))
        out.append(SupplyBonus(ident, factory,
                               (deliver.get("orange", 0), deliver.get("pink", 0),
                                deliver.get("black", 0)), kind, n))
    # "You must use all the cubes" (L1200-L1203) is only always possible when each
    # colour can be supplied on its own somewhere.
    for k, name in enumerate(WOODEN_NAMES):
        single = tuple(1 if j == k else 0 for j in range(3))
        if not any(b.deliver == single for b in out):
            raise _fail("board.supply_bonuses", f"no combination takes a single {name} cube, "
                                                f"so supplying every cube could be impossible")
    return tuple(out)


def _costs(board: dict[str, Any], name: str) -> tuple[int, ...]:
    costs = []
    for i, entry in enumerate(_entries(board, name, "board")):
        where = f"board.{name}[{i}]"
        _no_unknown(entry, where, ("cost",))
        _meta(entry, where)
        costs.append(_field(entry, "cost", where, int, 1, 10))
    if len(costs) != DISPLAY_SPACES:
        raise _fail(f"board.{name}", f"the display has {DISPLAY_SPACES} spaces, not {len(costs)}")
    if costs != sorted(costs):
        raise _fail(f"board.{name}", "costs must rise from the cheapest space (cards slide "
                                     "toward the lowest cost)")
    return tuple(costs)


def _army(board: dict[str, Any]) -> Army:
    entry = _obj(_field(board, "army", "board", dict), "board.army")
    start = _setting(entry, "start", "board.army", int, 5, 200)
    step = _setting(entry, "step", "board.army", int, 1, 50)
    refills = []
    for i, item in enumerate(_entries(entry, "refills", "board.army")):
        where = f"board.army.refills[{i}]"
        _no_unknown(item, where, ("space", "cubes"))
        _meta(item, where)
        cubes = _field(item, "cubes", where, list)
        if len(cubes) != 3 or any(isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= 10
                                  for c in cubes):
            raise _fail(where, "field 'cubes' must list 3 counts 1..10 (for 4/3/2 players)")
        refills.append((_field(item, "space", where, int, 0, start), (cubes[0], cubes[1], cubes[2])))
    # The army moves ``step`` spaces per reset from ``start`` and stops at 0 (L1017-L1030).
    stops = sorted({max(0, start - k * step) for k in range(1, start // step + 2)}, reverse=True)
    if [s for s, _ in refills] != stops:
        raise _fail("board.army.refills", f"field 'space' must list the army's stops {stops} "
                                          f"in that order")
    return Army(start, step, tuple(refills))


def _track(board: dict[str, Any], name: str) -> Track:
    entry = _obj(_field(board, name, "board", dict), f"board.{name}")
    where = f"board.{name}"
    _no_unknown(entry, where, ("spaces", "start", "sectors"))
    _meta(entry, where)
    spaces = _field(entry, "spaces", where, int, 2, 50)
    start = _field(entry, "start", where, int, 0, spaces - 1)
    sectors = _entries(entry, "sectors", where)
    first = [_field(s, "from", f"{where}.sectors[{k}]", int, 0, spaces - 1)
             for k, s in enumerate(sectors)]
    vp = [_field(s, "vp", f"{where}.sectors[{k}]", int, 0, 50) for k, s in enumerate(sectors)]
    if not first or first[0] != 0 or first != sorted(set(first)):
        raise _fail(f"{where}.sectors", "field 'from' must start at 0 and rise")
    return Track(spaces, start, tuple(first), tuple(vp))


def _disks(board: dict[str, Any], ids: _Ids, influence_max: int) -> tuple[Disk, ...]:
    disks: list[Disk] = []
    for i, entry in enumerate(_entries(board, "influence_disks", "player_board")):
        ident, where = ids(entry, f"player_board.influence_disks[{i}]")
        _no_unknown(entry, where, ("id", "space"))
        disks.append(Disk(ident, INFLUENCE_DISK, _field(entry, "space", where, int, 1,
                                                        influence_max), ()))
    if len(disks) != INFLUENCE_DISKS:
        raise _fail("player_board.influence_disks", f"the Influence track holds "
                                                    f"{INFLUENCE_DISKS} disks, not {len(disks)}")
    abilities = _entries(board, "abilities", "player_board")
    names = [_field(a, "id", f"player_board.abilities[{i}]", str) for i, a in enumerate(abilities)]
    requires_of: list[list[Any]] = []
    for i, entry in enumerate(abilities):
        ident, where = ids(entry, f"player_board.abilities[{i}]")
        _no_unknown(entry, where, ("id", "effect", "requires", "vp", "per", "n"))
        effect = ABILITY_EFFECTS[_choice(entry, "effect", where, ABILITY_EFFECTS)]
        requires = _field(entry, "requires", where, list)
        for r in requires:
            if r not in names or r == ident:
                raise _fail(where, f"field 'requires' names unknown ability {r!r}")
        requires_of.append(requires)
        numbers = {k: _field(entry, k, where, int, 1, 20) for k in ("vp", "per", "n")
                   if k in entry}
        needed = _EFFECT_NUMBERS[effect]
        if set(numbers) != set(needed):
            raise _fail(where, f"an ability with effect {effect!r} shows "
                               f"{', '.join(needed) or 'no numbers'}")
        disks.append(Disk(ident, effect, 0, (), **numbers))
    if len(abilities) != ABILITIES:
        raise _fail("player_board.abilities", f"the player board has {ABILITIES} abilities, "
                                              f"not {len(abilities)}")
    for effect, copies in EFFECT_COPIES.items():
        found = sum(d.effect == effect for d in disks)
        if found != copies:
            raise _fail("player_board.abilities", f"effect {effect!r} must appear {copies} "
                                                  f"time(s), not {found}")
    products = sorted(d.n for d in disks if d.effect == "products")
    if products != [2, 3, 4]:
        raise _fail("player_board.abilities", "the three 'products' abilities allow 2, 3 and "
                                              "4 cubes (field 'n')")
    index = {d.id: k for k, d in enumerate(disks)}
    resolved = list(disks[:INFLUENCE_DISKS])
    for requires, disk in zip(requires_of, disks[INFLUENCE_DISKS:], strict=True):
        resolved.append(Disk(disk.id, disk.effect, 0, tuple(index[r] for r in requires),
                             disk.vp, disk.per, disk.n))
    _no_cycles(resolved)
    return tuple(resolved)


#: The numbers each ability's icon shows.
_EFFECT_NUMBERS: dict[str, tuple[str, ...]] = {
    "reset-vp": ("vp",), "final-cubes": ("vp", "per"), "final-coins": ("vp", "per"),
    "final-influence": ("vp", "per"), "final-accessories": ("vp",),
    "discard-professions": (), "equal-placement": (), "cube-replacement": ("per",),
    "two-cards": ("n",), "discard-cheapest": (), "discount": ("n",), "products": ("n",),
}


def _no_cycles(disks: list[Disk]) -> None:
    state = [0] * len(disks)  # 0 unseen, 1 on the path, 2 done

    def visit(k: int) -> None:
        if state[k] == 1:
            raise _fail(f"player_board.abilities ({disks[k].id})",
                        "field 'requires' makes a cycle: the ability could never be unlocked")
        if state[k] == 0:
            state[k] = 1
            for r in disks[k].requires:
                visit(r)
            state[k] = 2

    for k in range(len(disks)):
        visit(k)


def _player_board(data: dict[str, Any], ids: _Ids, types: tuple[str, ...]) -> tuple[
        PlayerBoard, tuple[Disk, ...]]:
    board = _obj(_field(data, "player_board", "catalogue", dict), "player_board")
    where = "player_board"
    influence_max = _setting(board, "influence_max", where, int, 1, 100)
    disks = _disks(board, ids, influence_max)
    start = _setting(board, "influence_start", where, int, 0, influence_max)
    spaces = [d.space for d in disks[:INFLUENCE_DISKS]]
    if spaces != sorted(spaces) or start >= spaces[0]:
        raise _fail("player_board.influence_disks", "field 'space' must rise and lie above "
                                                    "the starting influence")
    total = _setting(board, "disks", where, int, 1, 50)
    if total != len(disks) + MARKER_DISKS:
        raise _fail("player_board.disks", f"{total} disks per colour, but the board holds "
                                          f"{len(disks)} plus {MARKER_DISKS} track markers")
    slots = _setting(board, "contract_slots", where, int, 1, 10)
    if slots != CONTRACT_SLOTS:
        raise _fail("player_board.contract_slots", f"the player board has {CONTRACT_SLOTS} "
                                                   f"contract spaces (L336-L342)")
    rows = _setting(board, "investment_rows", where, list)
    if not all(isinstance(r, str) for r in rows) or sorted(rows) != sorted(WOODEN_NAMES):
        raise _fail("player_board.investment_rows", f"one row per wooden colour "
                                                    f"({', '.join(WOODEN_NAMES)})")
    contract_rows = _setting(board, "contract_rows", where, list)
    if not all(isinstance(t, str) for t in contract_rows) or sorted(contract_rows) != sorted(types):
        raise _fail("player_board.contract_rows", f"one row per contract type "
                                                  f"({', '.join(types)})")
    return PlayerBoard(_setting(board, "coins", where, int, 0, 50), start, influence_max, total,
                       slots, tuple(WOODEN[WOODEN_NAMES.index(r)] for r in rows),
                       tuple(types.index(t) for t in contract_rows)), disks


def _solo(data: dict[str, Any], ids: _Ids, disk_ids: dict[str, int]) -> Solo:
    solo = _obj(_field(data, "solo", "catalogue", dict), "solo")
    supply = _setting(solo, "worker_supply", "solo", list)
    if len(supply) != WORKER_SUPPLY_SPACES or any(
            isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10 for n in supply) \
            or supply != sorted(supply):
        raise _fail("solo.worker_supply", f"field 'value' must list {WORKER_SUPPLY_SPACES} "
                                          f"rising numbers 1..10 (L1480-L1485)")
    bag = _setting(solo, "bag", "solo", dict)
    if sorted(bag) != sorted(WOODEN_NAMES) or any(
            isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 60 for n in bag.values()):
        raise _fail("solo.bag", f"field 'value' must count {', '.join(WOODEN_NAMES)} cubes")
    difficulties = []
    for i, entry in enumerate(_entries(solo, "difficulties", "solo")):
        ident, where = ids(entry, f"solo.difficulties[{i}]")
        _no_unknown(entry, where, ("id", "final_reset", "ranks", "opponent_target"))
        ranks = _field(entry, "ranks", where, list)
        if len(ranks) != 2 or any(isinstance(r, bool) or not isinstance(r, int) for r in ranks) \
                or ranks[0] >= ranks[1]:
            raise _fail(where, "field 'ranks' must give 2 rising scores")
        difficulties.append(Difficulty(ident, _field(entry, "final_reset", where, int, 0, 200),
                                       (ranks[0], ranks[1]),
                                       _field(entry, "opponent_target", where, int, 0, 1000)))
    if len(difficulties) != 3:
        raise _fail("solo.difficulties", "the solo mode has 3 difficulty levels")
    names = _setting(solo, "rank_names", "solo", list)
    if len(names) != 3 or not all(isinstance(n, str) for n in names):
        raise _fail("solo.rank_names", "field 'value' must name 3 ranks")
    cards = []
    for i, entry in enumerate(_entries(solo, "automa_cards", "solo")):
        ident, where = ids(entry, f"solo.automa_cards[{i}]")
        _no_unknown(entry, where, ("id", "action", "disk", "supply"))
        action = _obj(_field(entry, "action", where, dict), f"{where}.action")
        aw = f"{where}.action"
        kind = AUTOMA_ACTIONS[_choice(action, "kind", aw, AUTOMA_ACTIONS)]
        start, direction, costs, position = 0, 0, (), 0
        if kind == "profession":
            _no_unknown(action, aw, ("kind", "position"))
            position = _field(action, "position", aw, int, 0, DISPLAY_POSITIONS - 1)
        else:
            places = FURNACES if kind == "furnace" else SMALL_FACTORIES
            _no_unknown(action, aw, ("kind", "start", "direction", "costs")
                        if kind == "furnace" else ("kind", "start", "direction"))
            start = _choice(action, "start", aw, places)
            direction = _choice(action, "direction", aw, DIRECTIONS)
            if kind == "furnace":
                raw = _field(action, "costs", aw, list)
                if any(isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= 10
                       for c in raw):
                    raise _fail(aw, "field 'costs' must list display costs")
                costs = tuple(raw)
        supply_entry = _obj(_field(entry, "supply", where, dict), f"{where}.supply")
        sw = f"{where}.supply"
        cards.append(AutomaCard(ident, AutomaAction(kind, start, direction, costs, position),
                                _field(entry, "disk", where, bool),
                                _field(supply_entry, "cubes", sw, int, 0, len(SMALL_FACTORIES)),
                                _choice(supply_entry, "start", sw, SMALL_FACTORIES),
                                _choice(supply_entry, "direction", sw, DIRECTIONS)))
    if len(cards) != AUTOMA_CARDS:
        raise _fail("solo.automa_cards", f"the Automa has {AUTOMA_CARDS} cards, not "
                                         f"{len(cards)}")
    opponents = []
    for i, entry in enumerate(_entries(solo, "opponents", "solo")):
        ident, where = ids(entry, f"solo.opponents[{i}]")
        _no_unknown(entry, where, ("id", "effect", "n", "ability"))
        effect = OPPONENT_EFFECTS[_choice(entry, "effect", where, OPPONENT_EFFECTS)]
        ability = -1
        if effect == "ability-unavailable":
            name = _field(entry, "ability", where, str)
            if name not in disk_ids or disk_ids[name] < INFLUENCE_DISKS:
                raise _fail(where, f"field 'ability' names unknown ability {name!r}")
            ability = disk_ids[name]
        opponents.append(Opponent(ident, effect,
                                  _field(entry, "n", where, int, 0, 100) if "n" in entry else 0,
                                  ability))
    if len(opponents) != OPPONENT_CARDS:
        raise _fail("solo.opponents", f"the game has {OPPONENT_CARDS} opponent cards, not "
                                      f"{len(opponents)}")
    return Solo(_setting(solo, "furnace_cubes", "solo", int, 1, 10), tuple(supply),
                (bag["orange"], bag["pink"], bag["black"]), tuple(difficulties), tuple(names),
                tuple(cards), tuple(opponents),
                _setting(solo, "opponent_final_reset", "solo", int, 0, 200))


def parse_catalogue(data: Any) -> Catalogue:
    """Validate catalogue data (already decoded from JSON) and build a :class:`Catalogue`.

    Raises :class:`CatalogueError` naming the entry and field, whatever the data holds.
    """
    return parse_guarded(_parse_catalogue, data, "Stephens")


def _parse_catalogue(data: Any) -> Catalogue:
    if not isinstance(data, dict):
        raise CatalogueError("catalogue: top level must be a JSON object")
    if data.get("game") != "stephens":
        raise CatalogueError(f"catalogue: field 'game' must be 'stephens', "
                             f"got {data.get('game')!r}")
    ids = _Ids()
    accessories, accessory_names, accessory_counts = _accessories(data, ids)
    types, type_names = _contract_types(data, ids)
    board = _obj(_field(data, "board", "catalogue", dict), "board")
    furnaces = _furnaces(board, ids)
    master_vp = _places(board)
    player_board, disks = _player_board(data, ids, types)
    display = _setting(board, "profession_display", "board", int, 1, 5)
    catalogue = Catalogue(
        accessories, accessory_names, accessory_counts, types, type_names, furnaces, master_vp,
        _bonuses(board, ids), _costs(board, "contract_display"),
        _costs(board, "investment_display"), display, _army(board), _track(board, "forest"),
        _track(board, "dune"), player_board, disks,
        _professions(data, ids, accessories), _contracts(data, ids, types, accessories),
        _investments(data, ids), _solo(data, ids, {d.id: k for k, d in enumerate(disks)}),
        catalogue_copy(data))
    _costs_fit_tracks(catalogue)
    return catalogue


def _costs_fit_tracks(cat: Catalogue) -> None:
    """An investment whose Forest or Dune cost exceeds the whole track could never be
    activated."""
    for track, name in ((cat.forest, "forest"), (cat.dune, "dune")):
        dearest = max((getattr(i, name) for i in cat.investments), default=0)
        if dearest > track.top:
            raise _fail(f"investments: field {name!r}", f"a card costs more than the whole "
                                                        f"{name} track")


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Load and validate a catalogue file (the packaged default when ``path`` is None)."""
    if path is None:
        return default_catalogue()
    return parse_catalogue(read_catalogue_json(path))


@cache
def default_catalogue() -> Catalogue:
    return parse_catalogue(packaged_catalogue_json("engine.stephens"))
