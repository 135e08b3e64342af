"""Stephens for 1-4 players (solo: against the Automa) as a Furnace game: the :class:`~engine.game.Game` factory.

The position is :class:`engine.stephens.state.StephensState`, whose protocol methods
hand over to the rule modules: :mod:`.flow` (the decision stack: legal moves,
playing a move, what runs by itself), :mod:`.turn` and :mod:`.acquisition` (a
turn's decisions), :mod:`.reset` (the reset phase), :mod:`.moves` (codes and
words), :mod:`.scoring`, :mod:`.heuristic`, :mod:`.information`, :mod:`.codec`.
Interpretations of the rulebook: ``docs/rules/stephens.md``.

>>> game = StephensGame()
>>> state = game.new_game(seed=1, num_players=2)
>>> state.current_player(), state.legal_moves_text()
(0, ['accessories blowpipe', 'accessories shears', 'accessories mould'])
>>> moves = state.legal_moves()
>>> state.parse_move(state.move_to_text(moves[0])) == moves[0]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.game import Game, GameInfo
from engine.state_schema import StateDescription
from engine.stephens import fast
from engine.stephens.catalogue import default_catalogue
from engine.stephens.codec import state_from_json
from engine.stephens.components import Catalogue
from engine.stephens.flow import advance
from engine.stephens.schema import description
from engine.stephens.setup import new_state
from engine.stephens.solo import solo_options
from engine.stephens.state import INFO, StephensState


class StephensGame(Game):
    """Factory of Stephens states (registered as ``stephens``)."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue | None = None) -> None:
        self.catalogue = catalogue or default_catalogue()

    def new_game(self, seed: int, num_players: int,
                 options: Mapping[str, Any] | None = None) -> StephensState:
        INFO.check_players(num_players)
        difficulty, opponent = solo_options(num_players, INFO.resolve_options(options))
        state = new_state(int(seed), num_players, self.catalogue, difficulty, opponent)
        state._moves = advance(state, [])
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> StephensState:
        return state_from_json(data, self.catalogue)

    def kernel_available(self) -> bool:
        return fast.kernel_module() is not None

    def catalogue_data(self) -> Mapping[str, Any]:
        return self.catalogue.data

    def state_description(self) -> StateDescription:
        return description(self.catalogue)
