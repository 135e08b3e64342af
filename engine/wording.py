"""Counted nouns in the texts players read: "1 card", "2 cards", never "1 cards" or
"card(s)".

>>> count(1, "card"), count(0, "card"), count(3, "man", "men")
('1 card', '0 cards', '3 men')
>>> counted_plural(1, "bricks"), counted_plural(2, "bricks"), counted_plural(1, "coal")
('1 brick', '2 bricks', '1 coal')
>>> counted_plural(1, "clothes"), counted_plural(1, "glass")
('1 clothes', '1 glass')
"""

from __future__ import annotations

#: Plurals that are not the singular less a final "s" (or have no singular in use).
_IRREGULAR = {"men": "man", "women": "woman", "clothes": "clothes", "shears": "shears"}


def count(n: float, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, else ``noun`` + "s") unless ``n`` is 1."""
    return f"{n:g} {noun if n == 1 else (plural or noun + 's')}"


def singular(plural: str) -> str:
    """The singular of a plural name from a catalogue (``bricks`` -> ``brick``); a mass
    noun (``coal``, ``glass``) is its own."""
    if plural in _IRREGULAR:
        return _IRREGULAR[plural]
    if plural.endswith("s") and not plural.endswith("ss"):
        return plural[:-1]
    return plural


def counted_plural(n: float, plural: str) -> str:
    """``n`` of a thing a catalogue names in the plural (``bricks``, or ``coal``)."""
    return count(n, singular(plural), plural)
