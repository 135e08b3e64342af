"""Oh My Goods! moves: integer codes and the words for them.

A move is ``kind << 10 | arg`` (:func:`engine.oh_my_goods.vocabulary.encode_move`), below
:data:`MOVE_CODE_LIMIT`.  An argument names a card or an assistant by its catalogue
index and a building by its slot: ``#0`` is the Charburner, ``#k`` the k-th building
built.  :func:`is_move_code` tells the codes of some move, legal or not, from other ids.

===================  =====================================  ===============================
kind                 argument                               text
===================  =====================================  ===============================
KEEP, REDRAW         -                                      ``keep``, ``redraw``
SHIFT                64 * assistant + slot                  ``shift assistant-1 #2``
WORK_ORDERLY/SLOPPY  slot                                   ``work #0 orderly``
IDLE                 -                                      ``idle``
PLAN, PLAN_NONE      card, -                                ``plan mill-1``, ``plan none``
PRODUCE              slot                                   ``produce #1``
SUPPLY               card                                   ``supply mill-2``
CHAIN                card, or NO_CARD for none from hand    ``chain mill-3``, ``chain``
STOP, DONE           -                                      ``stop``, ``done``
CHAIN_ONLY           slot                                   ``chain-only #1``
BUILD, SCRAP         -                                      ``build``, ``scrap``
PAY, PLACE           slot                                   ``pay #0``, ``place #1``
HIRE                 assistant                              ``hire assistant-1``
PASS                 -                                      ``pass``
===================  =====================================  ===============================

>>> from engine.oh_my_goods.catalogue import default_catalogue
>>> from engine.oh_my_goods.setup import new_state
>>> state = new_state(default_catalogue(), seed=1, num_players=2, second_edition=False)
>>> move = encode_move(SHIFT, 1 * 64 + 2)
>>> text = move_to_text(state, move); text
'shift assistant-2 #2'
>>> parse_move(state, text) == move and is_move_code(move, 94, 8)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.game import MoveParseError
from engine.oh_my_goods.vocabulary import (
    BUILD,
    CHAIN,
    CHAIN_ONLY,
    DONE,
    HIRE,
    IDLE,
    KEEP,
    KIND_WORDS,
    MODE_WORDS,
    NO_CARD,
    PASS,
    PAY,
    PLACE,
    PLAN,
    PLAN_NONE,
    PRODUCE,
    REDRAW,
    SCRAP,
    SHIFT,
    STOP,
    SUPPLY,
    WORK_ORDERLY,
    WORK_SLOPPY,
    decode_move,
    encode_move,
)
from engine.validation import is_int, short_repr

if TYPE_CHECKING:
    from engine.oh_my_goods.state import OhMyGoodsState

#: Every move code is below this (the kinds take the bits from 10 up).
MOVE_CODE_LIMIT = len(KIND_WORDS) << 10
#: Kinds whose move takes no argument.
_BARE_KINDS = (KEEP, REDRAW, IDLE, STOP, DONE, BUILD, SCRAP, PASS, PLAN_NONE)
#: Kinds whose argument is a building slot (``#0`` to ``#63``).
_SLOT_KINDS = (WORK_ORDERLY, WORK_SLOPPY, PRODUCE, CHAIN_ONLY, PAY, PLACE)


def is_move_code(move: Any, num_cards: int, num_assistants: int) -> bool:
    """Whether ``move`` is a code :func:`encode_move` gives for some move of a
    catalogue of ``num_cards`` cards and ``num_assistants`` assistants (legal here
    or not): what ``move_to_text`` writes and ``parse_move`` reads back.  Negative
    ids, ids past :data:`MOVE_CODE_LIMIT` and codes whose argument the move does
    not take are not.
    """
    if not is_int(move) or not 0 <= move < MOVE_CODE_LIMIT:
        return False
    kind, arg = decode_move(move)
    if kind in _BARE_KINDS:
        return arg == 0
    if kind in _SLOT_KINDS:
        return arg < 64
    if kind == SHIFT:
        return arg // 64 < num_assistants
    if kind == HIRE:
        return arg < num_assistants
    if kind == CHAIN:
        return arg < num_cards or arg == NO_CARD
    return arg < num_cards  # PLAN, SUPPLY


def not_a_move(move: Any) -> str:
    """The reason given for an id that is no move code of Oh My Goods!."""
    return f"{short_repr(move)} is not a move of Oh My Goods!"


def move_to_text(state: OhMyGoodsState, move: int) -> str:
    """The words for ``move``, any move code of the catalogue (legal here or not)."""
    if not state.is_move_code(move):
        raise MoveParseError(not_a_move(move))
    kind, arg = decode_move(move)
    word = KIND_WORDS[kind]
    if kind in (KEEP, REDRAW, IDLE, STOP, DONE, BUILD, SCRAP, PASS):
        return word
    if kind == PLAN_NONE:
        return "plan none"
    if kind == SHIFT:
        a, slot = divmod(arg, 64)
        return f"shift {state._asst_text(a)} #{slot}"
    if kind in (WORK_ORDERLY, WORK_SLOPPY):
        return f"work #{arg} {MODE_WORDS[kind - WORK_ORDERLY]}"
    if kind in (PLAN, SUPPLY):
        return f"{word} {state._card_text(arg)}"
    if kind == CHAIN:
        return "chain" if arg == NO_CARD else f"chain {state._card_text(arg)}"
    if kind == HIRE:
        return f"hire {state._asst_text(arg)}"
    return f"{word} #{arg}"


def parse_move(state: OhMyGoodsState, text: str) -> int:
    """The move code ``text`` names; the error says which words were expected."""
    tokens = str(text).strip().lower().split()
    if not tokens:
        raise MoveParseError("empty move; see docs/rules/oh-my-goods.md for the notation")
    word, rest = tokens[0], tokens[1:]

    def fail(expected: str) -> MoveParseError:
        return MoveParseError(f"cannot read {text!r}: expected {expected}")

    def slot(token: str) -> int:
        if not token.startswith("#") or not token[1:].isdigit() or int(token[1:]) > 63:
            raise fail("a building slot like #0")
        return int(token[1:])

    def card(token: str) -> int:
        if token not in state.catalogue.card_ids:
            raise fail("a card id like mill-1")
        return state.catalogue.card_ids[token]

    def assistant(token: str) -> int:
        if token not in state.catalogue.assistant_ids:
            raise fail("an assistant id like assistant-1")
        return state.catalogue.assistant_ids[token]

    simple = {"keep": KEEP, "redraw": REDRAW, "idle": IDLE, "stop": STOP, "done": DONE,
              "build": BUILD, "scrap": SCRAP, "pass": PASS}
    if word in simple:
        if rest:
            raise fail(f"'{word}' alone")
        return encode_move(simple[word])
    if word == "shift" and len(rest) == 2:
        return encode_move(SHIFT, assistant(rest[0]) * 64 + slot(rest[1]))
    if word == "work" and len(rest) == 2 and rest[1] in MODE_WORDS:
        return encode_move(WORK_ORDERLY + MODE_WORDS.index(rest[1]), slot(rest[0]))
    if word == "plan" and len(rest) == 1:
        return encode_move(PLAN_NONE) if rest[0] == "none" else encode_move(PLAN,
                                                                           card(rest[0]))
    if word == "supply" and len(rest) == 1:
        return encode_move(SUPPLY, card(rest[0]))
    if word == "chain" and len(rest) <= 1:
        return encode_move(CHAIN, card(rest[0]) if rest else NO_CARD)
    if word == "hire" and len(rest) == 1:
        return encode_move(HIRE, assistant(rest[0]))
    if word in ("produce", "chain-only", "pay", "place") and len(rest) == 1:
        return encode_move(KIND_WORDS.index(word), slot(rest[0]))
    raise fail("one of: keep, redraw, shift A #S, work #S orderly|sloppy, idle, "
               "plan CARD|none, produce #S, supply CARD, chain [CARD], stop, "
               "chain-only #S, done, build, scrap, pay #S, hire A, place #S, pass")
