"""Fit a learned leaf value from self-play (``furnace fit-value``).

Seeded self-play games between bot specs (played as the arena plays them, one deal per
game), and at every ``every``-th decision of each game a sample: each seat's features
(``State.features()``, read on the host's state; that is data for the fit, not a search),
``heuristic()``, ``scores()`` and the scores of one random playout from there.  The
target is each seat's final margin: its score minus the best other score.

The fit is a ridge regression of the margin on the seat's features minus the mean of
the other seats' (one row per seat and position, so swapping the seats swaps the rows:
the model is symmetric by construction, and needs no intercept).  Features are scaled
to unit spread for the penalty, and the weights scaled back.  The games are split by
game, a fifth held out (chosen from the seed), and the report gives on the held-out
positions, by stage (the first, middle and last third of each game's decisions), the
correlation of each predictor's margin with the final margin and how often its leader is
a winner: the model, ``heuristic()``, ``scores()`` and the random playout.

A second ridge fit, with an intercept, predicts the scores' level: the seats' mean final
score from their mean feature vector (``ValueModel.level_weights``).  The margins say who
leads and by how much; the level says at how many points, so that a search reports
expected scores in the game's points (``heuristic()`` is no forecast of the final score
in every game).  The report gives its held-out mean absolute error by stage beside the
heuristic's mean's (``level``).

Everything flows from the seed: the same command writes the same model file.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.game import CHANCE, TERMINAL, Game
from engine.search._common import derive_seed, sample_chance
from engine.search.bots import make_bot
from engine.search.evaluate import ValueModel

#: The stages of the report: positions by the fraction of the game's decisions made.
STAGES = ("opening", "middle", "late")
#: The predictors compared in the report, beside the model.
BASELINES = ("heuristic", "scores", "playout")
#: The fraction of games held out of the fit.
HELD_OUT = 0.2


@dataclass(frozen=True)
class Sample:
    """One sampled position of a game: ``stage`` (0, 1, 2), each seat's features and
    the baselines' values per seat."""

    stage: int
    features: tuple[tuple[float, ...], ...]
    heuristic: tuple[float, ...]
    scores: tuple[float, ...]
    playout: tuple[float, ...]


@dataclass(frozen=True)
class GameRecord:
    """A game's samples and its final scores and win shares."""

    samples: tuple[Sample, ...]
    scores: tuple[float, ...]
    rewards: tuple[float, ...]


def record_game(game: Game, num_players: int, specs: Sequence[str], seed: int, g: int,
                options: Mapping[str, Any] | None, every: int) -> GameRecord:
    """Play self-play game ``g`` (seats rotated over ``specs`` as in the arena) and
    sample every ``every``-th decision; all randomness flows from ``(seed, g)``."""
    bots = [make_bot(spec, seed=derive_seed(seed, "bot", g, i)) for i, spec in enumerate(specs)]
    state = game.new_game(derive_seed(seed, "deal", g), num_players, options)
    rng = random.Random(derive_seed(seed, "game", g))
    seats = [(seat + g) % len(specs) for seat in range(num_players)]
    raw: list[tuple[int, Sample]] = []
    decisions = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.apply(sample_chance(state.chance_outcomes(), rng))
            continue
        if decisions % every == 0:
            playout = state.clone().search_state().rollout(
                derive_seed(seed, "playout", g, decisions))
            raw.append((decisions, Sample(
                0, tuple(tuple(float(x) for x in v) for v in state.features()),
                tuple(float(x) for x in state.heuristic()),
                tuple(float(x) for x in state.scores()),
                tuple(float(x) for x in playout.scores))))
        state.apply(bots[seats[player]].choose(state, rng))
        decisions += 1
    outcome = state.outcome()
    samples = tuple(
        Sample(min(len(STAGES) - 1, len(STAGES) * at // max(1, decisions)), s.features,
               s.heuristic, s.scores, s.playout)
        for at, s in raw)
    return GameRecord(samples, tuple(float(x) for x in outcome.scores),
                      tuple(float(x) for x in outcome.rewards))


def record_game_by_name(name: str, num_players: int, specs: Sequence[str], seed: int, g: int,
                        options: Mapping[str, Any], every: int) -> GameRecord:
    """:func:`record_game` of the game named ``name`` (what a worker process is sent)."""
    from engine import registry

    return record_game(registry.get_game(name), num_players, specs, seed, g, options, every)


def margins(values: Sequence[float]) -> list[float]:
    """Each seat's value minus the best other seat's.

    >>> margins([10.0, 7.0, 12.0])
    [-2.0, -5.0, 2.0]
    """
    return [v - max(o for j, o in enumerate(values) if j != i) for i, v in enumerate(values)]


def relative(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """Each seat's vector minus the mean of the other seats' (the fit's rows)."""
    matrix = np.asarray(vectors, dtype=float)
    n = matrix.shape[0]
    others = (matrix.sum(axis=0, keepdims=True) - matrix) / (n - 1)
    return matrix - others


def fit_ridge(rows: np.ndarray, targets: np.ndarray, alpha: float) -> np.ndarray:
    """Ridge weights without intercept, the penalty on unit-spread columns."""
    spread = np.sqrt((rows ** 2).mean(axis=0))
    spread[spread == 0] = 1.0
    scaled = rows / spread
    gram = scaled.T @ scaled + alpha * np.eye(scaled.shape[1])
    return np.linalg.solve(gram, scaled.T @ targets) / spread


def fit_level(rows: np.ndarray, targets: np.ndarray, alpha: float) -> np.ndarray:
    """Ridge weights with an unpenalised intercept (last): the columns and targets are
    centred, fitted as :func:`fit_ridge` fits, and the intercept restores the means."""
    row_mean = rows.mean(axis=0)
    target_mean = float(targets.mean())
    weights = fit_ridge(rows - row_mean, targets - target_mean, alpha)
    return np.append(weights, target_mean - float(weights @ row_mean))


def _mean_vector(vectors: Sequence[Sequence[float]]) -> list[float]:
    return [sum(column) / len(vectors) for column in zip(*vectors, strict=True)]


def _leader_wins(values: Sequence[float], rewards: Sequence[float]) -> float:
    """1 when the seat with the highest value (the first on a tie) won a share, else 0."""
    best = max(range(len(values)), key=lambda seat: values[seat])
    return 1.0 if rewards[best] > 0 else 0.0


def _correlation(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def evaluate(weights: np.ndarray, records: Sequence[GameRecord],
             level_weights: np.ndarray | None = None) -> dict[str, Any]:
    """Per stage (and ``all``): the number of positions and, for the model and each
    baseline, the correlation of seat 0's predicted margin with its final margin and
    how often the predicted leader won; with ``level_weights``, the mean absolute error
    of the predicted mean final score, the model's level's and the heuristic's mean's."""
    stages: dict[str, dict[str, list[Any]]] = {
        name: {"truth": [], **{p: [] for p in ("model", *BASELINES)},
               **{f"{p}_wins": [] for p in ("model", *BASELINES)},
               "level_model": [], "level_heuristic": []}
        for name in (*STAGES, "all")}
    for record in records:
        truth = margins(record.scores)[0]
        final_mean = sum(record.scores) / len(record.scores)
        for sample in record.samples:
            if level_weights is not None:
                level = float(level_weights[:-1] @ np.asarray(_mean_vector(sample.features))
                              + level_weights[-1])
                heuristic_mean = sum(sample.heuristic) / len(sample.heuristic)
                for name in (STAGES[sample.stage], "all"):
                    stages[name]["level_model"].append(abs(level - final_mean))
                    stages[name]["level_heuristic"].append(abs(heuristic_mean - final_mean))
            predicted = {
                "model": [float(np.dot(weights, v)) for v in sample.features],
                "heuristic": sample.heuristic, "scores": sample.scores,
                "playout": sample.playout}
            for name in (STAGES[sample.stage], "all"):
                bucket = stages[name]
                bucket["truth"].append(truth)
                for key, values in predicted.items():
                    bucket[key].append(margins(values)[0])
                    bucket[f"{key}_wins"].append(_leader_wins(values, record.rewards))
    report: dict[str, Any] = {}
    for name, bucket in stages.items():
        entry: dict[str, Any] = {"positions": len(bucket["truth"])}
        for key in ("model", *BASELINES):
            wins = bucket[f"{key}_wins"]
            entry[key] = {"correlation": _correlation(bucket[key], bucket["truth"]),
                          "winner": sum(wins) / len(wins) if wins else None}
        if bucket["level_model"]:
            entry["level"] = {
                "model_error": float(np.mean(bucket["level_model"])),
                "heuristic_error": float(np.mean(bucket["level_heuristic"]))}
        report[name] = entry
    return report


def fit_value(
    game: Game,
    num_players: int,
    bot_specs: Sequence[str],
    games: int,
    seed: int,
    *,
    options: Mapping[str, Any] | None = None,
    every: int = 4,
    alpha: float = 1.0,
    workers: int = 1,
    cluster: str | None = None,
    command: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> tuple[ValueModel, dict[str, Any]]:
    """Play ``games`` self-play games, fit the model on four fifths of them and report
    on the rest (see the module docstring).  Returns the model (its ``meta`` holds the
    command, the seed and the report) and the report.  The games run in ``workers``
    processes or on the Ray ``cluster`` (:func:`engine.batch.open_batch`), with the same
    model."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise ValueError(f"fit-value needs at least 2 games, not {games!r}")
    if num_players < 2:
        raise ValueError("fit-value fits margins between seats: 2 players or more")
    if every < 1:
        raise ValueError(f"every must be at least 1, not {every!r}")
    specs = [s.strip() for s in bot_specs if s.strip()]
    if not specs:
        raise ValueError("fit-value needs at least one bot spec")
    for spec in specs:
        make_bot(spec)  # a bad spec fails before any game is played
    game.info.check_players(num_players)
    from engine.batch import run_in_order

    jobs = [(game.info.name, num_players, specs, seed, g, dict(options or {}), every)
            for g in range(games)]
    played: list[GameRecord] = run_in_order(
        record_game_by_name, jobs, workers, cluster, progress,
        in_process=lambda _name, *rest: record_game(game, *rest))
    names = _feature_names(game, played)
    train_index, test_index = split_games(games, seed)
    test = [played[g] for g in test_index]
    train = [played[g] for g in train_index]
    rows: list[list[float]] = []
    targets: list[float] = []
    for record in train:
        final = margins(record.scores)
        for sample in record.samples:
            rows.extend(relative(sample.features))
            targets.extend(final)
    weights = fit_ridge(np.asarray(rows), np.asarray(targets), alpha)
    level_rows = [_mean_vector(sample.features) for record in train for sample in record.samples]
    level_targets = [sum(record.scores) / len(record.scores)
                     for record in train for _ in record.samples]
    level_weights = fit_level(np.asarray(level_rows), np.asarray(level_targets), alpha)
    report = {
        "game": game.info.name, "players": num_players, "bots": specs, "games": games,
        "seed": seed, "every": every, "alpha": alpha,
        "train_games": len(train), "held_out_games": len(test),
        "train_positions": sum(len(r.samples) for r in train),
        "held_out": evaluate(weights, test, level_weights),
    }
    model = ValueModel(game.info.name, names, [round(float(w), 9) for w in weights],
                       {"command": command, "seed": seed, "report": report},
                       [round(float(w), 9) for w in level_weights])
    return model, report


def split_games(count: int, seed: int) -> tuple[list[int], list[int]]:
    """The indices of the fitting games and of the held-out games (a fifth, by seed)."""
    order = list(range(count))
    random.Random(derive_seed(seed, "split")).shuffle(order)
    held = max(1, math.floor(count * HELD_OUT))
    return sorted(order[held:]), sorted(order[:held])


def declared_features(game: Game) -> tuple[str, ...]:
    """The feature names ``game``'s package declares (``FEATURE_NAMES``; none: empty)."""
    import importlib

    package = importlib.import_module(type(game).__module__.rpartition(".")[0])
    return tuple(getattr(package, "FEATURE_NAMES", ()))


def _feature_names(game: Game, records: Sequence[GameRecord]) -> tuple[str, ...]:
    names = declared_features(game)
    width = {len(s.features[0]) for r in records for s in r.samples}
    if not names or width != {len(names)}:
        raise ValueError(f"{game.info.name} declares no feature vector of the width its "
                         f"states give ({sorted(width)}): nothing to fit")
    return names
