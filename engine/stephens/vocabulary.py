"""The names the rules are written in: cube colours, board places, ability effects.

These are geometry and vocabulary fixed by the rulebook text, not component data:
a catalogue may change every value, but not that plate glass is white or that the
upper small factories sit above the lower ones.  Everything is an index into
these tuples, so a position is lists of small integers.

>>> COLOURS[WHITE], PLACES[FN_UL], side_of_place(FN_UR), place_below(SF_UL) == SF_LL
('white', 'FN-UL', 1, True)
>>> place_of_factory(SMALL_FACTORIES.index("SF-LR")) == SF_LR
True
>>> place_of_furnace(FURNACES.index("FN-UR")) == FN_UR, place_of_furnace(FURNACES.index("FN-LL"))
(True, None)
"""

from __future__ import annotations

#: Cube colours: glass (translucent, from the furnaces) then products (wooden).
COLOURS = ("green", "blue", "white", "orange", "pink", "black")
GREEN, BLUE, WHITE, ORANGE, PINK, BLACK = range(6)
GLASS = (GREEN, BLUE, WHITE)
#: Wooden colours in the order of the investment rows and small-factory cubes.
WOODEN = (ORANGE, PINK, BLACK)
WOODEN_NAMES = tuple(COLOURS[c] for c in WOODEN)

SIDES = ("left", "right")
LEFT, RIGHT = 0, 1

#: The four furnaces of the Stephens' factory (upper/lower, left/right).
FURNACES = ("FN-UL", "FN-UR", "FN-LL", "FN-LR")
#: What taking a cube from a furnace lets the player do.
FURNACE_ACTIONS = ("activate", "contract", "investment")

#: The four small factories on the upper section of the board.
SMALL_FACTORIES = ("SF-UL", "SF-LL", "SF-UR", "SF-LR")

#: The six places professions are attached to, three per side, top to bottom:
#: upper small factory, lower small factory, upper furnace.  A place's index is
#: ``3 * side + tier``.
PLACES = ("SF-UL", "SF-LL", "FN-UL", "SF-UR", "SF-LR", "FN-UR")
SF_UL, SF_LL, FN_UL, SF_UR, SF_LR, FN_UR = range(6)
TIERS = ("upper small factory", "lower small factory", "Stephens' factory")
UPPER_FACTORY, LOWER_FACTORY, STEPHENS = range(3)


def side_of_place(place: int) -> int:
    return place // 3


def tier_of_place(place: int) -> int:
    return place % 3


def place_below(place: int) -> int | None:
    """The place whose profession count limits ``place`` (None: the upper furnaces)."""
    return None if tier_of_place(place) == STEPHENS else place + 1


def place_of_factory(factory: int) -> int:
    """The profession place of a small factory (index into SMALL_FACTORIES)."""
    return PLACES.index(SMALL_FACTORIES[factory])


def place_of_furnace(furnace: int) -> int | None:
    """The profession place of an upper furnace; None for the lower two."""
    name = FURNACES[furnace]
    return PLACES.index(name) if name in PLACES else None


#: Profession decks; starting professions form no deck.
DECKS = ("red", "blue", "start")
RED, BLUE_DECK, START = range(3)

#: Effects of the 14 ability disks and of the 4 influence disks.  ``products``
#: appears three times (2, 3 and 4 cubes from a small factory).
INFLUENCE_DISK = "influence-disk"
ABILITY_EFFECTS = (
    "reset-vp", "final-cubes", "final-coins", "final-influence", "final-accessories",
    "discard-professions", "equal-placement",
    "cube-replacement", "two-cards", "discard-cheapest", "discount",
    "products",
)
#: How many abilities carry each effect on a player board.
EFFECT_COPIES = {effect: 3 if effect == "products" else 1 for effect in ABILITY_EFFECTS}

#: What a profession benefit moves, and where a trade's payment comes from.
ATOM_KINDS = ("coin", "influence", "vp", "forest", "dune", "cube", "accessory")
#: Kinds that name a colour (cube) or an accessory type, or "any".
TYPED_ATOMS = ("cube", "accessory")
ANY = -1

#: What a small-factory supply combination gives.
BONUS_GAINS = ("influence", "coin", "accessory", "acquire", "assign")

#: The two piles of cards bought from a display: contracts and investments.
CONTRACTS, INVESTMENTS = 0, 1

#: The solo game's difficulties (the option ``difficulty``), easiest first.
DIFFICULTIES = ("easy", "normal", "hard")
#: The Automa's arrows and instruction kinds (the rules: engine/stephens/solo.py).
DIRECTIONS = ("cw", "ccw")
AUTOMA_ACTIONS = ("furnace", "factory", "profession")
#: The six face-up profession positions, left to right: red deck top, two red
#: display cards, two blue display cards, blue deck top.
DISPLAY_POSITIONS = 6

#: Owner codes of a worker on a profession card.
NOBODY = -1
AUTOMA = -2
