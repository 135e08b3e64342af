"""Prove a kernel's state copies carry every field of its game's state description.

A kernel twin is built from a reference state field by field (``from_reference``)
and read back the same way (``to_reference``); both copies are written by hand,
because they also carry the kernel's bounds checks and its packed layout.  What
keeps them complete is this check, driven by the one table every game already
keeps of its state: its :class:`~engine.state_schema.StateDescription`.

Every field the description names (a value, or a list's length) must come back
from the kernel unchanged, in at least two different values, before the check is
satisfied: a copy that forgets a field, or writes it the same whatever it holds,
loses one of the two.  The values come from positions of seeded random games of
every setup; a field that play leaves alone (an option, a count that rarely moves)
is then set to the other values its description allows, and whatever the loader
accepts must come back from the kernel too; a field still short of values (a
catalogue id met once) has more games played for it.  A field the loader accepts in one
value only (a constant) is reported as such, not as covered.

:func:`check_kernel_fields` is run by ``furnace check-kernel`` and by
``tests/checks/test_kernel_fields.py``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from checks.kernel import game_options
from engine.game import FurnaceError, Game, InvalidStateError, State
from engine.state_schema import Array, Boolean, Const, Integer, Node, Object, OneOf, String

#: Seeded games :func:`check_kernel_fields` draws positions from (``furnace check-kernel``
#: too, whatever number of games it plays: fewer leave rare fields to chance).
FIELD_GAMES = 12
#: How many times ``games`` more games :func:`check_kernel_fields` may play for a field
#: still short of values.
EXTRA_GAMES = 3
#: Positions kept from each seeded game (evenly spaced, the first and last included).
POSITIONS_PER_GAME = 8
#: A field is covered once this many different values came back from the kernel.
VALUES_NEEDED = 2

JsonPath = tuple[str | int, ...]
Twin = Callable[[State], State]


@dataclass
class FieldsReport:
    """What :func:`check_kernel_fields` found for one game."""

    game: str
    positions: int = 0
    #: Per field (``players[].goods[]``, ``deck#length``): the values that came back.
    values: dict[str, set[str]] = field(default_factory=dict)
    constants: list[str] = field(default_factory=list)
    #: Fields that play left in one value, covered by setting them (see :func:`_vary`).
    varied: list[str] = field(default_factory=list)
    #: Round trips that lost something: (field or "(state)", what differs).
    losses: list[tuple[str, str]] = field(default_factory=list)

    @property
    def uncovered(self) -> list[str]:
        return sorted(f for f, seen in self.values.items()
                      if len(seen) < VALUES_NEEDED and f not in self.constants)

    def summary(self) -> dict[str, Any]:
        return {"described": len(self.values), "constants": sorted(self.constants),
                "varied": sorted(self.varied),
                "uncovered": self.uncovered, "losses": len(self.losses),
                "examples": [f"{where}: {what}" for where, what in self.losses[:5]],
                "positions": self.positions}


def described_fields(node: Node, prefix: str = "") -> Iterator[tuple[str, Node]]:
    """Every field of a description, as the pattern of its JSON paths: a value at
    ``players[].goods[]``, the length of a list at ``deck#length``.  The options of a
    :class:`OneOf` (the frames of a decision stack) share their patterns."""
    if isinstance(node, Object):
        for prop in node.fields:
            yield from described_fields(prop.node, f"{prefix}.{prop.name}" if prefix
                                        else prop.name)
    elif isinstance(node, OneOf):
        for option in node.options:
            yield from described_fields(option, prefix)
    elif isinstance(node, Array):
        if node.size is None and not node.per_seat:
            yield f"{prefix}#length", node
        yield from described_fields(node.items, f"{prefix}[]")
    else:
        yield prefix, node


def pattern(path: JsonPath) -> str:
    """``("players", 0, "goods")`` -> ``players[].goods``."""
    text = ""
    for key in path:
        text += "[]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text


def leaves(data: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, Any, bool]]:
    """Every value below ``data`` with its path; lists also as themselves (``True``)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list):
        yield path, data, True
        for i, value in enumerate(data):
            yield from leaves(value, (*path, i))
    else:
        yield path, data, False


def _key(path: JsonPath, is_list: bool) -> str:
    return pattern(path) + ("#length" if is_list else "")


def _get(data: Any, path: JsonPath) -> Any:
    for key in path:
        data = data[key]
    return data


def alternatives(node: Node, value: Any) -> list[Any]:
    """Other values the description allows at a field holding ``value`` (the loader
    has the last word): its bounds and their neighbours, every choice, the other
    truth value, null where allowed."""
    found: list[Any] = []
    if isinstance(node, Integer):
        if node.values:
            found = list(node.values)
        else:
            found = [node.lo, node.lo + 1, node.hi - 1, node.hi]
            if isinstance(value, int) and not isinstance(value, bool):
                found += [value - 1, value + 1]
    elif isinstance(node, String) and node.choices:
        found = list(node.choices)
    elif isinstance(node, Boolean):
        found = [True, False]
    if node.nullable:
        found.append(None)
    return [v for v in found if v != value or type(v) is not type(value)]


def _round_trip(game: Game, doc: dict[str, Any], twin_of: Twin, report: FieldsReport,
                where: str) -> bool:
    """Load ``doc``, copy it into the kernel and back; record a loss.  False when the
    loader refuses it."""
    try:
        state = game.state_from_json(doc)
    except InvalidStateError:
        return False
    expected = state.to_json()
    try:
        twin = twin_of(state)
        through = [("the kernel twin", twin.to_json())]
        back = getattr(twin, "to_reference", None)
        if back is not None:
            through.append(("its reference copy", back().to_json()))
    except (ValueError, FurnaceError) as exc:
        report.losses.append((where, f"the loader accepts it but the kernel refuses it: {exc}"))
        return True
    for what, got in through:
        if got != expected:
            report.losses.append((where, f"{what} differs: {_difference(expected, got)}"))
            return True
    for path, value, is_list in leaves(expected):
        if path:
            seen = report.values.get(_key(path, is_list))
            if seen is not None:
                seen.add(str(len(value)) if is_list else json.dumps(value))
    return True


def _difference(expected: Any, got: Any) -> str:
    for path, value, is_list in leaves(expected):
        try:
            other = _get(got, path)
        except (KeyError, IndexError, TypeError):
            return f"{pattern(path)} missing"
        if is_list:
            if not isinstance(other, list) or len(other) != len(value):
                return f"{pattern(path)} has another length"
        elif other != value:
            return f"{pattern(path)}: {value!r} became {other!r}"
    return "fields added"


def positions(game: Game, seed: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(game number, JSON) of positions of seeded random games, one game after another,
    cycling through every player count and option combination: evenly spaced ones (the
    first and the last included), and any other that holds a value of a field met
    fewer than :data:`VALUES_NEEDED` times so far (a rare decision on the stack)."""
    counts = game.info.player_counts
    seen: dict[str, set[str]] = {}

    def brings_news(doc: dict[str, Any], note: bool) -> bool:
        news = False
        for path, value, is_list in leaves(doc):
            values = seen.setdefault(_key(path, is_list), set())
            if len(values) < VALUES_NEEDED:
                text = str(len(value)) if is_list else json.dumps(value)
                if text not in values:
                    news = True
                    if note:
                        values.add(text)
        return news

    i = 0
    while True:
        state = game.new_game(seed + i, counts[i % len(counts)], game_options(game, i, counts))
        rng = random.Random(seed * 1000003 + i)
        history = [state.to_json()]
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            history.append(state.to_json())
        step = max(1, len(history) // (POSITIONS_PER_GAME - 1))
        spaced = {*range(0, len(history), step), len(history) - 1}
        for k, doc in enumerate(history):
            if k in spaced or brings_news(doc, note=False):
                brings_news(doc, note=True)
                yield i, doc
        i += 1


def check_kernel_fields(game: Game, games: int = FIELD_GAMES, seed: int = 1,
                        twin_of: Twin | None = None) -> FieldsReport:
    """Copy positions of ``games`` seeded random games into the kernel and back, then
    vary every field that play left alone; see the module's text.  While a field is
    still short of values, up to :data:`EXTRA_GAMES` times as many games more are
    played for it.  ``twin_of`` makes the kernel twin (default:
    ``state.search_state()``); raises :class:`FurnaceError` when the game has no kernel."""
    make = twin_of or (lambda state: state.search_state())
    probe = game.new_game(seed, game.info.player_counts[-1])
    if twin_of is None and probe.search_state() is probe:
        raise FurnaceError(f"kernel for {game.info.name} is not built (or "
                           f"FURNACE_PURE_PYTHON is set)")
    nodes: dict[str, list[Node]] = {}
    for key, node in described_fields(game.state_description().root):
        nodes.setdefault(key, []).append(node)
    report = FieldsReport(game.info.name, values={key: set() for key in nodes})
    report.constants = sorted(
        k for k, ns in nodes.items()
        if all(isinstance(n, Const) for n in ns)
        and len({repr(n.value) for n in ns if isinstance(n, Const)}) == 1)
    docs: list[dict[str, Any]] = []
    stream = positions(game, seed)
    number, doc = next(stream)

    def play_until(limit: int) -> list[dict[str, Any]]:
        """Round-trip the positions of the games numbered below ``limit``."""
        nonlocal number, doc
        start = len(docs)
        while number < limit:
            if not _round_trip(game, doc, make, report, f"position {len(docs)}"):
                raise FurnaceError(f"{game.info.name}: the loader refuses position "
                                   f"{len(docs)} of a seeded game")
            docs.append(doc)
            number, doc = next(stream)
        return docs[start:]

    varied: set[str] = set()
    new = play_until(games)
    played = games
    while True:
        for key in report.uncovered:
            varied.add(key)
            _vary(game, new, key, nodes[key], make, report)
        if not report.uncovered or played >= games * (1 + EXTRA_GAMES):
            break
        played += 1
        new = play_until(played)
    report.positions = len(docs)
    report.varied = sorted(k for k in varied if len(report.values[k]) >= VALUES_NEEDED)
    return report


def _vary(game: Game, docs: list[dict[str, Any]], key: str, nodes: list[Node],
          make: Twin, report: FieldsReport) -> None:
    """Set field ``key`` to the other values its description allows, in position after
    position, until enough of them came back (or none is left to try)."""
    for i, doc in enumerate(docs):
        for path, value, is_list in list(leaves(doc)):
            if not path or _key(path, is_list) != key:
                continue
            if is_list:
                variants = [value[:-1], value + value[-1:]] if value else []
            else:
                variants = [v for node in nodes for v in alternatives(node, value)]
            for variant in variants:
                changed = copy.deepcopy(doc)
                parent = _get(changed, path[:-1])
                parent[path[-1]] = variant
                _round_trip(game, changed, make, report, f"position {i}, {key} = "
                            f"{json.dumps(variant)[:40]}")
                if len(report.values[key]) >= VALUES_NEEDED:
                    return
