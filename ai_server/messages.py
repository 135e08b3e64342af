"""Engine values as ``furnace.v1`` messages, and request values as engine values.

The one place where what the engine says (a game's description, a position's status,
a move, a search's analysis, a judged move, a reviewed decision) becomes the message the service answers,
and where a request's plain values (option values) become the engine's.  Positions
have their own codecs (:mod:`ai_server.codecs`, :mod:`ai_server.records`,
:mod:`ai_server.sealing`); the calls (:mod:`ai_server.calls`) route through here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ai_server import codecs, errors, stops
from ai_server.errors import invalid
from engine import registry
from engine.game import CHANCE, TERMINAL, GameInfo, State
from engine.move_checks import MoveFault, MoveVerdict
from engine.search.analysis import Analysis
from engine.search.hints import hint_iterations
from engine.search.review import Decision, KeyMoment, MoveFigures, SeatSummary, Swing
from engine.search.review_settings import review_settings_for
from engine.state_schema import json_schema, schema_text
from furnace_proto.furnace.v1 import furnace_pb2 as pb

#: The wire's name of each stop reason is the server's, prefixed.
_STOP_REASONS = {name: pb.SearchStopReason.Value(f"SEARCH_STOP_REASON_{name}")
                 for name in stops.ALL}


def option_default(value: bool | int | str) -> pb.OptionValue:
    """A game option's default value as the wire's ``OptionValue``."""
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    return pb.OptionValue(string_value=str(value))


def option_value(value: pb.OptionValue, field: str) -> bool | int | str:
    """A request's ``OptionValue`` (at ``field``) as the value the game's options take."""
    kind = value.WhichOneof("kind")
    if kind is None:
        raise invalid(f"{field} has no value: set bool_value, int_value or string_value",
                      field, errors.INVALID_OPTION)
    result: bool | int | str = getattr(value, kind)
    return result


def game_info_message(info: GameInfo, kernel: bool, max_iterations: int) -> pb.GameInfo:
    """The ListGames entry of a game, on a server whose budgets stop at ``max_iterations``
    (a hint's and a review's default budgets are capped by it, as the server caps them)."""
    return pb.GameInfo(
        name=info.name,
        title=info.title,
        min_players=info.min_players,
        max_players=info.max_players,
        player_counts=list(info.player_counts),
        information_type=(pb.INFORMATION_TYPE_PERFECT if info.perfect_information
                          else pb.INFORMATION_TYPE_IMPERFECT),
        has_chance=info.has_chance,
        client_sees_chance=info.chance_nodes,
        options=[pb.GameOption(name=o.name, default_value=option_default(o.default),
                               description=o.description) for o in info.options],
        description=info.description,
        typed_state=codecs.has_typed(info.name),
        kernel_available=kernel,
        state_formats=state_formats(info.name),
        state_schema=schema_text(json_schema(registry.get_game(info.name).state_description())),
        catalogue=catalogue_text(registry.get_game(info.name).catalogue_data()),
        hint_iterations=min(hint_iterations(info), max_iterations),
        review_iterations=min(review_settings_for(info).budget, max_iterations),
    )


def catalogue_text(data: Mapping[str, Any]) -> str:
    """A catalogue as compact JSON text (GameInfo.catalogue), or empty for none."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False) if data else ""


def state_formats(game: str) -> list[pb.StateFormat]:
    """The forms ``game``'s positions can be answered in (GameInfo.state_formats): sealed
    too, since every server seals (with a key of its own when given none)."""
    return [*([pb.STATE_FORMAT_TYPED] if codecs.has_typed(game) else []),
            pb.STATE_FORMAT_OPAQUE, pb.STATE_FORMAT_JSON, pb.STATE_FORMAT_JSON_OBJECT,
            pb.STATE_FORMAT_RECORD, pb.STATE_FORMAT_SEALED]


def status_message(state: State) -> pb.GameStatus:
    player = state.current_player()
    status = pb.GameStatus(
        game=state.info.name,
        num_players=state.num_players,
        current_player=player,
        terminal=player == TERMINAL,
        chance=player == CHANCE,
        scores=[float(s) for s in state.scores()],
    )
    if player == TERMINAL:
        for group in state.ranking():
            status.ranking.add(seats=list(group))
    for parts in state.score_breakdown():
        status.score_breakdown.add().parts.extend(
            pb.ScorePart(source=source, points=points) for source, points in parts)
    target = state.solo_target()  # None with 2+ seats
    if target is not None:
        status.solo_target = target
        status.solo_result = state.solo_rank() or ""
    return status


def move_message(state: State, move: int) -> pb.Move:
    return pb.Move(id=move, text=state.move_to_text(move))


#: Largest int32: ``Analysis.iterations`` and ``MoveAnalysis.visits`` are int32 (JSON
#: numbers).  Iteration searches stop at ``max_iterations`` (below it, see
#: ``ServerConfig.check``); a very long time-limited search is capped here, never wrapped.
MAX_COUNT = 2**31 - 1


def analysis_message(analysis: Analysis, max_candidates: int = 0, stop_reason: str = "",
                     queued_seconds: float = 0.0) -> pb.Analysis:
    """The ``Analysis`` message of a search's analysis (counts capped at MAX_COUNT);
    ``stop_reason`` is the server's (:mod:`ai_server.stops`), ``queued_seconds`` how long
    the search waited for a worker."""
    moves = analysis.moves[:max_candidates] if max_candidates else analysis.moves
    return pb.Analysis(
        player=analysis.player,
        best_move=pb.Move(id=analysis.best_move, text=analysis.best_move_text),
        iterations=min(analysis.iterations, MAX_COUNT),
        elapsed_seconds=analysis.elapsed,
        win_probabilities=analysis.win_probability,
        expected_scores=analysis.expected_scores,
        moves=[
            pb.MoveAnalysis(
                move=pb.Move(id=m.move, text=m.text),
                visits=min(m.visits, MAX_COUNT),
                win_probabilities=m.win_probabilities,
                expected_scores=m.expected_scores,
                win_probability=m.win_probability,
                search_statistics=search_statistics_message(m.search_win_probabilities,
                                                            m.search_expected_scores),
            )
            for m in moves
        ],
        principal_variation=[pb.Move(id=i, text=t) for i, t in zip(
            analysis.principal_variation_moves, analysis.principal_variation, strict=False)],
        stop_reason=_STOP_REASONS.get(stop_reason, pb.SEARCH_STOP_REASON_UNSPECIFIED),
        target=analysis.target,
        queued_seconds=queued_seconds,
        search_statistics=search_statistics_message(analysis.search_win_probabilities,
                                                    analysis.search_expected_scores),
    )


def search_statistics_message(win_shares: Sequence[float] | None,
                              mean_scores: Sequence[float] | None
                              ) -> pb.SearchStatistics | None:
    """The search's own statistics kept beside a forecast, or None where there are none
    (an analysis not forecast)."""
    if win_shares is None or mean_scores is None:
        return None
    return pb.SearchStatistics(win_shares=win_shares, mean_scores=mean_scores)


#: The wire's code of each :class:`~engine.move_checks.MoveFault`, and the request
#: field at fault.
ILLEGAL_REASONS: dict[MoveFault, tuple[pb.IllegalReason, str]] = {
    MoveFault.EMPTY: (pb.ILLEGAL_REASON_EMPTY, "move"),
    MoveFault.UNPARSEABLE: (pb.ILLEGAL_REASON_UNPARSEABLE, "move.text"),
    MoveFault.NOT_A_MOVE: (pb.ILLEGAL_REASON_NOT_A_MOVE, "move.id"),
    MoveFault.ID_TEXT_MISMATCH: (pb.ILLEGAL_REASON_ID_TEXT_MISMATCH, "move"),
    MoveFault.GAME_OVER: (pb.ILLEGAL_REASON_GAME_OVER, "state"),
    MoveFault.NOT_YOUR_TURN: (pb.ILLEGAL_REASON_NOT_YOUR_TURN, "seat"),
    MoveFault.HIDDEN: (pb.ILLEGAL_REASON_HIDDEN, "state.observer_seat"),
    MoveFault.RULES: (pb.ILLEGAL_REASON_RULES, "move"),
}


def proposed_move(move: pb.Move, present: bool) -> tuple[int | None, str]:
    """A request's ``Move`` (``present``: the field is set) as :func:`judge_move`'s id and
    text (:func:`engine.move_checks.judge_move`)."""
    if not present:
        return None, ""
    return (move.id if move.HasField("id") else None), move.text


def verdict_move(verdict: MoveVerdict) -> pb.Move:
    """The judged move, id and text as far as they were worked out."""
    resolved = pb.Move()
    if verdict.move is not None:
        resolved.id = verdict.move
    if verdict.text is not None:
        resolved.text = verdict.text
    return resolved


def check_move_response(verdict: MoveVerdict) -> pb.CheckMoveResponse:
    """CheckMove's answer of a verdict."""
    code = pb.ILLEGAL_REASON_UNSPECIFIED if verdict.fault is None else \
        ILLEGAL_REASONS[verdict.fault][0]
    return pb.CheckMoveResponse(legal=verdict.legal, move=verdict_move(verdict),
                                reason=verdict.reason, reason_code=code)


#: The wire's label of each of the review's labels
#: (:data:`engine.search.review_settings.LABELS`).
REVIEW_LABELS: dict[str, pb.ReviewLabel] = {
    "best": pb.REVIEW_LABEL_BEST,
    "good": pb.REVIEW_LABEL_GOOD,
    "inaccuracy": pb.REVIEW_LABEL_INACCURACY,
    "mistake": pb.REVIEW_LABEL_MISTAKE,
    "blunder": pb.REVIEW_LABEL_BLUNDER,
}


def reviewed_move_message(figures: MoveFigures) -> pb.ReviewedMove:
    return pb.ReviewedMove(move=pb.Move(id=figures.move, text=figures.text),
                           visits=min(figures.visits, MAX_COUNT),
                           win_probability=figures.win_probability,
                           expected_scores=list(figures.expected_scores), margin=figures.margin)


def review_decision_message(decision: Decision, stop_reason: str, index: int,
                            total: int, view: dict[str, Any] | None = None,
                            status: pb.GameStatus | None = None) -> pb.ReviewedDecision:
    """ReviewGame's message of a judged decision, the ``index``-th of ``total``
    (``stop_reason``: its searches', as :mod:`ai_server.stops` names them), with the
    position before it as the seat saw it (``view``) and its ``status`` when given."""
    return pb.ReviewedDecision(
        turn=decision.turn, seat=decision.seat, choices=decision.choices,
        played=reviewed_move_message(decision.played), best=reviewed_move_message(decision.best),
        win_probability_loss=decision.win_probability_loss, score_loss=decision.score_loss,
        label=REVIEW_LABELS[decision.label], accuracy=decision.accuracy,
        # As an Analysis' variation: a search that records its own texts (ISMCTS) may
        # stop them short of the moves.
        principal_variation=[pb.Move(id=move, text=text) for move, text in zip(
            decision.principal_variation_moves, decision.principal_variation, strict=False)],
        target=decision.target, iterations=min(decision.iterations, MAX_COUNT),
        stop_reason=_STOP_REASONS.get(stop_reason, pb.SEARCH_STOP_REASON_UNSPECIFIED),
        index=index, total=total,
        view=None if view is None else codecs.encode_json_object(view), status=status,
        swing=None if decision.swing is None else forecast_swing_message(decision.swing))


def forecast_swing_message(moved: Swing) -> pb.ForecastSwing:
    return pb.ForecastSwing(since_turn=moved.since_turn,
                            win_probability=moved.win_probability, margin=moved.margin,
                            opponents=moved.opponents, chance=moved.chance,
                            notable=moved.notable, drop=moved.drop)


#: The wire's reason of each of the key moments' reasons
#: (:data:`engine.search.review.KEY_REASONS`).
KEY_MOMENT_REASONS: dict[str, pb.KeyMomentReason] = {
    "mistake": pb.KEY_MOMENT_REASON_MISTAKE,
    "blunder": pb.KEY_MOMENT_REASON_BLUNDER,
    "drop": pb.KEY_MOMENT_REASON_DROP,
    "rise": pb.KEY_MOMENT_REASON_RISE,
}


def review_summary_message(summary: SeatSummary, complete: bool,
                           key_moments: Sequence[KeyMoment] = (),
                           indices: Mapping[int, int] | None = None) -> pb.ReviewSummary:
    """ReviewGame's summary of a seat (``complete``: every decision of it was judged),
    with its key moments (``indices``: each judged decision's index in the call, by
    turn)."""
    return pb.ReviewSummary(
        seat=summary.seat, decisions=summary.decisions,
        counts=pb.ReviewLabelCounts(**summary.counts),
        average_win_probability_loss=summary.average_win_probability_loss,
        average_score_loss=summary.average_score_loss, accuracy=summary.accuracy,
        complete=complete,
        key_moments=[pb.KeyMoment(turn=k.turn, index=(indices or {}).get(k.turn, 0),
                                  reasons=[KEY_MOMENT_REASONS[r] for r in k.reasons])
                     for k in key_moments])
