"""Oh My Goods! for 2-4 players as a Furnace game: the :class:`~engine.game.Game` factory.

The position is :class:`engine.oh_my_goods.state.OhMyGoodsState`, which holds the rules
(legality, applying moves, scoring, information) and hands over to :mod:`.moves` (codes
and words); :mod:`.setup` deals a game and :mod:`.codec` reads one back from JSON.
Interpretations of the rulebook: ``docs/rules/oh-my-goods.md``.

>>> state = OhMyGoodsGame().new_game(seed=1, num_players=2)
>>> state.phase, state.current_player()
('choose', 0)
>>> state.parse_move(state.move_to_text(state.legal_moves()[0])) == state.legal_moves()[0]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.game import Game, GameInfo
from engine.oh_my_goods import fast
from engine.oh_my_goods.catalogue import Catalogue, default_catalogue
from engine.oh_my_goods.codec import state_from_json
from engine.oh_my_goods.schema import description
from engine.oh_my_goods.setup import new_state
from engine.oh_my_goods.state import OhMyGoodsState
from engine.oh_my_goods.vocabulary import INFO
from engine.state_schema import StateDescription


class OhMyGoodsGame(Game):
    """Factory of Oh My Goods! states (to be registered as ``oh-my-goods``)."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue | None = None) -> None:
        self.catalogue = catalogue or default_catalogue()

    def new_game(self, seed: int, num_players: int,
                 options: Mapping[str, Any] | None = None) -> OhMyGoodsState:
        INFO.check_players(num_players)
        resolved = INFO.resolve_options(options)
        return new_state(self.catalogue, int(seed), num_players,
                         bool(resolved["second_edition"]))

    def state_from_json(self, data: Mapping[str, Any]) -> OhMyGoodsState:
        return state_from_json(data, self.catalogue)

    def kernel_available(self) -> bool:
        return fast.kernel_module() is not None

    def catalogue_data(self) -> Mapping[str, Any]:
        return self.catalogue.data

    def state_description(self) -> StateDescription:
        return description(self.catalogue)
