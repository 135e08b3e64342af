"""The game protocol every Furnace game implements, and the value types around it.

A game is described once by a :class:`GameInfo` and provides a :class:`Game`
object (a factory for states) and a :class:`State` subclass.  Moves are plain
integers with a text notation; the search code in :mod:`engine.search` only ever
talks to this protocol and never to a particular game.

>>> from engine import registry
>>> game = registry.get_game("samara")
>>> state = game.new_game(seed=7, num_players=2)
>>> state.current_player()
0
>>> move = state.legal_moves()[0]
>>> state.parse_move(state.move_to_text(move)) == move
True
"""

from __future__ import annotations

import abc
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.playout_rng import PlayoutRng

#: ``current_player()`` of a state where chance (not a seat) moves next.
CHANCE = -1
#: ``current_player()`` of a finished game.
TERMINAL = -2


class FurnaceError(ValueError):
    """Base class of every error Furnace raises for bad input."""


class UnknownGameError(FurnaceError):
    """The requested game is not registered."""


class InvalidOptionError(FurnaceError):
    """A player count or game option the rules do not allow."""


class IllegalMoveError(FurnaceError):
    """A move that is well formed but not legal in the current position."""


class MoveParseError(FurnaceError):
    """A move text that does not follow the game's notation."""


class InvalidStateError(FurnaceError):
    """A serialized state or catalogue that is corrupt or impossible."""


@dataclass(frozen=True)
class GameOption:
    """One option a game accepts in ``new_game(..., options={name: value})``."""

    name: str
    default: bool | int | str
    description: str


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata, declared once at the top of its module."""

    name: str
    title: str
    min_players: int
    max_players: int
    perfect_information: bool
    has_chance: bool
    options: tuple[GameOption, ...] = ()
    description: str = ""
    #: When set, tree search values a playout by the seat's final score margin over
    #: its best opponent, ``1 / (1 + exp(-margin / score_margin_scale))``, instead of
    #: the bare win share: in a game whose random playouts rank players unreliably the
    #: margin says more about a position.  Analyses still report win shares and scores.
    score_margin_scale: float | None = None

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill in defaults and reject unknown options or values of the wrong type."""
        known = {o.name: o for o in self.options}
        resolved: dict[str, Any] = {o.name: o.default for o in self.options}
        for name, value in (options or {}).items():
            if name not in known:
                valid = ", ".join(sorted(known)) or "none"
                raise InvalidOptionError(
                    f"unknown option {name!r} for {self.name} (valid options: {valid})"
                )
            expected = type(known[name].default)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise InvalidOptionError(
                    f"option {name!r} for {self.name} must be {expected.__name__}, "
                    f"got {value!r}"
                )
            resolved[name] = value
        return resolved

    def check_players(self, num_players: int) -> None:
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise InvalidOptionError(
                f"{self.title} is played by {self.min_players}-{self.max_players} players, "
                f"not {num_players!r}"
            )


@dataclass(frozen=True)
class Outcome:
    """The end of a game (or a rollout): final scores and shares of the win.

    ``rewards[p]`` is seat ``p``'s share of first place after the rulebook's
    tie-breaks (1 for a sole winner, split between seats still tied), so the
    rewards of a game always add up to 1.
    """

    scores: tuple[float, ...]
    rewards: tuple[float, ...]


@dataclass
class MoveRecord:
    """What happened when a move was applied: for logs and API answers."""

    player: int
    move: int
    text: str
    events: list[str] = field(default_factory=list)


class State(abc.ABC):
    """A position of one game.  Mutable: ``apply`` changes it in place.

    Subclasses implement the abstract methods; everything else has a default
    that works from them.
    """

    info: ClassVar[GameInfo]
    num_players: int

    # -- whose turn, which moves --------------------------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat to move, :data:`CHANCE`, or :data:`TERMINAL`."""

    @abc.abstractmethod
    def legal_moves(self) -> list[int]:
        """Legal moves in a fixed, reproducible order (empty when terminal)."""

    @abc.abstractmethod
    def apply(self, move: int) -> list[str]:
        """Play ``move``; returns a list of human-readable events.

        Raises :class:`IllegalMoveError` (with the reason) for an illegal move.
        """

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    # -- chance -------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: ``(move, probability)`` pairs; empty elsewhere."""
        return []

    # -- scoring ------------------------------------------------------------
    @abc.abstractmethod
    def scores(self) -> list[float]:
        """Each seat's score so far (the final score once terminal)."""

    @abc.abstractmethod
    def ranking(self) -> list[list[int]]:
        """Seats grouped by place after tie-breaks, best first: ``[[2], [0, 1]]``."""

    def heuristic(self) -> list[float]:
        """A cheap estimate of each seat's standing, higher is better.

        Used by the greedy baseline bot; defaults to the current scores.
        """
        return list(self.scores())

    def outcome(self) -> Outcome:
        """Scores and win shares of a terminal state."""
        shares = [0.0] * self.num_players
        winners = self.ranking()[0]
        for seat in winners:
            shares[seat] = 1.0 / len(winners)
        return Outcome(tuple(self.scores()), tuple(shares))

    def rollout(self, seed: int) -> Outcome:
        """Play random moves to the end (in place) and return the outcome.

        Moves are drawn with :class:`engine.playout_rng.PlayoutRng` seeded by ``seed``
        (``moves[next() % len(moves)]``), the stream the C kernels use too, so a
        search answers the same with or without them.  Kernels override this to run
        the loop in C.
        """
        rng = PlayoutRng(seed)
        while True:
            player = self.current_player()
            if player == TERMINAL:
                return self.outcome()
            if player == CHANCE:
                outcomes = self.chance_outcomes()
                target = rng.unit() * sum(p for _, p in outcomes)
                chosen = outcomes[-1][0]
                for outcome_move, probability in outcomes:
                    target -= probability
                    if target < 0:
                        chosen = outcome_move
                        break
                self.apply(chosen)
            else:
                legal = self.legal_moves()
                self.apply(legal[rng.below(len(legal))])

    # -- information --------------------------------------------------------
    @abc.abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` can see, as JSON-ready data."""

    @abc.abstractmethod
    def determinize(self, observer: int, rng: random.Random) -> State:
        """A full state consistent with ``observer``'s information, hidden parts resampled."""

    # -- serialization and notation -----------------------------------------
    @abc.abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; ``Game.state_from_json`` reverses it."""

    @abc.abstractmethod
    def move_to_text(self, move: int) -> str:
        """The move's text notation in this position."""

    @abc.abstractmethod
    def parse_move(self, text: str) -> int:
        """The move denoted by ``text``; raises :class:`MoveParseError`."""

    @abc.abstractmethod
    def why_illegal(self, move: int) -> str | None:
        """``None`` if ``move`` is legal here, otherwise the reason in words."""

    def render(self, observer: int | None = None) -> str:
        """A text drawing of the position; with ``observer``, only what that seat sees."""
        return repr(self.to_json())

    # -- fast path ----------------------------------------------------------
    def search_state(self) -> State:
        """The state search should work on: a kernel-backed twin when one is built.

        The twin behaves move for move like this state (``furnace check-kernel``
        proves it) but is much faster to copy and play out.
        """
        return self

    # -- helpers ------------------------------------------------------------
    def legal_moves_text(self) -> list[str]:
        return [self.move_to_text(m) for m in self.legal_moves()]

    def apply_text(self, text: str) -> list[str]:
        return self.apply(self.parse_move(text))


class Game(abc.ABC):
    """A factory of states for one game, registered in :mod:`engine.registry`."""

    info: ClassVar[GameInfo]

    @abc.abstractmethod
    def new_game(
        self, seed: int, num_players: int, options: Mapping[str, Any] | None = None
    ) -> State:
        """A new game; every random choice of the setup flows from ``seed``."""

    @abc.abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state from ``State.to_json()``; raises :class:`InvalidStateError`."""

    def kernel_available(self) -> bool:
        """Whether the compiled kernel is built and enabled for this game."""
        return False


def rank_groups(keys: Sequence[tuple[Any, ...]]) -> list[list[int]]:
    """Group seats by descending sort key: equal keys share a place.

    >>> rank_groups([(3, 0), (5, 1), (3, 0)])
    [[1], [0, 2]]
    """
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    groups: list[list[int]] = []
    for seat in order:
        if groups and keys[groups[-1][0]] == keys[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return groups
