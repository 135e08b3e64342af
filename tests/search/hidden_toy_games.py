"""A hidden-information toy game implementing the full State protocol, for the search tests.

:class:`TricksState` ("Toy Tricks"), 2-4 players.  The deck has ``suits`` suits
(letters ``A``, ``B``...) of ``ranks`` ranks (1 = lowest); a card is worth its
rank.  Each seat is dealt ``hand`` cards face down, the rest stays in a shuffled
face-down deck.  The leader plays any card of their hand face up, then each
other seat in turn plays any card (no obligation to follow suit).  The highest
card of the led suit wins the trick and its winner scores the value of every
card in it, then leads the next trick.  After each trick, while the deck holds
at least one card per seat, every seat draws one card from the top, the winner
first; cards left over when fewer remain than seats are never drawn.  The game ends when the
hands are empty; most points wins, ties share.

Hidden information: the other seats' hands and the order (and leftover cards)
of the deck.  A seat sees its own hand, every card played, the hand sizes and
the deck size, so :meth:`TricksState.determinize` deals the cards it has not
seen at random into the other hands and the deck.  Without a follow-suit rule
no play reveals anything more, so every such deal is consistent with the
observer's information.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.game import (
    TERMINAL,
    Event,
    Game,
    GameInfo,
    GameOption,
    IllegalMoveError,
    InvalidStateError,
    MoveParseError,
    State,
    rank_groups,
)

TRICKS_INFO = GameInfo(
    name="toy-tricks",
    title="Toy Tricks",
    min_players=2,
    max_players=4,
    perfect_information=False,
    has_chance=False,
    private_information=True,
    options=(
        GameOption("suits", 3, "number of suits"),
        GameOption("ranks", 6, "cards per suit"),
        GameOption("hand", 3, "cards dealt to each seat"),
    ),
)

_SUIT_LETTERS = "ABCDEFGH"


class TricksState(State):
    info: ClassVar[GameInfo] = TRICKS_INFO

    def __init__(
        self,
        num_players: int,
        suits: int,
        ranks: int,
        hands: Sequence[Sequence[int]],
        deck: Sequence[int],
        *,
        leader: int = 0,
        trick: Sequence[int] = (),
        played: Sequence[int] = (),
        points: Sequence[float] | None = None,
    ) -> None:
        self.num_players = num_players
        self.suits = suits
        self.ranks = ranks
        self.hands = [sorted(h) for h in hands]
        #: Top of the deck first.
        self.deck = list(deck)
        self.leader = leader
        #: Cards of the current trick, in play order from the leader.
        self.trick = list(trick)
        #: Cards of finished tricks, in play order.
        self.played = list(played)
        self.points = [float(x) for x in points] if points is not None else [0.0] * num_players

    # -- cards -------------------------------------------------------------
    def suit(self, card: int) -> int:
        return card // self.ranks

    def value(self, card: int) -> int:
        return card % self.ranks + 1

    def card_text(self, card: int) -> str:
        return f"{_SUIT_LETTERS[self.suit(card)]}{self.value(card)}"

    # -- protocol ----------------------------------------------------------
    def current_player(self) -> int:
        if not self.trick and not any(self.hands):
            return TERMINAL
        return (self.leader + len(self.trick)) % self.num_players

    def legal_moves(self) -> list[int]:
        player = self.current_player()
        return [] if player == TERMINAL else list(self.hands[player])

    def why_illegal(self, move: int) -> str | None:
        player = self.current_player()
        if player == TERMINAL:
            return "the game is over"
        if move not in self.hands[player]:
            return f"seat {player} does not hold that card"
        return None

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        player = self.current_player()
        self.hands[player].remove(move)
        self.trick.append(move)
        events = [Event(f"seat {player} plays {self.card_text(move)}")]
        n = self.num_players
        if len(self.trick) == n:
            led = self.suit(self.trick[0])
            best = max(
                (i for i, card in enumerate(self.trick) if self.suit(card) == led),
                key=lambda i: self.trick[i],
            )
            winner = (self.leader + best) % n
            gain = sum(self.value(card) for card in self.trick)
            self.points[winner] += gain
            events.append(Event(f"seat {winner} wins the trick for {gain}"))
            self.played.extend(self.trick)
            self.trick = []
            self.leader = winner
            if len(self.deck) >= n:
                for k in range(n):
                    seat = (winner + k) % n
                    self.hands[seat].append(self.deck.pop(0))
                    self.hands[seat].sort()
        return events

    def clone(self) -> TricksState:
        new = TricksState.__new__(type(self))
        new.num_players = self.num_players
        new.suits = self.suits
        new.ranks = self.ranks
        new.hands = [list(h) for h in self.hands]
        new.deck = list(self.deck)
        new.leader = self.leader
        new.trick = list(self.trick)
        new.played = list(self.played)
        new.points = list(self.points)
        return new

    def scores(self) -> list[float]:
        return list(self.points)

    def ranking(self) -> list[list[int]]:
        return rank_groups([(p,) for p in self.points])

    # -- information -------------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "game": TRICKS_INFO.name,
            "seat": seat,
            "num_players": self.num_players,
            "suits": self.suits,
            "ranks": self.ranks,
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "leader": self.leader,
            "trick": list(self.trick),
            "played": list(self.played),
            "points": list(self.points),
        }

    def unseen_cards(self, observer: int) -> list[int]:
        """Cards ``observer`` has not seen, in card order."""
        seen = set(self.hands[observer]) | set(self.trick) | set(self.played)
        return [card for card in range(self.suits * self.ranks) if card not in seen]

    def determinize(self, observer: int, rng: random.Random) -> TricksState:
        # Built only from observation(observer): the hidden parts are never read.
        seen = self.observation(observer)
        unseen = self.unseen_cards(observer)
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        for seat, size in enumerate(seen["hand_sizes"]):
            if seat == observer:
                hands.append(list(seen["hand"]))
            else:
                hands.append(unseen[:size])
                del unseen[:size]
        # The rest, in the shuffled order, is the deck (same size as the real one).
        return TricksState(
            self.num_players,
            self.suits,
            self.ranks,
            hands,
            unseen,
            leader=seen["leader"],
            trick=seen["trick"],
            played=seen["played"],
            points=seen["points"],
        )

    # -- serialization and notation ---------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "game": TRICKS_INFO.name,
            "num_players": self.num_players,
            "suits": self.suits,
            "ranks": self.ranks,
            "hands": [list(h) for h in self.hands],
            "deck": list(self.deck),
            "leader": self.leader,
            "trick": list(self.trick),
            "played": list(self.played),
            "points": list(self.points),
        }

    def move_to_text(self, move: int) -> str:
        return self.card_text(move)

    def parse_move(self, text: str) -> int:
        text = text.strip().upper()
        if len(text) >= 2 and text[0] in _SUIT_LETTERS[: self.suits] and text[1:].isdigit():
            value = int(text[1:])
            if 1 <= value <= self.ranks:
                return _SUIT_LETTERS.index(text[0]) * self.ranks + value - 1
        raise MoveParseError(f"not a card: {text!r}")


class TricksGame(Game):
    info: ClassVar[GameInfo] = TRICKS_INFO

    def new_game(
        self, seed: int, num_players: int, options: Mapping[str, Any] | None = None
    ) -> State:
        self.info.check_players(num_players)
        opts = self.info.resolve_options(options)
        return deal(num_players, seed, opts["suits"], opts["ranks"], opts["hand"])

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        try:
            return TricksState(
                int(data["num_players"]),
                int(data["suits"]),
                int(data["ranks"]),
                [[int(c) for c in h] for h in data["hands"]],
                [int(c) for c in data["deck"]],
                leader=int(data["leader"]),
                trick=[int(c) for c in data["trick"]],
                played=[int(c) for c in data["played"]],
                points=[float(p) for p in data["points"]],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad tricks state: {exc}") from exc


def deal(
    num_players: int = 2, seed: int = 0, suits: int = 3, ranks: int = 6, hand: int = 3
) -> TricksState:
    """A new game: the deck shuffled with ``random.Random(seed)``, ``hand`` cards each."""
    cards = list(range(suits * ranks))
    if num_players * hand > len(cards):
        raise ValueError("not enough cards for the hands")
    random.Random(seed).shuffle(cards)
    hands = [cards[i * hand : (i + 1) * hand] for i in range(num_players)]
    deck = cards[num_players * hand :]
    return TricksState(num_players, suits, ranks, hands, deck)
