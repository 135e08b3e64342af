"""Stephens moves: integer codes and the words for them.

A move is ``kind << 56 | payload`` (below 2**63).  Payloads name cards by their
catalogue index (never by a display space: after a refill a space holds a
different card in each determinization), board places by their index, and counts
in fixed-width fields; an activation plan names its steps by their index among
the acting player's (worker, option) pairs in the row, which are public.

==================  =============================================  ============================
kind                payload                                         text
==================  =============================================  ============================
ACCESSORIES         128 + change per accessory type (8 bits each)   ``accessories -mould shears``
CUBES               128 + change per colour (8 bits each)           ``cubes green white``
UNLOCK              disk                                            ``unlock S1``
DISCARD             0 red, 1 blue (ability P1)                      ``discard red``
GLASS               furnace                                         ``glass FN-LL``
PRODUCTS            factory, then orange, pink, black counts        ``products SF-LL orange black``
EFFECT              16 + factory (its row) or 1 + furnace           ``effect FN-LR``
CREATE              card, place                                     ``create glass-cutter FN-UL``
REINFORCE           card                                            ``reinforce sand-digger``
DISCARD_CHEAPEST    0 contract, 1 investment (ability C3)           ``discard-cheapest contract``
CONTRACT            card                                            ``contract crown-01``
INVESTMENT          card, row                                       ``investment utensils-3 orange``
SKIP                -                                               ``skip``
ACTIVATE            up to 7 steps, 1 + pair index, 8 bits each      ``activate fishwife:2``
ACTIVATE_PART       the first 7 steps of a longer plan              ``activate-part ...``
COLUMNS             bitmask of investment columns                   ``columns 1 3``
SUPPLY              supply combination                              ``supply b1``
FULFIL              contract, cubes paid, accessories placed        ``fulfil uk-03 white black``
REMOVE              as PRODUCTS: the cubes the Automa removes       ``remove SF-UL pink black``
==================  =============================================  ============================

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=1, num_players=2)
>>> move = encode(PRODUCTS, pack([1, 2, 0, 1]))
>>> text = move_to_text(state, move); text
'products SF-LL orange orange black'
>>> parse_move(state, text) == move and move < 2**63
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game import MoveParseError
from engine.stephens.activation import concrete_options, row_workers
from engine.stephens.components import FORMER_DISK_IDS, Catalogue
from engine.stephens.frames import Frame
from engine.stephens.position import Position
from engine.stephens.vocabulary import (
    COLOURS,
    FURNACES,
    PLACES,
    SMALL_FACTORIES,
    WOODEN_NAMES,
)

KINDS = ("", "accessories", "cubes", "unlock", "discard", "glass", "products", "effect",
         "create", "reinforce", "discard-cheapest", "contract", "investment", "skip",
         "activate", "activate-part", "columns", "supply", "fulfil", "remove")
(ACCESSORIES, CUBES, UNLOCK, DISCARD, GLASS, PRODUCTS, EFFECT, CREATE, REINFORCE,
 DISCARD_CHEAPEST, CONTRACT, INVESTMENT, SKIP, ACTIVATE, ACTIVATE_PART, COLUMNS, SUPPLY,
 FULFIL, REMOVE) = range(1, len(KINDS))
SHIFT = 56
PAYLOAD = (1 << SHIFT) - 1
FIELD = 8  # bits of one small field of a payload
#: Steps one ACTIVATE move holds; a longer plan is played in parts.
PLAN_STEPS = SHIFT // FIELD
#: EFFECT payloads: the small factory's own row, or an empty furnace.
EFFECT_ROW = 16
DISCARD_WORDS = ("red", "blue")
PILE_WORDS = ("contract", "investment")


def encode(kind: int, payload: int = 0) -> int:
    return kind << SHIFT | payload


def kind_of(move: int) -> int:
    return move >> SHIFT


def payload_of(move: int) -> int:
    return move & PAYLOAD


def pack(values: Sequence[int], bits: int = FIELD) -> int:
    """Small non-negative integers side by side, the first in the lowest bits."""
    out = 0
    for i, value in enumerate(values):
        assert 0 <= value < 1 << bits, values
        out |= value << (bits * i)
    return out


def unpack(payload: int, count: int, bits: int = FIELD) -> list[int]:
    mask = (1 << bits) - 1
    return [payload >> (bits * i) & mask for i in range(count)]


# -- activation steps ------------------------------------------------------------------
def option_pairs(state: Position, seat: int, place: int) -> list[tuple[int, int]]:
    """Every (worker, option) of ``seat`` in the row of ``place``, in order: the step
    alphabet of an activation plan."""
    cat = state.catalogue
    pairs: list[tuple[int, int]] = []
    for w, worker in enumerate(row_workers(state, seat, place)):
        options = concrete_options(cat.professions[worker.card].benefit)
        pairs.extend((w, o) for o in range(len(options)))
    return pairs


# -- exchanges of cubes and accessories ------------------------------------------------------
ZERO = 128  # a field of an exchange holds ZERO + the change of one colour


def encode_exchange(kind: int, delta: Sequence[int]) -> int:
    return encode(kind, pack([ZERO + d for d in delta]))


def decode_exchange(move: int, kinds: int) -> list[int] | None:
    """The change per colour (type) of a CUBES or ACCESSORIES move; None when fields
    beyond ``kinds`` are used."""
    payload = payload_of(move)
    if payload >> (FIELD * kinds):
        return None
    return [v - ZERO for v in unpack(payload, kinds)]


def _exchange_text(word: str, delta: Sequence[int] | None, names: Sequence[str]) -> str:
    if delta is None:
        return f"{word} #{0}"
    paid = [f"-{names[c]}" for c, d in enumerate(delta) for _ in range(-d)]
    gained = [names[c] for c, d in enumerate(delta) for _ in range(d)]
    return f"{word} {' '.join(paid + gained) or 'keep'}"


def encode_plan(state: Position, seat: int, place: int,
                steps: Sequence[tuple[int, int]], part: bool = False) -> int:
    index = {pair: k for k, pair in enumerate(option_pairs(state, seat, place))}
    assert len(steps) <= PLAN_STEPS and len(index) < (1 << FIELD) - 1
    return encode(ACTIVATE_PART if part else ACTIVATE, pack([index[s] + 1 for s in steps]))


def decode_plan(state: Position, seat: int, place: int,
                move: int) -> list[tuple[int, int]] | None:
    """The steps of an ACTIVATE move for ``seat`` in that row; None when a step names no
    pair there (or the fields are not a sequence)."""
    pairs = option_pairs(state, seat, place)
    codes = unpack(payload_of(move), PLAN_STEPS)
    length = next((i for i, c in enumerate(codes) if c == 0), PLAN_STEPS)
    if any(codes[length:]) or any(c > len(pairs) for c in codes[:length]):
        return None
    return [pairs[c - 1] for c in codes[:length]]


# -- text -------------------------------------------------------------------------------
def _names(counts: Sequence[int], names: Sequence[str]) -> str:
    return " ".join(name for name, n in zip(names, counts, strict=False) for _ in range(n))


def _activation_frame(state: Position) -> Frame | None:
    top = state.decisions[-1] if state.decisions else None
    return top if top is not None and top.kind == "activation" else None


def move_to_text(state: Position, move: int) -> str:
    """The move's words; moves that mean nothing in this game raise MoveParseError."""
    return move_words(state.catalogue, move, plan_cards(state, move))


def plan_cards(state: Position, move: int) -> list[tuple[int, int]] | None:
    """What a move's words read from the position beyond the catalogue: for an ACTIVATE
    move in the activation on top, each step's (profession card, option); None for other
    moves, and when no row is activated or a step names no pair there."""
    if kind_of(move) not in (ACTIVATE, ACTIVATE_PART):
        return None
    frame = _activation_frame(state)
    if frame is None:
        return None
    place = frame.num("place")
    steps = decode_plan(state, frame.seat, place, move)
    if steps is None:
        return None
    workers = row_workers(state, frame.seat, place)
    return [(workers[w].card, o) for w, o in steps]


def _name(items: Sequence[Any], index: int) -> str:
    """The id of catalogue entry ``index`` of ``items``; ``#index`` for none."""
    return items[index].id if 0 <= index < len(items) else f"#{index}"


def _word(words: Sequence[str], index: int) -> str:
    """Word ``index`` of ``words``; ``#index`` for none."""
    return words[index] if 0 <= index < len(words) else f"#{index}"


def move_words(cat: Catalogue, move: int, plan: Sequence[tuple[int, int]] | None) -> str:
    """The words of ``move`` from the catalogue alone, an activation's steps given as
    :func:`plan_cards` reads them (None: named by their codes); moves that mean nothing
    in this game raise MoveParseError."""
    kind, payload = kind_of(move), payload_of(move)
    if not isinstance(move, int) or move < 0 or not 0 < kind < len(KINDS):
        raise MoveParseError(f"{move!r} is not a Stephens move")
    word = KINDS[kind]
    if kind == ACCESSORIES:
        return _exchange_text(word, decode_exchange(move, len(cat.accessories)),
                              cat.accessories)
    if kind == CUBES:
        return _exchange_text(word, decode_exchange(move, len(COLOURS)), COLOURS)
    if kind == UNLOCK:
        return f"{word} {_name(cat.disks, payload)}"
    if kind == DISCARD:
        return f"{word} {_word(DISCARD_WORDS, payload)}"
    if kind == GLASS:
        return f"{word} {_word(FURNACES, payload)}"
    if kind in (PRODUCTS, REMOVE):
        factory, *counts = unpack(payload, 4)
        return f"{word} {_word(SMALL_FACTORIES, factory)} " \
               f"{_names(counts, WOODEN_NAMES)}".strip()
    if kind == EFFECT:
        if payload >= EFFECT_ROW:
            return f"{word} {_word(SMALL_FACTORIES, payload - EFFECT_ROW)}"
        return f"{word} {_word(FURNACES, payload - 1)}"
    if kind == CREATE:
        card, place = unpack(payload, 2)
        return f"{word} {_name(cat.professions, card)} {_word(PLACES, place)}"
    if kind == REINFORCE:
        return f"{word} {_name(cat.professions, payload)}"
    if kind == DISCARD_CHEAPEST:
        return f"{word} {_word(PILE_WORDS, payload)}"
    if kind == CONTRACT:
        return f"{word} {_name(cat.contracts, payload)}"
    if kind == INVESTMENT:
        card, row = unpack(payload, 2)
        rows = [COLOURS[c] for c in cat.board.investment_rows]
        return f"{word} {_name(cat.investments, card)} {_word(rows, row)}"
    if kind == SKIP:
        return word
    if kind in (ACTIVATE, ACTIVATE_PART):
        return _plan_text(cat, move, plan)
    if kind == COLUMNS:
        chosen = [str(k + 1) for k in range(SHIFT) if payload >> k & 1]
        return f"{word} {' '.join(chosen) or 'none'}"
    if kind == SUPPLY:
        return f"{word} {_name(cat.bonuses, payload)}"
    contract, paid, placed = _fulfil_fields(payload)
    text = f"{word} {_name(cat.contracts, contract)}"
    extra = _names(paid, COLOURS).split() + [f"+{t}" for t in
                                             _names(placed, cat.accessories).split()]
    return " ".join([text, *extra])


def _plan_text(cat: Catalogue, move: int, plan: Sequence[tuple[int, int]] | None) -> str:
    word = KINDS[kind_of(move)]
    if plan is not None:
        words = [f"{cat.professions[card].id}:{o + 1}" for card, o in plan]
        return f"{word} {' '.join(words) or 'nothing'}"
    codes = [c for c in unpack(payload_of(move), PLAN_STEPS) if c]
    return f"{word} {' '.join(f'#{c}' for c in codes) or 'nothing'}"


def fulfil_payload(contract: int, cubes: Sequence[int], placed: Sequence[int]) -> int:
    return pack([contract]) | pack(cubes, 4) << FIELD | pack(placed, 4) << (FIELD + 24)


def _fulfil_fields(payload: int) -> tuple[int, list[int], list[int]]:
    return (payload & 0xFF, unpack(payload >> FIELD, len(COLOURS), 4),
            unpack(payload >> (FIELD + 24), 6, 4))



# -- parsing ----------------------------------------------------------------------------
NOTATION = ("accessories [-]TYPE..., cubes [-]COLOUR..., unlock DISK, discard red|blue, "
            "glass FURNACE, products FACTORY COLOUR..., effect FACTORY|FURNACE, "
            "create CARD PLACE, reinforce CARD, discard-cheapest contract|investment, "
            "contract CARD, investment CARD ROW, skip, activate CARD:OPTION...|nothing, "
            "columns N...|none, supply BONUS, fulfil CARD [COLOUR...] [+TYPE...], "
            "remove FACTORY COLOUR... (solo: the cubes the Automa removes)")


def parse_move(state: Position, text: str) -> int:
    """The move ``text`` names (see :data:`NOTATION`); raises MoveParseError."""
    cat = state.catalogue
    tokens = str(text).split()
    if not tokens:
        raise MoveParseError(f"empty move; moves look like: {NOTATION}")
    word, rest = tokens[0].lower(), tokens[1:]

    def fail(expected: str) -> MoveParseError:
        return MoveParseError(f"cannot read {text!r}: expected {expected}")

    def one(names: Sequence[str], what: str, token: str) -> int:
        lowered = [n.lower() for n in names]
        if token.lower() not in lowered:
            shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
            raise fail(f"{what} ({shown})")
        return lowered.index(token.lower())

    def counts(names: Sequence[str], what: str, tokens: list[str], bits: int = FIELD) -> int:
        values = [0] * len(names)
        for token in tokens:
            values[one(names, what, token)] += 1
        if max(values, default=0) >= 1 << bits:
            raise fail(f"fewer {what}s")
        return pack(values, bits)

    def single(expected: str) -> str:
        if len(rest) != 1:
            raise fail(f"'{word} {expected}'")
        return rest[0]

    professions = [p.id for p in cat.professions]
    if word not in KINDS[1:]:
        raise fail(f"one of: {NOTATION}")
    kind = KINDS.index(word)
    if kind in (ACCESSORIES, CUBES):
        names = cat.accessories if kind == ACCESSORIES else COLOURS
        what = "an accessory type" if kind == ACCESSORIES else "a colour"
        if rest == ["keep"]:
            return encode_exchange(kind, [0] * len(names))
        if not rest:
            raise fail(f"'{word} [-]NAME...' ({', '.join(names)}) or '{word} keep'")
        delta = [0] * len(names)
        for token in rest:
            sign = -1 if token.startswith("-") else 1
            delta[one(names, what, token.lstrip("-"))] += sign
        if any(not -ZERO <= d < ZERO for d in delta):
            raise fail(f"fewer {what}s")
        return encode_exchange(kind, delta)
    if kind == UNLOCK:
        name = single("DISK")
        name = FORMER_DISK_IDS.get(name.upper(), name)  # texts saved before the renaming
        return encode(kind, one([d.id for d in cat.disks], "a disk", name))
    if kind == DISCARD:
        return encode(kind, one(DISCARD_WORDS, "red or blue", single("red|blue")))
    if kind == GLASS:
        return encode(kind, one(FURNACES, "a furnace", single("FURNACE")))
    if kind in (PRODUCTS, REMOVE):
        if not rest:
            raise fail(f"'{word} FACTORY COLOUR...'")
        factory = one(SMALL_FACTORIES, "a small factory", rest[0])
        wooden = counts(WOODEN_NAMES, "a product colour", rest[1:])
        return encode(kind, factory | wooden << FIELD)
    if kind == EFFECT:
        token = single("FACTORY|FURNACE")
        if token.upper() in SMALL_FACTORIES:
            return encode(kind, EFFECT_ROW + SMALL_FACTORIES.index(token.upper()))
        return encode(kind, 1 + one(FURNACES, "a small factory or a furnace", token))
    if kind == CREATE:
        if len(rest) != 2:
            raise fail("'create CARD PLACE'")
        card = one(professions, "a profession", rest[0])
        return encode(kind, pack([card, one(PLACES, "a place", rest[1])]))
    if kind == REINFORCE:
        return encode(kind, one(professions, "a profession", single("CARD")))
    if kind == DISCARD_CHEAPEST:
        return encode(kind, one(PILE_WORDS, "contract or investment",
                                single("contract|investment")))
    if kind == CONTRACT:
        return encode(kind, one([c.id for c in cat.contracts], "a contract", single("CARD")))
    if kind == INVESTMENT:
        if len(rest) != 2:
            raise fail("'investment CARD ROW'")
        card = one([c.id for c in cat.investments], "an investment", rest[0])
        rows = [COLOURS[c] for c in cat.board.investment_rows]
        return encode(kind, pack([card, one(rows, "an investment row", rest[1])]))
    if kind == SKIP:
        if rest:
            raise fail("'skip' alone")
        return encode(kind)
    if kind in (ACTIVATE, ACTIVATE_PART):
        return _parse_plan(state, kind, rest, fail)
    if kind == COLUMNS:
        if rest == ["none"]:
            return encode(kind)
        mask = 0
        for token in rest:
            if not token.isdigit() or not 1 <= int(token) <= 48 or mask >> (int(token) - 1) & 1:
                raise fail("'columns N...' with distinct column numbers from 1, or 'none'")
            mask |= 1 << (int(token) - 1)
        if not mask:
            raise fail("'columns N...' or 'columns none'")
        return encode(kind, mask)
    if kind == SUPPLY:
        return encode(kind, one([b.id for b in cat.bonuses], "a supply combination",
                                single("BONUS")))
    if not rest:
        raise fail("'fulfil CARD [COLOUR...] [+TYPE...]'")
    contract = one([c.id for c in cat.contracts], "a contract", rest[0])
    placed_tokens = [t[1:] for t in rest[1:] if t.startswith("+")]
    cube_tokens = [t for t in rest[1:] if not t.startswith("+")]
    paid = unpack(counts(COLOURS, "a colour", cube_tokens, 4), len(COLOURS), 4)
    placed = unpack(counts(cat.accessories, "an accessory type", placed_tokens, 4),
                    len(cat.accessories), 4)
    return encode(kind, fulfil_payload(contract, paid, placed))


def _parse_plan(state: Position, kind: int, rest: list[str], fail) -> int:  # type: ignore[no-untyped-def]
    frame = _activation_frame(state)
    if frame is None:
        raise fail("an activation only when a row is activated")
    if rest == ["nothing"] and kind == ACTIVATE:
        return encode(kind)
    place = frame.num("place")
    cat = state.catalogue
    workers = {cat.professions[w.card].id: i
               for i, w in enumerate(row_workers(state, frame.seat, place))}
    pairs = option_pairs(state, frame.seat, place)
    codes = []
    for token in rest:
        card, colon, option = token.partition(":")
        if card not in workers or not colon or not option.isdigit():
            raise fail(f"steps CARD:OPTION with your cards in {PLACES[place]} "
                       f"({', '.join(workers) or 'none'}), or 'nothing'")
        pair = (workers[card], int(option) - 1)
        if pair not in pairs:
            raise fail(f"an option of {card} (1 to "
                       f"{sum(1 for w, _ in pairs if w == workers[card])})")
        codes.append(pairs.index(pair) + 1)
    if not codes or len(codes) > PLAN_STEPS:
        raise fail(f"1 to {PLAN_STEPS} steps")
    return encode(kind, pack(codes))


def wooden_counts(payload: int) -> tuple[int, list[int]]:
    """(factory, [orange, pink, black]) of a PRODUCTS payload."""
    factory, *counts = unpack(payload, 4)
    return factory, counts

