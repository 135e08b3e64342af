"""Oh My Goods!' feature vector per seat: simple counts of a position, the inputs of a
learned leaf value (:class:`engine.search.evaluate.LearnedEvaluator`).

The names and meanings are declared once, in :data:`FEATURES`; a model file records
the names it was fitted on, so a model and the features it reads cannot drift apart.
Every value is read from the position as it is (a determinized one, in a search): no
hidden information is looked at beyond what the state holds.  The compiled kernel
computes the same vectors in C (``ext/oh_my_goods_kernel.pyx``).

>>> from engine.oh_my_goods import GAME
>>> state = GAME.new_game(seed=3, num_players=2)
>>> values = features(state)
>>> len(values), len(values[0]) == len(FEATURE_NAMES)
(2, True)
>>> dict(zip(FEATURE_NAMES, values[0]))["hand"]
7.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.oh_my_goods.state import OhMyGoodsState

#: (name, meaning) of each feature, in the order of :func:`features`' vectors.
FEATURES: tuple[tuple[str, str], ...] = (
    ("vp", "victory points of the buildings built and the assistants hired"),
    ("coins", "coins: the value of the goods on the seat's buildings"),
    ("score", "the final-scoring count if the game ended now (scores())"),
    ("buildings", "buildings built (the charburner not counted)"),
    ("production", "production buildings built"),
    ("chains", "buildings built that have a production chain"),
    ("capacity", "the goods values of the seat's buildings, the charburner included"),
    ("goods", "goods on the seat's buildings"),
    ("hand", "cards in hand"),
    ("assistants", "assistants hired"),
    ("heuristic", "the hand-written heuristic() value"),
)

FEATURE_NAMES: tuple[str, ...] = tuple(name for name, _ in FEATURES)


def features(state: OhMyGoodsState) -> list[list[float]]:
    """One vector of :data:`FEATURES` per seat."""
    cat = state.catalogue
    base = state.scores()
    judged = state.heuristic()
    out = []
    for seat, player in enumerate(state.players):
        built = [cat.buildings[cat.cards[card].building] for card in player.buildings]
        slots = range(state.num_slots(seat))
        out.append([
            float(state.vp(seat)), float(state.coins(seat)), base[seat],
            float(len(built)), float(sum(1 for b in built if b.production)),
            float(sum(1 for b in built if b.chain)),
            float(sum(state.slot_building(seat, k).value for k in slots)),
            float(sum(len(player.goods[k]) for k in slots)),
            float(len(player.hand)), float(len(player.assistants)), judged[seat],
        ])
    return out
