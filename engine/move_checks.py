"""Judging a proposed move: whether the seat it is for may play it in a position, and if
not, why, in words and as a :class:`MoveFault`.

A move comes from outside as an id, a text, or both.  :func:`judge_move` resolves it
and judges it through the :class:`~engine.game.State` protocol only (``parse_move``,
``move_to_text``, ``is_move_code``, ``current_player``, ``chance_outcomes``,
``moves_known_to``, ``why_illegal``), so it serves every game alike.  The checks run in
an order that reveals nothing first: the notation, the id, whether the game is over,
whose turn it is; only then does a seat whose moves depend on what the observer cannot
see stop the judging (:attr:`MoveFault.HIDDEN`), before the rules are asked.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.game import CHANCE, TERMINAL, FurnaceError, MoveParseError, State
from engine.seats import player_name, seat_label


class MoveFault(enum.Enum):
    """Why a proposed move is not played."""

    #: Neither an id nor a text was given.
    EMPTY = "empty"
    #: The text is no move notation of the game.
    UNPARSEABLE = "unparseable"
    #: The id is no move code of the game.
    NOT_A_MOVE = "not_a_move"
    #: The id and the text name two different moves.
    ID_TEXT_MISMATCH = "id_text_mismatch"
    #: The game is over.
    GAME_OVER = "game_over"
    #: Another seat, or chance, is to move.
    NOT_YOUR_TURN = "not_your_turn"
    #: The observer cannot know the moves of the seat to move: not judged.
    HIDDEN = "hidden"
    #: The rules forbid it here (for chance: not an outcome of this position).
    RULES = "rules"


@dataclass(frozen=True)
class MoveVerdict:
    """What :func:`judge_move` found.

    ``move`` and ``text`` are the move as far as it could be worked out (None where
    not: no id for a text that does not parse, no text for an id that is no move of
    the game).  ``player`` is whose turn it is (a seat, :data:`~engine.game.CHANCE`
    or :data:`~engine.game.TERMINAL`).
    """

    legal: bool
    player: int
    move: int | None = None
    text: str | None = None
    fault: MoveFault | None = None
    #: Why not, in words ("" when legal).
    reason: str = ""

    @property
    def chance(self) -> bool:
        """Whether chance is to move (the move is judged as a chance outcome)."""
        return self.player == CHANCE


def hidden_moves_reason(state: State, observer: int | None) -> str:
    """Why ``observer`` is told nothing about the moves of the seat to move."""
    player = state.current_player()
    mover = "chance" if player == CHANCE else seat_label(player)
    if observer is None:  # the host sees every seat's information: not reached today
        return f"the host cannot judge the moves of {mover}: they depend on what no seat sees"
    return (f"{seat_label(observer)} cannot judge the moves of {mover}: they depend on what "
            f"{player_name(observer)} cannot see")


def move_code_text(state: State, move: int) -> str | None:
    """The text of ``move`` when it is a move code of the game (``State.is_move_code``),
    else None: whatever the id, no exception escapes."""
    try:
        if not state.is_move_code(move):
            return None
        return state.move_to_text(move)
    except (FurnaceError, ValueError, IndexError, KeyError, OverflowError, TypeError):
        return None


def judge_move(state: State, move: int | None = None, text: str = "", *,
               seat: int | None = None, observer: int | None = None) -> MoveVerdict:
    """Resolve a move given by id (``move``) and/or ``text`` (surrounding blanks ignored)
    and judge it in ``state``.

    ``seat``, when given, is whom the move is for: it must be the seat to move.
    ``observer`` (``None``: the host) is whom the verdict is for: a move of a seat whose
    moves it cannot know is not judged (:attr:`MoveFault.HIDDEN`).
    """
    player = state.current_player()
    text = text.strip()
    if move is None and not text:
        return MoveVerdict(False, player, fault=MoveFault.EMPTY,
                           reason="give the move's id or its text")
    from_text: int | None = None
    if text:
        try:
            from_text = state.parse_move(text)
        except MoveParseError as exc:
            return MoveVerdict(False, player, text=text, fault=MoveFault.UNPARSEABLE,
                               reason=str(exc))
    if move is not None:
        # Only an id the game can produce has a text: never one made up for a
        # negative, out-of-range or undecodable number.
        id_text = move_code_text(state, move)
        if id_text is None:
            return MoveVerdict(False, player, move=move, fault=MoveFault.NOT_A_MOVE,
                               reason=f"move id {move} is not a move of {state.info.title}")
        if from_text is not None and from_text != move:
            return MoveVerdict(False, player, move=move, text=text,
                               fault=MoveFault.ID_TEXT_MISMATCH,
                               reason=f"move.id {move} is {id_text!r} but move.text {text!r} "
                                      f"is move {from_text}")
        resolved, resolved_text = move, id_text
    else:
        assert from_text is not None
        resolved, resolved_text = from_text, state.move_to_text(from_text)

    def illegal(fault: MoveFault, reason: str) -> MoveVerdict:
        return MoveVerdict(False, player, resolved, resolved_text, fault, reason)

    if player == TERMINAL:
        return illegal(MoveFault.GAME_OVER, "the game is over")
    if seat is not None and seat != player:
        whose = "chance moves next" if player == CHANCE else \
            f"it is the turn of {seat_label(player)}"
        return illegal(MoveFault.NOT_YOUR_TURN, f"{whose}, not of {seat_label(seat)}")
    if not state.moves_known_to(observer):
        return illegal(MoveFault.HIDDEN, hidden_moves_reason(state, observer))
    why = why_rules_forbid(state, resolved)
    if why is None:
        return MoveVerdict(True, player, resolved, resolved_text)
    return illegal(MoveFault.RULES, why)


def why_rules_forbid(state: State, move: int) -> str | None:
    """Why the rules do not let ``move`` be played in ``state`` (``None``: they do): for
    chance, whether it is one of the outcomes; for a seat, ``why_illegal``.  The last of
    :func:`judge_move`'s checks, which callers that have made the others already (a
    record's move, resolved from its id or text) make alone."""
    player = state.current_player()
    if player == TERMINAL:
        return "the game is over"
    if player == CHANCE:
        if any(m == move for m, _ in state.chance_outcomes()):
            return None
        return "not a chance outcome of this position"
    return state.why_illegal(move)
