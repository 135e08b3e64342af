"""A game review: every decision a seat made in a finished game, judged by the search.

:func:`review_game` replays a game record (:mod:`engine.records`) and, for each
decision of the reviewed seats that had more than one legal move (forced moves and
chance outcomes are skipped), searches the position **as that seat saw it**: the
tree is made for the seat to move with the seat as observer
(:func:`~engine.search.dispatch.make_tree`), so in a hidden-information game ISMCTS
deals every hidden card afresh from the seat's observation at that moment and
nothing the seat could not see (cards drawn later, other hands, secret choices)
enters the judgement.

Each decision costs one search of ``budget`` iterations, or three (or more):

1. an open search over every legal move gives the best move, the line the search
   expects after it (the principal variation) and, when the seat played that move,
   its figures;
2. otherwise the best and the played move are each searched alone at the root
   (``root_moves``) with the same budget and the same seed, so that both are
   measured alike: in the open search a move the search dislikes gets few visits
   and a shallow subtree, too little to say what it loses, and in one tree of the
   two UCT would still give the worse move fewer visits.  Started from the same
   random numbers, the two searches' noise partly cancels in the difference;
3. where the game's settings ask for it (``ReviewSettings.measurements``), a loss that
   reaches a label above ``good`` is measured again as in 2, with fresh seeds, and the
   smallest of the measured losses stands: a label is given for a loss every
   measurement found, not for one search's luck.

The loss is the best move's figure minus the played move's: in win probability
(in a one-seat game with a target score, the soft chance of reaching it,
``Analysis.target``) and in points of the seat's expected score margin over its best
opponent (alone: its expected score).  The label and the accuracy come from the
game's thresholds (:mod:`engine.search.review_settings`).

Each decision's searches are seeded from the review's seed and the decision's index
in the record, so a fixed seed and budget give the same review, decision by
decision, however many seats are reviewed: a service can judge the decisions one
at a time, each where it likes (:func:`decisions_of`, then :func:`review_decision`
for each), and sum them up (:func:`summarize`) to the same review.

Between two of a seat's decisions its forecast moves too, by what the other seats
played and what chance dealt: a :class:`Swing` (:func:`interludes`, :func:`swing`),
never counted as the seat's loss.  The **key moments** of a seat
(:func:`key_moments`) are its mistakes and blunders and the largest of those swings,
chosen here once for every front end.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.forecast import (
    forecast_analysis,
    needs_playouts,
    playouts_within,
)
from engine.game import CHANCE, State
from engine.records import GameRecord, check_length, resolve_move, start_state
from engine.search._common import derive_seed
from engine.search.analysis import Analysis, MoveStats
from engine.search.budget import STOP_ITERATIONS, StopCallback
from engine.search.config import config_for
from engine.search.dispatch import make_tree
from engine.search.review_settings import (
    CONFIRMED,
    LABELS,
    ReviewSettings,
    review_settings_for,
)

#: ``on_progress(done, total, decision)`` after each reviewed decision.
ReviewProgress = Callable[[int, int, "Decision"], None]

#: Most forecast swings among a seat's key moments (the largest of those as large as a
#: mistake): a chess site's review shows a handful.
KEY_SWINGS = 5
#: Decimals of a figure in a review's JSON (a probability to a hundredth of a percent).
JSON_DECIMALS = 4


def _rounded(value: float) -> float:
    return round(value, JSON_DECIMALS) + 0.0  # + 0.0: no -0.0 for a loss rounded away


@dataclass(frozen=True)
class MoveFigures:
    """What the search made of one move of a reviewed decision."""

    move: int
    text: str
    #: Iterations of the search that went through the move.
    visits: int
    #: The reviewed seat's win probability after the move (one seat with a target:
    #: the soft chance of reaching it).
    win_probability: float
    #: Every seat's expected final score after the move.
    expected_scores: tuple[float, ...]
    #: The reviewed seat's expected score margin after the move: its expected score
    #: minus the best of the others' (one seat: minus the target, or its score).
    margin: float

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "text": self.text, "visits": self.visits,
                "win_probability": _rounded(self.win_probability),
                "expected_scores": [_rounded(s) for s in self.expected_scores],
                "margin": _rounded(self.margin)}


@dataclass(frozen=True)
class Interlude:
    """What was played between two reviewed decisions of a seat, besides its own
    (forced) moves: which is why its forecast may have moved between them."""

    #: The turn of the seat's earlier decision.
    since_turn: int
    #: Whether another seat moved in between.
    opponents: bool
    #: Whether chance came in between: a chance outcome, or a move of the seat's own
    #: (the earlier decision's included) that dealt it what it could not foresee.
    chance: bool


@dataclass(frozen=True)
class Swing:
    """How a seat's forecast moved from after the move it played at one reviewed
    decision to the position of its next one (that decision's best move's figures):
    the other seats' moves and chance, between, not the seat's loss."""

    #: The turn of the seat's earlier decision.
    since_turn: int
    #: The win probability's change (negative: a drop), and the expected margin's.
    win_probability: float
    margin: float
    opponents: bool
    chance: bool
    #: Whether the change, either way, reaches the game's inaccuracy threshold on
    #: either measure: worth telling the player.
    notable: bool
    #: Whether it is a drop: the sign of its larger measure as a share of the blunder
    #: thresholds (a rise otherwise).
    drop: bool = False

    def cause(self) -> str:
        """What moved the forecast, in words: "the opponents' moves", "chance" or both."""
        parts = (["the opponents' moves"] if self.opponents else []) + \
            (["chance"] if self.chance else [])
        return " and ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"since_turn": self.since_turn,
                "win_probability": _rounded(self.win_probability),
                "margin": _rounded(self.margin), "opponents": self.opponents,
                "chance": self.chance, "notable": self.notable, "drop": self.drop}


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: the move played against the search's best."""

    #: Index of the played move in the record's moves.
    turn: int
    seat: int
    #: How many legal moves the seat had.
    choices: int
    played: MoveFigures
    best: MoveFigures
    #: ``best.win_probability - played.win_probability`` (may be negative: the open
    #: search's best is judged by visits, searched alone the played move may
    #: measure better).
    win_probability_loss: float
    #: ``best.margin - played.margin``, in points.
    score_loss: float
    #: One of :data:`~engine.search.review_settings.LABELS`.
    label: str
    #: 0-100 (:meth:`~engine.search.review_settings.ReviewSettings.accuracy`).
    accuracy: float
    #: The best move and the line the search expects after it (move texts).
    principal_variation: tuple[str, ...]
    #: The one seat's target score, else None.
    target: float | None = None
    #: The move ids of ``principal_variation``.
    principal_variation_moves: tuple[int, ...] = ()
    #: Iterations of the decision's searches, all together.
    iterations: int = 0
    #: Why the first of its searches that did not run its whole iteration budget
    #: stopped (``engine.search.budget``'s ``STOP_*``), else ``"iterations"``.
    stop_reason: str = STOP_ITERATIONS
    #: How the seat's forecast moved since its previous reviewed decision, through
    #: the other seats' moves and chance (:func:`swing`); None for its first decision,
    #: or when only its own moves came between (the change is then the two searches'
    #: noise, nothing that happened).
    swing: Swing | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"turn": self.turn, "seat": self.seat, "choices": self.choices,
                "played": self.played.to_json(), "best": self.best.to_json(),
                "win_probability_loss": _rounded(self.win_probability_loss),
                "score_loss": _rounded(self.score_loss), "label": self.label,
                "accuracy": _rounded(self.accuracy),
                "principal_variation": list(self.principal_variation)}
        if self.target is not None:
            data["target"] = self.target
        if self.swing is not None:
            data["swing"] = self.swing.to_json()
        return data


#: Why a decision is a key moment: its own label, or the forecast's swing before it.
KEY_REASONS = ("mistake", "blunder", "drop", "rise")


@dataclass(frozen=True)
class KeyMoment:
    """A decision worth a look (:func:`key_moments`)."""

    turn: int
    seat: int
    #: Of :data:`KEY_REASONS`: the decision's label (``mistake``, ``blunder``), and
    #: ``drop`` or ``rise`` when the forecast's swing before it is among the seat's
    #: largest (the decision's :attr:`Decision.swing`).
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "seat": self.seat, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class SeatSummary:
    """A seat's reviewed decisions in figures."""

    seat: int
    decisions: int
    #: Decisions per label, every label present.
    counts: dict[str, int]
    average_win_probability_loss: float
    average_score_loss: float
    #: The mean of the decisions' accuracies (100 when there were none).
    accuracy: float

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "decisions": self.decisions, "counts": dict(self.counts),
                "average_win_probability_loss": _rounded(self.average_win_probability_loss),
                "average_score_loss": _rounded(self.average_score_loss),
                "accuracy": _rounded(self.accuracy)}


@dataclass(frozen=True)
class Review:
    """A reviewed game: its decisions in record order and a summary per reviewed seat."""

    game: str
    num_players: int
    seats: tuple[int, ...]
    budget: int
    seed: int
    settings: ReviewSettings
    decisions: list[Decision] = field(default_factory=list)
    summaries: list[SeatSummary] = field(default_factory=list)
    #: False when ``should_stop`` ended the review before its last decision.
    complete: bool = True
    #: Every reviewed seat's key moments, in the game's order (:func:`key_moments`).
    key_moments: list[KeyMoment] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "num_players": self.num_players,
                "seats": list(self.seats), "budget": self.budget, "seed": self.seed,
                "complete": self.complete, "thresholds": self.settings.to_json(),
                "turns": [d.to_json() for d in self.decisions],
                "summary": [s.to_json() for s in self.summaries],
                "key_moments": [k.to_json() for k in self.key_moments]}

    def decision_at(self, turn: int) -> Decision | None:
        """The reviewed decision of the record's move ``turn``, if there is one."""
        return next((d for d in self.decisions if d.turn == turn), None)


def review_game(record: GameRecord, seats: int | Sequence[int] | None = None, *,
                budget: int | None = None, seed: int = 0,
                settings: ReviewSettings | None = None,
                on_progress: ReviewProgress | None = None,
                should_stop: Callable[[], bool] | None = None) -> Review:
    """Review the decisions of ``seats`` (one seat, several, or None: every seat) in
    ``record`` with ``budget`` iterations a search (default: the game's,
    :func:`~engine.search.review_settings.review_settings_for`) and ``seed``.

    ``on_progress(done, total, decision)`` follows each decision; ``should_stop()``
    is asked before each one, and when it answers true the review ends there,
    ``complete`` false, the decisions judged so far summed up (a decision is always
    searched to its whole budget, so that it is the same in every review).

    Raises the record's errors (:mod:`engine.records`) for a record that does not
    replay, ``ValueError`` for a seat that is not one of the game's.
    """
    start = start_state(record)
    settings = review_settings_for(start) if settings is None else settings
    budget = settings.budget if budget is None else budget
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 2:
        raise ValueError(f"a review budget is an integer of at least 2 iterations, "
                         f"not {budget!r}")
    chosen = _seats(seats, start.num_players)
    positions = decisions_of(record, chosen)
    decisions: list[Decision] = []
    complete = True
    for turn, state, played in positions:
        if should_stop is not None and should_stop():
            complete = False
            break
        decisions.append(review_decision(state, played, turn, budget=budget, seed=seed,
                                         settings=settings))
        if on_progress is not None:
            on_progress(len(decisions), len(positions), decisions[-1])
    decisions = with_swings(decisions, interludes(record, [(d.turn, d.seat) for d in decisions]),
                            settings)
    return Review(game=start.info.name, num_players=start.num_players, seats=chosen,
                  budget=budget, seed=seed, settings=settings, decisions=decisions,
                  summaries=[summarize(seat, decisions) for seat in chosen], complete=complete,
                  key_moments=sorted((k for seat in chosen
                                      for k in key_moments(seat, decisions, settings)),
                                     key=lambda k: k.turn))


def _seats(seats: int | Sequence[int] | None, num_players: int) -> tuple[int, ...]:
    if seats is None:
        return tuple(range(num_players))
    chosen = (seats,) if isinstance(seats, int) else tuple(seats)
    for seat in chosen:
        if isinstance(seat, bool) or not isinstance(seat, int) or \
                not 0 <= seat < num_players:
            raise ValueError(f"seat {seat!r} is not a seat of this game (0-{num_players - 1})")
    return tuple(sorted(set(chosen)))


def decisions_of(record: GameRecord, seats: Sequence[int]) -> list[tuple[int, State, int]]:
    """``(turn, position, played move)`` of every decision of ``seats`` in ``record``
    with more than one legal move, the position as the game held it (the search
    must be made with the mover as observer)."""
    check_length(record.moves)
    state = start_state(record)
    wanted = set(seats)
    found: list[tuple[int, State, int]] = []
    for turn, entry in enumerate(record.moves):
        move = resolve_move(state, turn, entry)
        player = state.current_player()
        if player in wanted and len(state.legal_moves()) > 1:
            found.append((turn, state.clone(), move))
        state.apply(move)
    return found


def review_decision(state: State, played: int, turn: int, *, budget: int | None, seed: int,
                    settings: ReviewSettings, time_limit: float | None = None,
                    should_stop: StopCallback | None = None) -> Decision:
    """Judge ``played`` in ``state`` (a decision of the seat to move, made as the
    ``turn``-th move of its game) from that seat's information only.

    ``budget`` is each search's iterations; ``time_limit`` (seconds, optional) is the
    most the whole decision may take: each of its searches gets an equal share of it
    (a third, or ``1 / (1 + 2 * settings.measurements)``), so that the played and the
    best move are searched alike whichever way it ends; a deeper look
    (``settings.confirm``) searches ``confirm`` shares each, beyond it.
    ``should_stop`` is passed to every search (a service's cancel or deadline; a
    search stops between two iterations, after at least one, so both moves are
    measured however soon it is asked to).  One of ``budget`` and ``time_limit`` is
    needed.
    """
    seat = state.current_player()
    measurements = settings.measurements
    # A search's forecast reads the position's random playouts: run once per decision,
    # first, in at most their share of its time.
    playouts = None
    if needs_playouts(state, settings.forecast_source):
        playouts, time_limit = playouts_within(state, seat, seed, budget, time_limit,
                                               should_stop)
    # Every search gets an equal share of the time; a deeper look's, ``confirm`` times as
    # much again (a flagged decision takes longer than the others).
    deeper = settings.confirm if settings.confirm > 1 else 0
    limit = None if time_limit is None else time_limit / (1 + 2 * measurements)
    searches: list[Analysis] = []
    config = config_for(state)
    if settings.random_playouts:
        config = replace(config, mast_epsilon=None)
    if settings.leaf_value is not None:
        config = replace(config, leaf_value=settings.leaf_value)

    def search(seed_: int, root_moves: tuple[int, ...] | None = None,
               depth: int = 1) -> Analysis:
        analysis = make_tree(state, seed=seed_, observer=seat, root_moves=root_moves,
                             config=config).search(
            None if budget is None else budget * depth,
            None if limit is None else limit * depth, should_stop=should_stop)
        # Losses and labels are on the forecast's scale (docs/forecasts.md).
        analysis = forecast_analysis(state, analysis, seat, settings.forecast_source,
                                     playouts=playouts)
        searches.append(analysis)
        return analysis

    def measure(seed_: int, depth: int = 1) -> tuple[MoveFigures, MoveFigures]:
        return (_figures(search(seed_, (best_move,), depth), best_move, seat),
                _figures(search(seed_, (played,), depth), played, seat))

    def severity(pair: tuple[MoveFigures, MoveFigures]) -> float:
        return settings.severity(*_losses(*pair))

    opened = search(derive_seed("review", seed, turn))
    best_move = opened.best_move
    if played == best_move:
        best = played_figures = _figures(opened, best_move, seat)
    else:
        pair = measure(derive_seed("review played", seed, turn))
        if settings.flags(*_losses(*pair)):
            for again in range(1, measurements):
                pair = min(pair, measure(derive_seed("review played", seed, turn, again)),
                           key=severity)
        if deeper and settings.label(*_losses(*pair)) in CONFIRMED:
            pair = measure(derive_seed("review deeper", seed, turn), deeper)
        best, played_figures = pair
    probability_loss, score_loss = _losses(best, played_figures)
    return Decision(
        turn=turn, seat=seat, choices=len(state.legal_moves()), played=played_figures,
        best=best, win_probability_loss=probability_loss, score_loss=score_loss,
        label=settings.label(probability_loss, score_loss, best=played == best_move),
        accuracy=settings.accuracy(probability_loss, score_loss),
        principal_variation=tuple(opened.principal_variation), target=opened.target,
        principal_variation_moves=tuple(opened.principal_variation_moves),
        iterations=sum(a.iterations for a in searches),
        stop_reason=next((a.stop_reason for a in searches
                          if a.stop_reason != STOP_ITERATIONS), STOP_ITERATIONS))


def _losses(best: MoveFigures, played: MoveFigures) -> tuple[float, float]:
    """What ``played`` lost against ``best``: in win probability and in points."""
    return best.win_probability - played.win_probability, best.margin - played.margin


def _figures(analysis: Analysis, move: int, seat: int) -> MoveFigures:
    stats = _stats(analysis, move)
    return MoveFigures(move=move, text=stats.text, visits=stats.visits,
                       win_probability=stats.win_probability,
                       expected_scores=stats.expected_scores,
                       margin=margin(stats.expected_scores, seat, analysis.target))


def _stats(analysis: Analysis, move: int) -> MoveStats:
    for stats in analysis.moves:
        if stats.move == move:
            return stats
    raise ValueError(f"the search never tried move {move}: give it a larger budget")


def margin(scores: Sequence[float], seat: int, target: float | None = None) -> float:
    """``seat``'s margin in ``scores``: over the best other seat, or alone over
    ``target`` (its score when there is none)."""
    own = scores[seat]
    others = [s for k, s in enumerate(scores) if k != seat]
    if others:
        return own - max(others)
    return own - (target or 0.0)


def summarize(seat: int, decisions: Sequence[Decision]) -> SeatSummary:
    """The summary of ``seat``'s decisions among ``decisions``."""
    own = [d for d in decisions if d.seat == seat]
    counts = {label: 0 for label in LABELS}
    for d in own:
        counts[d.label] += 1
    n = len(own)
    return SeatSummary(
        seat=seat, decisions=n, counts=counts,
        average_win_probability_loss=sum(max(d.win_probability_loss, 0.0) for d in own) / n
        if n else 0.0,
        average_score_loss=sum(max(d.score_loss, 0.0) for d in own) / n if n else 0.0,
        accuracy=sum(d.accuracy for d in own) / n if n else 100.0)


# -- between the decisions -------------------------------------------------------------------
#: Deals from the seat's information that :func:`dealt` compares with what a move
#: showed: four would all have to deal the very card drawn to miss a draw.
FORESIGHT_DEALS = 4


def interludes(record: GameRecord, decisions: Sequence[tuple[int, int]]
               ) -> list[Interlude | None]:
    """For each ``(turn, seat)`` of ``decisions`` (reviewed decisions in the record's
    order), what came between that seat's previous one and it: another seat's move, and
    chance: a chance outcome, or a move of the seat's own (the earlier decision's
    included) that showed it something it could not foresee (:func:`dealt`: a card
    drawn, a display refilled).  None for a seat's first decision, and when neither
    came between (the forecast's change is then the two searches' noise)."""
    wanted = {seat for _, seat in decisions}
    first = min((turn for turn, _ in decisions), default=0)
    last = max((turn for turn, _ in decisions), default=-1)
    state = start_state(record)
    steps: list[tuple[int, bool]] = []
    for turn, entry in enumerate(record.moves[:last]):
        move = resolve_move(state, turn, entry)
        player = state.current_player()
        steps.append((player, player == CHANCE or (
            turn >= first and player in wanted and dealt(state, move, turn))))
        state.apply(move)
    return gaps(steps, decisions)


def dealt(state: State, move: int, turn: int) -> bool:
    """Whether ``move`` of the seat to move in ``state`` showed that seat something it
    could not foresee: some deal of what it could not see
    (``determinize(seat)``) shows it otherwise after the same move."""
    seat = state.current_player()
    after = state.clone()
    after.apply(move)
    seen = after.observation(seat)
    rng = random.Random(derive_seed("review dealt", turn))
    for _ in range(FORESIGHT_DEALS):
        twin = state.determinize(seat, rng)
        twin.apply(move)
        if twin.observation(seat) != seen:
            return True
    return False


def gaps(steps: Sequence[tuple[int, bool]], decisions: Sequence[tuple[int, int]]
         ) -> list[Interlude | None]:
    """:func:`interludes` from ``steps``: each move's player
    (:data:`~engine.game.CHANCE` for a chance outcome) and whether it dealt the seat
    something unforeseen (only the reviewed seats' own moves are asked).

    >>> gaps([(0, False), (1, False), (-1, True), (0, True), (0, False)],
    ...      [(0, 0), (3, 0), (4, 0), (5, 0)])  # doctest: +NORMALIZE_WHITESPACE
    [None, Interlude(since_turn=0, opponents=True, chance=True),
     Interlude(since_turn=3, opponents=False, chance=True), None]
    """
    found: list[Interlude | None] = []
    previous: dict[int, int] = {}
    for turn, seat in decisions:
        since = previous.get(seat)
        previous[seat] = turn
        if since is None:
            found.append(None)
            continue
        between = steps[since:turn]
        opponents = any(player not in (seat, CHANCE) for player, _ in between[1:])
        chance = any(luck for player, luck in between if player in (seat, CHANCE))
        found.append(Interlude(since, opponents, chance) if opponents or chance else None)
    return found


def swing(earlier: Decision, later: Decision, interlude: Interlude,
          settings: ReviewSettings) -> Swing:
    """How the seat's forecast moved from after its move at ``earlier`` to the
    position of ``later`` (the best move's figures there: the position's worth)."""
    probability = later.best.win_probability - earlier.played.win_probability
    points = later.best.margin - earlier.played.margin
    shares = (probability / settings.probability[-1], points / settings.points[-1])
    return Swing(since_turn=interlude.since_turn, win_probability=probability,
                 margin=points, opponents=interlude.opponents, chance=interlude.chance,
                 notable=settings.flags(abs(probability), abs(points)),
                 drop=max(shares, key=abs) < 0)


def with_swings(decisions: Sequence[Decision], gaps: Sequence[Interlude | None],
                settings: ReviewSettings) -> list[Decision]:
    """``decisions`` with the :class:`Swing` before each (``gaps``: their
    :func:`interludes`, in the same order)."""
    by_turn = {d.turn: d for d in decisions}
    return [d if gap is None else replace(d, swing=swing(by_turn[gap.since_turn], d, gap,
                                                         settings))
            for d, gap in zip(decisions, gaps, strict=True)]


def key_moments(seat: int, decisions: Sequence[Decision], settings: ReviewSettings,
                swings: int = KEY_SWINGS) -> list[KeyMoment]:
    """The decisions of ``seat`` worth a look, in the game's order: every one labelled
    ``mistake`` or ``blunder``, and the ``swings`` whose forecast swung most since the
    seat's previous decision (:attr:`Decision.swing`), of those that swung, either way,
    as far as a mistake's loss (the game's thresholds, on either measure)."""
    own = [d for d in decisions if d.seat == seat]

    def size(d: Decision) -> float:
        assert d.swing is not None
        return settings.severity(abs(d.swing.win_probability), abs(d.swing.margin))

    swung = [d for d in own if d.swing is not None
             and settings.label(abs(d.swing.win_probability), abs(d.swing.margin))
             in CONFIRMED]
    largest = {d.turn for d in sorted(swung, key=size, reverse=True)[:swings]}
    moments = []
    for d in own:
        reasons = [d.label] if d.label in CONFIRMED else []
        if d.turn in largest and d.swing is not None:
            reasons.append("drop" if d.swing.drop else "rise")
        if reasons:
            moments.append(KeyMoment(d.turn, seat, tuple(reasons)))
    return moments

