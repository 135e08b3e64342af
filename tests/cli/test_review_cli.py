"""``furnace review``: the table, the JSON line, the plot, one decision's position
(``--at``), the key moments, the game's ending, and bad input refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import records, registry
from engine.game import State
from engine.search.review import decisions_of
from engine.search.review_settings import LABELS
from furnace_cli import main
from furnace_cli.review import load_record


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two self-played games, one record a line (random moves: quick to play)."""
    path = tmp_path_factory.mktemp("review") / "g.json"
    assert main(["selfplay", "samara", "--players", "2", "--bots", "random",
                 "--seed", "3", "--games", "2", "--save", str(path), "--json"]) == 0
    return path


def test_review_json_ends_with_the_turns_and_the_summary(
        saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "review.png"
    code, out, err = run(capsys, "review", str(saved), "--seat", "0", "--budget", "20",
                         "--json", "--plot", str(picture))
    assert code == 0
    last = json.loads(out.strip().splitlines()[-1])
    assert last["turns"] and all(turn["label"] in LABELS for turn in last["turns"])
    assert {turn["seat"] for turn in last["turns"]} == {0}
    [summary] = last["summary"]
    assert summary["seat"] == 0 and summary["decisions"] == len(last["turns"])
    assert sum(summary["counts"].values()) == len(last["turns"])
    assert 0 <= summary["accuracy"] <= 100
    assert f"{len(last['turns'])}/{len(last['turns'])}" in err  # the progress bar
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_review_prints_a_table_of_every_seat(saved: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", str(saved), "--budget", "10", "--quiet",
                         "--record", "2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "review of P1, P2" in lines[0] and "label" in lines[1]
    p2 = next(i for i, line in enumerate(lines) if line.startswith("P2: "))
    rows = lines[2:p2 - 1]
    assert rows and all(row.split()[-1] in LABELS for row in rows)
    assert {row.split()[1] for row in rows} == {"P1", "P2"}
    assert lines[p2 - 1].startswith("P1: ") and "accuracy" in lines[p2]
    # then the key moments and how the game ended (the record's final scores)
    final = records.replay(records.record_from_json(
        json.loads(saved.read_text(encoding="utf-8").splitlines()[1])))
    assert final.is_terminal()
    scores = ", ".join(f"P{s + 1} {v:g}" for s, v in enumerate(final.scores()))
    assert f"final scores: {scores}" in lines
    assert lines[-1].startswith("winner")


def test_review_refuses_bad_input(saved: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "review", str(saved), "--seat", "2", "--budget", "10")
    assert code == 2 and "--seat 2" in err
    code, _, err = run(capsys, "review", str(saved), "--record", "3", "--budget", "10")
    assert code == 2 and "holds 2 record(s)" in err
    position = tmp_path / "position.json"
    state = registry.get_game("samara").new_game(1, 2, {})
    position.write_text(json.dumps(state.to_json()), encoding="utf-8")
    code, _, err = run(capsys, "review", str(position))
    assert code == 2 and "not a game record" in err
    code, _, err = run(capsys, "review", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_review_reads_a_record_laid_out_over_many_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = registry.get_game("samara").new_game(4, 2, {})
    moves = []
    for _ in range(6):
        moves.append(state.legal_moves()[0])
        state.apply(moves[-1])
    path = tmp_path / "saved.json"
    record = records.GameRecord("samara", 2, seed=4, moves=moves)
    path.write_text(json.dumps(records.record_to_json(record), indent=2), encoding="utf-8")
    code, out, _ = run(capsys, "review", str(path), "--budget", "5", "--quiet", "--json")
    assert code == 0
    assert [turn["turn"] for turn in json.loads(out)["turns"]] == list(range(6))


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An Oh My Goods! game of random moves: each seat has a hand the other cannot see."""
    path = tmp_path_factory.mktemp("review") / "omg.json"
    assert main(["selfplay", "oh-my-goods", "--players", "2", "--bots", "random",
                 "--seed", "4", "--save", str(path), "--json"]) == 0
    return path


@pytest.fixture(scope="module")
def solo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A solo Stephens game of random moves, played to its end."""
    path = tmp_path_factory.mktemp("review") / "solo.json"
    assert main(["selfplay", "stephens", "--players", "1", "--bots", "random",
                 "--seed", "4", "--save", str(path), "--json"]) == 0
    return path


def position_before(path: Path, turn: int) -> State:
    record = load_record(str(path))
    return records.replay_from(records.start_state(record), record.moves[:turn])


def test_at_shows_the_decisions_position_as_its_seat_saw_it(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = load_record(str(hidden))
    turn = next(t for t, state, _ in decisions_of(record, [1]) if t > 10)
    state = position_before(hidden, turn)
    assert state.current_player() == 1
    code, out, err = run(capsys, "review", str(hidden), "--at", str(turn + 1),
                         "--budget", "20")
    assert code == 0 and err == ""
    assert f"move {turn + 1}, P2 to move, as P2 saw it:" in out
    assert state.render(1) in out
    # the other hand and the host's view stay hidden
    assert state.render(None) not in out and state.render(0) not in out
    played = state.move_to_text(records.resolve_move(state, turn, record.moves[turn]))
    assert f"played: {played} (win probability " in out
    assert "\nbest:   " in out and "\nloss: " in out
    code, out, _ = run(capsys, "review", str(hidden), "--at", str(turn + 1), "--budget",
                       "20", "--json")
    data = json.loads(out)
    assert data["turn"] == turn and data["seat"] == 1 and data["label"] in LABELS
    assert data["position"] == state.render(1)


def test_at_refuses_a_move_it_cannot_show(hidden: Path, saved: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    samara = load_record(str(saved))
    decided = {t for t, _, _ in decisions_of(samara, [0, 1])}
    forced = next(t for t in range(len(samara.moves)) if t not in decided)
    code, _, err = run(capsys, "review", str(saved), "--at", str(forced + 1))
    assert code == 2 and f"--at {forced + 1}: move {forced + 1} was forced" in err
    record = load_record(str(hidden))
    total = len(record.moves)
    for bad in (0, total + 1):
        code, _, err = run(capsys, "review", str(hidden), "--at", str(bad))
        assert code == 2 and f"--at {bad}: the record holds {total} moves" in err
        assert f"from 1 to {total}" in err
    turn = min(t for t, _, _ in decisions_of(record, [0]))
    code, _, err = run(capsys, "review", str(hidden), "--at", str(turn + 1), "--seat", "1")
    assert code == 2 and f"move {turn + 1} was P1's, not P2's" in err


def test_the_key_moments_are_listed_and_shown(hidden: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "review", str(hidden), "--seat", "0", "--budget", "10",
                       "--quiet", "--json")
    moments = json.loads(out)["key_moments"]
    assert moments and all(m["seat"] == 0 for m in moments)
    code, out, _ = run(capsys, "review", str(hidden), "--seat", "0", "--budget", "10",
                       "--quiet")
    [listed] = [line for line in out.splitlines() if line.startswith("key moments: ")]
    assert listed == "key moments: " + "; ".join(
        f"move {m['turn'] + 1} P1 ({', '.join(m['reasons'])})" for m in moments)
    assert "--at N" in out
    code, out, _ = run(capsys, "review", str(hidden), "--seat", "0", "--budget", "10",
                       "--quiet", "--key-moments")
    assert code == 0
    shown = [line for line in out.splitlines() if line.startswith("key moment: ")]
    assert len(shown) == len(moments)
    for m in moments:  # each with the position its seat saw
        assert f"move {m['turn'] + 1}, P1 to move, as P1 saw it:\n" \
            f"{position_before(hidden, m['turn']).render(0)}\n" in out


def test_a_solo_review_ends_with_the_score_the_target_and_the_rank(
        solo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    final = records.replay(load_record(str(solo)))
    assert final.is_terminal()
    target, rank = final.solo_target(), final.solo_rank()
    assert target is not None and rank
    code, out, _ = run(capsys, "review", str(solo), "--budget", "10", "--quiet")
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == f"final score: {final.scores()[0]:g}, target {target:g}: {rank}"
    assert lines[-1] == "  P1: " + ", ".join(
        f"{source} {points:g}" for source, points in final.score_breakdown()[0] if points)
    code, out, _ = run(capsys, "review", str(solo), "--budget", "10", "--quiet", "--json")
    data = json.loads(out)
    assert data["ending"]["solo_target"] == target and data["ending"]["solo_result"] == rank
    assert data["ending"]["scores"] == final.scores()
    # every figure rounded to four decimals: no 0.30000000000000004
    floats = list(_floats(data["turns"])) + list(_floats(data["summary"]))
    assert floats and all(round(x, 4) == x for x in floats)
    assert any(x != int(x) for x in floats)


def test_an_unfinished_game_says_so(tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    state = registry.get_game("samara").new_game(4, 2, {})
    moves = []
    for _ in range(6):
        moves.append(state.legal_moves()[0])
        state.apply(moves[-1])
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(records.record_to_json(
        records.GameRecord("samara", 2, seed=4, moves=moves))), encoding="utf-8")
    code, out, _ = run(capsys, "review", str(path), "--budget", "5", "--quiet")
    assert code == 0
    assert out.splitlines()[-1] == "the game was not finished: the record stops after 6 moves"
    code, out, _ = run(capsys, "review", str(path), "--budget", "5", "--quiet", "--json")
    assert json.loads(out)["ending"] is None


def _floats(data: Any) -> Iterator[float]:
    if isinstance(data, float):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _floats(value)
    elif isinstance(data, list):
        for value in data:
            yield from _floats(value)


@pytest.mark.parametrize("plies", [3, 8])
def test_the_plot_of_a_short_game_ticks_whole_moves(plies: int) -> None:
    """Reviews of a few decisions: matplotlib alone ticks fractions of a move."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from engine.search.review import review_game
    from furnace_cli.review import figure

    game = registry.get_game("samara")
    state = game.new_game(5, 2)
    moves: list[records.MoveEntry] = []
    for _ in range(plies):
        move = state.legal_moves()[0]
        moves.append(move)
        state.apply(move)
    record = records.GameRecord(game="samara", num_players=2, seed=5, moves=moves)
    fig = figure(review_game(record, 0, budget=4, seed=1), plt)
    try:
        fig.canvas.draw()
        ticks = fig.axes[1].get_xticks()
        shown = [t for t in ticks if fig.axes[1].get_xlim()[0] <= t <= fig.axes[1].get_xlim()[1]]
        assert shown and all(float(t).is_integer() for t in shown), ticks
    finally:
        plt.close(fig)
