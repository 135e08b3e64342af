"""Stephens' JSON state, described once (:mod:`engine.state_schema`).

The JSON Schema of ``GameInfo.state_schema`` and the reference
``docs/states/stephens.md`` are made from this description.  The loader
(:mod:`engine.stephens.codec`) keeps its own checks; the description is built from
the same names (``encoding.STATE_FIELDS``, ``PLAYER_FIELDS``, ``SOLO_FIELDS``,
``frames.FRAME_KINDS``, the vocabulary and the catalogue), and
``tests/engine/test_state_schemas.py`` proves that what the loader refuses for its
shape the schema refuses too.  Hidden parts: the order of the face-down decks (the
contract, investment and Automa decks, the profession decks below their top card)
and the generator, which no seat sees.

>>> from engine.stephens import GAME
>>> from engine.state_schema import json_schema
>>> schema = json_schema(GAME.state_description())
>>> "decisions" in schema["required"], schema["properties"]["rng"]["x-visible-to"]
(False, 'nobody')
"""

from __future__ import annotations

from engine.state_schema import (
    NOBODY,
    Array,
    Const,
    Integer,
    Object,
    OneOf,
    PlayerRule,
    Prop,
    StateDescription,
    String,
)
from engine.stephens.components import Catalogue
from engine.stephens.encoding import (
    AUTOMA_WORD,
    BIG,
    GAME,
    PLAYER_FIELDS,
    SOLO_FIELDS,
    STATE_FIELDS,
    VERSION,
)
from engine.stephens.frames import FRAME_KINDS, PROCEDURES
from engine.stephens.position import INFO
from engine.stephens.vocabulary import (
    BLUE_DECK,
    COLOURS,
    DIFFICULTIES,
    FURNACES,
    PLACES,
    RED,
    SMALL_FACTORIES,
    START,
    STEPHENS,
    WOODEN_NAMES,
    side_of_place,
    tier_of_place,
)

HEX = "^[0-9a-fA-F]{1,16}$"
#: The field of the decision stack, which a position at the start of a turn may leave out.
STACK = "decisions"

_DECK_DEAL = ("your own deck order, top last (the server draws from the end); if you do "
              "not know it, any order of those cards (the search reshuffles what no seat "
              "sees)")

#: What each frame kind is, for the reference (frames.FRAME_KINDS has the fields).
FRAME_MEANINGS = {
    "accessory": "setup: the seat takes 1 accessory tile of its choice",
    "unlock": "a disk came off the seat's board: which one (unlocking its ability)",
    "turn": "procedure: the turn of the seat (stage 0 begins it, 1 ends it after the "
            "action, 2 passes the turn on)",
    "action": "the turn's action (discarded: the P1 discard was made)",
    "effect": "3 or 4 cubes from a small factory: that row, or an empty furnace's effect",
    "activation": "an activated row: the seat's plan (place; used: workers that collected)",
    "cubes": "after a plan or a supply bonus: the colours of the cubes gained or paid as any",
    "accessories": "after a plan or a supply bonus: the types of the accessories",
    "acquire": "commit to contracts / fund investments (pile 0 contract, 1 investment, 2 "
               "either; left, discount, cheapest, first, row)",
    "assign": "assign a worker as a supply bonus",
    "reset": "procedure: a reset phase (step 1-8; final)",
    "columns": "R4: which investment columns to activate",
    "supply": "R6: supply the reserved cubes (last combination; bonuses still to collect)",
    "influence": "procedure: a supply bonus's influence, after the workers it assigns",
    "fulfil": "R7: fulfil contracts (type: the lowest contract type still allowed)",
    "automa": "procedure, solo: the Automa's turn (its seat is the player's, 0)",
    "remove": "solo: which n cubes the Automa removes from small factory factory",
}


def _counts(what: str, names: tuple[str, ...], hi: int = BIG, each: str = "a count"
            ) -> Object:
    return Object(description=what, fields=tuple(
        Prop(name, Integer(lo=0, hi=hi, description=f"{each}: {name}")) for name in names))


#: Context fields where -1 means "none yet" (an acquisition's first card and its row, a
#: supply's last combination); every other one is a count, an index or a bit set.
NONE_YET_FIELDS = frozenset({"first", "row", "last"})


def _frame(kind: str, seat: int) -> Object:
    # frames.Frame takes lists of integers too, but the flow writes integers only, and
    # the stack's checks (stack.check_stack) want integers.
    def value(name: str) -> Integer:
        return Integer(lo=-1 if name in NONE_YET_FIELDS else 0, hi=2 ** 63 - 1,
                       description="an integer (a catalogue index of the public position, a "
                                   "count, a step or a bit set"
                                   + ("; -1: none yet)" if name in NONE_YET_FIELDS else ")"))
    return Object(description=f"a {kind!r} frame: {FRAME_MEANINGS[kind]}", fields=(
        Prop("kind", Const(value=kind, description="the frame's kind")),
        Prop("seat", Integer(lo=0, hi=seat, seat=True,
                             description="the seat that owes the decision "
                                         "(0..num_players-1)")),
        Prop("context", Object(description=f"the {kind!r} frame's context", fields=tuple(
            Prop(name, value(name)) for name in FRAME_KINDS[kind]))),
    ))


def describe(cat: Catalogue) -> StateDescription:
    """The description of a Stephens state played with ``cat``."""
    seat = INFO.max_players - 1
    board = cat.board
    red = tuple(p.id for p in cat.professions if p.deck == RED)
    blue = tuple(p.id for p in cat.professions if p.deck == BLUE_DECK)
    starting = tuple(p.id for p in cat.professions if p.deck == START)

    def attachable(place: int) -> tuple[str, ...]:
        """The professions that may hang at ``place``: of its side, and starting ones
        at the Stephens' factory only."""
        return tuple(p.id for p in cat.professions if p.side == side_of_place(place)
                     and (p.deck != START or tier_of_place(place) == STEPHENS))
    contracts = tuple(c.id for c in cat.contracts)
    investments = tuple(c.id for c in cat.investments)

    def ids(choices: tuple[str, ...], what: str, nullable: bool = False) -> String:
        return String(choices=choices, ids=True, nullable=nullable, description=what)

    def pile(choices: tuple[str, ...], what: str, size: int, kind: str) -> Object:
        return Object(description=f"the {what}s", fields=(
            Prop("deck", Array(items=ids(choices, f"a {what}"), visible_to=NOBODY,
                               description=f"the face-down {what} deck, top last (its size is "
                                           f"public)", deal=_DECK_DEAL)),
            Prop("display", Array(size=size, items=ids(choices, f"a {what} or null (an "
                                                                "empty space)", True),
                                  description=f"the {what} display, cheapest space first "
                                              f"({size} spaces)")),
            Prop("discard", Array(items=ids(choices, f"a {what}"),
                                  description=f"the {kind} discard pile")),
        ))

    worker = OneOf(description=f"whose worker: a seat (0..num_players-1), or "
                               f"\"{AUTOMA_WORD}\" (solo)",
                   options=(Integer(lo=0, hi=seat, seat=True, description="a seat"),
                            Const(value=AUTOMA_WORD, player_counts=(1,),
                                  description="the Automa (solo only)")))
    apprentice = OneOf(nullable=True,
                       description="the apprentice's colour, null when there is none",
                       options=worker.options)
    player = Object(description="a seat's board and supply", fields=(
        Prop("coins", Integer(lo=0, hi=BIG, description="coins")),
        Prop("influence", Integer(lo=0, hi=board.influence_max,
                                  description="the Influence marker (under the cap of the "
                                              "influence disks still on the board)")),
        Prop("vp", Integer(lo=0, hi=BIG, description="victory points on the track "
                                                     "(unbounded)")),
        Prop("forest", Integer(lo=0, hi=cat.forest.top, description="the Forest track")),
        Prop("dune", Integer(lo=0, hi=cat.dune.top, description="the Dune track")),
        Prop("cubes", _counts("cubes in the personal supply, by colour", COLOURS)),
        Prop("accessories", _counts("accessories in the personal supply, by type",
                                    cat.accessories)),
        Prop("unlocked", Array(items=String(choices=tuple(d.id for d in cat.disks), ids=True,
                                            description="a disk of the player board"),
                               unique=True,
                               description="the disks taken off the player board (their "
                                           "abilities unlocked)")),
        Prop("contracts", Array(items=ids(contracts, "a contract"),
                                max_items=board.contract_slots,
                                description="contracts committed to, not yet fulfilled")),
        Prop("investments", Object(description="investment rows, by cube colour, the card "
                                               "nearest the board first", fields=tuple(
            Prop(COLOURS[c], Array(items=ids(tuple(i.id for i in cat.investments
                                                   if i.colour in (c, -1)),
                                             f"an investment depicting {COLOURS[c]} cubes or "
                                             f"none"),
                                   description=f"the {COLOURS[c]} row"))
            for c in board.investment_rows))),
        Prop("reserved", _counts("cubes reserved on investments, by wooden colour",
                                 WOODEN_NAMES)),
        Prop("fulfilled", Object(description="fulfilled contracts, by type, the card nearest "
                                             "the board first", fields=tuple(
            Prop(cat.contract_types[k], Array(items=ids(tuple(c.id for c in cat.contracts
                                                              if c.type == k),
                                                        f"a {cat.contract_types[k]} contract"),
                                              description=f"the {cat.contract_types[k]} row"))
            for k in board.contract_rows))),
        Prop("placed_accessories", _counts("accessories placed on fulfilled contracts, by "
                                           "type", cat.accessories)),
    ))
    assert tuple(p.name for p in player.fields) == PLAYER_FIELDS
    most_cubes = max([f.start_cubes for f in cat.furnaces] + [max(c) for _, c in
                                                              cat.army.refills])
    frames = OneOf(label="a frame (by kind)",
                   description="a frame: the decision of a kind a seat owes, or a procedure",
                   options=tuple(_frame(kind, seat) for kind in FRAME_KINDS))
    solo = Object(description="the solo game: the Automa and the solo rules", fields=(
        Prop("automa_deck", Array(items=ids(tuple(c.id for c in cat.solo.automa_cards),
                                            "an Automa card"),
                                  visible_to=NOBODY, deal=_DECK_DEAL,
                                  description="the Automa deck, face down, top last")),
        Prop("automa_revealed", Array(items=ids(tuple(c.id for c in cat.solo.automa_cards),
                                                "an Automa card"),
                                      description="the revealed Automa cards, top last")),
        Prop("bag", Object(description="the Automa's bag of wooden cubes", fields=tuple(
            Prop(name, Integer(lo=0, hi=most, description=f"{name} cubes"))
            for name, most in zip(WOODEN_NAMES, cat.solo.bag, strict=True)))),
        Prop("final_reset", Integer(lo=0, hi=1, description="1 once the final reset phase "
                                                            "has begun")),
    ))
    assert tuple(p.name for p in solo.fields) == SOLO_FIELDS
    options = Object(description="the solo options ({} in a game of 2-4 players)", fields=(
        Prop("difficulty", String(choices=DIFFICULTIES, description="the solo difficulty"),
             required=False, note="required in a solo game"),
        Prop("opponent", String(choices=("none", *(o.id for o in cat.solo.opponents)),
                                description="the opponent card drawn, or none"),
             required=False, note="required in a solo game"),
    ))
    root = Object(description="A Stephens position: the whole state, the order of the "
                              "face-down decks included.", fields=(
        Prop("game", Const(value=GAME, description="the game")),
        Prop("version", Const(value=VERSION, description="the version of this JSON form")),
        Prop("num_players", Integer(lo=INFO.min_players, hi=INFO.max_players,
                                    description="the number of seats (1: solo, against the "
                                                "Automa)")),
        Prop("options", options),
        Prop("rng", String(pattern=HEX, pattern_text="a hex string of 1-16 digits",
                           visible_to=NOBODY,
                           description="the generator of every shuffle and draw to come "
                                       "(SplitMix64 state)",
                           deal="any 1-16 hex digits (a fresh random value): the server "
                                "draws from it for refills from reshuffled decks and the "
                                "Automa's draws")),
        Prop("round", Integer(lo=1, hi=BIG, description="the round, counted from the start "
                                                        "player (seat 0)")),
        Prop("end_round", Integer(lo=0, hi=BIG, description="the round in which the end was "
                                                            "triggered; 0: not yet")),
        Prop("active", Integer(lo=0, hi=seat, seat=True, description="whose turn it is (a seat, "
                                                          "0..num_players-1)")),
        Prop("army", Integer(lo=min(cat.army.spaces + (cat.army.start,)),
                             hi=max(cat.army.spaces + (cat.army.start,)),
                             values=tuple(sorted({cat.army.start, *cat.army.spaces})),
                             description="the French army's space")),
        Prop("furnaces", _counts("cubes in each furnace", FURNACES, most_cubes)),
        Prop("small_factories", Object(description="cubes in each small factory, by wooden "
                                                   "colour", fields=tuple(
            Prop(name, _counts(f"the cubes in {name}", WOODEN_NAMES))
            for name in SMALL_FACTORIES))),
        Prop("professions", Object(description="the profession cards off the board", fields=(
            Prop("red_deck", Array(items=ids(red, "a red profession"),
                                   visible_to=NOBODY, deal=_DECK_DEAL,
                                   description="the red profession deck, face up, top last: "
                                               "everyone sees its top card, no seat the "
                                               "order below")),
            Prop("blue_deck", Array(items=ids(blue, "a blue profession"),
                                    visible_to=NOBODY, deal=_DECK_DEAL,
                                    description="the blue profession deck, face up, top last: "
                                                "everyone sees its top card, no seat the "
                                                "order below")),
            Prop("display", Array(size=4, items=ids(red + blue, "a profession or null (an "
                                                                "empty space)", True),
                                  positions=(ids(red, "a red profession or null", True),) * 2
                                  + (ids(blue, "a blue profession or null", True),) * 2,
                                  description="the profession display, left to right: red, "
                                              "red, blue, blue")),
            Prop("red_discard", Array(items=ids(red, "a red profession"),
                                      description="discarded red professions")),
            Prop("blue_discard", Array(items=ids(blue, "a blue profession"),
                                       description="discarded blue professions")),
            Prop("box", Array(items=ids(starting, "a starting profession"),
                              description="starting professions left over at setup")),
        ))),
        Prop("places", Object(description="the professions attached to each place of the "
                                          "board, in attachment order", fields=tuple(
            Prop(name, Array(description=f"the professions at {name}",
                             items=Object(description="an attached profession", fields=(
                Prop("card", ids(attachable(place), "the profession (of the place's side; a "
                                                    "starting one at the Stephens' factory "
                                                    "only)")),
                Prop("master", worker),
                Prop("apprentice", apprentice),
            )))) for place, name in enumerate(PLACES)))),
        Prop("contracts", pile(contracts, "contract", len(cat.contract_costs), "contract")),
        Prop("investments", pile(investments, "investment", len(cat.investment_costs),
                                 "investment")),
        Prop("players", Array(per_seat=True, items=player, description="each seat")),
        Prop(STACK, Array(items=frames,
                          description="the decision stack, top last: the seat to move owns "
                                      "the top frame; empty once the game is over. Omit at "
                                      "the start of a turn; the server builds it"),
             required=False, note="omit at the start of a turn; the server builds it"),
        Prop("solo", solo, required=False, note="present exactly in a solo game"),
    ))
    assert tuple(p.name for p in root.fields[:-1]) == STATE_FIELDS
    rules = (
        PlayerRule((1,), {"required": ["solo"],
                          "properties": {"options": {"required": ["difficulty", "opponent"]}}},
                   "solo: `solo` and both options are required"),
        PlayerRule(tuple(n for n in INFO.player_counts if n > 1),
                   {"properties": {"solo": False, "options": {"maxProperties": 0}}},
                   "2-4 players: no `solo`, `options` is `{}`"),
    )
    return StateDescription(INFO, root, rules, sections=(
        ("Frames of the decision stack", _frames_section()),
        ("A position at the start of a turn, without the decision stack", START_OF_TURN),
    ))


#: How to write a position without knowing the decision stack (the reference's section).
START_OF_TURN = f"""\
A site that keeps its own Stephens table need not model the decision stack. At the
start of a turn, the moment a seat is about to choose its action, write the position
and leave `{STACK}` out: the loader builds the stack of a turn's start for the seat
named by `active` (whose turn it is), as play would have left it (a `turn` procedure
frame and the seat's `action` decision). Everything else is written as usual: the
board, the decks, each seat's supply, `round` and `end_round`, and in a solo game
`solo` and the options.

Only the start of a turn can be written so. A position in the middle of a turn (an
activation under way, cubes to colour, cards to acquire), during a reset or at setup
needs its `{STACK}`, exactly as the server wrote it: send back the `{STACK}` of the
last position the server answered, or ask the server to replay the game (a game
record). A position without `{STACK}` that cannot be the start of `active`'s turn is
refused (`INVALID_ARGUMENT`, with the reason). A complete example, and what each field
means at that moment: [the rules' reading](../rules/stephens.md#writing-a-position-at-the-start-of-a-turn)."""


def _frames_section() -> str:
    rows = ["The kinds of `decisions[]` entries; each frame is `{\"kind\", \"seat\", "
            "\"context\"}` and its `context` holds exactly the fields listed, each an integer. Procedures run by themselves when they come on top; every "
            "other kind is a decision of its seat.", "",
            "| kind | context fields | procedure | meaning |", "| --- | --- | --- | --- |"]
    for kind, fields in FRAME_KINDS.items():
        names = ", ".join(f"`{f}`" for f in fields) or "none"
        rows.append(f"| `{kind}` | {names} | {'yes' if kind in PROCEDURES else ''} | "
                    f"{FRAME_MEANINGS[kind]} |")
    return "\n".join(rows)


_CACHE: dict[int, tuple[Catalogue, StateDescription]] = {}


def description(catalogue: Catalogue) -> StateDescription:
    """:func:`describe`, made once per catalogue."""
    cached = _CACHE.get(id(catalogue))
    if cached is None or cached[0] is not catalogue:
        cached = _CACHE[id(catalogue)] = (catalogue, describe(catalogue))
    return cached[1]
