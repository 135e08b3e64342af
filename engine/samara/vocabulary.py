"""Samara's vocabulary: the game's metadata, its move codes and the bounds of a state.

The rules (:mod:`engine.samara.state`, :mod:`engine.samara.moves`), the state's
description (:mod:`engine.samara.schema`) and the kernel all read these; this module
reads only the catalogue.

>>> decode_move(encode_move(BUILD, spot=3, workers=1))
(4, 3, 0, 1)
>>> KIND_WORDS[BUILD]
'build'
"""

from __future__ import annotations

from engine.game import GameInfo, GameOption
from engine.samara.catalogue import COMPASS, GLASS_A, GLASS_B, SAW, SQUARE

INFO = GameInfo(
    name="samara",
    title="Samara",
    min_players=2,
    max_players=5,
    perfect_information=True,
    has_chance=False,
    options=(
        GameOption("powers", True, "use the special powers of the 13 named tiles"),
    ),
    description="Worker placement on a time track: build prestige with tools, strength and time.",
)

MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun",
               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MAX_TOOLS = (2, 1, 1, 1, 1)  # per kind, in TOOL_NAMES order

# Move kinds.  A move is ``kind << 16 | spot << 10 | arg << 5 | workers`` where
# ``workers`` is a bit mask over the mover's workers in the current month (bit 0
# is the acting worker) and ``arg`` is a tool kind, a trainee or a worker index.
WAIT, VACATION, RECRUIT, TOOL, BUILD, GIVE, WEAKEN, BURY, IMPRISON = range(9)
KIND_WORDS = ("wait", "vacation", "recruit", "tool", "build", "give", "weaken", "bury",
              "imprison")
DECISION_KIND = {"give": GIVE, "weaken": WEAKEN, "bury": BURY, "imprison": IMPRISON}
PRISON_MONTHS = 5
GIVE_KINDS = {"any": (SAW, COMPASS, SQUARE, GLASS_A, GLASS_B), "saw": (SAW,),
              "trowel": (COMPASS, SQUARE), "glass": (GLASS_A, GLASS_B)}


def encode_move(kind: int, spot: int = 0, arg: int = 0, workers: int = 0) -> int:
    return kind << 16 | spot << 10 | arg << 5 | workers


def decode_move(move: int) -> tuple[int, int, int, int]:
    return move >> 16, (move >> 10) & 63, (move >> 5) & 31, move & 31


#: Months a saved game may have reached (a sanity bound: games end within a few years).
MAX_MONTH = 10_000
