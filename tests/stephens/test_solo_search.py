"""Search and the arena in a one-seat game: the solo utility against a target score."""

from __future__ import annotations

import json
import math

import pytest

from engine.game import Outcome
from engine.search._common import backup_values, solo_utility
from engine.search.config import SearchConfig
from engine.search.ismcts import ISMCTS
from engine.search.mcts import MCTS
from engine.stephens.rules import StephensGame
from furnace_cli import main
from tournaments import run_arena

GAME = StephensGame()


def opening(seed: int = 3, **options: str):  # type: ignore[no-untyped-def]
    state = GAME.new_game(seed, 1, options)
    for _ in range(3):
        state.apply(state.legal_moves()[0])
    return state


def test_backup_values_of_one_seat_use_the_target() -> None:
    def value(score: float) -> float:
        return backup_values(Outcome((score,), (1.0,)), None, (130.0, 20.0))[0]

    assert value(130.0) == pytest.approx(0.5)
    assert value(150.0) == pytest.approx(1 / (1 + math.exp(-1)))
    assert value(100.0) < value(129.0) < value(131.0) < value(200.0)
    # the reported share is the same soft chance, the score is kept
    assert backup_values(Outcome((150.0,), (1.0,)), 10.0, (130.0, 20.0))[1:] == (
        pytest.approx(1 / (1 + math.exp(-1))), 150.0)
    # without a target (or with 2+ seats) nothing changes
    assert backup_values(Outcome((150.0,), (1.0,)), 10.0) == (1.0, 1.0, 150.0)
    two = Outcome((10.0, 5.0), (1.0, 0.0))
    assert backup_values(two, None, (130.0, 20.0)) == backup_values(two, None)


def test_the_game_supplies_the_target_and_the_config_the_scale() -> None:
    state = opening(difficulty="hard")
    assert solo_utility(state, 20.0) == (140.0, 20.0)
    assert solo_utility(GAME.new_game(1, 2), 20.0) is None
    assert solo_utility(opening(opponent="opponent-2", difficulty="easy"), 5.0) == (100.0, 5.0)
    with pytest.raises(ValueError, match="solo_scale"):
        SearchConfig(solo_scale=0)


@pytest.mark.parametrize("tree", ["mcts", "ismcts"])
def test_searches_of_one_seat_aim_at_the_target(tree: str) -> None:
    state = opening()
    search = MCTS(state, seed=1) if tree == "mcts" else ISMCTS(state, 0, seed=1)
    analysis = search.search(iterations=60)
    assert analysis.target == 160.0 and analysis.to_json()["target"] == 160.0
    assert 0.0 < analysis.win_probability[0] < 1.0  # not the lone seat's constant 1
    shares = [m.win_probability for m in analysis.moves]
    assert len(set(shares)) > 1
    assert "target" not in MCTS(GAME.new_game(1, 2), seed=1).search(iterations=5).to_json()


def test_arena_reports_a_score_and_ranks_for_one_seat() -> None:
    report = run_arena(GAME, 1, ["random", "random"], 4, seed=2,
                       options={"difficulty": "easy"})
    assert report["players"] == 1 and report["games"] == 4
    for res in report["results"].values():
        assert set(res) == {"games", "mean_score", "score_ci95", "ranks"}
        lo, hi = res["score_ci95"]
        assert res["games"] == 2 and lo <= res["mean_score"] <= hi
        assert sum(res["ranks"].values()) == 2
        assert set(res["ranks"]) <= {"Apprentice", "Artisan", "Glassblower"}
    assert run_arena(GAME, 1, ["random", "random"], 4, seed=2,
                     options={"difficulty": "easy"}, workers=2) == report


def test_arena_command_for_one_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "stephens", "--players", "1", "--games", "2", "--bots", "random",
                 "--options", "opponent=opponent-4", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mean score" in out and "95% CI" in out and "win rate" not in out
    assert ("beat opponent-4" in out) or ("lost to opponent-4" in out)
    assert main(["arena", "stephens", "--players", "1", "--games", "2", "--bots", "random",
                 "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["results"]["random"]["ranks"]


def test_selfplay_with_one_player(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "stephens", "--players", "1", "--bots", "random", "--games", "1",
                 "--json"]) == 0
    game = json.loads(capsys.readouterr().out)
    assert len(game["scores"]) == 1 and game["moves"]
