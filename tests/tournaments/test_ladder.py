"""The rating ladder: schedule and seats, reproducibility across worker counts,
resuming from the results file, and the errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import registry
from tests.search.toy_games import RaceGame
from tournaments.arena import run_arena
from tournaments.ladder import (
    RESULTS_FORMAT,
    LadderError,
    default_anchor,
    ladder_schedule,
    run_ladder,
)

SPECS = ["random", "greedy", "mcts:8"]


@pytest.fixture(scope="module")
def samara() -> Any:
    return registry.get_game("samara")


@pytest.fixture(scope="module")
def serial(samara: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """The tiny Samara ladder, played once in this process, with its results file."""
    path = tmp_path_factory.mktemp("ladder") / "games.jsonl"
    return run_ladder(samara, 2, SPECS, 2, seed=11, results_path=path), path


def read_lines(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return lines[0], lines[1:]


def test_schedule_counts_games_per_pair() -> None:
    schedule = ladder_schedule(4, 3)
    assert len(schedule) == 3 * 6
    assert len(set(schedule)) == len(schedule)
    assert {(a, b) for a, b, _ in schedule} == {(a, b) for a in range(4)
                                                for b in range(a + 1, 4)}


def test_report_of_a_tiny_samara_ladder(serial: tuple[dict, Path]) -> None:
    report, _ = serial
    assert report["game"] == "samara" and report["players"] == 2 and report["seed"] == 11
    assert report["games_per_pair"] == 2 and report["games"] == 6
    assert report["specs"] == SPECS and report["anchor"] == "random"
    assert json.loads(json.dumps(report)) == report
    ratings = report["ratings"]
    assert set(ratings) == set(SPECS)
    assert [r["rank"] for r in ratings.values()] == [1, 2, 3]
    elos = [r["elo"] for r in ratings.values()]
    assert elos == sorted(elos, reverse=True)  # best first
    assert ratings["random"]["elo"] == 0.0 and ratings["random"]["ci95"] == [0.0, 0.0]
    for rating in ratings.values():
        assert rating["games"] == 4  # two opponents, two games each
        assert rating["by_seat"][0]["games"] == rating["by_seat"][1]["games"] == 2
        assert rating["score_share"] == pytest.approx(rating["score"] / 4)
        lo, hi = rating["ci95"]
        assert lo <= rating["elo"] <= hi
    assert sum(r["score"] for r in ratings.values()) == pytest.approx(6.0)
    pairwise = report["pairwise"]
    for a in SPECS:
        assert set(pairwise[a]) == set(SPECS) - {a}
        for b in pairwise[a]:
            assert pairwise[a][b]["games"] == 2
            assert pairwise[a][b]["score"] + pairwise[b][a]["score"] == pytest.approx(2.0)


def test_seats_alternate_and_deals_match_the_arena(samara: Any,
                                                   serial: tuple[dict, Path]) -> None:
    report, path = serial
    header, games = read_lines(path)
    assert header == {"format": RESULTS_FORMAT, "game": "samara", "players": 2, "seed": 11,
                      "options": {"powers": True}, "specs": SPECS}
    assert len(games) == 6
    for entry in games:
        first = entry["a"] if entry["g"] % 2 == 0 else entry["b"]
        second = entry["b"] if first == entry["a"] else entry["a"]
        assert entry["seats"] == [first, second]
        assert sum(entry["rewards"]) == pytest.approx(1.0)
    # Each pair's games are the arena's games of the two specs with the same seed.
    arena = run_arena(samara, 2, ["random", "greedy"], 2, seed=11)
    assert arena["results"]["greedy"]["wins"] == report["pairwise"]["greedy"]["random"]["score"]


def test_same_report_with_two_workers(samara: Any, serial: tuple[dict, Path]) -> None:
    calls: list[tuple[int, int]] = []
    parallel = run_ladder(samara, 2, SPECS, 2, seed=11, workers=2,
                          progress=lambda d, t: calls.append((d, t)))
    assert parallel == serial[0]
    assert calls == [(d, 6) for d in range(1, 7)]


def test_resume_plays_only_missing_games(samara: Any, serial: tuple[dict, Path],
                                         tmp_path: Path) -> None:
    report, full = serial
    lines = full.read_text().splitlines(keepends=True)
    partial = tmp_path / "games.jsonl"
    # Three games recorded, the fourth cut off while it was being written.
    partial.write_text("".join(lines[:4]) + lines[4][:15])
    calls: list[tuple[int, int]] = []
    resumed = run_ladder(samara, 2, SPECS, 2, seed=11, results_path=partial, resume=True,
                         progress=lambda d, t: calls.append((d, t)))
    assert resumed == report
    assert calls == [(3, 6), (4, 6), (5, 6), (6, 6)]  # 3 already done, 3 played
    header, games = read_lines(partial)
    assert len(games) == 6
    key = lambda e: (e["a"], e["b"], e["g"])  # noqa: E731
    assert sorted(games, key=key) == sorted(read_lines(full)[1], key=key)
    # Everything recorded: nothing is played, the same report again.
    calls.clear()
    again = run_ladder(samara, 2, SPECS, 2, seed=11, results_path=partial, resume=True,
                       progress=lambda d, t: calls.append((d, t)))
    assert again == report and calls == [(6, 6)]
    # More games per pair: the recorded ones are kept, the new ones played.
    calls.clear()
    longer = run_ladder(samara, 2, SPECS, 4, seed=11, results_path=partial, resume=True,
                        progress=lambda d, t: calls.append((d, t)))
    assert longer["games"] == 12 and calls[0] == (6, 12) and len(calls) == 7


def test_a_results_file_that_does_not_fit_is_refused(samara: Any, serial: tuple[dict, Path],
                                                     tmp_path: Path) -> None:
    _, full = serial
    copy = tmp_path / "games.jsonl"
    copy.write_text(full.read_text())
    calls: list[int] = []
    with pytest.raises(LadderError, match="another ladder .*seed 11, not 12"):
        run_ladder(samara, 2, SPECS, 2, seed=12, results_path=copy, resume=True,
                   progress=lambda d, t: calls.append(d))
    with pytest.raises(LadderError, match="specs"):
        run_ladder(samara, 2, ["random", "mcts:8", "greedy"], 2, seed=11, results_path=copy,
                   resume=True)
    with pytest.raises(LadderError, match="options"):
        run_ladder(samara, 2, SPECS, 2, 11, {"powers": False}, results_path=copy,
                   resume=True)
    with pytest.raises(LadderError, match="already holds ladder results"):
        run_ladder(samara, 2, SPECS, 2, seed=11, results_path=copy)  # no resume
    assert copy.read_text() == full.read_text()  # left as it was
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "something-else"}\n')
    with pytest.raises(LadderError, match="not a ladder results file"):
        run_ladder(samara, 2, SPECS, 2, seed=11, results_path=other, resume=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(full.read_text().splitlines()[0] + '\n{"a": "random", "b": "nobody"}\n')
    with pytest.raises(LadderError, match="line 2: not a game of this ladder"):
        run_ladder(samara, 2, SPECS, 2, seed=11, results_path=broken, resume=True)
    assert calls == []


@pytest.mark.parametrize(
    ("players", "specs", "games", "message"),
    [
        (3, SPECS, 2, "needs 2 players, not 3"),
        (1, SPECS, 2, "a solo game has no ladder"),
        (2, ["random"], 2, "at least two bot specs"),
        (2, ["random", "greedy", "random"], 2, "random repeated"),
        (2, SPECS, 0, "positive integer"),
    ],
)
def test_bad_ladders_are_refused(players: int, specs: list[str], games: int,
                                 message: str) -> None:
    with pytest.raises(LadderError, match=message):
        run_ladder(RaceGame(), players, specs, games, seed=0)


def test_anchor() -> None:
    assert default_anchor(["greedy", "random"]) == "random"
    assert default_anchor(["mcts:8", "greedy"]) == "mcts:8"
    report = run_ladder(RaceGame(), 2, ["mcts:200", "greedy"], 2, seed=0,
                        options={"target": 10})
    assert report["anchor"] == "mcts:200" and report["ratings"]["mcts:200"]["elo"] == 0.0
    other = run_ladder(RaceGame(), 2, ["mcts:200", "greedy"], 2, seed=0,
                       options={"target": 10}, anchor="greedy")
    assert other["ratings"]["greedy"]["elo"] == 0.0
    assert other["ratings"]["mcts:200"]["elo"] == pytest.approx(
        -report["ratings"]["greedy"]["elo"])
    with pytest.raises(LadderError, match="anchor 'uct:5'"):
        run_ladder(RaceGame(), 2, ["mcts:200", "greedy"], 2, seed=0, anchor="uct:5")


def test_stronger_spec_rates_higher() -> None:
    # Race to 15 with steps 1..3: a first-player win that mcts:300 finds, random does not.
    report = run_ladder(RaceGame(), 2, ["random", "mcts:300"], 8, seed=5,
                        options={"target": 15})
    strong = report["ratings"]["mcts:300"]
    assert strong["rank"] == 1 and strong["score_share"] >= 0.75
    assert strong["elo"] > 100 and strong["ci95"][0] < strong["elo"]


def test_an_interrupted_ladder_has_played_every_pair_alike(samara: Any,
                                                           tmp_path: Path) -> None:
    # Games are played round by round (game g of every pair before game g + 1 of any),
    # so a long ladder stopped early still rates every pair on as many games.
    path = tmp_path / "games.jsonl"

    def stop_after_five(done: int, total: int) -> None:
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_ladder(samara, 2, SPECS, 4, seed=11, results_path=path, progress=stop_after_five)
    _, games = read_lines(path)
    assert len(games) == 5
    per_pair = {(a, b): sorted(e["g"] for e in games if (e["a"], e["b"]) == (a, b))
                for a, b in [("random", "greedy"), ("random", "mcts:8"), ("greedy", "mcts:8")]}
    assert sorted(len(g) for g in per_pair.values()) == [1, 2, 2]
    assert all(g == list(range(len(g))) for g in per_pair.values())
    # What it has is a complete ladder of one game a pair: resumed so, nothing is played.
    calls: list[tuple[int, int]] = []
    report = run_ladder(samara, 2, SPECS, 1, seed=11, results_path=path, resume=True,
                        progress=lambda d, t: calls.append((d, t)))
    assert report["games"] == 3 and calls == [(3, 3)]
