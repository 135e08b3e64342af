"""``furnace bench``: what is compared is timed in turns, the load comes with the figures,
and every game runs on both engine paths.  Nothing here checks how fast anything is."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

from engine import registry
from engine.game import State
from engine.search import make_tree
from engine.search.baseline import is_baseline
from engine.stephens import GAME as STEPHENS
from furnace_cli import bench, main
from furnace_cli.bench import alternate, median_ratio, run_bench, schedule

SHORT = ("--seconds", "0.05", "--mcts-iterations", "30", "--json")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bench_json(capsys: pytest.CaptureFixture[str], game: str, players: int) -> dict[str, Any]:
    code, out, _ = run(capsys, "bench", game, "--players", str(players), *SHORT)
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 1  # one JSON object, nothing else
    report: dict[str, Any] = json.loads(lines[0])
    return report


# -- the method ------------------------------------------------------------------------------

def test_sides_take_turns_round_after_round() -> None:
    order: list[str] = []

    def side(name: str, rate: float) -> bench.Repetition:
        def repeat() -> float:
            order.append(name)
            return rate
        return repeat

    rates = alternate([side("A", 1.0), side("B", 2.0)], 4)
    assert order == ["A", "B"] * 4
    assert rates == [[1.0] * 4, [2.0] * 4]
    order.clear()
    alternate([side("A", 1.0), side("B", 2.0), side("C", 3.0)], 2)
    assert order == ["A", "B", "C", "A", "B", "C"]


def test_a_ratio_is_the_median_of_the_rounds_ratios() -> None:
    # A burst of load in one round: the ratio of the medians would say 1.0.
    assert median_ratio([2.0, 4.0, 100.0], [1.0, 4.0, 10.0]) == 2.0
    assert median_ratio([3.0], [2.0]) == 1.5


def test_schedule_gives_each_side_its_seconds_in_short_slices() -> None:
    assert schedule(2.0) == (8, 0.25)
    rounds, slice_seconds = schedule(0.05)
    assert rounds == bench.MIN_ROUNDS and slice_seconds == pytest.approx(0.01)
    rounds, slice_seconds = schedule(10.0)
    assert slice_seconds == bench.SLICE_SECONDS and rounds == 40


@pytest.mark.parametrize("argv", [("--seconds", "0"), ("--seconds", "nan"),
                                  ("--mcts-iterations", "0")])
def test_bad_budgets_are_clean_errors(capsys: pytest.CaptureFixture[str],
                                      argv: tuple[str, ...]) -> None:
    code, _, err = run(capsys, "bench", "samara", *argv)
    assert code == 2 and "must be a positive" in err and "Traceback" not in err


# -- the report ------------------------------------------------------------------------------

def check_common_fields(report: dict[str, Any]) -> None:
    assert isinstance(report["cpu_count"], int) and report["cpu_count"] >= 1
    for key in ("load_average_start", "load_average_end"):
        assert len(report[key]) == 3 and all(load >= 0 for load in report[key]), key
    assert report["rounds"] >= bench.MIN_ROUNDS and report["repetition_seconds"] > 0
    assert report["python_steps_per_s"] > 0 and report["python_games"] > 0
    assert report["baseline_iterations_per_s"] > 0 and report["search_speed_vs_baseline"] > 0
    assert report["leaf_evaluations_per_s"] > 0 and report["search_to_leaf_ratio"] > 0
    assert "search_tree_speedup" in report
    if report["search_tree_speedup"] is None:
        assert report["search_tree_note"]
    else:
        assert report["search_tree_speedup"] > 0 and report["python_tree_iterations_per_s"] > 0
    if report["kernel_speedup"] is None:
        assert report["kernel_steps_per_s"] is None and report["kernel_note"]
        assert report["search_path"] == "python"
    else:
        assert report["kernel_steps_per_s"] > 0 and report["kernel_games"] > 0
        assert report["kernel_speedup"] > 0 and report["search_path"] == "kernel"


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    report = bench_json(capsys, "samara", 3)
    check_common_fields(report)
    assert report["mcts_iterations_per_s"] > 0
    assert "python_determinize_per_s" not in report  # nothing hidden in Samara
    # Samara searches with MAST playouts: their cost against random ones
    assert report["random_playout_iterations_per_s"] > 0
    assert report["mast_speed_vs_random_playouts"] > 0
    budgets = report["search_iterations_per_repetition"]
    assert set(budgets) >= {"default", "baseline", "random_playouts"}
    assert all(1 <= n <= 30 for n in budgets.values())


def test_bench_json_of_a_hidden_information_game(capsys: pytest.CaptureFixture[str]) -> None:
    report = bench_json(capsys, "oh-my-goods", 2)
    check_common_fields(report)
    assert report["ismcts_iterations_per_s"] > 0 and "mcts_iterations_per_s" not in report
    assert report["python_determinize_per_s"] > 0
    if report["search_path"] == "kernel":
        assert report["kernel_determinize_per_s"] > 0 and report["determinize_speedup"] > 0


def test_the_text_report_shows_the_load(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "oh-my-goods", "--players", "2", "--seconds", "0.05",
                       "--mcts-iterations", "20")
    assert code == 0
    for key in ("cpu_count: ", "load_average_start: [", "load_average_end: [",
                "search_to_leaf_ratio: ", "search_tree_speedup: "):
        assert key in out, key


@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("oh-my-goods", 2),
                                               ("stephens", 2), ("stephens", 1)])
def test_every_game_on_the_pure_python_path(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, game: str,
                                            players: int) -> None:
    monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    report = bench_json(capsys, game, players)
    check_common_fields(report)
    assert report["search_path"] == "python" and report["kernel_speedup"] is None
    assert report["kernel_note"] == "kernel not built or FURNACE_PURE_PYTHON set"
    assert report["search_tree_speedup"] is None and report["search_tree_note"]
    for key in ("python_plies_per_game", "python_legal_moves_per_s", "python_apply_per_s",
                "python_clone_per_s"):
        assert report[key] > 0, key
    if game == "stephens" and players == 2:
        assert 100 < report["python_plies_per_game"] < 1000


@pytest.mark.parametrize(("game", "players"), [("samara", 2), ("stephens", 2)])
def test_every_game_on_the_kernel_path(capsys: pytest.CaptureFixture[str], game: str,
                                       players: int) -> None:
    if not registry.get_game(game).kernel_available():
        pytest.skip(f"{game} kernel not built (or FURNACE_PURE_PYTHON set)")
    report = bench_json(capsys, game, players)
    check_common_fields(report)
    assert report["search_path"] == "kernel" and report["kernel_speedup"] > 0


def test_stephens_solo_has_kernel_figures_once_the_kernel_plays_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    if not STEPHENS.kernel_available():
        pytest.skip("Stephens kernel not built (or FURNACE_PURE_PYTHON set)")
    opening = STEPHENS.new_game(0, 1)
    report = bench_json(capsys, "stephens", 1)
    check_common_fields(report)
    if opening.search_state() is opening:
        assert report["kernel_speedup"] is None
        assert report["kernel_note"].startswith("the kernel does not play 1-player games")
    else:
        assert report["kernel_speedup"] > 0 and report["kernel_determinize_per_s"] > 0


# -- the compiled tree's switch --------------------------------------------------------------

def recording_trees(monkeypatch: pytest.MonkeyPatch, refuse: str | None = None) -> list[str]:
    """Gives ``make_tree`` a ``compiled`` switch (the Python tree either way) and records
    which tree each call builds; ``refuse``: the error a compiled tree is refused with."""
    built: list[str] = []

    def switched_make_tree(state: State, config: Any = None, *,
                           compiled: bool | None = None, **settings: Any) -> Any:
        if compiled and refuse is not None:
            raise ValueError(refuse)
        built.append("baseline" if is_baseline(config) else
                     "random_playouts" if config.mast_epsilon is None else
                     {None: "default", True: "compiled", False: "python"}[compiled])
        return make_tree(state, config, compiled=False, **settings)

    monkeypatch.setattr(bench, "make_tree", switched_make_tree)
    return built


def test_search_tree_speedup_once_the_trees_take_a_compiled_switch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built = recording_trees(monkeypatch)
    report = run_bench(registry.get_game("samara"), seconds=0.05, players=2,
                       mcts_iterations=20)
    assert report["search_tree_speedup"] > 0 and "search_tree_note" not in report
    assert report["python_tree_iterations_per_s"] > 0
    budgets = report["search_iterations_per_repetition"]
    assert budgets["default"] == budgets["python_tree"]  # the same work for both trees
    cycle = ["compiled", "baseline", "random_playouts", "python"]
    # The check that a compiled tree exists, one tree per side for its budget, then
    # the sides in turns, round after round.
    assert built == ["compiled", *cycle, *cycle * report["rounds"]]


def test_a_refused_compiled_tree_is_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    built = recording_trees(monkeypatch, refuse="no compiled tree for this game")
    report = run_bench(registry.get_game("oh-my-goods"), seconds=0.05, players=2,
                       mcts_iterations=20)
    assert report["search_tree_speedup"] is None
    assert report["search_tree_note"] == \
        "no compiled tree for this position: no compiled tree for this game"
    assert built == ["default", "baseline", "random_playouts"] * (report["rounds"] + 1)


def test_without_a_switch_the_speedup_is_null_with_the_reason(
        capsys: pytest.CaptureFixture[str]) -> None:
    if "compiled" in inspect.signature(make_tree).parameters:
        pytest.skip("make_tree has a compiled switch")
    report = bench_json(capsys, "samara", 2)
    assert report["search_tree_speedup"] is None
    assert report["search_tree_note"] == \
        "the search has no compiled tree (make_tree takes no compiled switch)"
