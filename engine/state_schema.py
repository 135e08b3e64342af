"""One description of a game's JSON state: its JSON Schema, its reference page, its shape checks.

A game describes its JSON state (what ``State.to_json`` writes and
``Game.state_from_json`` reads) once, as a tree of the nodes below: every field with
its type, bounds, meaning, who sees it and what a site that deals its own cards fills
in.  From that one description come

* :func:`json_schema`: a JSON Schema (draft 2020-12), served in ``GameInfo.state_schema``
  and at ``GET /schemas/<game>.json``, with the annotations ``x-visible-to``
  (:data:`VISIBILITY`) and ``x-deal``;
* :func:`field_rows`: the rows of the field-by-field reference (``docs/states/``,
  written by ``scripts/gen_state_docs.py``);
* :func:`check`: the shape checks of a loader (JSON types, required and unknown fields,
  static bounds, list sizes, seats by player count), raising
  :class:`~engine.game.InvalidStateError` naming the field (kind
  :data:`~engine.refusals.SHAPE`), so that what a loader refuses for its shape the
  schema refuses too.

What a schema cannot say (a card in one place only, a tile where the rules put it,
bounds that depend on other fields) stays in each game's loader, each refusal with
its kind (:data:`engine.refusals.REFUSAL_KINDS`).

>>> node = Object(description="a pawn count", fields=(
...     Prop("men", Integer(lo=0, hi=9, description="men")),
...     Prop("women", Integer(lo=0, hi=9, description="women"), required=False, default=0)))
>>> schema = to_schema(node)
>>> schema["required"], schema["additionalProperties"], schema["properties"]["women"]["default"]
(['men'], False, 0)
>>> check(node, {"men": 2, "hat": 1}, "pawns")
Traceback (most recent call last):
...
engine.game.InvalidStateError: pawns.hat: unknown field (pawns has men, women)
>>> check(node, {"men": -1}, "pawns")
Traceback (most recent call last):
...
engine.game.InvalidStateError: pawns.men must be an integer in 0..9, got -1
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import GameInfo, InvalidStateError
from engine.refusals import SHAPE
from engine.validation import is_int, short_repr

#: Who sees a field (``x-visible-to``): every seat; the seat that owns it (a hand) and
#: the host; no seat (the order of a face-down deck, the generator of future draws).
EVERYONE, OWNER, NOBODY = "everyone", "owner", "nobody"
VISIBILITY = (EVERYONE, OWNER, NOBODY)
DRAFT = "https://json-schema.org/draft/2020-12/schema"

_NO_DEFAULT = object()


@dataclass(frozen=True, kw_only=True)
class Node:
    """A value of the state.  ``visible_to`` None: as the field around it (the root:
    everyone); ``deal``: what a site that deals its own cards writes here."""

    description: str = ""
    nullable: bool = False
    visible_to: str | None = None
    deal: str | None = None


@dataclass(frozen=True, kw_only=True)
class Integer(Node):
    """An integer in ``lo..hi`` (booleans are not integers)."""

    lo: int
    hi: int
    #: The values allowed, when only some of ``lo..hi`` are (the army's stops).
    values: tuple[int, ...] | None = None
    #: A seat number: at most ``num_players - 1`` (``hi`` is the largest player count's).
    seat: bool = False


@dataclass(frozen=True, kw_only=True)
class String(Node):
    """A string: one of ``choices`` (a closed vocabulary or catalogue ids), or
    matching ``pattern``.  ``ids``: the choices are catalogue ids, which the loaders
    check themselves (naming the unknown id); the shape check only wants a string."""

    choices: tuple[str, ...] | None = None
    ids: bool = False
    pattern: str | None = None
    #: How a value that does not match ``pattern`` is described in a refusal.
    pattern_text: str = ""


@dataclass(frozen=True, kw_only=True)
class Boolean(Node):
    pass


@dataclass(frozen=True, kw_only=True)
class Const(Node):
    value: Any
    #: The player counts in which the value may appear (None: every count).
    player_counts: tuple[int, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class Array(Node):
    """A list of ``items``: exactly ``size`` of them, one per seat (``per_seat``), or
    ``min_items..max_items``."""

    items: Node
    size: int | None = None
    per_seat: bool = False
    min_items: int = 0
    max_items: int | None = None
    unique: bool = False
    #: What the entry at each position must be besides ``items`` (the order of a list
    #: the rules fix: the board's spots in catalogue order, red then blue professions).
    positions: tuple[Node, ...] = ()
    #: At most ``num_players - 1`` entries (one per other seat).
    per_other_seat: bool = False


@dataclass(frozen=True)
class Prop:
    """A field of an object.  Optional fields have a ``default`` the loader uses when
    they are left out (or none: the loader works it out, as ``note`` says)."""

    name: str
    node: Node
    required: bool = True
    default: Any = _NO_DEFAULT
    #: When it may or must be left out, for the reference.
    note: str = ""

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT


@dataclass(frozen=True)
class Implication:
    """Within one object: while field ``field`` has one of ``values``, field ``then``
    (when present) must be ``then_value``."""

    field: str
    values: tuple[Any, ...]
    then: str
    then_value: Any


@dataclass(frozen=True, kw_only=True)
class Object(Node):
    """A JSON object with the fields ``fields``; ``closed``: other fields are refused."""

    fields: tuple[Prop, ...]
    closed: bool = True
    implies: tuple[Implication, ...] = ()

    def prop(self, name: str) -> Prop:
        for p in self.fields:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True, kw_only=True)
class OneOf(Node):
    """Exactly one of ``options`` (frames of the decision stack, by kind)."""

    options: tuple[Node, ...]
    #: For the reference: how to tell the options apart.
    label: str = ""


@dataclass(frozen=True)
class PlayerRule:
    """A constraint for some player counts only, as a JSON Schema fragment applied to
    the whole state (``then``), with its meaning in words for the reference."""

    counts: tuple[int, ...]
    schema: dict[str, Any]
    text: str


@dataclass(frozen=True)
class Condition:
    """A tighter list size while root fields hold given values: the lists at ``at``
    (object fields and ``"[]"`` for list entries) hold at most ``max_items`` entries
    while each field of ``when`` has its value (a field left out has its default)."""

    when: tuple[tuple[str, Any], ...]
    at: tuple[str, ...]
    max_items: int
    text: str


@dataclass(frozen=True)
class StateDescription:
    """The whole description of one game's JSON state."""

    info: GameInfo
    root: Object
    #: Constraints per player count beyond the one-per-seat lists (which
    #: :func:`json_schema` derives from ``Array.per_seat``).
    rules: tuple[PlayerRule, ...] = ()
    #: Limits that hold while other fields have given values.
    conditions: tuple[Condition, ...] = ()
    #: Prose sections for the reference page: (title, markdown).
    sections: tuple[tuple[str, str], ...] = field(default=())


# -- the JSON Schema --------------------------------------------------------------------------

def _json_type(node: Node) -> str | None:
    return {Integer: "integer", String: "string", Boolean: "boolean", Array: "array",
            Object: "object"}.get(type(node))


def to_schema(node: Node, inherited: str = EVERYONE, pointer: str = "#") -> dict[str, Any]:
    """The JSON Schema of ``node`` (``inherited``: who sees the field around it;
    ``pointer``: where the schema of ``node`` is in the whole schema)."""
    out: dict[str, Any] = {}
    if node.description:
        out["description"] = node.description
    visible = node.visible_to or inherited
    if node.visible_to is not None:
        out["x-visible-to"] = node.visible_to
    if node.deal:
        out["x-deal"] = node.deal
    kind = _json_type(node)
    if kind is not None:
        out["type"] = [kind, "null"] if node.nullable else kind
    if isinstance(node, Integer):
        out["minimum"], out["maximum"] = node.lo, node.hi
        if node.values is not None:
            out["enum"] = [*node.values, *([None] if node.nullable else [])]
    elif isinstance(node, String):
        if node.choices is not None:
            out["enum"] = [*node.choices, *([None] if node.nullable else [])]
        if node.pattern is not None:
            out["pattern"] = node.pattern
    elif isinstance(node, Const):
        out["const"] = node.value
    elif isinstance(node, Array):
        out["items"] = to_schema(node.items, visible, f"{pointer}/items")
        if node.positions:
            # An entry at a fixed position is the general entry and more (prefixItems
            # replaces items there, so the general one is referred to).
            out["prefixItems"] = [{"$ref": f"{pointer}/items", **to_schema(p, visible)}
                                  for p in node.positions]
        if node.size is not None:
            out["minItems"] = out["maxItems"] = node.size
        else:
            if node.min_items:
                out["minItems"] = node.min_items
            if node.max_items is not None:
                out["maxItems"] = node.max_items
        if node.unique:
            out["uniqueItems"] = True
    elif isinstance(node, Object):
        out["properties"] = {}
        for p in node.fields:
            sub = to_schema(p.node, visible, f"{pointer}/properties/"
                            + p.name.replace("~", "~0").replace("/", "~1"))
            if p.has_default:
                sub["default"] = p.default
            out["properties"][p.name] = sub
        out["required"] = [p.name for p in node.fields if p.required]
        if node.closed:
            out["additionalProperties"] = False
        if node.implies:
            out["allOf"] = [{"if": {"properties": {i.field: {"enum": list(i.values)}},
                                    "required": [i.field]},
                             "then": {"properties": {i.then: {"const": i.then_value}}}}
                            for i in node.implies]
    elif isinstance(node, OneOf):
        options = [to_schema(o, visible, f"{pointer}/oneOf/{k}")
                   for k, o in enumerate(node.options)]
        if node.nullable:
            options.append({"type": "null"})
        out["oneOf"] = options
    return out


#: A place in the description: object fields, and ``"[]"`` for a list's entries.
Path = tuple[str, ...]


def _count_limits(node: Node, path: Path = ()) -> list[tuple[Path, Node]]:
    """The nodes whose limits depend on the player count (one-per-seat lists, seat
    numbers, values of some player counts only), with their paths."""
    found: list[tuple[Path, Node]] = []
    if isinstance(node, Array):
        if node.per_seat or node.per_other_seat:
            found.append((path, node))
        found += _count_limits(node.items, (*path, "[]"))
    elif isinstance(node, Integer) and node.seat:
        found.append((path, node))
    elif isinstance(node, Const) and node.player_counts is not None:
        found.append((path, node))
    elif isinstance(node, Object):
        for p in node.fields:
            found += _count_limits(p.node, (*path, p.name))
    elif isinstance(node, OneOf):
        for option in node.options:
            found += _count_limits(option, path)
    return found


def _count_limit(node: Node, count: int) -> dict[str, Any]:
    """What ``node`` (of :func:`_count_limits`) adds to the schema with ``count`` players."""
    if isinstance(node, Array):
        if node.per_other_seat:
            return {"maxItems": count - 1}
        return {"minItems": count, "maxItems": count}
    if isinstance(node, Integer):
        return {"maximum": count - 1}
    assert isinstance(node, Const) and node.player_counts is not None
    return {} if count in node.player_counts else {"not": {"const": node.value}}


def _nest(path: Path, leaf: dict[str, Any]) -> dict[str, Any]:
    for name in reversed(path):
        leaf = {"items": leaf} if name == "[]" else {"properties": {name: leaf}}
    return leaf


def json_schema(description: StateDescription) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a game's JSON state."""
    info = description.info
    schema = {"$schema": DRAFT, "title": f"{info.title} state (furnace, {info.name})",
              **to_schema(description.root)}
    conditions = []
    limits = _count_limits(description.root)
    for count in info.player_counts:
        then: dict[str, Any] = {}
        for path, node in limits:
            if limit := _count_limit(node, count):
                then = _merge(then, _nest(path, limit))
        for rule in description.rules:
            if count in rule.counts:
                then = _merge(then, rule.schema)
        if then:
            conditions.append({"if": {"properties": {"num_players": {"const": count}},
                                      "required": ["num_players"]}, "then": then})
    for condition in description.conditions:
        fields = {name: {"const": value} for name, value in condition.when}
        # A field left out has its default: the condition holds for it when the value
        # is the default, so the field is required in the "if" only otherwise.
        needed = [name for name, value in condition.when
                  if not (description.root.prop(name).has_default
                          and description.root.prop(name).default == value)]
        test: dict[str, Any] = {"properties": fields}
        if needed:
            test["required"] = needed
        conditions.append({"if": test, "then": _nest(condition.at,
                                                     {"maxItems": condition.max_items})})
    if conditions:
        schema["allOf"] = [*schema.get("allOf", []), *conditions]
    return schema


def seat_fields(description: StateDescription) -> list[str]:
    """The fields that hold a seat number (0..num_players-1), as the reference names them."""
    return list(dict.fromkeys(".".join(path).replace(".[]", "[]") for path, node
                              in _count_limits(description.root) if isinstance(node, Integer)))


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + [v for v in value if v not in out[key]]
        else:
            out[key] = value
    return out


class PerCatalogue:
    """A game's ``describe(catalogue)``, made once per catalogue object: the loader asks
    for the description on every load, and it depends only on the catalogue (ids)."""

    def __init__(self, describe: Callable[[Any], StateDescription]) -> None:
        self._describe = describe
        self._made: dict[int, tuple[Any, StateDescription]] = {}

    def __call__(self, catalogue: Any) -> StateDescription:
        made = self._made.get(id(catalogue))
        if made is None or made[0] is not catalogue:  # an id reused by a new catalogue
            made = self._made[id(catalogue)] = (catalogue, self._describe(catalogue))
        return made[1]


def schema_text(schema: Mapping[str, Any]) -> str:
    """The schema as compact JSON text with sorted keys: what the server sends."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# -- the reference ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One field of the reference: ``players[].hand[]``."""

    path: str
    type: str
    presence: str
    meaning: str
    visible_to: str
    deal: str


def type_text(node: Node) -> str:
    """The type of ``node`` in words, as the reference prints it."""
    if isinstance(node, Integer):
        if node.values is not None:
            text = "integer, one of " + ", ".join(map(str, node.values))
        elif node.seat:
            text = f"integer {node.lo}..num_players-1 (a seat)"
        else:
            text = f"integer {node.lo}..{node.hi}"
    elif isinstance(node, String):
        if node.choices is not None and node.ids:
            text = f"string: one of {len(node.choices)} catalogue ids"
        elif node.choices is not None:
            text = "string: " + " / ".join(f"`{c}`" for c in node.choices)
        elif node.pattern is not None:
            text = f"string: {node.pattern_text or node.pattern}"
        else:
            text = "string"
    elif isinstance(node, Boolean):
        text = "boolean"
    elif isinstance(node, Const):
        text = f"`{json.dumps(node.value)}`"
        if node.player_counts is not None:
            counts = "/".join(map(str, node.player_counts))
            text += f" ({counts} player{'' if node.player_counts == (1,) else 's'} only)"
    elif isinstance(node, Array):
        if node.per_seat:
            size = ", one per seat"
        elif node.size is not None:
            size = f", {node.size} entries"
        elif node.max_items is not None:
            size = f", {node.min_items}..{node.max_items} entries"
        elif node.min_items:
            size = f", at least {node.min_items}"
        else:
            size = ""
        text = f"list{size}"
    elif isinstance(node, Object):
        text = "object"
    elif isinstance(node, OneOf):
        text = node.label or " or ".join(type_text(o) for o in node.options)
    else:  # pragma: no cover - every node kind is above
        raise TypeError(type(node).__name__)
    if node.nullable and not text.endswith(" or null"):
        text += " or null"
    return text


def field_rows(description: StateDescription) -> list[Row]:
    """Every field of the description, parents first."""
    rows: list[Row] = []

    def visit(node: Node, path: str, presence: str, inherited: str) -> None:
        visible = node.visible_to or inherited
        if path:
            rows.append(Row(path, type_text(node), presence, node.description, visible,
                            node.deal or ""))
        if isinstance(node, Object):
            for p in node.fields:
                if p.required:
                    presence = "required"
                elif p.has_default:
                    presence = f"optional (default `{json.dumps(p.default)}`)"
                else:
                    presence = "optional"
                if p.note:
                    presence += f"; {p.note}"
                visit(p.node, f"{path}.{p.name}" if path else p.name, presence, visible)
        elif isinstance(node, Array):
            visit(node.items, f"{path}[]", "", visible)
        elif isinstance(node, OneOf) and all(isinstance(o, Object) for o in node.options):
            pass  # the options are listed by the game's own section of the reference

    visit(description.root, "", "", EVERYONE)
    return rows


# -- the shape checks -------------------------------------------------------------------------

def check(node: Node, value: Any, where: str, num_players: int | None = None) -> None:
    """Raise :class:`InvalidStateError` naming the field when ``value`` does not have the
    shape ``node`` describes: a JSON type, a required field missing, an unknown field, a
    value out of its static bounds or vocabulary, a list of the wrong size (one per
    seat: ``num_players``).  Catalogue ids (``String.ids``) are only checked to be
    strings: the loaders name an unknown id themselves; so are what relates entries or
    fields (``Array.positions``, ``Array.per_other_seat``, ``Object.implies``,
    :class:`Condition`): the loaders check them with their own messages, of kind
    :data:`~engine.refusals.SHAPE` since the schema says them too.  Never trips over the data
    (the depth it walks is the description's)."""
    if value is None and node.nullable:
        return
    label = where or "the state"
    if isinstance(node, Integer):
        hi = node.hi if not node.seat or num_players is None else num_players - 1
        ok = is_int(value) and node.lo <= value <= hi
        if node.values is not None:
            ok = ok and value in node.values
            bounds = ", ".join(map(str, node.values))
            _expect(ok, f"{label} must be one of {bounds}, got {short_repr(value)}", where)
        _expect(ok, f"{label} must be an integer in {node.lo}..{hi}, got "
                    f"{short_repr(value)}", where)
    elif isinstance(node, String):
        _expect(isinstance(value, str), f"{label} must be a string, got {short_repr(value)}",
                where)
        if node.choices is not None and not node.ids:
            _expect(value in node.choices, f"{label} must be one of {', '.join(node.choices)}, "
                                           f"got {short_repr(value)}", where)
        if node.pattern is not None:
            _expect(re.fullmatch(node.pattern.strip("^$"), value) is not None,
                    f"{label} must be {node.pattern_text or node.pattern}, got "
                    f"{short_repr(value)}", where)
    elif isinstance(node, Boolean):
        _expect(isinstance(value, bool), f"{label} must be true or false, got "
                                         f"{short_repr(value)}", where)
    elif isinstance(node, Const):
        _expect(value == node.value and type(value) is type(node.value),
                f"{label} must be {json.dumps(node.value)}, got {short_repr(value)}", where)
        _expect(num_players is None or node.player_counts is None
                or num_players in node.player_counts,
                f"{label}: {json.dumps(node.value)} only in a game of "
                f"{'/'.join(map(str, node.player_counts or ()))} player(s), this one has "
                f"{num_players}", where)
    elif isinstance(node, Array):
        _expect(isinstance(value, list), f"{label} must be a list, got {short_repr(value)}",
                where)
        size = num_players if node.per_seat else node.size
        if size is not None:
            _expect(len(value) == size, f"{label} must be a list of {size} entries, not "
                                        f"{len(value)}", where)
        _expect(len(value) >= node.min_items, f"{label} must be a list of at least "
                                              f"{node.min_items} entries, not {len(value)}",
                where)
        if node.max_items is not None:
            _expect(len(value) <= node.max_items, f"{label} must be a list of at most "
                                                  f"{node.max_items} entries, not "
                                                  f"{len(value)}", where)
        for i, item in enumerate(value):
            check(node.items, item, f"{where}[{i}]", num_players)
    elif isinstance(node, Object):
        _expect(isinstance(value, Mapping), f"{label} must be an object, got "
                                            f"{short_repr(value)}", where)
        prefix = f"{where}." if where else ""
        for p in node.fields:
            if p.name in value:
                check(p.node, value[p.name], prefix + p.name, num_players)
            else:
                _expect(not p.required, f"{prefix}{p.name}: missing (a required field)",
                        prefix + p.name)
        if node.closed:
            known = {p.name for p in node.fields}
            for key in value:
                if key not in known:
                    names = ", ".join(p.name for p in node.fields)
                    if isinstance(key, str) and re.fullmatch(r"[a-z_][a-z0-9_-]*", key):
                        _expect(False, f"{prefix}{key}: unknown field ({label} has {names})",
                                prefix + key)
                    _expect(False, f"{label}: unknown field {short_repr(key)} ({label} has "
                                   f"{names})", where)
    elif isinstance(node, OneOf):
        problems = []
        for option in node.options:
            try:
                check(option, value, where, num_players)
                return
            except InvalidStateError as exc:
                problems.append(str(exc))
        _expect(False, f"{label} must be {node.label or 'one of its forms'}: "
                       f"{problems[0]}", where)


def _expect(condition: bool, message: str, path: str) -> None:
    if not condition:
        raise InvalidStateError(message, path, SHAPE)


def without_defaults(node: Object) -> list[str]:
    """Names of the optional fields of ``node`` that have no default (for tests)."""
    return [p.name for p in node.fields if not p.required and not p.has_default]


def state_rows_table(rows: Sequence[Row]) -> str:
    """The markdown table of ``rows``."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| field | type | presence | meaning | seen by | a dealing site writes |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| `{row.path}` | {cell(row.type)} | {cell(row.presence)} | "
                     f"{cell(row.meaning)} | {row.visible_to} | {cell(row.deal)} |")
    return "\n".join(lines)
