"""Samara (Cwali, 2015) for 2-5 players as a Furnace game: the :class:`~engine.game.Game` factory.

The position is :class:`engine.samara.state.SamaraState`, which holds the rules
(legal moves, why a move is illegal, playing one, the decisions special powers ask
for, scoring, information, its JSON) and hands over to :mod:`.moves` (codes and
words), :mod:`.features`, :mod:`.render` and :mod:`.fast` (the kernel twin for
search); :mod:`.setup` deals a new game and :mod:`.codec` reads a position back from
JSON.  Interpretations of the rulebook: ``docs/rules/samara.md``.

>>> state = SamaraGame().new_game(seed=1, num_players=2)
>>> state.month_name(state.month)
'Sep'
>>> state.move_to_text(state.legal_moves()[-1])
'recruit woman'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.game import Game, GameInfo
from engine.samara import fast
from engine.samara.catalogue import Catalogue, default_catalogue
from engine.samara.codec import state_from_json
from engine.samara.schema import description
from engine.samara.setup import new_state
from engine.samara.state import SamaraState
from engine.samara.vocabulary import INFO
from engine.state_schema import StateDescription


class SamaraGame(Game):
    """Factory of Samara states, registered as ``samara``."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue | None = None) -> None:
        self.catalogue = catalogue or default_catalogue()

    def new_game(self, seed: int, num_players: int,
                 options: Mapping[str, Any] | None = None) -> SamaraState:
        INFO.check_players(num_players)
        resolved = INFO.resolve_options(options)
        return new_state(self.catalogue, int(seed), num_players, bool(resolved["powers"]))

    def state_from_json(self, data: Mapping[str, Any]) -> SamaraState:
        return state_from_json(data, self.catalogue)

    def kernel_available(self) -> bool:
        return fast.kernel_module() is not None

    def catalogue_data(self) -> Mapping[str, Any]:
        return self.catalogue.data

    def state_description(self) -> StateDescription:
        return description(self.catalogue)
