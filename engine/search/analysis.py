"""What a search reports: per-move statistics and the analysis of a position.

The searches (plain MCTS, root-parallel MCTS, and any later variant such as
ISMCTS) all reduce their tree to a :class:`RootStats` - raw sums at the root plus
a principal variation - and :func:`build_analysis` turns that into the public,
JSON-ready :class:`Analysis`.  :func:`merge_root_stats` adds root statistics of
independent searches together (root parallelism, or several determinizations).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import State


def best_key(visits: int, win_share_total: float, move: int, mover: int = 0
             ) -> tuple[int, float, int]:
    """The sort key of a move among its siblings, best first when sorted ascending:
    the most visits, then the higher mean win share of its mover (none for a chance
    outcome, ``mover`` < 0), then the lower move id.  One rule for the best move and
    every step of the principal variation, so the two always agree.

    >>> sorted([(10, 4.0, 7), (10, 6.0, 9), (10, 6.0, 3), (12, 0.0, 1)],
    ...        key=lambda m: best_key(*m))
    [(12, 0.0, 1), (10, 6.0, 3), (10, 6.0, 9), (10, 4.0, 7)]
    """
    mean = win_share_total / visits if visits and mover >= 0 else 0.0
    return (-visits, -mean, move)


#: Follows a line's move that is the search's guess of another seat's secret choice
#: (:meth:`engine.game.State.move_is_secret`): the observer cannot know what that seat
#: chose, the search only dealt it a hand and played on.
GUESS = "(guess)"


@dataclass(frozen=True)
class MoveStats:
    """Statistics of one root move."""

    move: int
    text: str
    visits: int
    #: Mean reward (win share) of the player to move at the root after this move.
    win_probability: float
    #: Mean final score of every seat after this move.
    expected_scores: tuple[float, ...]
    #: Mean reward (win share) of every seat after this move; the mover's is
    #: ``win_probability``.
    win_probabilities: tuple[float, ...]
    #: Once forecast (:func:`engine.forecast.forecast_analysis`): the search's own mean
    #: win shares and final scores after this move, which the three fields above then
    #: no longer are; None before.
    search_win_probabilities: tuple[float, ...] | None = None
    search_expected_scores: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "text": self.text,
            "visits": self.visits,
            "win_probability": self.win_probability,
            "win_probabilities": list(self.win_probabilities),
            "expected_scores": list(self.expected_scores),
            **_search_statistics(self.search_win_probabilities, self.search_expected_scores),
        }


def _search_statistics(wins: tuple[float, ...] | None, scores: tuple[float, ...] | None
                       ) -> dict[str, Any]:
    if wins is None or scores is None:
        return {}
    return {"search_statistics": {"win_shares": list(wins), "mean_scores": list(scores)}}


@dataclass(frozen=True)
class Analysis:
    """The result of a search from one position."""

    #: The seat to move at the root.
    player: int
    best_move: int
    best_move_text: str
    iterations: int
    elapsed: float
    #: Mean reward of every seat over all iterations (the root's value vector).
    win_probability: tuple[float, ...]
    #: Mean final score of every seat over all iterations.
    expected_scores: tuple[float, ...]
    #: Visited root moves, most visited first.
    moves: list[MoveStats] = field(default_factory=list)
    principal_variation: list[str] = field(default_factory=list)
    principal_variation_moves: list[int] = field(default_factory=list)
    #: Why the search stopped: ``"iterations"``, ``"time_limit"`` or ``"stopped"``
    #: (``should_stop``); see :mod:`engine.search.budget`.
    stop_reason: str = ""
    #: A one-seat game's target score (``State.solo_target()``), else None.  The
    #: search then aims at it: ``win_probability`` is the mean of ``1 / (1 +
    #: exp(-(score - target) / scale))``, a soft chance of reaching the target
    #: (:func:`~engine.search._common.backup_values`).
    target: float | None = None
    #: Once forecast (:func:`engine.forecast.forecast_analysis`): the root's mean win
    #: shares and final scores over every iteration (the search's own statistics, which
    #: ``win_probability`` and ``expected_scores`` then no longer are); None before.
    search_win_probabilities: tuple[float, ...] | None = None
    search_expected_scores: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "best_move": self.best_move,
            "best_move_text": self.best_move_text,
            "iterations": self.iterations,
            "elapsed": self.elapsed,
            "win_probability": list(self.win_probability),
            "expected_scores": list(self.expected_scores),
            "moves": [m.to_json() for m in self.moves],
            "principal_variation": list(self.principal_variation),
            "principal_variation_moves": list(self.principal_variation_moves),
            "stop_reason": self.stop_reason,
            **({} if self.target is None else {"target": self.target}),
            **_search_statistics(self.search_win_probabilities, self.search_expected_scores),
        }


@dataclass
class RootStats:
    """Raw root statistics of one search, cheap to pickle and to merge.

    ``totals`` vectors hold ``num_players`` summed rewards followed by
    ``num_players`` summed final scores.  ``move_*`` lists are parallel, in the
    order the moves were first expanded.
    """

    player: int
    num_players: int
    iterations: int
    elapsed: float
    visits: int
    totals: list[float]
    moves: list[int]
    move_visits: list[int]
    move_totals: list[list[float]]
    #: Moves of the principal variation (chance moves included), from the root.
    pv: list[int]
    #: Their texts, when the search recorded them (ISMCTS: its variation may hold
    #: moves that are not legal in the true position, which must not be replayed
    #: on it); None to take them by replaying ``pv`` on the root state.
    pv_texts: list[str] | None = None

    def order(self) -> list[int]:
        """Indices of ``moves`` by visits; ties: the higher mean win share of
        ``player``, then the lower move id (:func:`best_key`, the rule the trees'
        principal variations follow, so the best move is the variation's first)."""
        p = self.player

        def key(i: int) -> tuple[int, float, int]:
            n = self.move_visits[i]
            return best_key(n, self.move_totals[i][p], self.moves[i], p)

        return sorted(range(len(self.moves)), key=key)


def merge_root_stats(parts: Sequence[RootStats]) -> RootStats:
    """Sum the root statistics of independent searches of the same position.

    Moves keep the order of first appearance (part by part); elapsed is the
    maximum (the parts ran side by side).  The principal variation is the one
    of the part that visited the merged best move most (the earliest such part
    on ties), or just that move when no part's variation starts with it.
    """
    if not parts:
        raise ValueError("nothing to merge")
    first = parts[0]
    k = first.num_players
    index: dict[int, int] = {}
    moves: list[int] = []
    visits: list[int] = []
    totals: list[list[float]] = []
    root_totals = [0.0] * (2 * k)
    for part in parts:
        if part.player != first.player or part.num_players != k:
            raise ValueError("cannot merge statistics of different positions")
        root_totals = [a + b for a, b in zip(root_totals, part.totals, strict=True)]
        for move, n, tot in zip(part.moves, part.move_visits, part.move_totals, strict=True):
            i = index.get(move)
            if i is None:
                index[move] = len(moves)
                moves.append(move)
                visits.append(n)
                totals.append(list(tot))
            else:
                visits[i] += n
                totals[i] = [a + b for a, b in zip(totals[i], tot, strict=True)]
    merged = RootStats(
        player=first.player,
        num_players=k,
        iterations=sum(p.iterations for p in parts),
        elapsed=max(p.elapsed for p in parts),
        visits=sum(p.visits for p in parts),
        totals=root_totals,
        moves=moves,
        move_visits=visits,
        move_totals=totals,
        pv=[],
    )
    order = merged.order()
    if order:
        best = moves[order[0]]
        pv = [best]
        pv_texts: list[str] | None = None
        best_n = -1
        for part in parts:
            if part.pv and part.pv[0] == best:
                n = part.move_visits[part.moves.index(best)]
                if n > best_n:
                    best_n = n
                    pv = list(part.pv)
                    pv_texts = None if part.pv_texts is None else list(part.pv_texts)
        merged.pv = pv
        merged.pv_texts = pv_texts
    return merged


def build_analysis(state: State, stats: RootStats) -> Analysis:
    """The public :class:`Analysis` of ``stats``, move texts taken from ``state`` (the root).

    ``state`` is not modified.  The principal variation is replayed on ``state``
    for its texts unless ``stats.pv_texts`` holds them.  Raises ``ValueError``
    when no root move was visited.
    """
    target = state.solo_target() if state.num_players == 1 else None
    if stats.pv_texts is not None:
        return analysis_from_stats(stats, state.move_to_text, stats.pv, stats.pv_texts,
                                   target=target)
    pv_moves, pv_texts = _replay_texts(state, stats.pv)
    return analysis_from_stats(stats, state.move_to_text, pv_moves, pv_texts, target=target)


def analysis_from_stats(
    stats: RootStats,
    move_text: Callable[[int], str],
    pv_moves: Sequence[int],
    pv_texts: Sequence[str],
    target: float | None = None,
) -> Analysis:
    """The :class:`Analysis` of ``stats`` with root move texts from ``move_text``.

    For searches that cannot replay the principal variation on the root state
    (ISMCTS must not see the hidden parts of it) and record its texts themselves.
    Raises ``ValueError`` when no root move was visited.
    """
    k = stats.num_players
    p = stats.player
    order = stats.order()
    if not order:
        raise ValueError("the search visited no move")
    move_stats: list[MoveStats] = []
    for i in order:
        n = stats.move_visits[i]
        tot = stats.move_totals[i]
        inv = 1.0 / n if n else 0.0
        move_stats.append(
            MoveStats(
                move=stats.moves[i],
                text=move_text(stats.moves[i]),
                visits=n,
                win_probability=tot[p] * inv,
                expected_scores=tuple(x * inv for x in tot[k:]),
                win_probabilities=tuple(x * inv for x in tot[:k]),
            )
        )
    inv_root = 1.0 / stats.visits if stats.visits else 0.0
    best = move_stats[0]
    return Analysis(
        player=p,
        best_move=best.move,
        best_move_text=best.text,
        iterations=stats.iterations,
        elapsed=stats.elapsed,
        win_probability=tuple(x * inv_root for x in stats.totals[:k]),
        expected_scores=tuple(x * inv_root for x in stats.totals[k:]),
        moves=move_stats,
        principal_variation=list(pv_texts),
        principal_variation_moves=list(pv_moves),
        target=target,
    )


def _replay_texts(state: State, moves: Sequence[int]) -> tuple[list[int], list[str]]:
    """Texts of ``moves`` played in turn from a copy of ``state`` (stops at a bad move)."""
    if not moves:
        return [], []
    texts: list[str] = [state.move_to_text(moves[0])]
    if len(moves) == 1:
        return [moves[0]], texts
    board = state.clone()
    board.apply(moves[0])
    done = [moves[0]]
    for move in moves[1:]:
        try:
            text = board.move_to_text(move)
            board.apply(move)
        except ValueError:
            break
        texts.append(text)
        done.append(move)
    return done, texts
