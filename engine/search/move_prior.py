"""Learned move priors: how likely a strong search is to choose each move.

A :class:`PriorModel` gives each legal move a logit, a linear function of the position
the move leads to: the mover's features there (``State.features()``, the game's own
vector, the one the learned leaf value reads) minus the mean of the other seats', the
*row* of the move (:func:`move_row`).  The moves' probabilities are the softmax of their
logits.  ``furnace fit-prior`` (:mod:`tournaments.prior_fit`) fits the weights to the
visit counts of self-play searches, so the prior says what a search of that strength
would end up preferring, before this search has looked.

The trees use it as progressive bias (``SearchConfig.move_prior``,
:class:`~engine.search.tree.Selection`): a child's logit is taken once, when the child is
made (the tree has just played its move on the iteration's position, so the row costs one
feature vector per seat), and selection adds ``weight * probability / (visits + 1)`` to
the child's UCT value, the probability being the softmax over the logits of the moves
legal there.  It fades as real visits come in; a move the prior dislikes is still tried.

The model needs nothing of a game but its features, so the compiled tree evaluates it in
C over the kernel's features (``ext/search_core.pyx``), summing in the order used here so
that the two trees stay equal (``furnace check-search``).

>>> model = PriorModel("toy", ("points", "cards"), (0.5, -0.25))
>>> model.logit((4.0, 2.0))
1.5
>>> [round(p, 3) for p in softmax([1.5, 0.0, -1.0])]
[0.766, 0.171, 0.063]
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.game import CHANCE, TERMINAL, Outcome, State, draw_chance_outcome
from engine.playout_rng import PlayoutRng
from engine.search.evaluate import heuristic_outcome

#: The format name and version of a move prior file.
PRIOR_FORMAT = "furnace-move-prior"
PRIOR_VERSION = 1
#: Logits are clipped to this size before ``exp``, so that no probability overflows.
LOGIT_LIMIT = 30.0


class PriorModel:
    """Weights over a game's features: a move's logit is ``weights . row`` (see the
    module docstring).  ``meta`` keeps what made it (command, seed, figures)."""

    __slots__ = ("game", "feature_names", "weights", "meta")

    def __init__(self, game: str, feature_names: Sequence[str], weights: Sequence[float],
                 meta: Mapping[str, Any] | None = None) -> None:
        if len(feature_names) != len(weights):
            raise ValueError(f"{len(weights)} weights for {len(feature_names)} features")
        if not all(math.isfinite(float(w)) for w in weights):
            raise ValueError("a move prior's weights must be finite numbers")
        self.game = game
        self.feature_names = tuple(feature_names)
        self.weights = tuple(float(w) for w in weights)
        self.meta = dict(meta or {})

    def logit(self, row: Sequence[float]) -> float:
        """The logit of a move whose row is ``row``, clipped to :data:`LOGIT_LIMIT`."""
        if len(row) != len(self.weights):
            raise ValueError(f"a row of {len(row)} features for a prior of "
                             f"{len(self.weights)} ({self.game})")
        total = 0.0
        for weight, x in zip(self.weights, row, strict=True):
            total += weight * x
        return min(LOGIT_LIMIT, max(-LOGIT_LIMIT, total))

    def to_json(self) -> dict[str, Any]:
        return {"format": PRIOR_FORMAT, "version": PRIOR_VERSION, "game": self.game,
                "features": list(self.feature_names), "weights": list(self.weights),
                **({"made_by": self.meta} if self.meta else {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriorModel:
        if data.get("format") != PRIOR_FORMAT or data.get("version") != PRIOR_VERSION:
            raise ValueError(f"not a {PRIOR_FORMAT} of version {PRIOR_VERSION}: "
                             f"{data.get('format')!r} {data.get('version')!r}")
        return cls(data["game"], data["features"], data["weights"], data.get("made_by"))

    @classmethod
    def load(cls, path: str | Path) -> PriorModel:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PriorModel) and other.game == self.game
                and other.feature_names == self.feature_names and other.weights == self.weights)

    def __hash__(self) -> int:
        return hash((self.game, self.feature_names, self.weights))

    def __repr__(self) -> str:
        return f"PriorModel({self.game!r}, {len(self.weights)} features)"


def seat_row(vectors: Sequence[Sequence[float]], seat: int) -> list[float]:
    """``seat``'s features minus the mean of the other seats' (its own alone when it is
    the only seat), summed seat by seat as the compiled tree sums them."""
    own = vectors[seat]
    others = len(vectors) - 1
    if others == 0:
        return [float(x) for x in own]
    row = []
    for j, x in enumerate(own):
        total = 0.0
        for other, vector in enumerate(vectors):
            if other != seat:
                total += vector[j]
        row.append(float(x) - total / others)
    return row


def move_row(state: State, seat: int) -> list[float]:
    """The row of the move that led to ``state`` (the position after it) for the seat
    that made it."""
    return seat_row(state.features(), seat)


def move_rows(state: State, seat: int, moves: Sequence[int]) -> list[list[float]]:
    """The row of each of ``moves`` by ``seat`` in ``state`` (left unchanged)."""
    rows = []
    for move in moves:
        after = state.clone()
        after.apply(move)
        rows.append(move_row(after, seat))
    return rows


def move_bias(model: PriorModel | None, state: State, seat: int) -> float:
    """``exp`` of the logit of the move by ``seat`` that led to ``state``: what a tree
    keeps per child (the probability is this over the sum of the siblings')."""
    assert model is not None
    return math.exp(model.logit(move_row(state, seat)))


def softmax(logits: Sequence[float]) -> list[float]:
    """The probabilities of logits (each already clipped, :meth:`PriorModel.logit`), as
    the trees compute them: ``exp`` of each, over their sum in order."""
    exps = [math.exp(z) for z in logits]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


class PriorPlayoutEvaluator:
    """Playouts that follow the move prior: at most ``depth`` decisions (each
    :meth:`State.apply` of a decision counts one, forced moves a kernel plays on its own
    do not), each a uniformly random legal move with probability ``epsilon``, else one
    drawn with the prior's probabilities over the legal moves (each move played on a copy
    to read its row); then the position valued by ``heuristic()``
    (:func:`~engine.search.evaluate.heuristic_outcome`), or the real outcome when the game
    ends first.  Every draw comes from one :class:`~engine.playout_rng.PlayoutRng` of the
    seed, so the compiled core plays exactly these moves (``("prior", ...)``)."""

    __slots__ = ("depth", "model", "epsilon")

    def __init__(self, depth: int, model: PriorModel, epsilon: float) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"a prior playout needs a positive depth, not {depth!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be from 0 to 1, not {epsilon!r}")
        self.depth = depth
        self.model = model
        self.epsilon = float(epsilon)

    def evaluate(self, state: State, seed: int) -> Outcome:
        rng = PlayoutRng(seed)
        played = 0
        while played < self.depth:
            player = state.current_player()
            if player == TERMINAL:
                return state.outcome()
            if player == CHANCE:
                state.apply(draw_chance_outcome(state, rng))
                continue
            moves = state.legal_moves()
            state.apply(moves[self.choose(state, player, moves, rng)])
            played += 1
        if state.current_player() == TERMINAL:
            return state.outcome()
        return heuristic_outcome(state)

    def choose(self, state: State, player: int, moves: Sequence[int],
               rng: PlayoutRng) -> int:
        """The index of the move a prior playout plays among ``moves``."""
        if rng.unit() < self.epsilon:
            return rng.below(len(moves))
        cumulative = []
        total = 0.0
        for move in moves:
            after = state.clone()
            after.apply(move)
            total += move_bias(self.model, after, player)
            cumulative.append(total)
        target = rng.unit() * total
        index = 0
        while index < len(moves) - 1 and target >= cumulative[index]:
            index += 1
        return index

    def compiled_leaf(self, search_state: object) -> tuple[Any, ...] | None:
        """The compiled core's description
        (:meth:`~engine.search.evaluate.RolloutEvaluator.compiled_leaf`)."""
        if type(self) is not PriorPlayoutEvaluator:
            return None
        return ("prior", self.depth, self.epsilon, self.model.weights)

    def __repr__(self) -> str:
        return f"PriorPlayoutEvaluator({self.depth}, {self.model.game}, {self.epsilon})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PriorPlayoutEvaluator) and other.depth == self.depth
                and other.model == self.model and other.epsilon == self.epsilon)

    def __hash__(self) -> int:
        return hash((PriorPlayoutEvaluator, self.depth, self.model, self.epsilon))
