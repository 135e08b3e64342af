"""``furnace check-games``: random games checked after every move, for every game; and
``furnace bench`` without a compiled kernel (or for a player count it does not play)."""

from __future__ import annotations

import json

import pytest

from engine.stephens import GAME as STEPHENS
from engine.stephens.state import StephensState
from furnace_cli import main
from furnace_cli.checkgames import check_games, check_one_game


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_games_reports_a_clean_run_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check-games", "stephens", "--players", "2", "--games", "2",
                         "--seed", "5")
    assert code == 0
    report = json.loads(out.strip())
    assert report["game"] == "stephens" and report["games"] == 2 and report["players"] == 2
    assert report["problems"] == 0 and report["unfinished"] == 0 and report["examples"] == []
    assert report["plies"]["min"] > 100 and report["positions_checked"] > 200
    assert len(report["mean_scores"]) == 2 and sum(report["win_shares"]) == pytest.approx(1)
    assert "2/2" in err  # the progress bar on stderr


def test_check_games_plays_the_solo_game(capsys: pytest.CaptureFixture[str]) -> None:
    for options in ("difficulty=easy", "difficulty=hard,opponent=random"):
        code, out, _ = run(capsys, "check-games", "stephens", "--players", "1", "--games", "3",
                           "--options", options, "--quiet")
        report = json.loads(out.strip())
        assert code == 0 and report["players"] == 1 and report["games"] == 3
        assert report["problems"] == 0 and report["unfinished"] == 0
        assert report["plies"]["min"] > 40 and report["win_shares"] == [1.0]


def test_a_game_without_an_audit_is_checked_on_the_protocol() -> None:
    report = check_games("samara", players=3, games=2, seed=1, workers=2)
    assert report["problems"] == 0 and report["games"] == 2


def test_problems_from_the_games_own_audit_fail_the_run(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StephensState, "audit", lambda self: ["the glass is cracked"])
    code, out, _ = run(capsys, "check-games", "stephens", "--games", "1", "--quiet")
    report = json.loads(out.strip())
    assert code == 1 and report["problems"] == report["positions_checked"]
    assert report["examples"][0] == "seed 1 ply 0: the glass is cracked"


def test_a_refused_legal_move_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    original = StephensState.why_illegal

    def picky(self: StephensState, move: int) -> str | None:
        return "no" if self.decisions and self.decisions[-1].kind == "unlock" else \
            original(self, move)

    monkeypatch.setattr(StephensState, "why_illegal", picky)
    result = check_one_game("stephens", 2, 3)
    assert any("refused: no" in p for p in result["problems"])


def test_bad_input_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check-games", "chess")
    assert code == 2 and "unknown game 'chess'" in err
    code, _, err = run(capsys, "check-games", "stephens", "--players", "5")
    assert code == 2 and "1-4 players, not 5" in err


def test_bench_of_a_game_without_a_kernel(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    code, out, _ = run(capsys, "bench", "stephens", "--players", "2", "--seconds", "0.05",
                       "--mcts-iterations", "5", "--json")
    assert code == 0
    report = json.loads(out.strip())
    assert report["kernel_steps_per_s"] is None and report["search_path"] == "python"
    assert report["kernel_note"] == "kernel not built or FURNACE_PURE_PYTHON set"
    for key in ("python_plies_per_game", "python_legal_moves_per_s", "python_apply_per_s",
                "python_clone_per_s", "python_steps_per_s", "ismcts_iterations_per_s"):
        assert report[key] > 0, key
    assert 100 < report["python_plies_per_game"] < 1000


def test_bench_of_the_solo_game_runs_on_the_kernel(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Stephens' kernel plays the solo game too: the bench reports its kernel figures."""
    if not STEPHENS.kernel_available():
        pytest.skip("Stephens kernel not built (or FURNACE_PURE_PYTHON set)")
    code, out, _ = run(capsys, "bench", "stephens", "--players", "1", "--seconds", "0.05",
                       "--mcts-iterations", "5", "--json")
    assert code == 0
    report = json.loads(out.strip())
    assert report["kernel_steps_per_s"] > 0 and report["kernel_speedup"] > 0
    assert report["search_path"] == "kernel" and "kernel_note" not in report
