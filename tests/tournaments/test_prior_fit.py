"""``furnace fit-prior`` and the self-play loop: the softmax fit, the records, the report,
the command and a loop's rounds."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from engine import registry
from engine.search._common import derive_seed
from engine.search.move_prior import PriorModel, move_rows
from furnace_cli import main
from tournaments.prior_fit import (
    Decision,
    evaluate,
    fit_prior,
    fit_softmax,
    load_records,
    record_game,
    save_records,
)
from tournaments.prior_loop import LoopSettings, run_prior_loop, searcher


def _synthetic(weights: list[float], count: int, seed: int) -> list[Decision]:
    """Decisions whose visits are drawn from the softmax of ``weights . row``."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        moves = 2 + i % 5
        rows = rng.normal(size=(moves, len(weights)))
        logits = rows @ np.asarray(weights)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        visits = rng.multinomial(400, p)
        out.append(Decision(i % 3, tuple(int(v) for v in visits),
                            tuple(tuple(float(x) for x in r) for r in rows)))
    return out


def test_the_fit_recovers_the_weights_that_drew_the_visits() -> None:
    truth = [1.5, -0.5, 0.0]
    weights = fit_softmax(_synthetic(truth, 600, 1), alpha=0.0)
    assert weights == pytest.approx(truth, abs=0.08)
    # the penalty pulls the weights towards 0
    assert np.abs(fit_softmax(_synthetic(truth, 600, 1), alpha=10.0)).sum() < \
        np.abs(weights).sum()


def test_the_report_scores_the_model_against_a_uniform_choice() -> None:
    truth = [2.0, -1.0]
    held = [_synthetic(truth, 300, 2)]
    good = evaluate(np.asarray(truth), held)["all"]
    blind = evaluate(np.zeros(2), held)["all"]
    assert good["cross_entropy"] < good["uniform_cross_entropy"]
    assert blind["cross_entropy"] == pytest.approx(blind["uniform_cross_entropy"])
    assert good["top1"] > blind["top1"] and good["top3"] >= good["top1"]
    assert good["decisions"] == 300 and set(evaluate(np.zeros(2), held)) == \
        {"opening", "middle", "late", "all"}


def test_a_game_records_the_searchs_visits_and_each_moves_row() -> None:
    game = registry.get_game("samara")
    decisions = record_game(game, 2, ["mcts:30"], 4, 0, None, 3)
    assert decisions and all(sum(d.visits) == 30 for d in decisions)
    assert all(len(d.visits) == len(d.rows) >= 2 for d in decisions)
    assert {d.stage for d in decisions} == {0, 1, 2}
    # the rows are those of the moves in the game's position: replay to the first sample
    state = game.new_game(derive_seed(4, "deal", 0), 2, None)
    rows = move_rows(state, state.current_player(), state.legal_moves())
    assert [list(r) for r in decisions[0].rows] == rows  # Samara hides nothing


def test_records_round_trip_and_refit_to_the_same_model(tmp_path) -> None:
    game = registry.get_game("samara")
    model, report, played = fit_prior(game, 2, ["mcts:20"], 5, 3, every=4)
    path = tmp_path / "records.jsonl"
    save_records(path, played)
    assert load_records(path) == played
    again, _, _ = fit_prior(game, 2, ["mcts:20"], 5, 3, every=4, records=load_records(path))
    assert again == model and report["held_out_games"] == 1
    assert report["held_out"]["all"]["decisions"] == sum(len(played[g]) for g in range(5)) \
        - report["train_decisions"]


def test_the_fit_refuses_what_it_cannot_learn_from() -> None:
    game = registry.get_game("samara")
    with pytest.raises(ValueError, match="no search bot"):
        fit_prior(game, 2, ["random"], 4, 1)
    with pytest.raises(ValueError, match="at least 2 games"):
        fit_prior(game, 2, ["mcts:10"], 1, 1)
    with pytest.raises(ValueError, match="3 recorded games, not 4"):
        fit_prior(game, 2, ["mcts:10"], 4, 1, records=[[], [], []])


def test_the_command_writes_the_prior_and_its_report(tmp_path, capsys) -> None:
    out = tmp_path / "prior.json"
    records = tmp_path / "records.jsonl"
    assert main(["fit-prior", "samara", "--bots", "mcts:20", "--games", "5", "--seed", "2",
                 "--every", "5", "--out", str(out), "--save-records", str(records),
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "top-1" in text and "cross-entropy" in text and "opening" in text
    model = PriorModel.load(out)
    assert model.game == "samara" and model.meta["report"]["games"] == 5
    assert model.meta["command"].startswith("furnace fit-prior samara")
    # refitted from the saved records: the same file
    again = tmp_path / "again.json"
    assert main(["fit-prior", "samara", "--bots", "mcts:20", "--games", "5", "--seed", "2",
                 "--every", "5", "--out", str(again), "--records", str(records),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 5
    assert PriorModel.load(again) == model
    assert main(["fit-prior", "samara", "--out", str(again), "--records",
                 str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read the records" in capsys.readouterr().out


def test_the_loop_generates_fits_gates_and_goes_on_after_a_restart(tmp_path,
                                                                   monkeypatch) -> None:
    """The gate is an equal-time arena, so its games depend on the machine: here a fake
    arena decides (0.75 in round 1, 0.25 in round 2) and records the specs it was given."""
    from tournaments import prior_loop

    rates = iter([0.75, 0.25])
    gates: list[list[str]] = []

    def fake_arena(game, players, specs, games, seed, options, progress, workers, cluster):
        gates.append(list(specs))
        keys = prior_loop.result_keys(specs)
        return {"results": {keys[0]: {"win_rate": next(rates), "games": games},
                            keys[1]: {"games": games}}}

    monkeypatch.setattr(prior_loop, "run_arena", fake_arena)
    game = registry.get_game("samara")
    settings = LoopSettings("samara", 2, games=3, iterations=20, arena_games=2,
                            seconds=0.005, every=6, seed=1)
    lines: list[str] = []
    log = run_prior_loop(game, settings, 1, tmp_path, report=lines.append)
    first = log["rounds"][0]
    assert first["kept"] and first["generator"] == "mcts:20:mp=off"
    assert gates[0] == [searcher(settings, str(tmp_path / "prior-1.json"), timed=True),
                        "mcts:t=0.005:mp=off"]
    assert (tmp_path / "best.json").exists() and (tmp_path / "records-1.jsonl").exists()
    best = PriorModel.load(tmp_path / "best.json")
    assert best.meta["round"] == 1 and best.meta["gate"]["games"] == 2
    assert any("kept" in line for line in lines)
    # a restart goes on with round 2, generated by the best prior so far, and gated
    # against it; its candidate is discarded and the best stays round 1's
    log = run_prior_loop(game, settings, 1, tmp_path)
    assert [r["round"] for r in log["rounds"]] == [1, 2]
    second = log["rounds"][1]
    best_file = str(tmp_path / "best.json")
    assert second["generator"] == searcher(settings, best_file, timed=False)
    assert gates[1][1] == searcher(settings, best_file, timed=True)
    assert not second["kept"] and PriorModel.load(best_file).meta["round"] == 1
    assert second["fit"]["train_games"] + second["fit"]["held_out_games"] == 6  # both rounds
    assert json.loads((tmp_path / "loop.json").read_text())["rounds"] == log["rounds"]
    other = LoopSettings("samara", 2, games=4, iterations=20, arena_games=2, seed=1)
    with pytest.raises(ValueError, match="other settings"):
        run_prior_loop(game, other, 1, tmp_path)


def test_a_loop_with_a_teacher_records_its_visits_and_reads_older_logs(tmp_path,
                                                                        monkeypatch) -> None:
    from tournaments import prior_loop

    def fake_arena(game, players, specs, games, seed, options, progress, workers, cluster):
        keys = prior_loop.result_keys(specs)
        return {"results": {keys[0]: {"win_rate": 0.25, "games": games},
                            keys[1]: {"games": games}}}

    monkeypatch.setattr(prior_loop, "run_arena", fake_arena)
    game = registry.get_game("samara")
    settings = LoopSettings("samara", 2, games=3, iterations=20, arena_games=2,
                            seconds=0.005, every=6, seed=1, teacher_iterations=60)
    first = run_prior_loop(game, settings, 1, tmp_path)["rounds"][0]
    assert first["teacher"] == "mcts:60:mp=off" and first["fit"]["teacher"] == "mcts:60:mp=off"
    records = load_records(tmp_path / "records-1.jsonl")
    assert all(sum(d.visits) == 60 for game_records in records for d in game_records)
    # a log written before teacher_iterations existed holds no such key: it reads as None
    plain = LoopSettings("samara", 2, games=3, iterations=20, arena_games=2,
                         seconds=0.005, every=6, seed=1)
    older = tmp_path / "older"
    run_prior_loop(game, plain, 1, older)
    log = json.loads((older / "loop.json").read_text())
    del log["settings"]["teacher_iterations"]
    (older / "loop.json").write_text(json.dumps(log))
    assert len(run_prior_loop(game, plain, 1, older)["rounds"]) == 2
    with pytest.raises(ValueError, match="other settings"):
        run_prior_loop(game, settings, 1, older)


def test_the_loop_settings_refuse_nonsense() -> None:
    for bad in ({"games": 1}, {"iterations": 0}, {"keep_rate": 1.0}, {"seconds": 0.0},
                {"teacher_iterations": 0}):
        with pytest.raises(ValueError):
            LoopSettings("samara", 2, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="2 players or more"):
        run_prior_loop(registry.get_game("stephens"), LoopSettings("stephens", 1), 1, "x")


def test_a_random_seeded_world_gives_the_rows_of_the_movers_view() -> None:
    """In a hidden-information game the rows come from a determinization for the mover:
    the same seed gives the same rows, and the mover's own hand is never resampled."""
    game = registry.get_game("oh-my-goods")
    decisions = record_game(game, 2, ["mcts:20"], 6, 0, None, 7)
    again = record_game(game, 2, ["mcts:20"], 6, 0, None, 7)
    assert decisions == again and decisions
    state = game.new_game(1, 2, None)
    mover = state.current_player()
    worlds = [state.determinize(mover, random.Random(s)) for s in range(3)]
    assert all(w.observation(mover) == state.observation(mover) for w in worlds)


def test_the_loop_command_refuses_bad_settings_in_one_line(tmp_path, capsys) -> None:
    assert main(["prior-loop", "samara", "--out", str(tmp_path), "--games", "1"]) == 2
    assert capsys.readouterr().out.strip() == \
        "furnace prior-loop: a round needs at least 2 games to hold one out, not 1"
    assert main(["prior-loop", "stephens", "--players", "1", "--out", str(tmp_path)]) == 2
    assert "2 players or more" in capsys.readouterr().out


def test_a_teacher_gives_the_visits_while_the_players_play_the_game() -> None:
    game = registry.get_game("samara")
    plain = record_game(game, 2, ["mcts:30"], 4, 0, None, 3)
    taught = record_game(game, 2, ["mcts:30"], 4, 0, None, 3, teacher="mcts:90")
    # the same game (the players chose its moves), the teacher's visit counts
    assert [d.rows for d in taught] == [d.rows for d in plain]
    assert all(sum(d.visits) == 90 for d in taught)
    model, report, _ = fit_prior(game, 2, ["mcts:20"], 4, 3, every=6, teacher="mcts:40")
    assert report["teacher"] == "mcts:40" and model.meta["report"]["teacher"] == "mcts:40"
    with pytest.raises(ValueError, match="no search bot"):
        fit_prior(game, 2, ["mcts:10"], 4, 1, teacher="greedy")


def test_the_command_refuses_bad_bots_in_one_line(tmp_path, capsys) -> None:
    out = str(tmp_path / "prior.json")
    assert main(["fit-prior", "samara", "--bots", "random", "--games", "4",
                 "--out", out]) == 2
    assert capsys.readouterr().out.strip() == (
        "furnace fit-prior: fit-prior learns from a search's visit counts: 'random' is no "
        "search bot (mcts, ismcts, level or classic)")
    assert main(["fit-prior", "samara", "--teacher", "greedy", "--games", "4",
                 "--out", out]) == 2
    assert "'greedy' is no search bot" in capsys.readouterr().out
