"""Samara's JSON state, described once (:mod:`engine.state_schema`).

The loader (:func:`engine.samara.codec.state_from_json`) checks a state's shape
against this description before its rules checks, and the JSON Schema of
``GameInfo.state_schema`` and the reference ``docs/states/samara.md`` are made from
it.  Samara has no hidden information: every field is seen by everyone.

>>> from engine.samara import GAME
>>> from engine.state_schema import json_schema
>>> schema = json_schema(GAME.state_description())
>>> schema["properties"]["foremen"]["items"]["properties"]["tools"]["properties"]["saw"]["maximum"]
2
"""

from __future__ import annotations

from engine.samara.catalogue import LASTING_POWERS, TOOL_NAMES, Catalogue
from engine.samara.vocabulary import DECISION_KIND, GIVE_KINDS, INFO, MAX_MONTH, MAX_TOOLS
from engine.state_schema import (
    Array,
    Boolean,
    Const,
    Implication,
    Integer,
    Object,
    PerCatalogue,
    Prop,
    StateDescription,
    String,
)

#: Pawns of one colour a seat has (a sanity bound the loader applies before counting).
MAX_PAWNS = 9
#: Tools on one spot (a sanity bound; the totals are checked against the tool sets).
MAX_SPOT_TOOLS = 99

_TOOL_WORDS = {"saw": "saws", "compass": "compasses", "square": "squares",
               "glass-a": "glasses of the first kind", "glass-b": "glasses of the second kind"}


def _tools(what: str, limits: tuple[int, ...] | None = None) -> Object:
    return Object(description=f"{what}: a count of each tool (exactly these five keys)",
                  fields=tuple(Prop(name, Integer(lo=0, hi=MAX_SPOT_TOOLS if limits is None
                                                  else limits[k],
                                                  description=f"{_TOOL_WORDS[name]}"))
                               for k, name in enumerate(TOOL_NAMES)))


def describe(catalogue: Catalogue) -> StateDescription:
    """The description of a Samara state played with ``catalogue``."""
    tiles = tuple(t.id for t in catalogue.tiles)
    labels = tuple(s.label for s in catalogue.spots)
    seat = max(INFO.player_counts) - 1
    tile = String(choices=tiles, ids=True, description="a building tile's catalogue id")
    worker = Object(description="a worker: a stack of pawns acting as one", fields=(
        Prop("owner", Integer(lo=0, hi=seat, seat=True, description="the seat it belongs to "
                                                         "(0..num_players-1)")),
        Prop("gender", String(choices=("man", "woman"),
                              description="the worker's own gender (its first pawn): only "
                                          "women recruit; it has at least one pawn of it")),
        Prop("men", Integer(lo=0, hi=MAX_PAWNS, description="male pawns in the stack")),
        Prop("women", Integer(lo=0, hi=MAX_PAWNS, description="female pawns in the stack")),
    ))
    decision = Object(description="a choice a special power asks for before play goes on",
                      fields=(
        Prop("kind", String(choices=tuple(DECISION_KIND),
                            description="give (tools to the spot just built), weaken (a "
                                        "worker loses a pawn), bury (a pawn leaves the "
                                        "game), imprison (a worker of another seat waits)")),
        Prop("player", Integer(lo=0, hi=seat, seat=True, description="the seat that chooses")),
        Prop("target", Integer(lo=0, hi=seat, seat=True, description="whose tool or worker: the "
                                                          "chooser, but for imprison")),
        Prop("spot", String(choices=labels, ids=True, nullable=True,
                            description="give: the spot of the building just taken, where "
                                        "the tools go; null for the other kinds"),
             required=False, default=None),
        Prop("count", Integer(lo=1, hi=2, description="give: tools still to give (2 only "
                                                      "for only = any); 1 for the others"),
             required=False, default=1),
        Prop("only", String(choices=tuple(GIVE_KINDS),
                            description="give: which tools qualify; any for the others"),
             required=False, default="any"),
    ), implies=tuple(
        Implication("kind", tuple(k for k in DECISION_KIND if k != "give"), name, value)
        for name, value in (("spot", None), ("count", 1), ("only", "any")))
        + (Implication("only", tuple(g for g in GIVE_KINDS if g != "any"), "count", 1),))
    root = Object(description="A Samara position: the board, the time track, the Foreman "
                              "boards and the decisions pending.", fields=(
        Prop("game", Const(value="samara", description="the game")),
        Prop("version", Const(value=1, description="the version of this JSON form")),
        Prop("num_players", Integer(lo=INFO.min_players, hi=INFO.max_players,
                                    description="the number of seats")),
        Prop("options", Object(description="the game's options", fields=(
            Prop("powers", Boolean(description="the special powers of the named tiles are "
                                               "played"), required=False, default=True),
        )), required=False, default={}),
        Prop("month", Integer(lo=0, hi=MAX_MONTH,
                              description="the current month, counted from January of the "
                                          "first year (8 is September, the start); the worker "
                                          "nearest the board in this month acts next")),
        Prop("spots", Array(size=len(labels), description="the board's spots, in catalogue "
                                                          "order (spot i is the catalogue's "
                                                          "i-th)",
                            items=Object(description="a spot of the board", fields=(
            Prop("spot", String(choices=labels, ids=True,
                                description="the spot's label, rROWcCOLUMN: the strength "
                                            "and months it takes")),
            Prop("tile", String(choices=tiles, ids=True, nullable=True,
                                description="the building tile on it; null once taken"),
                 required=False, default=None),
            Prop("tools", _tools("the tools on the spot")),
        )), positions=tuple(
            Object(closed=False, description=f"spot {i}: {label}", fields=(
                Prop("spot", Const(value=label, description=f"the catalogue's spot {i}")),))
            for i, label in enumerate(labels)),
            deal="the tiles and tools of your own layout: each of the catalogue's tiles "
                 "must be on a spot, unused or on a Foreman board, and the tools add up to "
                 "the sets of the seats")),
        Prop("unused_tiles", Array(
            size=len(tiles) - len(labels), items=tile,
            description="the tiles not laid out at setup",
            deal="the tiles your layout leaves out")),
        Prop("track", Array(description="the time track: the months that hold workers, "
                                        "increasing, from the current month to the end of "
                                        "the next six-month board",
                            items=Object(description="one month of the track", fields=(
            Prop("month", Integer(lo=0, hi=MAX_MONTH, description="the month (see month)")),
            Prop("workers", Array(min_items=1, items=worker,
                                  description="the workers in that month, in the order they "
                                              "act (the first is nearest the board)")),
        )))),
        Prop("foremen", Array(per_seat=True, description="each seat's Foreman board",
                              items=Object(description="a Foreman board", fields=(
            Prop("tools", _tools("the seat's tools (at most 2 saws and 1 of each other "
                                 "kind; glass-b only with glass-a)", MAX_TOOLS)),
            Prop("pawns", Object(description="pawns not in play", fields=(
                Prop("men", Integer(lo=0, hi=MAX_PAWNS, description="male pawns")),
                Prop("women", Integer(lo=0, hi=MAX_PAWNS, description="female pawns")),
            ))),
            Prop("buildings", Array(items=tile, description="the buildings taken, in order "
                                                            "(the last one's power may have "
                                                            "queued the pending decisions)"),
                 required=False, default=[]),
            Prop("powers", Array(items=String(choices=LASTING_POWERS,
                                              description="a lasting power"), unique=True,
                                 description="lasting powers of the seat's buildings (each "
                                             "one taken, when powers are played)"),
                 required=False, default=[]),
        )))),
        Prop("pending", Array(items=decision, per_other_seat=True,
                              description="decisions a power just queued, the first to make "
                                          "first (at most num_players-1)"),
             required=False, default=[]),
    ))
    return StateDescription(INFO, root)


#: :func:`describe`, made once per catalogue (the loader asks for it on every load).
description = PerCatalogue(describe)
