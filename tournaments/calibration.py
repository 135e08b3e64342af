"""Fit forecasts to how games end, and measure them (``furnace calibration``).

Self-play games of one level (the strongest by default) are played as the arena plays
them, one deal per game.  At every ``every``-th decision the recorder keeps what the
seat to move's service calls would see: its level search's root statistics (the whole
root's and the chosen move's, per seat), :func:`engine.search.estimate_scores`' random
playouts from its information, and each seat's score so far as a determinization of its
view shows it; at the end, the final scores and win shares.  Everything flows from the
seed: the same command records the same games on every machine and engine path.

:func:`fit_forecast` fits :class:`engine.forecast.SourceModel` for both sources on one set
of games; :func:`measure` reports a model on another (held-out seeds): the Brier score,
the expected calibration error over 10 equal-width bins with its reliability table, the
calibration slope, and the mean absolute error and mean bias of expected final scores by
stage (first, middle and last third of each game's decisions), beside the same figures
for the raw statistics (what the service answered before forecasts) and for a constant
forecast (the fitting games' mean final score and win rate).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from engine.forecast import (
    FORECAST_PLAYOUTS,
    INPUTS,
    SourceModel,
    banked_share,
    current_scores,
    expectation_of,
    logit,
    score_features,
)
from engine.game import Game, State
from engine.search._common import derive_seed
from engine.search.bots import LevelBot
from engine.search.estimate import estimate_scores
from tournaments.arena import play_game

#: The report's stages: positions by the fraction of the game's decisions made.
STAGES = ("first", "middle", "last")
#: Game-bootstrap resamples of the calibration slope's interval.
BOOTSTRAP_RESAMPLES = 200
#: Equal-width bins of the expected calibration error.
BINS = 10
#: Random playouts per sampled position: EstimateScores' default.
PLAYOUTS = FORECAST_PLAYOUTS
#: Segments of the banked share (:func:`engine.forecast.banked_share`) over which the
#: expected score's coefficients change, at most.
SEGMENTS = 5
#: The fewest fitting rows (a seat at a sampled position) per coefficient a segment keeps.
ROWS_PER_COEFFICIENT = 40


@dataclass(frozen=True)
class Sample:
    """One sampled decision: the seat to move and what its calls would have seen."""

    stage: int
    seat: int
    current: tuple[float, ...]
    root_wins: tuple[float, ...]
    root_scores: tuple[float, ...]
    best_wins: tuple[float, ...]
    best_scores: tuple[float, ...]
    playout_wins: tuple[float, ...]
    playout_scores: tuple[float, ...]


#: The per-seat series of a :class:`Sample`, in field order after ``stage`` and ``seat``.
_SERIES = ("current", "root_wins", "root_scores", "best_wins", "best_scores",
           "playout_wins", "playout_scores")


@dataclass(frozen=True)
class GameRecord:
    samples: tuple[Sample, ...]
    scores: tuple[float, ...]
    #: Win shares (ties split); solo: 1 if the target was reached, else 0.
    wins: tuple[float, ...]
    target: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        samples = tuple(Sample(int(s["stage"]), int(s["seat"]),
                               *(tuple(float(x) for x in s[name]) for name in _SERIES))
                        for s in data["samples"])
        return cls(samples, tuple(data["scores"]), tuple(data["wins"]), data["target"])


def _floats(xs: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(x) for x in xs)


class _SampledSeat:
    """A seat's level bot that, at every ``every``-th decision of the game (counted over
    every seat), keeps what the seat's calls would see (:class:`Sample`, stage 0)."""

    def __init__(self, bot: LevelBot, seat: int, decisions: list[int],
                 samples: list[tuple[int, Sample]], seed: int, g: int, every: int,
                 playouts: int) -> None:
        self.bot, self.seat, self.decisions, self.samples = bot, seat, decisions, samples
        self.name = bot.name
        self.seed, self.g, self.every, self.playouts = seed, g, every, playouts

    def choose(self, state: State, rng: random.Random) -> int:
        move = self.bot.choose(state, rng)
        at = self.decisions[0]
        self.decisions[0] += 1
        if at % self.every == 0:
            analysis = self.bot.last_analysis
            assert analysis is not None  # the bot has just searched
            best = next(m for m in analysis.moves if m.move == analysis.best_move)
            estimate = estimate_scores(state, self.seat, playouts=self.playouts,
                                       seed=derive_seed(self.seed, "playouts", self.g, at))
            self.samples.append((at, Sample(
                0, self.seat, _floats(current_scores(state, self.seat)),
                _floats(analysis.win_probability), _floats(analysis.expected_scores),
                _floats(best.win_probabilities), _floats(best.expected_scores),
                _floats(s.win_probability for s in estimate.seats),
                _floats(s.score_mean for s in estimate.seats))))
        return move


def record_game(game: Game, num_players: int, level: int, seed: int, g: int,
                options: Mapping[str, Any] | None, every: int,
                playouts: int = PLAYOUTS) -> GameRecord:
    """Play game ``g`` of ``seed`` between ``level:N`` bots (as the arena plays a game),
    sampling every ``every``-th decision (the first included)."""
    decisions = [0]
    raw: list[tuple[int, Sample]] = []
    seats = [_SampledSeat(LevelBot(level, seed=derive_seed(seed, "bot", g, i)), i, decisions,
                          raw, seed, g, every, playouts) for i in range(num_players)]
    state = game.new_game(derive_seed(seed, "deal", g), num_players, options)
    outcome, _ = play_game(state, seats, random.Random(derive_seed(seed, "game", g)))
    target = state.solo_target()
    if num_players == 1 and target is not None:
        wins: tuple[float, ...] = (1.0 if outcome.scores[0] >= target else 0.0,)
    else:
        wins = _floats(outcome.rewards)
    samples = tuple(
        Sample(**{**asdict(s), "stage": min(len(STAGES) - 1,
                                              len(STAGES) * at // max(1, decisions[0]))})
        for at, s in raw)
    return GameRecord(samples, _floats(outcome.scores), wins, target)


def record_game_by_name(name: str, num_players: int, level: int, seed: int, g: int,
                        options: Mapping[str, Any], every: int,
                        playouts: int = PLAYOUTS) -> GameRecord:
    """:func:`record_game` of the game named ``name`` (what a worker process is sent)."""
    from engine import registry

    return record_game(registry.get_game(name), num_players, level, seed, g, options,
                       every, playouts)


def record_games(game: Game, num_players: int, level: int, games: int, seed: int, *,
                 options: Mapping[str, Any] | None = None, every: int = 5,
                 playouts: int = PLAYOUTS, workers: int = 1, cluster: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 first: int = 0,
                 on_record: Callable[[int, GameRecord], None] | None = None
                 ) -> list[GameRecord]:
    """Record games ``first`` to ``games - 1`` (:func:`record_game`), in game order
    whoever ran them; ``on_record(g, record)`` hears of each game as it ends (to save
    it: a long run stopped keeps what it played)."""
    from engine.batch import run_in_order

    jobs = [(game.info.name, num_players, level, seed, g, dict(options or {}), every, playouts)
            for g in range(first, games)]
    records: list[GameRecord] = run_in_order(
        record_game_by_name, jobs, workers, cluster, progress,
        None if on_record is None else lambda g, record: on_record(first + g, record),
        in_process=lambda _name, *rest: record_game(game, *rest))
    return records


# -- fitting ------------------------------------------------------------------------------
def _source_stats(sample: Sample, source: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if source == "search":
        return sample.best_wins, sample.best_scores
    if source == "search_root":
        return sample.root_wins, sample.root_scores
    return sample.playout_wins, sample.playout_scores


def _source_name(source: str) -> str:
    return "search" if source.startswith("search") else "playouts"


def _series(sample: Sample, source: str) -> dict[str, Sequence[float]]:
    """The inputs of ``source``'s expected scores in ``sample`` (:data:`INPUTS`)."""
    series: dict[str, Sequence[float]] = {"playouts": sample.playout_scores,
                                          "current": sample.current}
    if _source_name(source) == "search":
        series["search"] = _source_stats(sample, source)[1]
    return series


def segment_edges(shares: Sequence[float], width: int,
                  segments: int = SEGMENTS) -> tuple[float, ...]:
    """Cuts of the banked shares into at most ``segments`` parts of equal counts, each
    keeping at least :data:`ROWS_PER_COEFFICIENT` rows per coefficient (``width``): a
    part too small is merged into its smaller neighbour."""
    least = ROWS_PER_COEFFICIENT * width
    k = max(1, min(segments, len(shares) // least))
    values = np.asarray(shares, dtype=float)
    edges = sorted({float(q) for q in np.quantile(values, [i / k for i in range(1, k)])}) \
        if k > 1 else []
    while edges:
        counts = np.bincount(np.searchsorted(edges, values, side="left"),
                             minlength=len(edges) + 1)
        smallest = int(counts.argmin())
        if counts[smallest] >= least:
            break
        if smallest == 0:
            edges.pop(0)
        elif smallest == len(edges) or counts[smallest - 1] <= counts[smallest + 1]:
            edges.pop(smallest - 1)
        else:
            edges.pop(smallest)
    return tuple(edges)


def fit_scores(records: Sequence[GameRecord], source: str, inputs: tuple[str, ...]
               ) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]:
    """Least squares of each seat's final score on its terms
    (:func:`engine.forecast.score_features` of ``inputs``), one row per seat and
    sample, in segments of the banked share: the segments' edges and one row of
    coefficients per segment."""
    expectation = expectation_of(inputs)
    rows: list[tuple[float, ...]] = []
    targets: list[float] = []
    shares: list[float] = []
    for record in records:
        for sample in record.samples:
            series = _series(sample, source)
            seat_rows = score_features([series[name] for name in inputs])
            rows.extend(seat_rows)
            targets.extend(record.scores)
            shares.extend([banked_share(series[expectation], sample.current)]
                          * len(seat_rows))
    design, y = np.asarray(rows), np.asarray(targets)
    edges = segment_edges(shares, design.shape[1])
    segment = np.searchsorted(edges, np.asarray(shares), side="left")
    score = []
    for i in range(len(edges) + 1):
        coef, *_ = np.linalg.lstsq(design[segment == i], y[segment == i], rcond=None)
        score.append(tuple(float(x) for x in coef))
    return edges, tuple(score)


def score_scale(records: Sequence[GameRecord]) -> float:
    """The spread (standard deviation) of the final scores, at least 1."""
    finals = [s for r in records for s in r.scores]
    return max(1.0, float(np.std(finals))) if finals else 1.0


def fit_wins(records: Sequence[GameRecord], source: str, inputs: tuple[str, ...],
             edges: tuple[float, ...], score: tuple[tuple[float, ...], ...], scale: float,
             l2: float = 1.0, steps: int = 50) -> tuple[tuple[float, float, float], ...]:
    """Maximum likelihood (Newton) of the win map (:class:`engine.forecast.SourceModel`)
    over the expected scores of ``inputs``, ``edges`` and ``score``, one ``(u, v, k)``
    per segment: a conditional logit over the seats with 2 or more, a logistic
    regression with one.  Each segment's coefficients see only its positions (they are
    fitted together as one model whose features are zero outside their segment)."""
    segments = len(edges) + 1
    partial = SourceModel(inputs, edges, score, ((1.0, 0.0, 0.0),) * segments, scale)
    solo = bool(records) and len(records[0].scores) == 1
    width = 3 * segments
    groups = []  # per sample: (features per seat [logit w, score term, 1] in its segment, outcome shares)
    for record in records:
        for sample in record.samples:
            wins, _ = _source_stats(sample, source)
            series = _series(sample, source)
            f = partial.expected_scores(series)
            n = len(f)
            if solo:
                aim = 0.0 if record.target is None else (f[0] - record.target) / scale
                terms = [[logit(wins[0]), aim, 1.0]]
            else:
                total = sum(f)
                terms = [[logit(wins[p]), (f[p] - (total - f[p]) / (n - 1)) / scale, 0.0]
                         for p in range(n)]
            at = 3 * partial.segment_of(series)
            feats = np.zeros((len(terms), width))
            feats[:, at:at + 3] = terms
            groups.append((feats, np.asarray(record.wins)))
    # Without positions a segment keeps u = 1 (the source's own shares): the penalty
    # pulls towards it, not towards a forecast of even chances.
    prior = np.tile([1.0, 0.0, 0.0], segments)

    def loglik(theta: np.ndarray) -> float:
        total = -0.5 * l2 * float((theta - prior) @ (theta - prior))
        for x, y in groups:
            z = x @ theta
            if solo:
                total += float(y @ z - np.logaddexp(0.0, z).sum())
            else:
                top = z.max()
                total += float(y @ z - y.sum() * (top + np.log(np.exp(z - top).sum())))
        return total

    theta = prior.copy()
    best = loglik(theta)
    for _ in range(steps):
        grad = -l2 * (theta - prior)
        hess = -l2 * np.eye(width)
        for x, y in groups:
            z = x @ theta
            if solo:
                p = 1.0 / (1.0 + np.exp(-z))
                grad += x.T @ (y - p)
                hess -= (x.T * (p * (1 - p))) @ x
            else:
                e = np.exp(z - z.max())
                p = e / e.sum()
                grad += x.T @ (y - p * y.sum())
                mean = p @ x
                hess -= y.sum() * ((x.T * p) @ x - np.outer(mean, mean))
        step = np.linalg.solve(hess, grad)
        # Newton's step, halved until the likelihood grows (it may overshoot where the
        # search's shares sit at 0 or 1 and the logit is clipped).
        for _ in range(30):
            trial = theta - step
            value = loglik(trial)
            if value >= best:
                break
            step = step / 2
        else:
            break
        theta, best = trial, value
        if float(np.abs(step).max()) < 1e-9:
            break
    # The intercept cancels in a conditional logit: it is 0 with 2 or more seats.
    return tuple((float(theta[i]), float(theta[i + 1]), float(theta[i + 2]) if solo else 0.0)
                 for i in range(0, width, 3))


def fit_source(records: Sequence[GameRecord], source: str,
               inputs: tuple[str, ...] | None = None) -> SourceModel:
    """``source``'s model fitted on ``records``, its expected scores reading ``inputs``
    (one of :data:`engine.forecast.INPUTS`; the first, without the position's
    playouts, by default)."""
    inputs = INPUTS[_source_name(source)][0] if inputs is None else inputs
    if inputs not in INPUTS[_source_name(source)]:
        raise ValueError(f"a {_source_name(source)} model reads one of "
                         f"{INPUTS[_source_name(source)]}, not {inputs}")
    edges, score = fit_scores(records, source, inputs)
    scale = score_scale(records)
    return SourceModel(inputs, edges, score,
                       fit_wins(records, source, inputs, edges, score, scale), scale)


# -- measuring ----------------------------------------------------------------------------
def reliability(predictions: Sequence[float], outcomes: Sequence[float],
                bins: int = BINS) -> list[dict[str, float]]:
    """Per equal-width bin of the predictions: how many, their mean and the outcomes' mean."""
    table = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(p, o) for p, o in zip(predictions, outcomes, strict=True)
                  if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        if inside:
            table.append({"low": lo, "high": hi, "count": len(inside),
                          "forecast": sum(p for p, _ in inside) / len(inside),
                          "observed": sum(o for _, o in inside) / len(inside)})
    return table


def ece(table: Sequence[Mapping[str, float]]) -> float:
    """The expected calibration error of a reliability table: the count-weighted mean
    gap between forecast and observed frequency."""
    total = sum(row["count"] for row in table)
    return sum(row["count"] * abs(row["forecast"] - row["observed"])
               for row in table) / total if total else 0.0


def calibration_slope(predictions: Sequence[float], outcomes: Sequence[float]) -> float:
    """The slope of a logistic regression of the outcome on the forecast's log-odds
    (1: calibrated spread; below 1: overconfident)."""
    x = np.asarray([logit(p) for p in predictions])
    y = np.asarray(outcomes, dtype=float)
    theta = np.zeros(2)
    design = np.stack([np.ones_like(x), x], axis=1)
    for _ in range(100):
        z = design @ theta
        p = 1.0 / (1.0 + np.exp(-z))
        grad = design.T @ (y - p) - 1e-6 * theta
        hess = -(design.T * (p * (1 - p))) @ design - 1e-6 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return float(theta[1])


@dataclass(frozen=True)
class Constant:
    """The constant forecast of the fitting games: their mean final score and win rate."""

    score: float
    win: float

    @classmethod
    def of(cls, records: Sequence[GameRecord]) -> Constant:
        finals = [s for r in records for s in r.scores]
        wins = [w for r in records for w in r.wins]
        return cls(sum(finals) / len(finals), sum(wins) / len(wins))


#: A forecast of one sample: its stage, the forecast's chances and scores, and how the
#: game ended (win shares, final scores).
_Row = tuple[int, list[float], list[float], Sequence[float], Sequence[float]]


def _forecasts(records: Sequence[GameRecord], source: str, model: SourceModel | None
               ) -> list[_Row]:
    out: list[_Row] = []
    for record in records:
        for sample in record.samples:
            wins, scores = _source_stats(sample, source)
            if model is None:
                f_wins, f_scores = list(wins), list(scores)
            else:
                f = model.forecast(wins, _series(sample, source), record.target)
                f_wins, f_scores = list(f.win_probabilities), list(f.expected_scores)
            out.append((sample.stage, f_wins, f_scores, record.wins, record.scores))
    return out


def slope_interval(per_game: Sequence[Sequence[_Row]],
                   resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
                   ) -> tuple[float, float]:
    """The 95% interval of the calibration slope by game bootstrap over each game's
    forecast rows (:func:`_forecasts`): the games are drawn again with replacement (a
    game's positions together, since they share its ending), ``resamples`` times with a
    fixed seed."""
    games = [([p for _, ws, _, _, _ in rows for p in ws],
              [o for _, _, _, os, _ in rows for o in os]) for rows in per_game]
    rng = random.Random(seed)
    slopes = []
    for _ in range(resamples):
        drawn = [games[rng.randrange(len(games))] for _ in games]
        slopes.append(calibration_slope([p for ps, _ in drawn for p in ps],
                                        [o for _, os in drawn for o in os]))
    low, high = np.percentile(slopes, [2.5, 97.5])
    return float(low), float(high)


def figures(records: Sequence[GameRecord], source: str, model: SourceModel | None,
            constant: Constant, interval: bool = False) -> dict[str, Any]:
    """Brier, ECE, slope and score errors of one forecast (``model`` None: the raw
    statistics) over every seat of every sample of ``records``; with ``interval``, the
    slope's (:func:`slope_interval`) too."""
    per_game = [_forecasts([record], source, model) for record in records]
    rows = [row for game in per_game for row in game]
    predictions = [p for _, ws, _, _, _ in rows for p in ws]
    outcomes = [o for _, _, _, os, _ in rows for o in os]
    table = reliability(predictions, outcomes)
    brier = sum((p - o) ** 2 for p, o in zip(predictions, outcomes, strict=True)) \
        / len(predictions)
    stages = []
    for stage, name in enumerate(STAGES):
        errors = [f - s for st, _, fs, _, ss in rows if st == stage
                  for f, s in zip(fs, ss, strict=True)]
        const = [constant.score - s for st, _, _, _, ss in rows if st == stage for s in ss]
        chances = [p for st, ws, _, _, _ in rows if st == stage for p in ws]
        happened = [o for st, _, _, os, _ in rows if st == stage for o in os]
        stages.append({"stage": name, "positions": sum(1 for r in rows if r[0] == stage),
                       "mae": _mean(abs(e) for e in errors), "bias": _mean(errors),
                       "mae_constant": _mean(abs(e) for e in const),
                       "ece": ece(reliability(chances, happened)) if chances else math.nan,
                       "slope": calibration_slope(chances, happened) if chances
                       else math.nan})
    errors = [f - s for _, _, fs, _, ss in rows for f, s in zip(fs, ss, strict=True)]
    result = {"ece": ece(table), "slope": calibration_slope(predictions, outcomes),
              "brier": brier, "score_mae": _mean(abs(e) for e in errors),
              "score_bias": _mean(errors), "stages": stages, "reliability": table}
    if interval:
        result["slope_interval"] = list(slope_interval(per_game))
    return result


def _mean(xs: Iterable[float]) -> float:
    values = list(xs)
    return sum(values) / len(values) if values else math.nan


def measure(records: Sequence[GameRecord], models: Mapping[str, SourceModel | None],
            constant: Constant) -> dict[str, Any]:
    """The calibration report of ``records`` (held-out games) for the forecasts the service
    answers (``models``: a fitted :class:`SourceModel` per source, or None) beside the raw
    statistics and the constant forecast.  The top-level keys describe BestMove's
    forecast; ``estimate`` EstimateScores'; ``*_playouts`` and ``raw`` today's figures."""
    search = figures(records, "search", models.get("search"), constant, interval=True)
    raw_search = figures(records, "search_root", None, constant)
    playouts = figures(records, "playouts", models.get("playouts"), constant)
    raw_playouts = figures(records, "playouts", None, constant)
    outcomes = [o for r in records for _ in r.samples for o in r.wins]
    brier_constant = sum((constant.win - o) ** 2 for o in outcomes) / len(outcomes)
    return {
        "games": len(records),
        "positions": sum(len(r.samples) for r in records),
        "ece": search["ece"], "slope": search["slope"],
        "slope_interval": search["slope_interval"],
        "brier": search["brier"],
        "brier_constant": brier_constant,
        "score_mae": search["score_mae"], "score_bias": search["score_bias"],
        "score_mae_playouts": raw_playouts["score_mae"],
        "score_mae_constant": _mean(abs(constant.score - s) for r in records
                                    for _ in r.samples for s in r.scores),
        "stages": search["stages"], "reliability": search["reliability"],
        "estimate": playouts, "raw_search": raw_search, "raw_playouts": raw_playouts,
        "constant": asdict(constant),
    }
