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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from engine.playout_rng import PlayoutRng

if TYPE_CHECKING:
    from engine.state_schema import StateDescription

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
    """A serialized state or catalogue that is corrupt or impossible.

    ``path`` is where in the state's JSON the fault lies (``foremen[0].tools.saw``),
    or None for the state as a whole.  Unless given, it is the path the message
    starts with (every state check names its field first: ``"foremen[0].tools.saw:
    3 is more than 2"``).

    >>> InvalidStateError("foremen[0].tools.saw: 3 is more than 2").path
    'foremen[0].tools.saw'
    >>> InvalidStateError("month must be an integer in 0..99, got 'x'").path
    'month'
    >>> InvalidStateError("the state is not an object").path is None
    True

    ``kind`` is what kind of fact the state breaks, one of the kinds of
    :data:`engine.state_schema.REFUSAL_KINDS` (``"shape"``: what the game's JSON Schema
    says too; the others: what a JSON Schema cannot say), or None where no check
    named it (a record file, a state the loader tripped over).
    """

    def __init__(self, message: str, path: str | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.path = (path or None) if path is not None else leading_path(message)
        self.kind = kind


# A field path as state checks write it: names (snake_case, or with a hyphen like
# "glass-a"), ".name" and "[index]" parts; it ends the message's first word.
_PATH = re.compile(r"([a-z_][a-z0-9_-]*(?:\.[a-z_][a-z0-9_-]*|\[\d+\])*)(?=:|\s+must\b)")
_PARTED = re.compile(r"([a-z_][a-z0-9_-]*(?:\.[a-z_][a-z0-9_-]*|\[\d+\])+)(?=[\s:]|$)")


def leading_path(message: str) -> str | None:
    """The field path ``message`` starts with, or None.

    A first word counts when a colon or "must" follows it (``"month: ..."``,
    ``"num_players must be ..."``) or when it has parts (``"spots[3].tile ..."``).

    >>> leading_path("spots[3].tile is also at spots[5]"), leading_path("pending: 4")
    ('spots[3].tile', 'pending')
    """
    match = _PATH.match(message) or _PARTED.match(message)
    return match.group(1) if match else None


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
    #: Chance (dice, shuffles, draws) plays a part after setup, whoever resolves it.
    has_chance: bool
    options: tuple[GameOption, ...] = ()
    description: str = ""
    #: States can have :data:`CHANCE` to move (``chance_outcomes`` lists the
    #: outcomes, the caller applies one).  False when the rules resolve chance
    #: inside the moves themselves: then no state is ever at CHANCE, even with
    #: ``has_chance``.  What the API reports as ``GameInfo.client_sees_chance``.
    chance_nodes: bool = False
    #: Some seat holds information another seat cannot see (a hand of cards).  A
    #: game can hide information from every seat alike (a deck's order) without
    #: any: then every seat knows what the seat to move can do.  Only a game with
    #: private information ever hides a seat's moves from another
    #: (:meth:`State.moves_known_to`).
    private_information: bool = False

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


@dataclass(frozen=True)
class Event:
    """Something that happened while a move was applied, and who sees it.

    ``seats`` names the seats that see ``text`` (``None``: every seat, a public
    event); every other seat sees ``others`` instead, or nothing when it is
    ``None``.  The host (observer ``None``, see :meth:`State.observation`) sees
    ``text``.

    >>> drawn = Event("P1 draws mill-3", seats=frozenset({0}), others="P1 draws a card")
    >>> drawn.seen_by(0), drawn.seen_by(1), drawn.seen_by(None)
    ('P1 draws mill-3', 'P1 draws a card', 'P1 draws mill-3')
    """

    text: str
    seats: frozenset[int] | None = None
    others: str | None = None

    def seen_by(self, observer: int | None) -> str | None:
        """The text ``observer`` sees, or None when the event is hidden from it."""
        if observer is None or self.seats is None or observer in self.seats:
            return self.text
        return self.others

    def __str__(self) -> str:
        return self.text


def events_seen_by(events: Sequence[Event], observer: int | None) -> list[str]:
    """The texts of ``events`` that ``observer`` sees, in order."""
    return [text for event in events if (text := event.seen_by(observer)) is not None]


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
    def apply(self, move: int) -> list[Event]:
        """Play ``move``; returns what happened, as :class:`Event` values.

        Each event says who sees it (:func:`events_seen_by` picks one seat's view).
        Raises :class:`IllegalMoveError` (with the reason) for an illegal move.
        Kernel twins, which exist for search, may return no events.
        """

    def apply_judged(self, move: int) -> list[Event]:
        """Play ``move``, which :func:`~engine.move_checks.judge_move` has just found legal
        in this very position, as :meth:`apply` does (the same events) but without
        checking it a second time.  Games whose check costs a move generation override
        it."""
        return self.apply(move)

    def play_legal(self, move: int) -> None:
        """Play ``move``, taken from :meth:`legal_moves` of this very position, without
        checking it again or reporting events: the step of a playout.  Games whose
        legality check costs a move generation override it."""
        self.apply(move)

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

    def features(self) -> list[list[float]]:
        """Each seat's feature vector for a learned leaf value: the game's declared
        counts (``FEATURE_NAMES`` in its package), read from this state only.  A game
        without features gives empty vectors.
        """
        return [[] for _ in range(self.num_players)]

    def score_breakdown(self) -> list[list[tuple[str, float]]]:
        """Each seat's score by where it came from, in the game's words: ``(source,
        points)`` pairs in the rulebook's order that add up to the seat's entry of
        :meth:`scores` (the final score once the game is over).  What every front end
        shows at the end of a game; a game that tells no sources apart gives one,
        ``"score"``."""
        return [[("score", float(score))] for score in self.scores()]

    def solo_target(self) -> float | None:
        """A one-seat game's target score, or None (every game of 2+ seats).

        A lone seat's win share is always 1, which gives a search nothing to
        maximise; with a target the search values a finished game of one seat at
        ``1 / (1 + exp(-(score - target) / scale))`` (see
        :func:`engine.search._common.backup_values`).  Games with a solo mode
        override this; the target may depend on the game's options.
        """
        return None

    def solo_rank(self) -> str | None:
        """A one-seat game's result in the rulebook's words (a rank, or whether a target
        was beaten), for reports such as the arena's; None in games of 2+ seats."""
        return None

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
        play_random_moves(self, seed)
        return self.outcome()

    # -- information --------------------------------------------------------
    # The observer model.  ``observation(seat)`` is everything ``seat`` can see;
    # whatever is shown to a seat or decided for it (renders, events, move texts,
    # legal-move lists, bots, hints, estimates) derives from it, or from states
    # that ``determinize(seat, rng)`` produced.  Observer ``None`` is the *host*:
    # everything some seat sees (all hands, all secret choices), but not what no
    # seat sees (the order of a shuffled deck, face-down cards, the generator of
    # future draws).  tests/test_game_conformance.py proves it for every game.
    @abc.abstractmethod
    def observation(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` can see (``None``: the host), as JSON-ready data."""

    @abc.abstractmethod
    def determinize(self, observer: int | None, rng: random.Random) -> State:
        """A full state with the same ``observation(observer)``, everything else resampled.

        ``observer=None`` resamples only what no seat can see (deck order, face-down
        cards, the generator of future draws).
        """

    def moves_known_to(self, observer: int | None) -> bool:
        """Whether ``observer`` can know the legal moves of the seat to move.

        The host and the seat to move itself always can.  Another seat can unless
        the moves depend on what it cannot see, and then it is shown no move list
        and no judgement of a move.  In a game without private information
        (``GameInfo.private_information``: a hand only its holder sees) nothing a
        seat can do depends on what another cannot see, hidden deck order or not,
        so every seat knows every seat's moves; a game with private information
        says when its holder's moves depend on it (Oh My Goods!: the steps that read
        the hand or the secret plan), deciding from what ``observer`` sees.
        """
        return (observer is None or observer == self.current_player()
                or not self.info.private_information)
    def move_seen_by(self, move: int, observer: int | None) -> str | None:
        """The text ``observer`` sees for ``move``, about to be played here by the
        seat to move, or None when the move is secret to ``observer`` (it only
        sees that the seat moved).  By default every move is public.
        """
        return self.move_to_text(move)

    def move_is_secret(self, move: int) -> bool:
        """Whether ``move`` is a choice the other seats do not see when its seat makes
        it (:meth:`move_seen_by` then answers None to them), wherever it is played.  A
        searched line (a principal variation) shown to a seat marks another seat's
        secret choice as a guess by this.  By default no move is secret."""
        return False

    # -- serialization and notation -----------------------------------------
    @abc.abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; ``Game.state_from_json`` reverses it."""

    @abc.abstractmethod
    def move_to_text(self, move: int) -> str:
        """The move's text notation in this position; :class:`MoveParseError` for an
        id that is no move code of the game (:meth:`is_move_code`)."""

    @abc.abstractmethod
    def parse_move(self, text: str) -> int:
        """The move denoted by ``text``; raises :class:`MoveParseError`."""

    @abc.abstractmethod
    def why_illegal(self, move: int) -> str | None:
        """``None`` if ``move`` is legal here, otherwise the reason in words.

        Any value gets an answer, never an exception: an id that is no move code
        (see :meth:`is_move_code`) is "not a move of <game>".
        """

    def is_move_code(self, move: int) -> bool:
        """Whether ``move`` is a move code of this game: an id its rules can produce
        (legal here or not), not a negative, out-of-range or undecodable number.

        ``move_to_text`` raises :class:`MoveParseError` for every other id, so a
        move text is never made up.  The default: ``move_to_text`` gives a text that
        ``parse_move`` reads back as ``move``; games override it with a direct check.
        """
        if not isinstance(move, int) or isinstance(move, bool) or move < 0:
            return False
        try:
            return self.parse_move(self.move_to_text(move)) == move
        except FurnaceError:
            return False

    def render(self, observer: int | None = None) -> str:
        """A text drawing of ``observation(observer)``: only what that seat sees
        (``None``: the host's view)."""
        return repr(self.observation(observer))

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

    def apply_text(self, text: str) -> list[Event]:
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

    def catalogue_data(self) -> Mapping[str, Any]:
        """The components of the box this game plays with (its ``catalogue.json``, as the
        engine read and checked it): every card, tile and board space with its cost,
        points, needs and effects.  Public (what is in the box, never where a card
        is): front ends draw card faces from it (``GameInfo.catalogue``).  Empty for a
        game with no catalogue."""
        return {}

    def state_description(self) -> StateDescription:
        """The one description of this game's JSON state (:mod:`engine.state_schema`):
        each field's type, meaning and who sees it, from which its JSON Schema, its
        reference page and the loader's shape checks all come.  Every registered game
        gives one; a game that does not has no JSON Schema
        (:func:`engine.state_schema.json_schema` makes it from this description)."""
        raise NotImplementedError(f"{self.info.title} does not describe its JSON state")


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


def draw_chance_outcome(state: State, rng: PlayoutRng) -> int:
    """A chance outcome of ``state`` (a chance node) drawn by its probability, with one
    draw from ``rng``: how every playout, random or guided, takes chance moves."""
    outcomes = state.chance_outcomes()
    target = rng.unit() * sum(p for _, p in outcomes)
    for outcome_move, probability in outcomes:
        target -= probability
        if target < 0:
            return outcome_move
    return outcomes[-1][0]


def play_random_move(state: State, rng: PlayoutRng) -> None:
    """Apply one playout move to a state that is not over: a chance outcome drawn by
    its probability, or a legal move drawn uniformly.  The step of every Python
    playout (:meth:`State.rollout`, truncated playouts), so that all draw alike."""
    if state.current_player() == CHANCE:
        state.apply(draw_chance_outcome(state, rng))
    else:
        legal = state.legal_moves()
        state.apply(legal[rng.below(len(legal))])


def play_random_moves(state: State, seed: int, max_moves: int = 0) -> int:
    """Play random moves on ``state`` (in place) with :func:`play_random_move` and
    ``PlayoutRng(seed)``, to the end or, with ``max_moves``, at most that many (chance
    outcomes count); returns the moves played.  The loop of :meth:`State.rollout` and of
    truncated playouts, and the reference of a kernel twin's ``random_playout``."""
    rng = PlayoutRng(seed)
    played = 0
    while state.current_player() != TERMINAL and (not max_moves or played < max_moves):
        play_random_move(state, rng)
        played += 1
    return played
