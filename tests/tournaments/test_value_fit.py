"""``furnace fit-value``: self-play records, the symmetric ridge fit, its report and the
model file, reproducible from the seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import registry
from engine.search.evaluate import ValueModel
from engine.stephens import FEATURE_NAMES
from furnace_cli import main
from tests.search.toy_games import RaceGame
from tournaments.value_fit import (
    STAGES,
    fit_level,
    fit_ridge,
    fit_value,
    margins,
    record_game,
    relative,
)

STEPHENS = registry.get_game("stephens")


def test_relative_rows_swap_with_the_seats() -> None:
    rows = relative([[1.0, 4.0], [3.0, 0.0]])
    assert rows.tolist() == [[-2.0, 4.0], [2.0, -4.0]]
    three = relative([[3.0], [0.0], [6.0]])
    assert three.tolist() == [[0.0], [-4.5], [4.5]]


def test_ridge_recovers_a_linear_margin() -> None:
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(400, 3))
    weights = np.array([2.0, -1.0, 0.5])
    fitted = fit_ridge(rows, rows @ weights, alpha=1e-6)
    assert np.allclose(fitted, weights, atol=1e-4)


def test_the_level_fit_recovers_an_intercept_unpenalised() -> None:
    rng = np.random.default_rng(2)
    rows = rng.normal(loc=5.0, size=(400, 2))
    fitted = fit_level(rows, rows @ np.array([3.0, -2.0]) + 70.0, alpha=1.0)
    assert np.allclose(fitted, [3.0, -2.0, 70.0], atol=0.05)


def test_a_record_samples_every_few_decisions_with_stages() -> None:
    record = record_game(STEPHENS, 2, ["greedy"], 3, 0, None, 5)
    assert record.samples and {s.stage for s in record.samples} == {0, 1, 2}
    first = record.samples[0]
    assert len(first.features) == 2 and len(first.features[0]) == len(FEATURE_NAMES)
    assert sum(record.rewards) == pytest.approx(1.0)
    assert margins(record.scores)[0] == -margins(record.scores)[1]


def test_the_fit_is_reproducible_from_the_seed() -> None:
    # Three games, the fewest that leave two to fit on (one fifth held out, at least one).
    first, report = fit_value(STEPHENS, 2, ["greedy", "random"], 3, 7, every=6)
    again, _ = fit_value(STEPHENS, 2, ["greedy", "random"], 3, 7, every=6)
    other, _ = fit_value(STEPHENS, 2, ["greedy", "random"], 3, 8, every=6)
    assert first.to_json() == again.to_json()
    assert first.weights != other.weights
    assert first.feature_names == FEATURE_NAMES
    assert report["train_games"] == 2 and report["held_out_games"] == 1
    assert set(report["held_out"]) == {*STAGES, "all"}
    assert first.level_weights is not None and len(first.level_weights) == len(FEATURE_NAMES) + 1
    assert set(report["held_out"]["all"]["level"]) == {"model_error", "heuristic_error"}
    pooled, _ = fit_value(STEPHENS, 2, ["greedy", "random"], 3, 7, every=6, workers=2)
    assert pooled.to_json() == first.to_json()


def test_a_game_without_features_cannot_be_fitted() -> None:
    with pytest.raises(ValueError, match="no feature vector"):
        fit_value(RaceGame(), 2, ["random"], 2, 1, every=5)


def test_the_command_writes_the_same_model_file_twice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        assert main(["fit-value", "stephens", "--bots", "greedy", "--games", "2", "--seed",
                     "2", "--every", "8", "--out", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "held out" in out and "opening" in out and "playout" in out
    assert paths[0].read_bytes() == paths[1].read_bytes()
    data = json.loads(paths[0].read_text())
    model = ValueModel.from_json(data)
    assert model.game == "stephens" and model.meta["seed"] == 2
    assert model.meta["command"].startswith("furnace fit-value stephens")
