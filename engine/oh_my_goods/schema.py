"""Oh My Goods!'s JSON state, described once (:mod:`engine.state_schema`).

The loader (:func:`engine.oh_my_goods.codec.state_from_json`) checks a state's shape
against this description before its rules checks, and the JSON Schema of
``GameInfo.state_schema`` and the reference ``docs/states/oh-my-goods.md`` are made
from it.  Hidden parts: the draw pile and the generator (no seat), hands, and the
phase II worker and plan until they are revealed (their seat), goods face down on
buildings (no seat, but those in ``shown_goods``).

>>> from engine.oh_my_goods import GAME
>>> from engine.state_schema import json_schema
>>> json_schema(GAME.state_description())["properties"]["players"]["items"]["properties"]["hand"]["x-visible-to"]
'owner'
"""

from __future__ import annotations

from engine.oh_my_goods.catalogue import RESOURCES, Catalogue
from engine.oh_my_goods.vocabulary import (
    BUILDINGS_TO_END,
    INFO,
    MAX_ROUNDS,
    MODE_WORDS,
    ORDERLY,
    PHASES,
    STEPS,
)
from engine.state_schema import (
    NOBODY,
    OWNER,
    Array,
    Boolean,
    Condition,
    Const,
    Implication,
    Integer,
    Object,
    PerCatalogue,
    Prop,
    StateDescription,
    String,
)

#: Building slots of a seat: #0 the Charburner, then one per building.
MAX_SLOT = BUILDINGS_TO_END
#: Sanity bounds of phase IV's fields (as the loader has them).
MAX_STEP_SLOT = 63
MAX_NEED = 50
MAX_COINS = 1000
MAX_PAY_ARG = 1023

HEX = "^[0-9a-fA-F]{1,16}$"


def describe(catalogue: Catalogue) -> StateDescription:
    """The description of an Oh My Goods! state played with ``catalogue``."""
    card_ids = tuple(c.id for c in catalogue.cards)
    assistant_ids = tuple(a.id for a in catalogue.assistants)
    seat = max(INFO.player_counts) - 1

    def card(what: str = "a card's catalogue id", **kw: object) -> String:
        return String(choices=card_ids, ids=True, description=what, **kw)  # type: ignore[arg-type]

    def cards(what: str, **kw: object) -> Array:
        return Array(items=card(), description=what, **kw)  # type: ignore[arg-type]

    assistant = String(choices=assistant_ids, ids=True, description="an assistant's catalogue id")
    player = Object(description="a seat's board and hand", fields=(
        Prop("charburner", String(choices=tuple(c.id for c in catalogue.charburners), ids=True,
                                  description="the seat's Charburner card (building #0)")),
        Prop("worker", String(choices=tuple(catalogue.workers), ids=True,
                              description="the seat's Worker card")),
        Prop("hand", cards("the cards in hand (a card planned in phase II is in `plan`, not "
                           "here)", visible_to=OWNER,
                           deal="the seat's real hand if you know it; for the seats you do "
                                "not know, any of the unseen cards (their number is public): "
                                "the search redeals them from what the asking seat sees")),
        Prop("buildings", cards(f"the buildings built, in order: building #k is the k-th "
                                f"(the Charburner is #0); at most {BUILDINGS_TO_END - 1}, "
                                f"{BUILDINGS_TO_END} in the last round",
                                max_items=BUILDINGS_TO_END)),
        Prop("goods", Array(
            min_items=1, max_items=1 + BUILDINGS_TO_END,
            items=cards("goods on one building: face-down cards"),
            description="the goods on each building, the Charburner's first (one list per "
                        "building, #0 ... #k: 1 + len(buildings) lists)", visible_to=NOBODY,
            deal="any unseen cards, as many as there are goods (their number is public); "
                 "cards in `shown_goods` stay where they are")),
        Prop("assistants", Array(max_items=2, description="hired assistants",
                                 items=Object(description="a hired assistant", fields=(
            Prop("assistant", assistant),
            Prop("face", Integer(lo=0, hi=1, description="the face it was hired on")),
            Prop("slot", Integer(lo=0, hi=MAX_SLOT, description="the building it works in "
                                                                "(#slot)")),
        ))), required=False, default=[]),
        Prop("work", Object(nullable=True, description="where the seat's worker works this "
                                                       "round; null until placed in phase II "
                                                       "and once the seat's phase IV is done",
                            visible_to=OWNER, fields=(
            Prop("slot", Integer(lo=-1, hi=MAX_SLOT, description="the building (#slot); -1: "
                                                                 "idle (no production "
                                                                 "building free)")),
            Prop("mode", String(choices=MODE_WORDS, description="orderly or sloppy (idle: "
                                                                "orderly)")),
        ), implies=(Implication("slot", (-1,), "mode", MODE_WORDS[ORDERLY]),)), required=False, default=None,
            note="seen by every seat once phase II is over"),
        Prop("plan", card("the building planned in phase II, or null", nullable=True,
                          visible_to=OWNER,
                          deal="for a seat you do not know: null, or any unseen card if the "
                               "seat has planned (the search redeals it)"),
             required=False, default=None, note="seen by every seat once its owner pays for it"),
        Prop("chosen", Integer(lo=0, hi=2, description="phase II progress: 0 nothing, 1 worker "
                                                       "placed, 2 plan made too"),
             required=False, default=0),
    ))
    act = Object(description="phase IV of the seat to move (at rest outside phase IV, but "
                             "for a payment and the assistants moved in phase II)", fields=(
        Prop("step", String(choices=STEPS, description="where the seat is in phase IV")),
        Prop("handled", Array(items=Integer(lo=0, hi=MAX_STEP_SLOT, description="a building"),
                              unique=True, description="production buildings that produced this turn"),
             required=False, default=[]),
        Prop("running", Integer(lo=-1, hi=MAX_STEP_SLOT,
                                description="the building being supplied (step supply), else "
                                            "-1"), required=False, default=-1),
        Prop("need", Array(size=len(RESOURCES) + 1,
                           items=Integer(lo=0, hi=MAX_NEED, description="a count"),
                           description="resources the running building still needs: "
                                       + ", ".join(RESOURCES) + ", then any")),
        Prop("slack", Integer(lo=0, hi=1, description="resources it may still lack (sloppy "
                                                      "work)"), required=False, default=0),
        Prop("produce_count", Integer(lo=0, hi=2, description="goods the occupant produces"),
             required=False, default=0),
        Prop("chain_slot", Integer(lo=-1, hi=MAX_STEP_SLOT,
                                   description="the building whose chain runs (step chain), "
                                               "else -1"), required=False, default=-1),
        Prop("hired", String(choices=assistant_ids, ids=True, nullable=True,
                             description="the assistant being placed (step place), else null"),
             required=False, default=None),
        Prop("shifted", Array(items=assistant, unique=True,
                              description="assistants moved in phase II"),
             required=False, default=[]),
        Prop("pay", Object(nullable=True, description="a payment in progress, else null",
                           fields=(
            Prop("due", Integer(lo=1, hi=MAX_COINS, description="coins to pay in all")),
            Prop("paid", Integer(lo=0, hi=MAX_COINS, description="coins paid so far")),
            Prop("last", Integer(lo=0, hi=MAX_STEP_SLOT,
                                 description="the building paid from last (payment goes in "
                                             "building order)")),
            Prop("purpose", String(choices=("shift", "build", "hire"),
                                   description="what is paid for")),
            Prop("arg", Integer(lo=0, hi=MAX_PAY_ARG,
                                description="shift: assistant * 64 + building; build: the "
                                            "planned card's index; hire: the assistant's "
                                            "index (catalogue order)")),
        )), required=False, default=None),
    ))
    root = Object(description="An Oh My Goods! position: the whole state, hidden parts "
                              "included.", fields=(
        Prop("game", Const(value="oh-my-goods", description="the game")),
        Prop("version", Const(value=1, description="the version of this JSON form")),
        Prop("num_players", Integer(lo=INFO.min_players, hi=INFO.max_players,
                                    description="the number of seats")),
        Prop("options", Object(description="the game's options", fields=(
            Prop("second_edition", Boolean(description="second-edition rules"),
                 required=False, default=False),
        )), required=False, default={}),
        Prop("rng", String(pattern=HEX, pattern_text="a hex string of 1-16 digits",
                           visible_to=NOBODY,
                           description="the generator of future shuffles (SplitMix64 state)",
                           deal="any 1-16 hex digits (a fresh random value): the server "
                                "uses it only to shuffle the discard pile into a new draw "
                                "pile, and for the random discards when both piles are "
                                "empty")),
        Prop("round", Integer(lo=1, hi=MAX_ROUNDS, description="the round, from 1")),
        Prop("active", Integer(lo=0, hi=seat, seat=True, description="the active seat of the round "
                                                          "(0..num_players-1)")),
        Prop("final_round", Integer(lo=1, hi=MAX_ROUNDS, nullable=True,
                                    description="the current round once it is announced as "
                                                "the last, else null"),
             required=False, default=None),
        Prop("phase", String(choices=PHASES, description="redraw (phase I, second edition), "
                                                        "shift and choose (phase II), act "
                                                        "(phase IV), over")),
        Prop("turn", Integer(lo=0, hi=seat, seat=True, description="whose turn in the phase, counted "
                                                        "from the active seat: the seat to "
                                                        "move is (active + turn) mod "
                                                        "num_players")),
        Prop("deck", cards("the draw pile, top last", visible_to=NOBODY,
                           deal="your own draw pile, top last (the server deals from its "
                                "end when play reaches a draw); if you do not know it, any "
                                "placement of the unseen cards")),
        Prop("discard", cards("the discard pile (its cards are public, its order not)")),
        Prop("display", cards("the market: the Sunrise row, then the Sunset row")),
        Prop("sunset_at", Integer(lo=-1, hi=len(card_ids),
                                  description="where the Sunset row starts in display; -1 "
                                              "before it is laid")),
        Prop("pool", Array(items=Object(description="an assistant for hire", fields=(
            Prop("assistant", assistant),
            Prop("face", Integer(lo=0, hi=1, description="its face up side")),
        )), description="the assistants for hire")),
        Prop("starting_hands", Array(per_seat=True,
                                     items=Integer(lo=0, hi=len(card_ids),
                                                   description="a hand size"),
                                     description="each seat's hand size when the round began "
                                                 "(a hand of 3 or fewer draws extra cards "
                                                 "for its Market Offices): 5 each in round "
                                                 "1; held all at once beside the buildings "
                                                 "built before the round; in phase I (redraw) "
                                                 "no smaller than the seat's hand")),
        Prop("shown_goods", cards("goods whose card a chain showed to everyone, in catalogue "
                                  "order (the order of the catalogue's cards)", unique=True),
             required=False, default=[]),
        Prop("reshuffled", cards("the cards of the last reshuffle of the discard pile into the "
                                 "draw pile (which holds only those); empty before any",
                                 unique=True),
             required=False, default=[]),
        Prop("players", Array(per_seat=True, items=player, description="each seat")),
        Prop("act", act),
    ))
    before_last = Condition(
        (("final_round", None),), ("players", "[]", "buildings"), BUILDINGS_TO_END - 1,
        f"`final_round` null (the last round not announced): at most "
        f"{BUILDINGS_TO_END - 1} `buildings` a seat (the round after one has "
        f"{BUILDINGS_TO_END}, the Charburner included, is the last)")
    return StateDescription(INFO, root, conditions=(before_last,),
                            sections=(("A site that deals its own cards", DEALING),))


#: The reference's section for sites that deal (or only know one seat's view).
DEALING = """\
The state is the whole position, hidden parts included. A site that deals its own
cards writes its own truth: the draw pile in its order (`deck`, top last: the
server deals from its end whenever play reaches a draw), every hand, the goods on
each building, the plans. A site that only knows one seat's view (a client playing
for that seat) fills what it cannot see with *any* placement of the unseen cards:
the other hands (their sizes are public), the draw pile (its size is public), the
face-down goods (their number is public) and the secret plans of phase II. Every
card of the catalogue must still be somewhere exactly once; goods listed in
`shown_goods` stay where they are; after a reshuffle (`reshuffled` not empty) the
deck holds only cards listed there. A search for that seat redeals every unseen card
from what the seat sees (ISMCTS), so its answer does not depend on the filling, and
the answers the seat is shown (`observer_seat`) never reveal it. `rng` may be any
1-16 hex digits: the server draws from it only to reshuffle the discard pile and for
the random discards when both piles are empty."""


#: :func:`describe`, made once per catalogue (the loader asks for it on every load).
description = PerCatalogue(describe)
