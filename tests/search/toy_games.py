"""Toy games implementing the full State protocol, for the search tests only.

* :class:`RaceState` ("race to N"): 1-5 players in turn add 1..max_step to a
  shared total; whoever reaches ``target`` exactly wins (moves past the target
  are illegal).  Scores are what each seat added.  With two players the
  winning strategy is known: leave the remaining distance a multiple of
  ``max_step + 1``.
* :class:`LotteryState`: seat 0 picks one of three lotteries, then a chance
  node draws a ball with non-uniform probabilities; the ball decides whether
  seat 0 or seat 1 wins.  Lottery ``B`` is best (0.7) but has the fewest
  winning balls, so only probability-weighted sampling finds it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.game import (
    CHANCE,
    TERMINAL,
    Event,
    Game,
    GameInfo,
    GameOption,
    IllegalMoveError,
    InvalidStateError,
    MoveParseError,
    Outcome,
    State,
)
from engine.playout_rng import PlayoutRng

RACE_INFO = GameInfo(
    name="toy-race",
    title="Race to N",
    min_players=1,
    max_players=5,
    perfect_information=True,
    has_chance=False,
    options=(
        GameOption("target", 21, "the total that wins"),
        GameOption("max_step", 3, "the most one move may add"),
        GameOption("start", 0, "the starting total"),
    ),
)


class RaceState(State):
    info: ClassVar[GameInfo] = RACE_INFO

    def __init__(
        self,
        num_players: int,
        target: int,
        max_step: int,
        total: int = 0,
        to_move: int = 0,
        added: list[int] | None = None,
        winner: int | None = None,
    ) -> None:
        self.num_players = num_players
        self.target = target
        self.max_step = max_step
        self.total = total
        self.to_move = to_move
        self.added = list(added) if added is not None else [0] * num_players
        self.winner = winner

    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.to_move

    def legal_moves(self) -> list[int]:
        if self.winner is not None:
            return []
        return list(range(1, min(self.max_step, self.target - self.total) + 1))

    def why_illegal(self, move: int) -> str | None:
        if self.winner is not None:
            return "the game is over"
        if not 1 <= move <= self.max_step:
            return f"a move adds 1 to {self.max_step}"
        if self.total + move > self.target:
            return f"the total may not pass {self.target}"
        return None

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        player = self.to_move
        self.total += move
        self.added[player] += move
        if self.total == self.target:
            self.winner = player
            return [Event(f"seat {player} reaches {self.target} and wins")]
        self.to_move = (player + 1) % self.num_players
        return [Event(f"seat {player} adds {move}")]

    def clone(self) -> RaceState:
        return type(self)(
            self.num_players,
            self.target,
            self.max_step,
            self.total,
            self.to_move,
            self.added,
            self.winner,
        )

    def scores(self) -> list[float]:
        return [float(a) for a in self.added]

    def ranking(self) -> list[list[int]]:
        if self.winner is None:
            return [list(range(self.num_players))]
        others = [s for s in range(self.num_players) if s != self.winner]
        return [[self.winner], others] if others else [[self.winner]]

    def observation(self, seat: int) -> dict[str, Any]:
        return self.to_json()

    def determinize(self, observer: int, rng: random.Random) -> State:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {
            "game": RACE_INFO.name,
            "num_players": self.num_players,
            "target": self.target,
            "max_step": self.max_step,
            "total": self.total,
            "to_move": self.to_move,
            "added": list(self.added),
            "winner": self.winner,
        }

    def move_to_text(self, move: int) -> str:
        return f"+{move}"

    def parse_move(self, text: str) -> int:
        try:
            return int(text.strip().lstrip("+"))
        except ValueError:
            raise MoveParseError(f"not a race move: {text!r}") from None


class FastRaceState(RaceState):
    """RaceState with a cheaper rollout loop (what a kernel twin would provide)."""

    def search_state(self) -> State:
        return self

    def clone(self) -> FastRaceState:
        new = FastRaceState.__new__(FastRaceState)
        new.__dict__.update(self.__dict__)
        new.added = list(self.added)
        return new

    def rollout(self, seed: int) -> Outcome:
        rand = PlayoutRng(seed).unit
        total, target, step, p, n = (
            self.total,
            self.target,
            self.max_step,
            self.to_move,
            self.num_players,
        )
        added = self.added
        if self.winner is None:
            while True:
                move = 1 + int(rand() * min(step, target - total))
                total += move
                added[p] += move
                if total == target:
                    self.winner = p
                    break
                p = (p + 1) % n
            self.total = total
        return self.outcome()


class RaceGame(Game):
    info: ClassVar[GameInfo] = RACE_INFO

    def __init__(self, fast: bool = False) -> None:
        self.fast = fast

    def new_game(
        self, seed: int, num_players: int, options: Mapping[str, Any] | None = None
    ) -> State:
        self.info.check_players(num_players)
        opts = self.info.resolve_options(options)
        cls = FastRaceState if self.fast else RaceState
        return cls(num_players, opts["target"], opts["max_step"], total=opts["start"])

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        try:
            return RaceState(
                int(data["num_players"]),
                int(data["target"]),
                int(data["max_step"]),
                int(data["total"]),
                int(data["to_move"]),
                [int(a) for a in data["added"]],
                None if data["winner"] is None else int(data["winner"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad race state: {exc}") from exc


LOTTERY_INFO = GameInfo(
    name="toy-lottery",
    title="Lottery",
    min_players=2,
    max_players=2,
    perfect_information=True,
    has_chance=True,
    chance_nodes=True,
)

#: Lottery name -> balls as (probability, seat 0 wins).
LOTTERIES: tuple[tuple[str, tuple[tuple[float, bool], ...]], ...] = (
    ("A", ((0.45, True), (0.55, False))),
    ("B", ((0.1, False), (0.2, False), (0.7, True))),
    ("C", ((0.2, True), (0.2, True), (0.2, True), (0.2, False), (0.2, False))),
)
LOTTERY_WIN = {"A": 0.45, "B": 0.7, "C": 0.6}


class LotteryState(State):
    info: ClassVar[GameInfo] = LOTTERY_INFO

    def __init__(self, lottery: int | None = None, ball: int | None = None) -> None:
        self.num_players = 2
        self.lottery = lottery
        self.ball = ball

    def current_player(self) -> int:
        if self.lottery is None:
            return 0
        if self.ball is None:
            return CHANCE
        return TERMINAL

    def legal_moves(self) -> list[int]:
        return list(range(len(LOTTERIES))) if self.lottery is None else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.lottery is None or self.ball is not None:
            return []
        return [(i, p) for i, (p, _) in enumerate(LOTTERIES[self.lottery][1])]

    def why_illegal(self, move: int) -> str | None:
        if self.lottery is None:
            return None if 0 <= move < len(LOTTERIES) else "no such lottery"
        if self.ball is None:
            return None if 0 <= move < len(LOTTERIES[self.lottery][1]) else "no such ball"
        return "the game is over"

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        if self.lottery is None:
            self.lottery = move
            return [Event(f"seat 0 picks lottery {LOTTERIES[move][0]}")]
        self.ball = move
        return [Event(f"ball {move} is drawn")]

    def clone(self) -> LotteryState:
        return LotteryState(self.lottery, self.ball)

    def _seat0_wins(self) -> bool:
        assert self.lottery is not None and self.ball is not None
        return LOTTERIES[self.lottery][1][self.ball][1]

    def scores(self) -> list[float]:
        if self.ball is None:
            return [0.0, 0.0]
        return [10.0, 0.0] if self._seat0_wins() else [0.0, 10.0]

    def ranking(self) -> list[list[int]]:
        if self.ball is None:
            return [[0, 1]]
        return [[0], [1]] if self._seat0_wins() else [[1], [0]]

    def observation(self, seat: int) -> dict[str, Any]:
        return self.to_json()

    def determinize(self, observer: int, rng: random.Random) -> State:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"game": LOTTERY_INFO.name, "lottery": self.lottery, "ball": self.ball}

    def move_to_text(self, move: int) -> str:
        if self.lottery is None:
            return f"lottery-{LOTTERIES[move][0]}"
        return f"ball-{move}"

    def parse_move(self, text: str) -> int:
        kind, _, value = text.strip().partition("-")
        if kind == "lottery":
            for i, (name, _) in enumerate(LOTTERIES):
                if name == value:
                    return i
        elif kind == "ball" and value.isdigit():
            return int(value)
        raise MoveParseError(f"not a lottery move: {text!r}")


class LotteryGame(Game):
    info: ClassVar[GameInfo] = LOTTERY_INFO

    def new_game(
        self, seed: int, num_players: int, options: Mapping[str, Any] | None = None
    ) -> State:
        self.info.check_players(num_players)
        self.info.resolve_options(options)
        return LotteryState()

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        return LotteryState(data.get("lottery"), data.get("ball"))


GAMES: dict[str, Game] = {RACE_INFO.name: RaceGame(), LOTTERY_INFO.name: LotteryGame()}


def rebuild(data: dict[str, Any]) -> State:
    """Top-level (picklable) state rebuilder for parallel_search in spawned workers."""
    return GAMES[data["game"]].state_from_json(data)


def race(
    num_players: int = 2, target: int = 21, max_step: int = 3, total: int = 0, to_move: int = 0
) -> RaceState:
    return RaceState(num_players, target, max_step, total=total, to_move=to_move)
