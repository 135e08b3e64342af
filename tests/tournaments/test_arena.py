"""The arena: play_game, seat rotation, Wilson intervals, reproducibility."""

from __future__ import annotations

import json
import random

import pytest

from engine.search.bots import BotSpecError, RandomBot
from tests.search.toy_games import LotteryGame, RaceGame, race
from tournaments.arena import (
    play_arena_game,
    play_game,
    result_keys,
    run_arena,
    seat_assignment,
    wilson_interval,
)


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=5e-4)
    assert hi == pytest.approx(0.5962, abs=5e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=5e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=5e-4) and hi == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(2.5, 5)  # fractional wins from ties are fine
    assert lo < 0.5 < hi


def test_seat_assignment_rotates_cyclically() -> None:
    assert [seat_assignment(2, 2, g) for g in range(3)] == [[0, 1], [1, 0], [0, 1]]
    assert [seat_assignment(2, 3, g) for g in range(2)] == [[0, 1, 0], [1, 0, 1]]
    assert [seat_assignment(3, 2, g) for g in range(3)] == [[0, 1], [1, 2], [2, 0]]


def test_result_keys_disambiguate_repeated_specs() -> None:
    assert result_keys(["mcts:100", "mcts:100", "random", "mcts:100"]) == [
        "mcts:100",
        "mcts:100#2",
        "random",
        "mcts:100#3",
    ]


def test_play_game_returns_a_replayable_record() -> None:
    state = race(3, 20, 3)
    start = state.clone()
    outcome, moves = play_game(state, [RandomBot()] * 3, random.Random(5))
    assert state.is_terminal()
    assert sum(outcome.rewards) == pytest.approx(1.0)
    for move in moves:
        start.apply(move)
    assert start.to_json() == state.to_json()


def test_play_game_draws_chance_moves() -> None:
    outcomes = set()
    for seed in range(30):
        state = LotteryGame().new_game(0, 2)
        _, moves = play_game(state, [RandomBot(), RandomBot()], random.Random(seed))
        assert len(moves) == 2
        outcomes.add(tuple(moves))
    assert len(outcomes) > 3


def test_seat_rotation_cancels_a_first_player_advantage() -> None:
    # Race to 1: seat 0 always wins at once, whoever sits there.
    report = run_arena(RaceGame(), 2, ["random", "greedy"], 10, seed=1, options={"target": 1})
    for key in ("random", "greedy"):
        res = report["results"][key]
        assert res["games"] == 10
        assert res["wins"] == 5.0
        assert res["win_rate"] == 0.5
        assert res["by_seat"] == [{"games": 5, "wins": 5.0}, {"games": 5, "wins": 0.0}]
        lo, hi = res["ci95"]
        assert lo == pytest.approx(0.2366, abs=5e-4) and hi == pytest.approx(0.7634, abs=5e-4)


def test_two_specs_fill_three_seats_per_seat_occurrence() -> None:
    report = run_arena(RaceGame(), 3, ["random", "greedy"], 4, seed=2, options={"target": 1})
    assert report["players"] == 3 and report["games"] == 4
    for key in ("random", "greedy"):
        res = report["results"][key]
        assert res["games"] == 6  # 4 games x 3 seats / 2 specs
        assert [s["games"] for s in res["by_seat"]] == [2, 2, 2]
        assert res["wins"] == 2.0  # seat 0 wins, held twice by each spec
    total = sum(r["wins"] for r in report["results"].values())
    assert total == pytest.approx(4.0)


def test_arena_is_reproducible_and_json_ready() -> None:
    specs = ["mcts:60", "greedy", "random"]
    a = run_arena(RaceGame(), 3, specs, 6, seed=7)
    b = run_arena(RaceGame(), 3, specs, 6, seed=7)
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert a["game"] == "toy-race" and a["seed"] == 7
    assert list(a["results"]) == specs
    assert sum(r["wins"] for r in a["results"].values()) == pytest.approx(6.0)
    for res in a["results"].values():
        assert 0.0 <= res["ci95"][0] <= res["win_rate"] <= res["ci95"][1] <= 1.0


def test_self_play_keys_and_strength() -> None:
    report = run_arena(RaceGame(), 2, ["mcts:1000", "mcts:1000"], 2, seed=0, options={"target": 10})
    assert set(report["results"]) == {"mcts:1000", "mcts:1000#2"}
    # Race to 10 is a first-player win; strong self-play means seat 0 wins each game.
    for res in report["results"].values():
        assert res["by_seat"][0]["wins"] == 1.0


def test_mcts_beats_random() -> None:
    report = run_arena(RaceGame(), 2, ["mcts:200", "random"], 12, seed=3, options={"target": 15})
    assert report["results"]["mcts:200"]["win_rate"] >= 0.75


def test_progress_callback() -> None:
    calls: list[tuple[int, int]] = []
    run_arena(
        RaceGame(), 2, ["random", "random"], 3, seed=0, progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_bad_input_fails_before_playing() -> None:
    calls: list[int] = []
    with pytest.raises(BotSpecError):
        run_arena(
            RaceGame(), 2, ["random", "mcts:zero"], 4, 0, progress=lambda d, t: calls.append(d)
        )
    with pytest.raises(ValueError):
        run_arena(RaceGame(), 9, ["random"], 4, 0)
    with pytest.raises(ValueError):
        run_arena(RaceGame(), 2, ["random"], 4, 0, options={"bogus": 1})
    with pytest.raises(ValueError):
        run_arena(RaceGame(), 2, [], 4, 0)
    assert calls == []


def test_a_game_depends_on_its_bots_not_their_names() -> None:
    # docs/strength.md reuses a ladder's games under new names (Oh My Goods!' level
    # table): that is sound only because names play no part in a game.
    game = RaceGame()
    for g in range(4):
        plain = play_arena_game(game, 2, ["random", "mcts:30"], 5, g, None)
        renamed = play_arena_game(game, 2, [" Random", "MCTS:30 "], 5, g, None)
        assert plain == renamed
    assert play_arena_game(game, 2, ["mcts:30", "random"], 5, 0, None) != \
        play_arena_game(game, 2, ["random", "mcts:30"], 5, 0, None)


class _ReversedBatch:
    """A batch whose jobs finish last first: the order a pool or a cluster may give."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __enter__(self) -> _ReversedBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run(self, fn, jobs, on_lost=None):  # type: ignore[no-untyped-def]
        for index in reversed(range(len(jobs))):
            yield index, fn(*jobs[index])


def test_the_report_adds_up_the_games_in_game_order_whatever_order_they_finish(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Float sums depend on their order (0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1): games
    that finish in another order must still give the same report, bit for bit."""
    import tournaments.arena as arena
    from engine import registry
    from engine.game import Outcome

    def outcome(g: int) -> tuple[Outcome, None]:
        score = (0.1, 0.2, 0.3)[g]
        return Outcome(scores=(score, score), rewards=(0.5, 0.5)), None

    monkeypatch.setattr(arena, "play_arena_game", lambda game, n, specs, seed, g, *a: outcome(g))
    monkeypatch.setattr(arena, "play_arena_game_by_name",
                        lambda name, n, specs, seed, g, options: outcome(g))
    game = registry.get_game("samara")
    in_order = run_arena(game, 2, ["random", "greedy"], 3, seed=1)
    assert in_order["results"]["random"]["mean_score"] == (0.1 + 0.2 + 0.3) / 3
    monkeypatch.setattr(arena, "open_batch", _ReversedBatch)
    assert run_arena(game, 2, ["random", "greedy"], 3, seed=1, workers=2) == in_order
