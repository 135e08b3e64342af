"""Where the flow of a game hands over to the game being played: its hooks.

The flow (:mod:`engine.stephens.flow`) runs the decision stack the same way for every
game: the turn, the reset phase, the decisions of a turn.  The multi-player game
and the solo game against the Automa differ at a few named points; each is one set
of :class:`Hooks` (``flow.MULTI_PLAYER`` and ``solo.SOLO``), chosen by the
number of players, so no rule module asks "is this the solo game?" to reach the
solo rules.  A decision kind's moves, reasons and play are a :class:`Handler`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.game import Event
from engine.stephens.frames import Frame
from engine.stephens.position import Position

Moves = Callable[[Position, Frame], list[int]]
Reason = Callable[[Position, Frame, int], "str | None"]
Apply = Callable[[Position, Frame, int, list[Event]], None]
#: A procedure frame run when it comes on top (it pops or rewrites itself).
Procedure = Callable[[Position, Frame, list[Event]], None]
#: A step of the flow: changes the position, reports what happened.
Step = Callable[[Position, list[Event]], None]


@dataclass(frozen=True)
class Handler:
    """A decision kind: its move kinds, what it offers, why it refuses, how it plays."""

    what: str  # the decision in words, for messages
    kinds: tuple[int, ...]
    moves: Moves
    reason: Reason
    apply: Apply


@dataclass(frozen=True)
class Hooks:
    """The points where one game differs from another, in the order the flow meets them."""

    #: After every step: note that the end of the game has been triggered.
    check_end: Step
    #: A turn has ended: whether it was the game's last (it starts what ends the game).
    last_turn_over: Callable[[Position, list[Event]], bool]
    #: A turn and the reset after it are over: push the next turn.
    next_turn: Step
    #: The reset phase's army step has moved the French army.
    army_advanced: Step
    #: The order of the reset phase's steps (``engine.stephens.reset``'s numbers, from the
    #: army to DONE): the solo game supplies the small factories last (L1592).
    reset_steps: tuple[int, ...]
    #: The reset phase's supply step begins, before the players supply.
    supplying: Step
    #: The game's own procedure frames (the kinds the flow itself does not run).
    procedures: Mapping[str, Procedure]
    #: The game's own decisions (the kinds the flow's handlers do not cover).
    decisions: Mapping[str, Handler]


def nothing(state: Position, events: list[Event]) -> None:
    """A step a game does not take."""
