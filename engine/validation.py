"""Checks shared by every game's catalogue loader and state decoder.

Each failure names the entry and field, so a user fixing a hand-made catalogue
or a client sending a position knows exactly what to change.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from engine.game import InvalidStateError

#: Where a catalogue value comes from (see shared/RULES.md, the catalogue principle).
SOURCES = ("rulebook", "public-list", "reconstructed")


class CatalogueError(InvalidStateError):
    """A catalogue file that does not describe a playable game."""


def catalogue_field(entry: dict[str, Any], name: str, where: str, kind: type,
                    lo: int | None = None, hi: int | None = None) -> Any:
    """``entry[name]``, checked to be a ``kind`` (and within ``lo..hi`` for integers)."""
    if name not in entry:
        raise CatalogueError(f"{where}: missing field {name!r}")
    value = entry[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CatalogueError(f"{where}: field {name!r} must be an integer, got {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise CatalogueError(f"{where}: field {name!r} must be {kind.__name__}, got {value!r}")
    if lo is not None and value < lo or hi is not None and value > hi:
        raise CatalogueError(f"{where}: field {name!r} = {value} is outside {lo}..{hi}")
    return value


def read_catalogue_json(path: str | Path) -> Any:
    """The JSON data of a catalogue file (:class:`CatalogueError` if unreadable or not JSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"cannot read catalogue {path}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"catalogue {path} is not valid JSON: {exc}") from exc


def packaged_catalogue_json(package: str) -> Any:
    """The JSON data of the ``catalogue.json`` shipped inside ``package``."""
    text = resources.files(package).joinpath("catalogue.json").read_text(encoding="utf-8")
    return json.loads(text)


def check_source(entry: dict[str, Any], where: str) -> None:
    source = entry.get("source")
    if source not in SOURCES:
        raise CatalogueError(f"{where}: field 'source' must be one of {SOURCES}, got {source!r}")


def expect(condition: bool, message: str) -> None:
    """Raise :class:`InvalidStateError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise InvalidStateError(message)


def state_int(value: Any, where: str, lo: int = 0, hi: int = 1 << 20) -> int:
    """A state field that must be an integer in ``lo..hi`` (booleans are not integers)."""
    expect(isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi,
           f"{where} must be an integer in {lo}..{hi}, got {value!r}")
    return int(value)
