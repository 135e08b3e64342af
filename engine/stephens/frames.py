"""The decision stack: who decides next, and in which pending procedure.

A frame is ``(kind, seat, context)``: the decision of ``kind`` that ``seat`` owes,
with a JSON-ready context (names to integers or lists of integers, catalogue
indices of the public position).  The seat to move owns the top frame; finishing
a decision pops it and resumes the frame below (an activation inside a turn, an
ability unlock inside a supply bonus inside a reset, ...).  The steps of the flow
are frames too (:data:`PROCEDURES`: a turn, a reset phase), so the stack alone says
where the game is; they run by themselves when they come on top.

>>> frame = Frame.make("unlock", 2)
>>> frame, frame.to_json()
(Frame(kind='unlock', seat=2, context=()), {'kind': 'unlock', 'seat': 2, 'context': {}})
>>> Frame.from_json(frame.to_json(), "decisions[0]", num_players=3) == frame
True
>>> Frame.make("unlock", 0, cards=[4, 2]).get("cards")
(4, 2)
>>> Frame.make("effect", 1, factory=2).with_(factory=3).num("factory")
3
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.refusals import SHAPE
from engine.validation import expect, short_repr

#: Frame kinds and the context fields each keeps (sorted by name).  Kinds in
#: :data:`PROCEDURES` are steps of the game's flow that run by themselves when they
#: come on top (a turn, a reset phase); every other kind is a decision of its seat.
FRAME_KINDS: dict[str, tuple[str, ...]] = {
    # Setup: take 1 accessory tile of your choice (L166-L169).
    "accessory": (),
    # A disk came off the player board (a master or apprentice was placed): choose
    # which, unlocking its ability (L286-L287, L618-L620).
    "unlock": (),
    # The turn of the seat: stage 0 begins it, 1 ends it (after its action), 2 passes
    # the turn to the next player (after the reset the turn triggered).
    "turn": ("stage",),
    # The turn's action (L208-L218); ``discarded``: the P1 discard was made (L876-L885).
    "action": ("discarded",),
    # 3 or 4 cubes from a small factory: that row, or an empty furnace's effect
    # (L998-L1011).
    "effect": ("factory",),
    # Activated row (place): the seat's plan; ``used`` marks workers that already
    # collected (a plan longer than one move holds).
    "activation": ("place", "used"),
    # After a plan: the colours of the cubes paid and gained as "any" (L1817-L1822),
    # the types of the accessories (L1832); also the types of supply bonus accessories.
    "cubes": ("gained", "paid"),
    "accessories": ("gained", "paid"),
    # Commit to contracts / fund investments (L323-L411, L818-L845): pile 0 contract,
    # 1 investment, 2 either (a supply bonus); cards ``left`` to take; the discount and
    # the discard of the cheapest card still available; the display space of the
    # first card taken and the row it went to (-1: none yet).
    "acquire": ("cheapest", "discount", "first", "left", "pile", "row"),
    # Assign a worker as a supply bonus (L1851-L1853): create, reinforce or decline.
    "assign": (),
    # A reset phase (L941-L1262): the next step to run (1 army ... 7 fulfil, 8 done)
    # and whether it is the final one.
    "reset": ("final", "step"),
    # R4: which investment columns to activate (L1089-L1138).
    "columns": (),
    # R6: supply the reserved cubes (L1200-L1216): the last combination supplied and
    # the gains still to collect once every cube is placed.
    "supply": ("accessories", "acquire", "assign", "influence", "last"),
    # R6, after the assignments: the influence the combinations gave.
    "influence": ("n",),
    # R7: fulfil contracts (L1218-L1262); ``type``: lowest contract type still allowed.
    "fulfil": ("type",),
    # Solo: the Automa's turn (stage 0 reveals and acts, 1 places the disk and ends it);
    # its seat is the player's (0), who decides for it where the rulebook says so.
    "automa": ("stage",),
    # Solo: which ``n`` cubes the Automa removes from small factory ``factory`` (L1693).
    "remove": ("factory", "n"),
}
#: Frames that are steps of the flow, run when they come on top; no seat decides them.
PROCEDURES = frozenset({"turn", "reset", "influence", "automa"})

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

    def num(self, name: str) -> int:
        """A context field that holds an integer."""
        value = self.get(name)
        assert isinstance(value, int), (self.kind, name)
        return value

    def with_(self, **changes: int) -> Frame:
        """This frame with some context fields replaced."""
        values = dict(self.context)
        for name in changes:
            if name not in values:
                raise KeyError(name)
        values.update(changes)
        return Frame.make(self.kind, self.seat, **values)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat,
                "context": {k: list(v) if isinstance(v, tuple) else v for k, v in self.context}}

    @classmethod
    def from_json(cls, data: Any, where: str, num_players: int) -> Frame:
        expect(isinstance(data, Mapping) and set(data) == {"kind", "seat", "context"},
               f"{where} must be an object with kind, seat and context", kind=SHAPE)
        kind = data["kind"]
        expect(isinstance(kind, str) and kind in FRAME_KINDS,
               f"{where}.kind must be one of {', '.join(FRAME_KINDS)}, got {short_repr(kind)}", kind=SHAPE)
        seat = data["seat"]
        expect(isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < num_players,
               f"{where}.seat must be a seat 0..{num_players - 1}, got {short_repr(seat)}", kind=SHAPE)
        context = data["context"]
        expect(isinstance(context, Mapping), f"{where}.context must be an object", kind=SHAPE)
        fields = FRAME_KINDS[kind]
        expect(sorted(context) == list(fields),
               f"{where}.context of a {kind!r} frame holds {', '.join(fields) or 'nothing'}, "
               f"not {', '.join(sorted(context)) or 'nothing'}", kind=SHAPE)
        values: dict[str, int | list[int]] = {}
        for name, value in context.items():
            ok = _is_int(value) or (isinstance(value, list) and all(_is_int(v) for v in value))
            expect(ok, f"{where}.context.{name} must be an integer or a list of integers", kind=SHAPE)
            values[name] = value
        return cls.make(str(kind), seat, **values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
