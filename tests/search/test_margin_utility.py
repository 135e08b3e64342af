"""Score-margin utilities (``SearchConfig.margin_scale``) in MCTS and ISMCTS."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any, ClassVar

import pytest

from engine.game import (
    CHANCE,
    TERMINAL,
    Event,
    GameInfo,
    IllegalMoveError,
    Outcome,
    State,
    rank_groups,
)
from engine.search import make_bot
from engine.search._common import backup_values
from engine.search.bots import BotSpecError
from engine.search.config import SEARCH_CONFIGS, SearchConfig
from engine.search.ismcts import ismcts_search
from engine.search.mcts import mcts_search

GAMBLE_INFO = GameInfo(
    name="toy-gamble",
    title="Gamble",
    min_players=2,
    max_players=2,
    perfect_information=True,
    has_chance=True,
    chance_nodes=True,
)
SAFE, RISKY = 0, 1
#: Final scores (seat 0, seat 1): SAFE always wins narrowly; RISKY is a coin toss
#: between a landslide and a narrow loss.
SAFE_SCORES = (11.0, 10.0)
RISKY_SCORES = ((60.0, 10.0), (9.0, 10.0))


class GambleState(State):
    """Seat 0 picks SAFE (win share 1) or RISKY (win share 0.5, far better margin)."""

    info: ClassVar[GameInfo] = GAMBLE_INFO

    def __init__(self, pick: int | None = None, coin: int | None = None) -> None:
        self.num_players = 2
        self.pick = pick
        self.coin = coin

    def current_player(self) -> int:
        if self.pick is None:
            return 0
        if self.pick == RISKY and self.coin is None:
            return CHANCE
        return TERMINAL

    def legal_moves(self) -> list[int]:
        return [SAFE, RISKY] if self.pick is None else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)] if self.current_player() == CHANCE else []

    def why_illegal(self, move: int) -> str | None:
        player = self.current_player()
        if player == 0:
            return None if move in (SAFE, RISKY) else "pick safe or risky"
        if player == CHANCE:
            return None if move in (0, 1) else "heads or tails"
        return "the game is over"

    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        if self.pick is None:
            self.pick = move
        else:
            self.coin = move
        return []

    def clone(self) -> GambleState:
        return GambleState(self.pick, self.coin)

    def scores(self) -> list[float]:
        if self.pick == SAFE:
            return list(SAFE_SCORES)
        if self.pick == RISKY and self.coin is not None:
            return list(RISKY_SCORES[self.coin])
        return [0.0, 0.0]

    def ranking(self) -> list[list[int]]:
        return rank_groups([(s, 0) for s in self.scores()])

    def observation(self, seat: int) -> dict[str, Any]:
        return self.to_json()

    def determinize(self, observer: int, rng: random.Random) -> State:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"game": GAMBLE_INFO.name, "pick": self.pick, "coin": self.coin}

    def move_to_text(self, move: int) -> str:
        if self.pick is None:
            return ("safe", "risky")[move]
        return ("heads", "tails")[move]

    def parse_move(self, text: str) -> int:
        return ["safe", "risky"].index(text)


#: The gamble under other names, whose search configurations set a margin scale
#: (registered by the ``margin_configs`` fixture).
MARGIN_INFO = dataclasses.replace(GAMBLE_INFO, name="toy-gamble-margin")
HIDDEN_MARGIN_INFO = dataclasses.replace(
    GAMBLE_INFO, name="toy-gamble-margin-hidden", perfect_information=False)


@pytest.fixture(autouse=True)
def margin_configs(monkeypatch: pytest.MonkeyPatch) -> None:
    for info in (MARGIN_INFO, HIDDEN_MARGIN_INFO):
        monkeypatch.setitem(SEARCH_CONFIGS, info.name, SearchConfig(margin_scale=10.0))


class MarginGambleState(GambleState):
    info: ClassVar[GameInfo] = MARGIN_INFO

    def clone(self) -> MarginGambleState:
        return MarginGambleState(self.pick, self.coin)


class HiddenMarginGambleState(MarginGambleState):
    info: ClassVar[GameInfo] = HIDDEN_MARGIN_INFO

    def clone(self) -> HiddenMarginGambleState:
        return HiddenMarginGambleState(self.pick, self.coin)


def test_backup_values_without_a_scale_is_the_win_share() -> None:
    outcome = Outcome((12.0, 7.0, 7.0), (1.0, 0.0, 0.0))
    assert backup_values(outcome, None) == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 12.0, 7.0, 7.0)


def test_backup_values_with_a_scale_is_the_logistic_margin() -> None:
    outcome = Outcome((12.0, 7.0, 2.0), (1.0, 0.0, 0.0))
    values = backup_values(outcome, 5.0)
    # margins over the best opponent: +5, -5, -10
    assert values[:3] == pytest.approx(
        (1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1)), 1 / (1 + math.exp(2))))
    assert values[3:] == (1.0, 0.0, 0.0, 12.0, 7.0, 2.0)
    tie = backup_values(Outcome((4.0, 4.0), (0.5, 0.5)), 5.0)
    assert tie[:2] == (0.5, 0.5)


def test_backup_values_survive_huge_margins_and_one_seat() -> None:
    values = backup_values(Outcome((1e6, 0.0), (1.0, 0.0)), 0.001)
    assert values[:2] == (1.0, 0.0)
    assert backup_values(Outcome((30.0,), (1.0,)), 5.0) == (1.0, 1.0, 30.0)


@pytest.mark.parametrize("search", [mcts_search, ismcts_search])
def test_win_share_picks_the_sure_win(search: Any) -> None:
    analysis = search(GambleState(), iterations=400, seed=3)
    assert analysis.best_move_text == "safe"


@pytest.mark.parametrize(
    ("search", "state"),
    [(mcts_search, MarginGambleState()), (ismcts_search, HiddenMarginGambleState())],
)
def test_margin_utility_prefers_the_landslide_but_reports_win_shares(
        search: Any, state: GambleState) -> None:
    analysis = search(state, iterations=400, seed=3)
    assert analysis.best_move_text == "risky"
    risky = analysis.moves[0]
    # reported statistics stay win shares and final scores, not utilities
    assert 0.3 < risky.win_probability < 0.7
    assert 9.0 < risky.expected_scores[0] < 60.0 and risky.expected_scores[1] == 10.0
    assert sum(analysis.win_probability) == pytest.approx(1.0)


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_bot_specs_set_the_margin_scale(kind: str) -> None:
    # m=0: the bare win share even where the game asks for margins, and the reverse
    assert make_bot(f"{kind}:400:m=0", seed=3).choose(
        HiddenMarginGambleState(), random.Random(0)) == 0  # safe
    assert make_bot(f"{kind}:400:m=10", seed=3).choose(GambleState(), random.Random(0)) == 1
    assert make_bot(f"{kind}:400", seed=3).choose(MarginGambleState(), random.Random(0)) == 1
    with pytest.raises(BotSpecError, match="m must not be negative"):
        make_bot(f"{kind}:10:m=-1")
