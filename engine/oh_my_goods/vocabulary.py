"""Oh My Goods!' vocabulary: the game's metadata, its constants and its move codes.

The rules (:mod:`engine.oh_my_goods.state`), the move words
(:mod:`engine.oh_my_goods.moves`), the loader (:mod:`engine.oh_my_goods.codec`), the
state's description (:mod:`engine.oh_my_goods.schema`) and the kernel all read these;
this module reads no other module of the game.

>>> decode_move(encode_move(HIRE, 3))
(17, 3)
>>> KIND_WORDS[HIRE], PHASES[0]
('hire', 'redraw')
"""

from __future__ import annotations

from engine.game import GameInfo, GameOption

INFO = GameInfo(
    name="oh-my-goods",
    title="Oh My Goods!",
    min_players=2,
    max_players=4,
    perfect_information=False,
    has_chance=True,
    private_information=True,
    options=(
        GameOption("second_edition", False,
                   "second-edition rules: optional whole-hand redraw in phase I, and every "
                   "building's chain may fire in the last round"),
    ),
    description="Produce goods in chains from a shared market of cards; build for points.",
    # How search plays the game (its score-margin scale) is engine/search/config.py's.
)

START_HAND = 5
START_COAL = 7
DEAL = 2
BUILDINGS_TO_END = 8
#: The last round when nobody reaches BUILDINGS_TO_END: a game whose players stop
#: building would otherwise never end (see docs/rules/oh-my-goods.md).
MAX_ROUNDS = 100
COINS_PER_VP = 5
SHIFT_COST = 2
ORDERLY, SLOPPY = 0, 1
MODE_WORDS = ("orderly", "sloppy")

# A move is ``kind << 10 | arg``.
(KEEP, REDRAW, SHIFT, WORK_ORDERLY, WORK_SLOPPY, IDLE, PLAN, PLAN_NONE, PRODUCE, SUPPLY,
 CHAIN, STOP, CHAIN_ONLY, DONE, BUILD, SCRAP, PAY, HIRE, PLACE, PASS) = range(20)
NO_CARD = 1023  # CHAIN's argument when the chain takes no hand card
KIND_WORDS = ("keep", "redraw", "shift", "work", "work", "idle", "plan", "plan", "produce",
              "supply", "chain", "stop", "chain-only", "done", "build", "scrap", "pay", "hire",
              "place", "pass")
PHASES = ("redraw", "shift", "choose", "act", "over")
STEPS = ("run", "supply", "chain", "build", "hire", "place")


def encode_move(kind: int, arg: int = 0) -> int:
    return kind << 10 | arg


def decode_move(move: int) -> tuple[int, int]:
    return move >> 10, move & 1023
