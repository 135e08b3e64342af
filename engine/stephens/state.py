"""A Stephens position as the game's :class:`engine.game.State`.

:class:`StephensState` is the position's data (:class:`engine.stephens.position.Position`)
with the protocol's methods, each handing over to the rule modules: :mod:`.flow` (the
decision stack: legal moves, playing a move), :mod:`.moves` (codes and words),
:mod:`.scoring`, :mod:`.solo` (the solo result), :mod:`.heuristic`, :mod:`.audit`,
:mod:`.information`, :mod:`.encoding`, :mod:`.render`, and :mod:`.fast` (the kernel
twin for search).  The rules know only the data; this class sits above them all.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=3, num_players=2)
>>> state.current_player(), state.legal_moves_text()
(0, ['accessories blowpipe', 'accessories shears', 'accessories mould'])
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from engine.game import TERMINAL, Event, GameInfo, IllegalMoveError, Outcome
from engine.game import State as GameState
from engine.playout_rng import PlayoutRng
from engine.stephens import fast, flow
from engine.stephens.audit import audit
from engine.stephens.components import Catalogue
from engine.stephens.encoding import state_to_json
from engine.stephens.features import features
from engine.stephens.heuristic import heuristic
from engine.stephens.information import determinize, observation
from engine.stephens.moves import move_to_text, parse_move
from engine.stephens.position import EMPTY, INFO, Player, Position, new_player
from engine.stephens.render import render_view
from engine.stephens.scoring import final_score, ranking, scores
from engine.stephens.solo import result, target_score

__all__ = ["EMPTY", "INFO", "Player", "StephensState", "new_player"]


class StephensState(Position, GameState):
    """A Stephens position that plays: the game protocol over :class:`Position`.

    The legal moves are kept until the next :meth:`apply`; code that changes a
    position by hand calls :meth:`touched` afterwards.
    """

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue | None, num_players: int) -> None:
        super().__init__(catalogue, num_players)
        self._moves: list[int] | None = None  # legal moves, until the next change
        self.last_rollout_steps = 0  # moves chosen by the last rollout(), for benchmarks

    def touched(self) -> None:
        """Forget the legal moves worked out for this position (after a change by hand)."""
        self._moves = None

    # -- the game protocol ------------------------------------------------------------
    def current_player(self) -> int:
        return self.decisions[-1].seat if self.decisions else TERMINAL

    def legal_moves(self) -> list[int]:
        if self._moves is None:
            self._moves = flow.legal_moves(self)
        return list(self._moves)

    def why_illegal(self, move: int) -> str | None:
        if not isinstance(move, int) or isinstance(move, bool) or move < 0:
            return f"{move!r} is not a move of Stephens"
        if move in self.legal_moves():
            return None
        if not self.is_move_code(move):
            return f"{move} is not a move of Stephens"
        return flow.reason(self, move)

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        return self.apply_judged(move)

    def apply_judged(self, move: int) -> list[Event]:
        events: list[Event] = []
        self._moves = None
        self._moves = flow.play(self, move, events)
        return events

    def rollout(self, seed: int) -> Outcome:
        # The base class's loop without the legality check: moves come from the list.
        rng = PlayoutRng(seed)
        steps = 0
        events: list[Event] = []
        moves = self.legal_moves()
        while moves:
            self._moves = None
            moves = flow.play(self, moves[rng.below(len(moves))], events)
            events.clear()
            steps += 1
        self._moves = moves
        self.last_rollout_steps = steps
        return self.outcome()

    def move_to_text(self, move: int) -> str:
        return move_to_text(self, move)

    def parse_move(self, text: str) -> int:
        return parse_move(self, text)

    def heuristic(self) -> list[float]:
        return heuristic(self)

    def features(self) -> list[list[float]]:
        return features(self)

    def audit(self) -> list[str]:
        """What is wrong with this position, as sentences (empty when it is sound)."""
        return audit(self)

    def to_json(self) -> dict[str, Any]:
        return state_to_json(self)

    def observation(self, seat: int | None) -> dict[str, Any]:
        return observation(self, seat)

    def determinize(self, observer: int | None, rng: random.Random) -> StephensState:
        twin = determinize(self, observer, rng)
        twin.touched()
        return twin

    def render(self, observer: int | None = None) -> str:
        return render_view(self.observation(observer), self.catalogue)

    def search_state(self) -> GameState:
        return fast.kernel_twin(self) or self

    # -- scoring --------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(s) for s in scores(self)]

    def ranking(self) -> list[list[int]]:
        return ranking(self)

    def score_breakdown(self) -> list[list[tuple[str, float]]]:
        """The final-scoring categories (:class:`~engine.stephens.scoring.ScoreBreakdown`),
        as if the game ended now, like :meth:`scores`."""
        return [final_score(self, seat).parts() for seat in range(self.num_players)]

    def solo_target(self) -> float | None:
        """Solo: the score the one seat aims for (the protocol's one-seat utility): the
        opponent card's target, else the difficulty's Glassblower bar."""
        if not self.solo:
            return None
        return float(target_score(self))

    def solo_rank(self) -> str | None:
        """Solo: the rank the score earns at the difficulty (L1655-L1670), or with an
        opponent card whether its target was reached (docs/rules/stephens.md)."""
        if not self.solo:
            return None
        return result(self)
