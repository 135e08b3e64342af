"""The seam between a search tree and its leaves: how a new position is valued.

MCTS and ISMCTS grow their trees by one node per iteration and then need a value
for the position reached, one per seat.  An :class:`Evaluator` supplies it
(OpenSpiel's MCTS has the same seam: ``Evaluator.evaluate(state)``, with a
``RandomRolloutEvaluator`` as the default).  Here ``evaluate(state, seed)`` returns an
:class:`~engine.game.Outcome` - final scores and win shares, or estimates of them -
and the tree turns it into what it backs up with
:func:`~engine.search._common.backup_values` (utilities, win shares, scores), so the
score-margin utility of the search configuration applies to every evaluator alike.

Two evaluators:

* :class:`RolloutEvaluator` (the default, :data:`FULL_PLAYOUT`): a random playout to
  the end through ``State.rollout(seed)``, which a compiled kernel runs in C.  The
  trees recognise it and call ``state.rollout`` inline, so the default costs nothing
  over the search before the seam existed and gives exactly the same results.
* :class:`TruncatedPlayoutEvaluator`: at most ``depth`` random moves (chance outcomes
  included, each counts as one move), drawn from the same SplitMix64 stream as
  ``rollout`` (so a kernel twin and the reference rules still agree), then the position
  is valued by ``State.heuristic()`` (:func:`heuristic_outcome`): the *scores* are the
  heuristic values, the *win share* goes to the heuristic leader(s), and with a
  margin scale the *utility* is the logistic of the seat's heuristic margin over its
  best opponent.  A playout that ends sooner returns the real outcome.

A third, :class:`LearnedEvaluator`: the truncated playout, then a fitted linear value
of the game's features (``State.features()``, a :class:`ValueModel` read from a model
file that ``furnace fit-value`` writes) in place of ``heuristic()``; see
docs/learned-values.md.

A fourth, :class:`~engine.search.mast.MastEvaluator` (``SearchConfig.mast_epsilon``),
plays its playouts, full or truncated alike, by the moves that have done well so far in
the search (MAST) instead of uniformly.

Why truncate: in a long game (hundreds of decisions per random playout, in pure
Python) a full playout costs most of an iteration and says little - random moves
over a whole game rank players mostly by luck.  A few random moves followed by the
game's own judgement of the position is cheaper and, when the heuristic is sound,
less noisy.  The heuristic is then what the search trusts, so a game should only be
given a playout depth (:mod:`engine.search.config`) when its ``heuristic()`` is in
the units of its score (the margin scale is read against it) and has been measured
against full playouts.  Win shares of the heuristic leader are all-or-nothing, so a
truncated search is normally combined with a margin scale.

An evaluator receives the iteration's own copy of the position (it may play on it:
the tree does not look at it again) and a 64-bit seed drawn from the search's
generator; it must draw its randomness from that seed only, so that a search with a
fixed seed stays reproducible.

:func:`prior_utility` values a position once, without playing on, for the trees'
progressive bias (``SearchConfig.prior_weight``): the trees are UCT, not PUCT, so the
prior is a value of the new child rather than OpenSpiel's move probabilities.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from engine.game import TERMINAL, Outcome, State, play_random_moves
from engine.search._common import Solo, _logistic, backup_values

#: Heuristic values closer than this to the best count as a tie for the lead.
LEAD_TOLERANCE = 1e-9


@runtime_checkable
class Evaluator(Protocol):
    """Values a leaf of the search tree for every seat."""

    def evaluate(self, state: State, seed: int) -> Outcome:
        """Scores and win shares (or estimates of them) of ``state``, one per seat.

        ``state`` is the iteration's scratch copy (it may be changed); all randomness
        must flow from ``seed``.  The win shares should add up to 1.
        """
        ...


class RolloutEvaluator:
    """A random playout to the end: ``state.rollout(seed)`` (the default evaluator)."""

    __slots__ = ()

    def evaluate(self, state: State, seed: int) -> Outcome:
        return state.rollout(seed)

    def compiled_leaf(self, search_state: object) -> tuple[Any, ...] | None:
        """How the compiled search core values a leaf as this evaluator does (see
        :mod:`engine.search.compiled`), or None: every evaluator the core knows describes
        itself so, and only for its own class (a subclass may evaluate otherwise, so its
        searches keep the Python tree unless it describes itself)."""
        return ("rollout",) if type(self) is RolloutEvaluator else None

    def __repr__(self) -> str:
        return "RolloutEvaluator()"

    def __eq__(self, other: object) -> bool:
        return type(other) is RolloutEvaluator

    def __hash__(self) -> int:
        return hash(RolloutEvaluator)


#: The default evaluator: full random playouts.
FULL_PLAYOUT = RolloutEvaluator()


def heuristic_outcome(state: State) -> Outcome:
    """``state`` valued by ``State.heuristic()``: the values as scores, the win
    shared by the seats whose value is highest (within :data:`LEAD_TOLERANCE`).

    >>> from engine.game import Outcome
    >>> class Board:
    ...     def heuristic(self): return [3.0, 7.5, 7.5]
    >>> heuristic_outcome(Board())  # doctest: +NORMALIZE_WHITESPACE
    Outcome(scores=(3.0, 7.5, 7.5), rewards=(0.0, 0.5, 0.5))
    """
    return values_outcome(state.heuristic())


def values_outcome(estimates: Sequence[float]) -> Outcome:
    """Estimated values as an outcome: the values as scores, the win shared by the
    seats whose value is highest (within :data:`LEAD_TOLERANCE`)."""
    values = tuple(float(v) for v in estimates)
    best = max(values)
    leaders = [v >= best - LEAD_TOLERANCE for v in values]
    share = 1.0 / sum(leaders)
    return Outcome(values, tuple(share if lead else 0.0 for lead in leaders))


def prior_utility(state: State, seat: int, scale: float | None,
                  solo: Solo | None = None) -> float:
    """``seat``'s utility of ``state`` by the game's cheap evaluation, the prior of
    progressive bias: the real outcome once the game is over, else
    :func:`heuristic_outcome`, turned into a utility by
    :func:`~engine.search._common.backup_values` (``scale``: the configuration's
    ``prior_scale``, falling back to its ``margin_scale``).

    >>> class Board:
    ...     def current_player(self): return 0
    ...     def heuristic(self): return [10.0, 7.0]
    >>> round(prior_utility(Board(), 0, 3.0), 3), prior_utility(Board(), 1, None)
    (0.731, 0.0)
    """
    if state.current_player() == TERMINAL or solo is not None or scale is None:
        outcome = state.outcome() if state.current_player() == TERMINAL \
            else heuristic_outcome(state)
        return backup_values(outcome, scale, solo)[seat]
    # The common case, on the search's hot path: backup_values' margin utility for one
    # seat, without building an Outcome.
    values = state.heuristic()
    rival = max(v for other, v in enumerate(values) if other != seat)
    return _logistic((rival - values[seat]) / scale)


class TruncatedPlayoutEvaluator:
    """Up to ``depth`` random moves, then :func:`heuristic_outcome` (see the module
    docstring); the real outcome when the game ends first.  A state with a
    ``random_playout(seed, max_moves)`` method (a kernel twin) plays the moves itself:
    the moves of the Python loop, drawn from the same stream."""

    __slots__ = ("depth",)

    def __init__(self, depth: int) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"playout depth must be a positive integer, not {depth!r}")
        self.depth = depth

    def evaluate(self, state: State, seed: int) -> Outcome:
        fast = getattr(state, "random_playout", None)
        if fast is not None:
            fast(seed, self.depth)  # a kernel twin's loop in C, drawing the same moves
        else:
            play_random_moves(state, seed, self.depth)
        if state.current_player() == TERMINAL:
            return state.outcome()
        return heuristic_outcome(state)

    def compiled_leaf(self, search_state: object) -> tuple[Any, ...] | None:
        """The compiled core's description (:meth:`RolloutEvaluator.compiled_leaf`)."""
        return ("truncated", self.depth) if type(self) is TruncatedPlayoutEvaluator \
            else None

    def __repr__(self) -> str:
        return f"TruncatedPlayoutEvaluator({self.depth})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TruncatedPlayoutEvaluator) and other.depth == self.depth

    def __hash__(self) -> int:
        return hash((TruncatedPlayoutEvaluator, self.depth))


def playout_evaluator(depth: int) -> Evaluator:
    """Full playouts for ``depth == 0``, truncated ones after ``depth`` moves otherwise."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"playout depth must be a non-negative integer, not {depth!r}")
    return FULL_PLAYOUT if depth == 0 else TruncatedPlayoutEvaluator(depth)


#: The format name and version of a value model file.
MODEL_FORMAT = "furnace-value-model"
MODEL_VERSION = 2
#: Versions a model file may have: 1 has no ``level_weights`` (its scores' level is then
#: the heuristic's).
MODEL_VERSIONS = (1, 2)


class ValueModel:
    """A linear value per seat: ``weights . features(seat)``, in the units of the
    score (it is fitted to final score margins, so differences between seats are
    predicted margins), and optionally the scores' level: ``level_weights``, one per
    feature and then a constant, applied to the seats' mean feature vector, predict
    the seats' mean final score.  ``meta`` keeps what made it (game, command, seed,
    figures)."""

    __slots__ = ("game", "feature_names", "weights", "level_weights", "meta")

    def __init__(self, game: str, feature_names: Sequence[str], weights: Sequence[float],
                 meta: Mapping[str, Any] | None = None,
                 level_weights: Sequence[float] | None = None) -> None:
        if len(feature_names) != len(weights):
            raise ValueError(f"{len(weights)} weights for {len(feature_names)} features")
        if level_weights is not None and len(level_weights) != len(weights) + 1:
            raise ValueError(f"{len(level_weights)} level weights for {len(weights)} "
                             f"features and a constant")
        self.game = game
        self.feature_names = tuple(feature_names)
        self.weights = tuple(float(w) for w in weights)
        self.level_weights = None if level_weights is None else \
            tuple(float(w) for w in level_weights)
        self.meta = dict(meta or {})

    def values(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        """The value of each seat's feature vector."""
        out = []
        for vector in vectors:
            if len(vector) != len(self.weights):
                raise ValueError(f"a vector of {len(vector)} features for a model of "
                                 f"{len(self.weights)} ({self.game})")
            out.append(sum(w * x for w, x in zip(self.weights, vector, strict=True)))
        return out

    def level(self, vectors: Sequence[Sequence[float]]) -> float | None:
        """The predicted mean final score of the seats whose feature vectors these are,
        or None for a model without a level."""
        if self.level_weights is None:
            return None
        count = len(vectors)
        level = 0.0
        for j, weight in enumerate(self.level_weights[:-1]):
            total = 0.0
            for vector in vectors:  # summed by seat, as the compiled tree does
                total += vector[j]
            level += weight * (total / count)
        return level + self.level_weights[-1]

    def to_json(self) -> dict[str, Any]:
        level = {} if self.level_weights is None else {"level_weights": list(self.level_weights)}
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION if level else 1,
                "game": self.game, "features": list(self.feature_names),
                "weights": list(self.weights), **level,
                **({"made_by": self.meta} if self.meta else {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ValueModel:
        if data.get("format") != MODEL_FORMAT or data.get("version") not in MODEL_VERSIONS:
            raise ValueError(f"not a {MODEL_FORMAT} of version "
                             f"{' or '.join(map(str, MODEL_VERSIONS))}: "
                             f"{data.get('format')!r} {data.get('version')!r}")
        return cls(data["game"], data["features"], data["weights"], data.get("made_by"),
                   data.get("level_weights"))

    @classmethod
    def load(cls, path: str | Path) -> ValueModel:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ValueModel) and other.game == self.game
                and other.feature_names == self.feature_names and other.weights == self.weights
                and other.level_weights == self.level_weights)

    def __hash__(self) -> int:
        return hash((self.game, self.feature_names, self.weights, self.level_weights))


def learned_scores(model: ValueModel, state: State) -> list[float]:
    """Each seat's estimated final score in ``state``: the model's values, which are
    fitted to margins between seats and so say nothing of the scores' level (that fit
    has no intercept), moved together to the model's level (its fit of the seats' mean
    final score), or for a model without one to the level of ``State.heuristic()``:
    the seats' mean is the level, their differences the model's.  Margins, leaders and
    so every search decision are the margins' alone; the scores an analysis reports
    stay in the game's points."""
    vectors = state.features()
    values = model.values(vectors)
    mean_value = 0.0
    for value in values:  # summed in order, as the compiled tree does
        mean_value += value
    level = model.level(vectors)
    if level is not None:
        shift = level - mean_value / len(values)
    else:
        total = 0.0
        for seat_level in state.heuristic():
            total += seat_level
        shift = total / len(values) - mean_value / len(values)
    return [value + shift for value in values]


class LearnedEvaluator:
    """Up to ``depth`` random moves (as :class:`TruncatedPlayoutEvaluator`), then the
    model's values of the features as scores (:func:`learned_scores`), the win to the
    leader(s); the real outcome when the game ends first."""

    __slots__ = ("depth", "model")

    def __init__(self, depth: int, model: ValueModel) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"playout depth must be a non-negative integer, not {depth!r}")
        self.depth = depth
        self.model = model

    def evaluate(self, state: State, seed: int) -> Outcome:
        if self.depth:
            fast = getattr(state, "random_playout", None)
            if fast is not None:
                fast(seed, self.depth)
            else:
                play_random_moves(state, seed, self.depth)
        if state.current_player() == TERMINAL:
            return state.outcome()
        return values_outcome(learned_scores(self.model, state))

    def compiled_leaf(self, search_state: object) -> tuple[Any, ...] | None:
        """The compiled core's description (:meth:`RolloutEvaluator.compiled_leaf`): the
        depth and the model's weights, over the kernel's features."""
        if type(self) is not LearnedEvaluator:
            return None
        return ("learned", self.depth, self.model.weights, self.model.level_weights or ())

    def __repr__(self) -> str:
        return f"LearnedEvaluator({self.depth}, {self.model.game})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LearnedEvaluator) and other.depth == self.depth
                and other.model == self.model)

    def __hash__(self) -> int:
        return hash((LearnedEvaluator, self.depth, self.model))
