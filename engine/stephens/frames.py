"""The decision stack: who decides next, and in which pending procedure.

A frame is ``(kind, seat, context)``: the decision of ``kind`` that ``seat`` owes,
with a JSON-ready context (names to integers or lists of integers, catalogue
indices of the public position).  The seat to move owns the top frame; finishing
a decision pops it and resumes the frame below (an activation inside a turn, an
ability unlock inside a supply bonus inside a reset, ...).  Piece 1 only needs the
setup decisions; the turn and reset procedures add their kinds to
:data:`FRAME_KINDS` with the context fields they keep.

>>> frame = Frame.make("unlock", 2)
>>> frame, frame.to_json()
(Frame(kind='unlock', seat=2, context=()), {'kind': 'unlock', 'seat': 2, 'context': {}})
>>> Frame.from_json(frame.to_json(), "decisions[0]", num_players=3) == frame
True
>>> Frame.make("unlock", 0, cards=[4, 2]).get("cards")
(4, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.validation import expect

#: Frame kinds and the context fields each keeps (sorted by name).
FRAME_KINDS: dict[str, tuple[str, ...]] = {
    # Setup: take 1 accessory tile of your choice (L166-L169).
    "accessory": (),
    # A disk came off the player board (a master or apprentice was placed): choose
    # which, unlocking its ability (L286-L287, L618-L620).
    "unlock": (),
}

ContextValue = int | tuple[int, ...]


@dataclass(frozen=True)
class Frame:
    """One pending decision.  Immutable: a procedure that moves on replaces its frame."""

    kind: str
    seat: int
    context: tuple[tuple[str, ContextValue], ...] = ()

    @classmethod
    def make(cls, kind: str, seat: int, **context: int | tuple[int, ...] | list[int]) -> Frame:
        items = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                             for k, v in context.items()))
        return cls(kind, seat, items)

    def get(self, name: str) -> ContextValue:
        for key, value in self.context:
            if key == name:
                return value
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat,
                "context": {k: list(v) if isinstance(v, tuple) else v for k, v in self.context}}

    @classmethod
    def from_json(cls, data: Any, where: str, num_players: int) -> Frame:
        expect(isinstance(data, Mapping) and set(data) == {"kind", "seat", "context"},
               f"{where} must be an object with kind, seat and context")
        kind = data["kind"]
        expect(kind in FRAME_KINDS, f"{where}.kind must be one of {', '.join(FRAME_KINDS)}, "
                                    f"got {kind!r}")
        seat = data["seat"]
        expect(isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < num_players,
               f"{where}.seat must be a seat 0..{num_players - 1}, got {seat!r}")
        context = data["context"]
        expect(isinstance(context, Mapping), f"{where}.context must be an object")
        fields = FRAME_KINDS[kind]
        expect(sorted(context) == list(fields),
               f"{where}.context of a {kind!r} frame holds {', '.join(fields) or 'nothing'}, "
               f"not {', '.join(sorted(context)) or 'nothing'}")
        values: dict[str, int | list[int]] = {}
        for name, value in context.items():
            ok = _is_int(value) or (isinstance(value, list) and all(_is_int(v) for v in value))
            expect(ok, f"{where}.context.{name} must be an integer or a list of integers")
            values[name] = value
        return cls.make(str(kind), seat, **values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
