"""Samara's moves in words: which integers are move codes, and the notation of a move.

A move is an integer from :func:`engine.samara.vocabulary.encode_move`,
``kind << 16 | spot << 10 | arg << 5 | workers``: :func:`is_move_code` says which
integers are one for a board (legal in some position or not), :func:`move_to_text`
writes one as words (``tool saw r1c2 1``, ``build r3c4 1+2 train 2``, ``give
glass-a``) and :func:`parse_move` reads the words back; a group names the mover's
workers in the current month by their place, nearest the board first, from 1.

>>> from engine.samara.catalogue import default_catalogue
>>> from engine.samara.setup import new_state
>>> from engine.samara.vocabulary import TOOL, encode_move
>>> state = new_state(default_catalogue(), seed=1, num_players=2, powers=True)
>>> move = encode_move(TOOL, spot=1, arg=0, workers=1)
>>> text = move_to_text(state, move); text
'tool saw r1c2 1'
>>> parse_move(state, text) == move and is_move_code(move, len(state.catalogue.spots))
True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.game import MoveParseError
from engine.samara.catalogue import TOOL_NAMES
from engine.samara.vocabulary import (
    BUILD,
    BURY,
    GIVE,
    IMPRISON,
    KIND_WORDS,
    RECRUIT,
    TOOL,
    VACATION,
    WAIT,
    WEAKEN,
    decode_move,
    encode_move,
)
from engine.validation import is_int, short_repr

if TYPE_CHECKING:
    from engine.samara.state import SamaraState


#: Every move code is below this (the kinds take the bits from 16 up).
MOVE_CODE_LIMIT = len(KIND_WORDS) << 16


def is_move_code(move: Any, num_spots: int) -> bool:
    """Whether ``move`` is a code :func:`encode_move` gives for some move of a board
    of ``num_spots`` spots (legal here or not): what ``move_to_text`` writes and
    ``parse_move`` reads back.  Negative ids, ids past :data:`MOVE_CODE_LIMIT` and
    codes with fields the move does not use are not.
    """
    if not is_int(move) or not 0 <= move < MOVE_CODE_LIMIT:
        return False
    kind, si, arg, mask = decode_move(move)
    if kind in (WAIT, VACATION):
        return si == arg == mask == 0
    if kind == RECRUIT:
        return si == mask == 0 and arg < 2
    if kind == GIVE:
        return si == mask == 0 and arg < len(TOOL_NAMES)
    if kind in (WEAKEN, BURY, IMPRISON):
        return si == mask == 0 and arg < 31  # workers 1..31
    # TOOL and BUILD: a spot of the board and a group of at least one worker.
    if si >= num_spots or mask == 0:
        return False
    return kind == BUILD or arg < len(TOOL_NAMES)


def not_a_move(move: Any) -> str:
    """The reason given for an id that is no move code of Samara."""
    return f"{short_repr(move)} is not a move of Samara"


def safe_text(state: SamaraState, move: int) -> str:
    """``move`` as an error message names it: its words, else the id as given."""
    if not isinstance(move, int) or isinstance(move, bool) or move < 0:
        return repr(move)
    try:
        return move_to_text(state, move)
    except (ValueError, IndexError, KeyError):
        return str(move)


def move_to_text(state: SamaraState, move: int) -> str:
    if not state.is_move_code(move):
        raise MoveParseError(not_a_move(move))
    kind, si, arg, mask = decode_move(move)
    word = KIND_WORDS[kind]
    if kind in (WAIT, VACATION):
        return word
    if kind == RECRUIT:
        return f"recruit {'woman' if arg else 'man'}"
    if kind == GIVE:
        return f"give {TOOL_NAMES[arg]}" if arg < 5 else f"give {arg}"
    if kind in (WEAKEN, BURY, IMPRISON):
        return f"{word} {arg + 1}"
    label = state.catalogue.spots[si].label if si < len(state.catalogue.spots) else f"s{si}"
    group = "+".join(str(i + 1) for i in range(5) if mask >> i & 1) or "0"
    if kind == TOOL:
        return f"tool {TOOL_NAMES[arg] if arg < 5 else arg} {label} {group}"
    text = f"build {label} {group}"
    return f"{text} train {arg}" if arg else text


def _spot_ranges(state: SamaraState) -> str:
    """The board's spots, row by row: ``r1c1-r1c7, ..., r4c4-r4c9``."""
    rows: dict[int, list[int]] = {}
    for spot in state.catalogue.spots:
        rows.setdefault(spot.row, []).append(spot.col)
    return ", ".join(f"r{r}c{min(cols)}-r{r}c{max(cols)}" for r, cols in sorted(rows.items()))


def parse_move(state: SamaraState, text: str) -> int:
    words = str(text).strip().lower().split()
    if not words:
        raise MoveParseError("empty move")
    word = words[0]

    def fail(expected: str) -> MoveParseError:
        return MoveParseError(f"cannot read move {text!r}: expected {expected}")

    def number(token: str, what: str) -> int:
        if not token.isdigit() or not 1 <= int(token) <= 31:
            raise fail(f"{what} as a number from 1")
        return int(token)

    def spot(token: str) -> int:
        try:
            return state.catalogue.spot_index(token)
        except KeyError:
            if re.fullmatch(r"r\d+c\d+", token):
                raise MoveParseError(f"cannot read move {text!r}: {token} is off the "
                                     f"board, whose spots are {_spot_ranges(state)}"
                                     ) from None
            raise fail("a board spot like r3c1") from None

    def group(token: str) -> int:
        mask = 0
        for part in token.split("+"):
            mask |= 1 << (number(part, "workers like 1+3") - 1)
        if mask >= 32:
            raise fail("at most 5 workers")
        return mask

    def tool(token: str) -> int:
        if token not in TOOL_NAMES:
            raise fail(f"a tool ({', '.join(TOOL_NAMES)})")
        return TOOL_NAMES.index(token)

    if word in ("wait", "vacation") and len(words) == 1:
        return encode_move(KIND_WORDS.index(word))
    if word == "recruit" and len(words) == 2 and words[1] in ("man", "woman"):
        return encode_move(RECRUIT, arg=int(words[1] == "woman"))
    if word == "tool" and len(words) == 4:
        return encode_move(TOOL, spot(words[2]), tool(words[1]), group(words[3]))
    if word == "build" and len(words) == 3:
        return encode_move(BUILD, spot(words[1]), 0, group(words[2]))
    if word == "build" and len(words) == 5 and words[3] == "train":
        return encode_move(BUILD, spot(words[1]), number(words[4], "the trainee"),
                           group(words[2]))
    if word == "give" and len(words) == 2:
        return encode_move(GIVE, arg=tool(words[1]))
    if word in ("weaken", "bury", "imprison") and len(words) == 2:
        return encode_move(KIND_WORDS.index(word), arg=number(words[1], "a worker") - 1)
    raise fail("one of: wait | vacation | recruit man|woman | tool KIND SPOT GROUP | "
               "build SPOT GROUP [train N] | give KIND | weaken N | bury N | imprison N")
