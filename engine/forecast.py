"""Forecasts: each seat's chance of winning and expected final score, fitted to how games end.

A search's root statistics describe its own continuations (random or truncated
playouts, a leaf value), not how a game between strong players ends: their win shares
are overconfident and their mean scores biased.  A *forecast* of a position, from one
seat's view, is for every seat the probability of winning (ties split; a game of one
seat with a target: of reaching it) and the expected final score if the game is
finished by the strongest level's play.  It maps the statistics a search or random
playouts answer to those two numbers with a small model fitted per game and player
count on self-play of the strongest level (``furnace calibration --fit``), and shipped
beside the game's rules as ``forecast-model.json``.

The inputs are what the asking seat may know: the statistics of a search (or of
playouts) run from its information, the position's random playouts from the same
information (what EstimateScores answers: a search's figures alone describe the end
of a game worse than playouts to its end do), and each seat's score so far as a
determinization of its view shows it.

* The expected final score of a seat ``p`` is linear in 1 and, for every input
  series (the search's mean scores, the playouts' and the scores so far), ``x_p`` and
  the mean of the other seats' ``x`` (least squares).  Its coefficients change with
  how far the game has gone, read as the *banked share*: the scores so far over the
  final scores the playouts expect; a few segments of it, cut at quantiles of the
  fitting positions, each have their own coefficients.
* With 2 or more seats, the chance of winning is a conditional logit over the seats,
  ``exp(z_p) / sum_q exp(z_q)`` with ``z_p = u * logit(w_p) + v * (f_p - mean of the
  others' f_q) / scale`` (``w_p``: the source's win share, ``f``: the forecast scores),
  so the chances always sum to 1.
* With one seat and a target, ``1 / (1 + exp(-(u * logit(w) + v * (f - target) / scale
  + k)))``.
* ``u``, ``v`` and ``k`` belong to the same segments of the banked share: a lead of 10
  points says more near the end than at the start, and one map for the whole game was
  overconfident early and timid late in every game.

A position's forecast is its recommended move's: the move a search answers is the move
its forecast describes, so a hint's headline is never below a move it lists.

>>> model = SourceModel(inputs=("playouts", "current"), edges=(),
...                     score=((1.0, 0.5, 0.0, 0.5, 0.0),), win=((1.0, 0.0, 0.0),),
...                     scale=10.0)
>>> [round(x, 3) for x in model.expected_scores({"playouts": [10.0, 20.0],
...                                              "current": [10.0, 20.0]})]
[11.0, 21.0]
>>> [round(x, 3) for x in model.win_probabilities([0.25, 0.75], [11.0, 21.0], None)]
[0.1, 0.9]
"""

from __future__ import annotations

import bisect
import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

from engine.game import FurnaceError, State

#: The file a game package ships its forecast models in.
MODEL_FILE = "forecast-model.json"
#: The format of that file.
MODEL_VERSION = 3
#: The formats read: version 2 had one win map for every segment.
READABLE_VERSIONS = (2, MODEL_VERSION)
#: The statistics a forecast can be made from: a search's (BestMove, Analyze, hints,
#: reviews) and random playouts' (EstimateScores).
SOURCES = ("search", "playouts")
#: Win shares are clipped into [EPSILON, 1 - EPSILON] before their logit.
EPSILON = 1e-3


class ForecastModelError(FurnaceError, ValueError):
    """A forecast model file that is not one (a shipped file is checked by the tests)."""


def logit(p: float) -> float:
    """The log-odds of ``p`` clipped into [EPSILON, 1 - EPSILON]."""
    p = min(max(p, EPSILON), 1.0 - EPSILON)
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def softmax(z: Sequence[float]) -> list[float]:
    top = max(z)
    e = [math.exp(x - top) for x in z]
    total = sum(e)
    return [x / total for x in e]


#: What each source's expected final score may be computed from, per seat: the
#: source's own mean scores and the scores so far; a search's, with the position's
#: random playouts too (EstimateScores' own means), where the search's statistics alone
#: describe the end of a game worse than playouts to its end do (Samara: its model file
#: says which).
INPUTS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "search": (("search", "current"), ("search", "playouts", "current")),
    "playouts": (("playouts", "current"),)}
#: Random playouts of the position that a search's forecast reads (EstimateScores'
#: default count: the models were fitted on that many).
FORECAST_PLAYOUTS = 200
#: The most of a call's time those playouts may take, run before its search (fewer
#: playouts on a short budget; the rest of the time searches).
PLAYOUT_SHARE = 0.25
#: The banked share (:func:`banked_share`) is clipped into [0, BANKED_MAX].
BANKED_MAX = 1.5


def score_features(series: Sequence[Sequence[float]]) -> list[tuple[float, ...]]:
    """Each seat's terms of its expected final score: 1, then for every series (one value
    per seat) the seat's value and the mean of the other seats' (0 alone)."""
    n = len(series[0])
    rows = []
    for p in range(n):
        row = [1.0]
        for values in series:
            row.append(float(values[p]))
            row.append((sum(values) - values[p]) / (n - 1) if n > 1 else 0.0)
        rows.append(tuple(row))
    return rows


def expectation_of(inputs: Sequence[str]) -> str:
    """The input a model's banked share divides by: the playouts' if it reads them, else
    the source's own (the first)."""
    return "playouts" if "playouts" in inputs else inputs[0]


def banked_share(expected: Sequence[float], current: Sequence[float]) -> float:
    """How far the game has gone, as any game can say it: the scores so far over the
    final scores the playouts (or else the source) expect, summed over the seats,
    clipped into [0, :data:`BANKED_MAX`].  The expected score's coefficients change
    with it."""
    total = sum(expected)
    if total <= 0:
        return 0.0
    return min(max(sum(current) / total, 0.0), BANKED_MAX)


@dataclass(frozen=True)
class SourceModel:
    """The fitted map of one source of statistics, for one game and player count.

    ``inputs`` names the series the expected final score reads (:data:`INPUTS`: the
    first is the source's own);
    ``edges`` split the banked share (:func:`banked_share`) into segments, and
    ``score`` holds one row of coefficients per segment over :func:`score_features`;
    ``win`` one row ``(u, v, k)`` per segment of the chance of winning (``k`` is used
    with one seat only), ``scale`` the spread of final scores that divides score
    differences.
    """

    inputs: tuple[str, ...]
    edges: tuple[float, ...]
    score: tuple[tuple[float, ...], ...]
    win: tuple[tuple[float, float, float], ...]
    scale: float

    @property
    def expectation(self) -> str:
        """The input the banked share divides by (:func:`expectation_of`)."""
        return expectation_of(self.inputs)

    @property
    def reads_playouts(self) -> bool:
        """Whether a search's forecast with this model needs the position's playouts."""
        return self.inputs[0] != "playouts" and "playouts" in self.inputs

    def segment(self, banked: float) -> int:
        """The segment of a banked share: the number of edges below it."""
        return bisect.bisect_left(self.edges, banked)

    def segment_of(self, series: Mapping[str, Sequence[float]]) -> int:
        """The segment of the position ``series`` describe (its banked share's)."""
        return self.segment(banked_share(series[self.expectation], series["current"]))

    def expected_scores(self, series: Mapping[str, Sequence[float]]) -> list[float]:
        """Every seat's expected final score from ``series`` (a value per seat for each
        of :attr:`inputs`)."""
        coefficients = self.score[self.segment_of(series)]
        return [sum(w * x for w, x in zip(coefficients, row, strict=True))
                for row in score_features([series[name] for name in self.inputs])]

    def win_probabilities(self, source_wins: Sequence[float], forecast_scores: Sequence[float],
                          target: float | None, segment: int = 0) -> list[float]:
        """Every seat's chance of winning (one seat: of reaching ``target``) with the
        win map of ``segment``."""
        u, v, k = self.win[segment]
        n = len(source_wins)
        if n == 1:
            aim = 0.0 if target is None else (forecast_scores[0] - target) / self.scale
            return [sigmoid(u * logit(source_wins[0]) + v * aim + k)]
        total = sum(forecast_scores)
        z = [u * logit(w) + v * (f - (total - f) / (n - 1)) / self.scale
             for w, f in zip(source_wins, forecast_scores, strict=True)]
        return softmax(z)

    def forecast(self, source_wins: Sequence[float], series: Mapping[str, Sequence[float]],
                 target: float | None) -> Forecast:
        scores = self.expected_scores(series)
        return Forecast(tuple(self.win_probabilities(source_wins, scores, target,
                                                     self.segment_of(series))),
                        tuple(scores))

    def to_json(self) -> dict[str, Any]:
        return {"inputs": list(self.inputs), "edges": list(self.edges),
                "score": [list(row) for row in self.score], "win": [list(row) for row in self.win],
                "scale": self.scale}

    @classmethod
    def from_json(cls, data: Any) -> SourceModel:
        try:
            inputs = tuple(str(x) for x in data["inputs"])
            edges = tuple(float(x) for x in data["edges"])
            score = tuple(tuple(float(x) for x in row) for row in data["score"])
            win = tuple(tuple(float(x) for x in row) for row in data["win"])
            scale = float(data["scale"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ForecastModelError(f"a source model needs inputs, edges, score, win and "
                                     f"scale: {exc}") from exc
        known = sorted({i for options in INPUTS.values() for i in options})
        if inputs not in known:
            raise ForecastModelError(f"a source model reads one of {known}, not {list(inputs)}")
        width = 1 + 2 * len(inputs)
        numbers = (*edges, *(x for row in (*score, *win) for x in row), scale)
        if len(score) != len(edges) + 1 or any(len(row) != width for row in score) \
                or len(win) != len(edges) + 1 or any(len(row) != 3 for row in win) \
                or list(edges) != sorted(edges) or not scale > 0 \
                or not all(math.isfinite(x) for x in numbers):
            raise ForecastModelError(
                f"a source model has ascending edges, one row of {width} score coefficients "
                f"and one of 3 win coefficients per segment, and a positive scale, all "
                f"finite")
        return cls(inputs, edges, score, win, scale)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Forecast:
    """Every seat's chance of winning (or of reaching the target) and expected final score."""

    win_probabilities: tuple[float, ...]
    expected_scores: tuple[float, ...]


@dataclass(frozen=True)
class PlayerCountModel:
    """A game's forecast models for one player count, with how they were made."""

    players: int
    sources: Mapping[str, SourceModel]
    #: The command that fitted them, the games' seeds and their held-out figures.
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"sources": {name: m.to_json() for name, m in self.sources.items()},
                "provenance": dict(self.provenance)}


@dataclass(frozen=True)
class ForecastModel:
    """A game's forecast models by player count (:data:`MODEL_FILE`)."""

    game: str
    counts: Mapping[int, PlayerCountModel]

    def source(self, players: int, source: str) -> SourceModel | None:
        entry = self.counts.get(players)
        return None if entry is None else entry.sources.get(source)

    def to_json(self) -> dict[str, Any]:
        return {"version": MODEL_VERSION, "game": self.game,
                "players": {str(n): m.to_json() for n, m in sorted(self.counts.items())}}

    @classmethod
    def from_json(cls, data: Any) -> ForecastModel:
        if not isinstance(data, dict) or data.get("version") not in READABLE_VERSIONS:
            raise ForecastModelError(f"a forecast model file has version {MODEL_VERSION} "
                                     f"(or {READABLE_VERSIONS[0]}, read as one)")
        counts = {}
        for key, entry in dict(data.get("players", {})).items():
            try:
                players = int(key)
                sources = {name: SourceModel.from_json(
                               m if data["version"] == MODEL_VERSION else _one_win_map(m))
                           for name, m in dict(entry["sources"]).items()}
            except (KeyError, TypeError, ValueError) as exc:
                raise ForecastModelError(f"players {key!r}: {exc}") from exc
            unknown = set(sources) - set(SOURCES)
            if unknown:
                raise ForecastModelError(f"players {key}: unknown sources {sorted(unknown)}")
            for name, m in sources.items():
                if m.inputs not in INPUTS[name]:
                    raise ForecastModelError(
                        f"players {key}: the {name} model reads one of "
                        f"{[list(i) for i in INPUTS[name]]}, not {list(m.inputs)}")
            counts[players] = PlayerCountModel(players, sources,
                                               dict(entry.get("provenance", {})))
        return cls(str(data.get("game", "")), counts)


def _one_win_map(source: Any) -> Any:
    """A version 2 source model (one win map for the whole game) as version 3 has it:
    the same map in every segment."""
    if not isinstance(source, dict) or not isinstance(source.get("edges"), list):
        return source  # SourceModel.from_json says what is wrong
    return {**source, "win": [source.get("win")] * (len(source["edges"]) + 1)}


def game_package(game_name: str) -> str:
    return "engine." + game_name.replace("-", "_")


def model_file(game_name: str) -> Any:
    """Where ``game_name``'s package keeps its forecast models (:data:`MODEL_FILE`)."""
    return resources.files(game_package(game_name)).joinpath(MODEL_FILE)


@cache
def shipped_model(game_name: str) -> ForecastModel:
    """The forecast models shipped with ``game_name``'s package (none fitted: empty)."""
    path = model_file(game_name)
    if not path.is_file():
        return ForecastModel(game_name, {})
    return ForecastModel.from_json(json.loads(path.read_text(encoding="utf-8")))


def _game_name(state: State) -> str:
    return state.info.name


def current_scores(state: State, observer: int | None) -> list[float]:
    """Each seat's score so far as ``observer`` sees it: the scores of one determinization
    of its view (a seeded one: equal views give equal scores, and where a score hides
    nothing every determinization shows the same)."""
    if state.is_terminal():
        return [float(x) for x in state.scores()]
    world = state.determinize(observer, random.Random(0))
    return [float(x) for x in world.scores()]


def identity_forecast(wins: Sequence[float], scores: Sequence[float]) -> Forecast:
    return Forecast(tuple(float(x) for x in wins), tuple(float(x) for x in scores))


def forecaster(state: State, source: str) -> SourceModel | None:
    """The fitted model of ``source`` for ``state``'s game and player count, if shipped."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    return shipped_model(_game_name(state)).source(state.num_players, source)


def playouts_for(iterations: int | None) -> int:
    """How many random playouts a search of ``iterations`` (None: a time budget) has its
    forecast read: :data:`FORECAST_PLAYOUTS`, or fewer for a small search, whose
    playouts cost at most :data:`PLAYOUT_SHARE` of its iterations (a 30-iteration
    search does not pay for 200 playouts)."""
    if iterations is None:
        return FORECAST_PLAYOUTS
    return max(1, min(FORECAST_PLAYOUTS, math.ceil(iterations * PLAYOUT_SHARE)))


def position_playouts(state: State, observer: int | None, seed: int,
                      should_stop: Callable[[], bool] | None = None,
                      count: int = FORECAST_PLAYOUTS) -> list[float]:
    """Every seat's mean final score over ``count`` random playouts of ``state`` as
    ``observer`` sees it: what EstimateScores answers as ``playout_score_mean`` with
    the same seed and count (the ``playouts`` input of a search's forecast).
    ``should_stop`` may cut them short (fewer playouts, the same means' meaning)."""
    from engine.search.estimate import estimate_scores  # the search imports this module

    estimate = estimate_scores(state, observer, playouts=count, seed=seed,
                               should_stop=should_stop)
    return [seat.score_mean for seat in estimate.seats]


def playouts_within(state: State, observer: int | None, seed: int, iterations: int | None,
                    time_limit: float | None,
                    should_stop: Callable[[], bool] | None = None
                    ) -> tuple[list[float], float | None]:
    """The random playouts a search of ``iterations`` in ``time_limit`` seconds (either
    may be None) has its forecast read, run before it: :func:`playouts_for` of them,
    stopped at :data:`PLAYOUT_SHARE` of the time or by ``should_stop``.  Returns their
    means and the seconds left of ``time_limit`` for the search (None without one)."""
    started = time.monotonic()
    end = None if time_limit is None else started + time_limit * PLAYOUT_SHARE

    def stop() -> bool:
        if end is not None and time.monotonic() >= end:
            return True
        return should_stop is not None and should_stop()

    playouts = position_playouts(state, observer, seed, stop, count=playouts_for(iterations))
    if time_limit is None:
        return playouts, None
    return playouts, max(time_limit - (time.monotonic() - started), 1e-3)


def forecast_from(state: State, observer: int | None, source: str,
                  wins: Sequence[float], scores: Sequence[float],
                  model: SourceModel | None = None,
                  current: Sequence[float] | None = None,
                  playouts: Sequence[float] | None = None, seed: int = 0,
                  playout_count: int = FORECAST_PLAYOUTS) -> Forecast:
    """The forecast of ``state`` from ``source``'s win shares and mean scores per seat.

    A search's forecast also reads the position's random playouts (``playouts``, from
    :func:`position_playouts`; run here with ``seed`` when not given).  A finished game
    forecasts its result; a game or player count without a fitted model forecasts the
    statistics themselves (and says so: :func:`is_fitted`).
    """
    if state.is_terminal():
        outcome = state.outcome()
        target = state.solo_target()
        if state.num_players == 1 and target is not None:
            reached = 1.0 if outcome.scores[0] >= target else 0.0
            return Forecast((reached,), (float(outcome.scores[0]),))
        return identity_forecast(outcome.rewards, outcome.scores)
    model = model if model is not None else forecaster(state, source)
    if model is None:
        return identity_forecast(wins, scores)
    now = current if current is not None else current_scores(state, observer)
    series = {"current": now, source: scores}
    if model.reads_playouts:
        series["playouts"] = playouts if playouts is not None \
            else position_playouts(state, observer, seed, count=playout_count)
    return model.forecast(wins, series, state.solo_target())


def needs_playouts(state: State, source: str) -> bool:
    """Whether ``source``'s forecast of ``state`` reads the position's random playouts
    (:func:`position_playouts`): a search's, before the end, where its model says so."""
    if source == "playouts" or state.is_terminal():
        return False
    model = forecaster(state, source)
    return model is not None and model.reads_playouts


def is_fitted(state: State, source: str) -> bool:
    """Whether ``state``'s game ships a forecast model of ``source`` for its player count."""
    return forecaster(state, source) is not None


def forecast_analysis(state: State, analysis: Any, observer: int | None = None,
                      source: str = "search", *, playouts: Sequence[float] | None = None,
                      seed: int = 0) -> Any:
    """``analysis`` (an :class:`engine.search.Analysis` of ``state``) with forecasts.

    Every move's ``win_probabilities``/``win_probability``/``expected_scores`` become its
    forecast and the position's become the best move's; the search's own figures move to
    ``search_win_probabilities``/``search_expected_scores`` (the same names on the
    analysis and on each move).  An analysis already forecast is returned as it is.
    ``source`` names the map: ``"search"`` for the game's own search, ``"playouts"`` for
    a search whose leaves are uniformly random playouts to the end (a review's,
    ``ReviewSettings.forecast_source``).  A search's forecast reads the position's
    random playouts: ``playouts`` (:func:`position_playouts`), or run here with ``seed``
    (as many as :func:`playouts_for` the search's iterations).
    """
    if analysis.search_win_probabilities is not None:
        return analysis
    model = forecaster(state, source)
    now = None
    if model is not None and not state.is_terminal():
        now = current_scores(state, observer)
        if playouts is None and needs_playouts(state, source):
            playouts = position_playouts(state, observer, seed,
                                         count=playouts_for(analysis.iterations))
    moves = []
    best = None
    for m in analysis.moves:
        f = forecast_from(state, observer, source, m.win_probabilities, m.expected_scores,
                          model, now, playouts)
        moved = replace(m, win_probabilities=f.win_probabilities,
                        win_probability=f.win_probabilities[analysis.player]
                        if 0 <= analysis.player < len(f.win_probabilities) else m.win_probability,
                        expected_scores=f.expected_scores,
                        search_win_probabilities=tuple(m.win_probabilities),
                        search_expected_scores=tuple(m.expected_scores))
        moves.append(moved)
        if m.move == analysis.best_move and best is None:
            best = f
    if best is None:
        best = forecast_from(state, observer, source, analysis.win_probability,
                             analysis.expected_scores, model, now, playouts)
    return replace(analysis, win_probability=best.win_probabilities,
                   expected_scores=best.expected_scores, moves=moves,
                   search_win_probabilities=tuple(analysis.win_probability),
                   search_expected_scores=tuple(analysis.expected_scores))


def forecast_estimate(state: State, estimate: Any) -> Any:
    """``estimate`` (an :class:`engine.search.Estimate` of ``state``) with forecasts: each
    seat's ``win_probability`` and ``score_mean`` become the forecast from the playouts,
    whose own figures move to ``playout_win_share`` and ``playout_score_mean``."""
    seats = estimate.seats
    if not seats or seats[0].playout_win_share is not None:
        return estimate
    f = forecast_from(state, estimate.observer, "playouts",
                      [s.win_probability for s in seats], [s.score_mean for s in seats])
    return replace(estimate, seats=tuple(
        replace(s, win_probability=f.win_probabilities[i], score_mean=f.expected_scores[i],
                playout_win_share=s.win_probability, playout_score_mean=s.score_mean)
        for i, s in enumerate(seats)))
