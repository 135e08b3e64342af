"""Bots and the bot-spec parser."""

from __future__ import annotations

import random

import pytest

from engine.game import FurnaceError
from engine.search.bots import (
    DEFAULT_MCTS_ITERATIONS,
    Bot,
    BotSpecError,
    GreedyBot,
    MctsBot,
    RandomBot,
    make_bot,
)

from .toy_games import LotteryState, race


@pytest.mark.parametrize(
    ("spec", "cls", "iterations", "time_limit", "c"),
    [
        ("random", RandomBot, None, None, None),
        ("greedy", GreedyBot, None, None, None),
        (" Greedy ", GreedyBot, None, None, None),
        ("mcts", MctsBot, DEFAULT_MCTS_ITERATIONS, None, None),
        ("mcts:2000", MctsBot, 2000, None, None),
        ("mcts:2000:c=1.0", MctsBot, 2000, None, 1.0),
        ("mcts:t=1.5", MctsBot, None, 1.5, None),
        ("mcts:500:t=2", MctsBot, 500, 2.0, None),
        ("mcts:i=300:c=0.5:t=0.1", MctsBot, 300, 0.1, 0.5),
    ],
)
def test_valid_specs(
    spec: str, cls: type, iterations: int | None, time_limit: float | None, c: float | None
) -> None:
    bot = make_bot(spec, seed=1)
    assert isinstance(bot, cls)
    assert isinstance(bot, Bot)
    assert bot.name == spec.strip()
    if isinstance(bot, MctsBot):
        assert bot.iterations == iterations
        assert bot.time_limit == time_limit
        assert bot.overrides.c == c  # None: the game's, else the search's default


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty"),
        ("minimax", "unknown bot"),
        ("random:3", "takes no options"),
        ("greedy:fast", "takes no options"),
        ("mcts:abc", "integer"),
        ("mcts:0", "at least 1"),
        ("mcts:-5", "at least 1"),
        ("mcts:1.5", "integer"),
        ("mcts:t=", "number"),
        ("mcts:t=0", "positive"),
        ("mcts:t=-1", "positive"),
        ("mcts:t=nan", "finite"),
        ("mcts:c=x", "number"),
        ("mcts:c=-1", "negative"),
        ("mcts:q=3", "unknown mcts option"),
        ("mcts:d=x", "playout depth d= must be an integer"),
        ("mcts:d=2.5", "playout depth d= must be an integer"),
        ("mcts:d=-1", "playout depth d= must not be negative"),
        ("ismcts:d=", "playout depth d= must be an integer"),
        ("mcts:d=3:depth=4", "twice"),
        ("mcts:m=-2", "m must not be negative"),
        ("mcts:100:200", "twice"),
    ],
)
def test_bad_specs_raise_a_clear_value_error(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message) as info:
        make_bot(spec)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, FurnaceError)


def test_random_bot_plays_legal_moves_reproducibly() -> None:
    state = race(2, 21, 3)
    bot = RandomBot()
    picks = [bot.choose(state, random.Random(s)) for s in range(40)]
    assert set(picks) == {1, 2, 3}
    assert picks == [bot.choose(state, random.Random(s)) for s in range(40)]


def test_greedy_takes_the_win_and_breaks_ties_with_rng() -> None:
    bot = GreedyBot()
    # One to go: only +1 is legal... use 2 to go where +2 wins and +1 does not.
    assert all(bot.choose(race(2, 10, 3, total=8), random.Random(s)) == 2 for s in range(10))
    # Far from the end the heuristic (what each seat added) prefers +3.
    assert all(bot.choose(race(2, 30, 3), random.Random(s)) == 3 for s in range(10))


def test_greedy_ties_are_seeded() -> None:
    # Lottery: seat 0's heuristic (score) is 0 after each pick, so the greedy bot
    # averages over the balls: B (expected 7 - 3 = 4) beats C (2) and A (-1).
    bot = GreedyBot()
    assert bot.choose(LotteryState(), random.Random(0)) == 1

    class Flat(type(race())):  # type: ignore[misc]
        def heuristic(self) -> list[float]:
            return [0.0] * self.num_players

    flat = Flat(2, 30, 3)
    picks = [bot.choose(flat, random.Random(s)) for s in range(30)]
    assert set(picks) == {1, 2, 3}
    assert picks == [bot.choose(flat, random.Random(s)) for s in range(30)]


def test_mcts_bot_finds_the_win_and_keeps_its_analysis() -> None:
    bot = make_bot("mcts:2000", seed=3)
    assert isinstance(bot, MctsBot)
    assert bot.choose(race(2, 10, 3), random.Random(0)) == 2
    assert bot.last_analysis is not None and bot.last_analysis.iterations == 2000


def test_mcts_bot_is_reproducible() -> None:
    state = race(3, 40, 3)
    a = [make_bot("mcts:150").choose(state, random.Random(s)) for s in range(5)]
    b = [make_bot("mcts:150").choose(state, random.Random(s)) for s in range(5)]
    assert a == b


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:10"])
def test_bots_refuse_chance_and_finished_positions(spec: str) -> None:
    bot = make_bot(spec, seed=0)
    with pytest.raises(ValueError, match="chance"):
        bot.choose(LotteryState(lottery=0), random.Random(0))
    done = race(2, 2, 3)
    done.apply(2)
    with pytest.raises(ValueError, match="finished"):
        bot.choose(done, random.Random(0))


def test_bots_do_not_modify_the_state() -> None:
    state = race(2, 15, 3, total=3)
    before = state.to_json()
    for spec in ["random", "greedy", "mcts:50"]:
        make_bot(spec, seed=0).choose(state, random.Random(0))
    assert state.to_json() == before


def test_mcts_bot_runs_ismcts_in_hidden_information_games() -> None:
    from engine.search.bots import IsmctsBot

    from .hidden_toy_games import TricksGame

    state = TricksGame().new_game(3, 3)
    mcts_bot = MctsBot(iterations=60, seed=5)
    ismcts_bot = IsmctsBot(iterations=60, seed=5)
    assert mcts_bot.choose(state, random.Random(0)) == ismcts_bot.choose(state, random.Random(0))
    assert mcts_bot.last_analysis is not None and ismcts_bot.last_analysis is not None
    first, second = mcts_bot.last_analysis.to_json(), ismcts_bot.last_analysis.to_json()
    first.pop("elapsed")
    second.pop("elapsed")
    assert first == second
