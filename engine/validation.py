"""Checks shared by every game's catalogue loader and state decoder.

Each failure names the entry and field, so a user fixing a hand-made catalogue
or a client sending a position knows exactly what to change.  The helpers never
trip over the data they check: a value of the wrong type, a huge or deeply nested
one is reported (its text bounded by :func:`short_repr`), not raised on.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from engine.game import FurnaceError, GameInfo, InvalidStateError
from engine.refusals import ONE_PLACE, SHAPE

T = TypeVar("T")

#: Where a catalogue value comes from (see shared/RULES.md, the catalogue principle).
SOURCES = ("rulebook", "public-list", "reconstructed")


class CatalogueError(InvalidStateError):
    """A catalogue file that does not describe a playable game."""


def parse_guarded(parse: Callable[[Any], T], data: Any, game: str) -> T:
    """``parse(data)``, with every failure a :class:`CatalogueError`.

    A parser names the entry and field of each problem it checks for; a value of a
    shape it did not foresee still ends as a CatalogueError (naming the exception),
    never as a stray TypeError or a RecursionError from deep nesting.
    """
    try:
        return parse(data)
    except CatalogueError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise CatalogueError(f"corrupt {game} catalogue: {type(exc).__name__}: {exc}") \
            from exc
    except RecursionError:
        raise CatalogueError(f"{game} catalogue: a value is nested too deeply") from None


_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 4
_REPR.maxlevel = 2


def short_repr(value: Any) -> str:
    """``repr(value)``, bounded in length and depth (safe for hostile input)."""
    return _REPR.repr(value)


# -- catalogues ---------------------------------------------------------------------

def catalogue_field(entry: dict[str, Any], name: str, where: str, kind: type,
                    lo: int | None = None, hi: int | None = None) -> Any:
    """``entry[name]``, checked to be a ``kind`` (and within ``lo..hi`` for integers)."""
    if name not in entry:
        raise CatalogueError(f"{where}: missing field {name!r}")
    value = entry[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CatalogueError(f"{where}: field {name!r} must be an integer, "
                             f"got {short_repr(value)}")
    if kind is not int and not isinstance(value, kind):
        raise CatalogueError(f"{where}: field {name!r} must be {kind.__name__}, "
                             f"got {short_repr(value)}")
    if lo is not None and value < lo or hi is not None and value > hi:
        raise CatalogueError(f"{where}: field {name!r} = {value} is outside {lo}..{hi}")
    return value


def decode_json(text: str, what: str, error: type[FurnaceError]) -> Any:
    """The JSON data in ``text``; ``error`` naming ``what`` ("catalogue X") if it is not
    JSON or is nested too deeply for the decoder."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise error(f"{what} is nested too deeply") from None


def read_json_file(path: str | Path, what: str, error: type[FurnaceError],
                   unreadable: type[FurnaceError] | None = None) -> Any:
    """The JSON data in the file ``path``, read as UTF-8.

    Anything wrong is an ``error`` naming the file as ``what`` ("catalogue",
    "saved game"): not UTF-8, not JSON, nested too deeply; a file that cannot be read
    at all is an ``unreadable`` (default: ``error``).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise (unreadable or error)(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text: {exc.reason} at byte "
                    f"{exc.start}") from None
    return decode_json(text, f"{what} {path}", error)


def read_catalogue_json(path: str | Path) -> Any:
    """The JSON data of a catalogue file (:class:`CatalogueError` if unreadable or not JSON)."""
    return read_json_file(path, "catalogue", CatalogueError)


def packaged_catalogue_json(package: str) -> Any:
    """The JSON data of the ``catalogue.json`` shipped inside ``package``
    (:class:`CatalogueError` if it is missing, unreadable or not JSON)."""
    where = f"{package.replace('.', '/')}/catalogue.json"
    try:
        text = resources.files(package).joinpath("catalogue.json").read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"cannot read the packaged catalogue {where}: "
                             f"{exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CatalogueError(f"the packaged catalogue {where} is not UTF-8 text: "
                             f"{exc.reason} at byte {exc.start}") from None
    return decode_json(text, f"the packaged catalogue {where}", CatalogueError)


class CatalogueData(dict[str, Any]):
    """A catalogue's JSON data as read, which front ends draw from (``GameInfo.catalogue``).

    It stays in the process that read it: pickled (a position sent to a search worker
    carries its catalogue) it is empty, since the rules never read it and it would
    double what every search job carries (Stephens: 46 kB instead of 22 kB)."""

    def __reduce__(self) -> tuple[type[CatalogueData], tuple[()]]:
        return (CatalogueData, ())


def catalogue_copy(data: Any) -> CatalogueData:
    """A validated catalogue's JSON data, copied (a caller may change its own): what a
    catalogue keeps to send to front ends (``GameInfo.catalogue``)."""
    return CatalogueData(json.loads(json.dumps(data)))


def check_source(entry: dict[str, Any], where: str) -> None:
    source = entry.get("source")
    if source not in SOURCES:
        raise CatalogueError(f"{where}: field 'source' must be one of {SOURCES}, "
                             f"got {short_repr(source)}")


# -- states ---------------------------------------------------------------------------

def expect(condition: bool, message: str, path: str | None = None,
           kind: str | None = None) -> None:
    """Raise :class:`InvalidStateError` with ``message`` unless ``condition`` holds.

    ``path``: the field at fault (default: the path ``message`` starts with; ``""``:
    the state as a whole); ``kind``: the kind of fact broken
    (:data:`engine.refusals.REFUSAL_KINDS`).
    """
    if not condition:
        raise InvalidStateError(message, path, kind)


def is_int(value: Any) -> bool:
    """An integer, and not a boolean."""
    return isinstance(value, int) and not isinstance(value, bool)


def state_int(value: Any, where: str, lo: int = 0, hi: int = 1 << 20,
              kind: str = SHAPE) -> int:
    """A state field that must be an integer in ``lo..hi`` (booleans are not integers);
    ``kind``: :data:`~engine.refusals.SHAPE` unless a bound depends on other fields."""
    expect(is_int(value) and lo <= value <= hi,
           f"{where} must be an integer in {lo}..{hi}, got {short_repr(value)}", where, kind)
    return int(value)


def state_object(value: Any, where: str) -> Mapping[str, Any]:
    """A state field that must be a JSON object."""
    expect(isinstance(value, Mapping), f"{where} must be an object, got {short_repr(value)}",
           where, SHAPE)
    return value


def state_list(value: Any, where: str, size: int | None = None,
               kind: str = SHAPE) -> list[Any]:
    """A state field that must be a list (of ``size`` entries, if given: ``kind`` says
    whether that size depends on other fields)."""
    expect(isinstance(value, list), f"{where} must be a list, got {short_repr(value)}", where,
           SHAPE)
    if size is not None:
        expect(len(value) == size, f"{where} must be a list of {size} entries, not {len(value)}",
               where, kind)
    return value


def state_choice(value: Any, where: str, choices: Sequence[str]) -> str:
    """A state field that must be one of the strings ``choices``."""
    expect(isinstance(value, str) and value in choices,
           f"{where} must be one of {', '.join(choices)}, got {short_repr(value)}", where, SHAPE)
    return str(value)


def state_header(data: Any, info: GameInfo, version: int = 1) -> tuple[int, dict[str, Any]]:
    """Check a serialized state's ``game``, ``version``, ``num_players`` and ``options``;
    returns the player count and the options with their defaults filled in."""
    expect(isinstance(data, Mapping), f"a state must be an object, got {short_repr(data)}", "",
           SHAPE)
    expect(data.get("game") == info.name,
           f"field 'game' must be {info.name!r}, got {short_repr(data.get('game'))}", "game",
           SHAPE)
    expect(is_int(data.get("version")) and data.get("version") == version,
           f"unsupported state version {short_repr(data.get('version'))}", "version", SHAPE)
    n = state_int(data.get("num_players"), "num_players", info.min_players, info.max_players)
    raw = data.get("options")
    options = state_object({} if raw is None else raw, "options")
    known = {o.name: o for o in info.options}
    for name, value in options.items():
        expect(name in known, f"options: unknown option {short_repr(name)}", "options", SHAPE)
        kind = type(known[name].default)
        expect(isinstance(value, kind) and (kind is not int or not isinstance(value, bool)),
               f"options.{name} must be {kind.__name__}, got {short_repr(value)}", None, SHAPE)
    return n, info.resolve_options(dict(options))


class UniqueRefs:
    """Catalogue ids in a state, each of which may be in one place only.

    ``refs(value, where)`` is the component's index; ``refs.at`` maps the indices
    seen so far to where they were.
    """

    def __init__(self, ids: Mapping[str, int], what: str) -> None:
        self.ids = ids
        self.what = what
        self.at: dict[int, str] = {}

    def __call__(self, value: Any, where: str) -> int:
        expect(isinstance(value, str) and value in self.ids,
               f"{where}: unknown {self.what} {short_repr(value)}", None, SHAPE)
        index = self.ids[value]
        expect(index not in self.at, f"{where}: {self.what} {value!r} is also at "
                                     f"{self.at.get(index)}", None, ONE_PLACE)
        self.at[index] = where
        return index

    def list(self, value: Any, where: str) -> list[int]:
        """A list of ids, each read like ``refs(item, where[i])``."""
        return [self(v, f"{where}[{i}]") for i, v in enumerate(state_list(value, where))]

    def missing(self) -> int:
        """How many components of the catalogue were not met."""
        return len(self.ids) - len(self.at)
