"""``furnace.v1.FurnaceService``: decode, validate through the game, search in a worker, encode.

The servicer holds no game state between requests and has no rules or search
of its own: positions are rebuilt and validated by the game
(``registry.get_game(name).state_from_json``), legality comes from the game
(``parse_move``, ``why_illegal``), and searches and score estimates run in
:mod:`ai_server.worker` inside the process pool.  Every failure is answered with
a status from :mod:`ai_server.errors`, never UNKNOWN.

Whose view: a request's state is the whole position; ``GameState.observer_seat``
(``None`` without it: the host, who sees every seat's private information) says
whom the answer is for.  Everything shown goes through the game's observer model:
renders are ``render(observer)``, move records ``move_seen_by`` and
``events_seen_by``, and the moves of a seat the observer cannot know
(``moves_known_to``) are neither listed, judged nor searched for.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from ai_server import codecs, errors, worker
from ai_server.codecs import DecodedState
from ai_server.config import ServerConfig
from ai_server.errors import RequestError, invalid, precondition
from ai_server.identity import client_identity
from ai_server.observe import note
from ai_server.pool import Job, SearchPool
from engine import registry
from engine.game import (
    CHANCE,
    TERMINAL,
    FurnaceError,
    GameInfo,
    InvalidOptionError,
    InvalidStateError,
    MoveParseError,
    State,
    UnknownGameError,
    events_seen_by,
)
from engine.search.config import config_for
from engine.search.levels import MAX_LEVEL, MIN_LEVEL
from engine.seats import player_name, seat_label, seat_range
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

Request = TypeVar("Request")
Response = TypeVar("Response")

#: Largest exploration constant accepted.
MAX_EXPLORATION = 10.0
#: Longest Analyze update interval accepted, in milliseconds.
MAX_UPDATE_INTERVAL_MS = 60_000

_STOP_REASONS = {
    worker.ITERATIONS: pb.SEARCH_STOP_REASON_ITERATIONS,
    worker.TIME_LIMIT: pb.SEARCH_STOP_REASON_TIME_LIMIT,
    worker.DEADLINE: pb.SEARCH_STOP_REASON_DEADLINE,
    worker.CANCELLED: pb.SEARCH_STOP_REASON_CANCELLED,
    worker.MEMORY: pb.SEARCH_STOP_REASON_MEMORY,
    worker.SHUTDOWN: pb.SEARCH_STOP_REASON_SHUTDOWN,
}


async def abort(context: grpc.aio.ServicerContext, error: RequestError) -> None:
    """End the call with ``error`` (raises; never returns)."""
    note(reason=error.reason)
    status = errors.to_grpc_status(error)
    await context.abort(status.code, status.details, status.trailing_metadata)


def _internal(exc: BaseException) -> RequestError:
    return RequestError(grpc.StatusCode.INTERNAL,
                        f"internal server error ({type(exc).__name__}); see the server log",
                        reason=errors.INTERNAL)


def _translate(exc: Exception, method: str) -> RequestError:
    if isinstance(exc, RequestError):
        return exc
    if isinstance(exc, FurnaceError):
        return invalid(str(exc), None)
    log.exception("unexpected error in %s", method)
    return _internal(exc)


def unary(
    fn: Callable[[Any, Request, grpc.aio.ServicerContext], Awaitable[Response]],
) -> Callable[[Any, Request, grpc.aio.ServicerContext], Awaitable[Response]]:
    """Map exceptions of a unary handler to statuses (RequestError as is, others INTERNAL)."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Request, context: grpc.aio.ServicerContext) -> Response:
        try:
            return await fn(self, request, context)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception as exc:  # noqa: BLE001 - every failure gets a proper status
            await abort(context, _translate(exc, fn.__name__))
            raise  # pragma: no cover - abort raises

    return wrapper


def streaming(
    fn: Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]],
) -> Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]]:
    """:func:`unary` for server-streaming handlers."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Request,
                      context: grpc.aio.ServicerContext) -> AsyncIterator[Response]:
        items = fn(self, request, context)
        try:
            async for item in items:
                yield item
        except (asyncio.CancelledError, grpc.aio.AbortError, GeneratorExit):
            raise
        except Exception as exc:  # noqa: BLE001
            await abort(context, _translate(exc, fn.__name__))
        finally:
            await items.aclose()  # type: ignore[attr-defined]

    return wrapper


@dataclass
class Loaded:
    """A request's position: how it came and the game's validated state."""

    decoded: DecodedState
    state: State


@dataclass
class SearchPlan:
    data: dict[str, Any]
    iterations: int | None
    time_limit: float | None
    deadline: float | None
    seed: int
    c: float | None
    max_candidates: int
    observer: int | None = None
    #: Strength level (``engine.search.levels``); 0: none, the most visited move.
    level: int = 0


def _option_default(value: bool | int | str) -> pb.OptionValue:
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    return pb.OptionValue(string_value=str(value))


def _option_value(value: pb.OptionValue, field: str) -> bool | int | str:
    kind = value.WhichOneof("kind")
    if kind is None:
        raise invalid(f"{field} has no value: set bool_value, int_value or string_value",
                      field, errors.INVALID_OPTION)
    result: bool | int | str = getattr(value, kind)
    return result


def game_info_message(info: GameInfo, kernel: bool) -> pb.GameInfo:
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
        options=[pb.GameOption(name=o.name, default_value=_option_default(o.default),
                               description=o.description) for o in info.options],
        description=info.description,
        typed_state=codecs.has_typed(info.name),
        kernel_available=kernel,
    )


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
    return status


def move_message(state: State, move: int) -> pb.Move:
    return pb.Move(id=move, text=state.move_to_text(move))


#: Largest int32: ``Analysis.iterations`` and ``MoveAnalysis.visits`` are int32 (JSON
#: numbers).  Iteration searches stop at ``max_iterations`` (below it, see
#: ``ServerConfig.check``); a very long time-limited search is capped here, never wrapped.
MAX_COUNT = 2**31 - 1


def analysis_message(data: dict[str, Any], max_candidates: int = 0) -> pb.Analysis:
    """The ``Analysis`` message of a worker's result dict (counts capped at MAX_COUNT)."""
    best_id, best_text = data["best"]
    moves = data["moves"][:max_candidates] if max_candidates else data["moves"]
    return pb.Analysis(
        player=data["player"],
        best_move=pb.Move(id=best_id, text=best_text),
        iterations=min(data["iterations"], MAX_COUNT),
        elapsed_seconds=data["elapsed"],
        win_probabilities=data["win_probabilities"],
        expected_scores=data["expected_scores"],
        moves=[
            pb.MoveAnalysis(
                move=pb.Move(id=m["id"], text=m["text"]),
                visits=min(m["visits"], MAX_COUNT),
                win_probabilities=m["win_probabilities"],
                expected_scores=m["expected_scores"],
                win_probability=m["win_probability"],
            )
            for m in moves
        ],
        principal_variation=[pb.Move(id=i, text=t) for i, t in data["pv"]],
        stop_reason=_STOP_REASONS.get(data.get("stop_reason", ""),
                                      pb.SEARCH_STOP_REASON_UNSPECIFIED),
        target=data.get("target"),
    )


@dataclass
class MoveCheck:
    legal: bool
    move: pb.Move
    reason: str = ""
    code: pb.IllegalReason = pb.ILLEGAL_REASON_UNSPECIFIED
    field: str = "move"


def hidden_moves_reason(state: State, observer: int | None) -> str:
    """Why ``observer`` is told nothing about the moves of the seat to move."""
    player = state.current_player()
    mover = "chance" if player == CHANCE else seat_label(player)
    if observer is None:  # the host sees every seat's information: not reached today
        return f"the host cannot judge the moves of {mover}: they depend on what no seat sees"
    return (f"{seat_label(observer)} cannot judge the moves of {mover}: they depend on what "
            f"{player_name(observer)} cannot see")


def move_code_text(state: State, move: int) -> str | None:
    """The text of ``move`` when it is a move code of the game (``State.is_move_code``),
    else None: whatever the id, no exception escapes."""
    try:
        if not state.is_move_code(move):
            return None
        return state.move_to_text(move)
    except (FurnaceError, ValueError, IndexError, KeyError, OverflowError, TypeError):
        return None


def check_move(state: State, move: pb.Move, seat: int | None, present: bool = True,
               observer: int | None = None) -> MoveCheck:
    """Resolve ``move`` (id and/or text) and judge it in ``state`` through the game.

    ``observer`` (``None``: the host) is whom the answer is for: after the checks
    that reveal nothing (notation, id, game over, turn), a move of a seat whose
    moves the observer cannot know is not judged (``ILLEGAL_REASON_HIDDEN``).
    """
    has_id = present and move.HasField("id")
    text = move.text.strip() if present else ""
    resolved = pb.Move()
    if not has_id and not text:
        return MoveCheck(False, resolved, "give the move's id or its text", pb.ILLEGAL_REASON_EMPTY)
    from_text: int | None = None
    if text:
        resolved.text = text
        try:
            from_text = state.parse_move(text)
        except MoveParseError as exc:
            return MoveCheck(False, resolved, str(exc), pb.ILLEGAL_REASON_UNPARSEABLE,
                             "move.text")
        resolved.id = from_text
    if has_id:
        resolved.id = move.id
        # Only an id the game can produce has a text: never one made up for a
        # negative, out-of-range or undecodable number.
        id_text = move_code_text(state, move.id)
        if id_text is None:
            resolved.ClearField("text")
            return MoveCheck(False, resolved,
                             f"move id {move.id} is not a move of {state.info.title}",
                             pb.ILLEGAL_REASON_NOT_A_MOVE, "move.id")
        if from_text is not None and from_text != move.id:
            return MoveCheck(False, resolved,
                             f"move.id {move.id} is {id_text!r} but move.text {text!r} is "
                             f"move {from_text}", pb.ILLEGAL_REASON_ID_TEXT_MISMATCH)
        resolved.text = id_text
    else:
        resolved.text = state.move_to_text(resolved.id)
    player = state.current_player()
    if player == TERMINAL:
        return MoveCheck(False, resolved, "the game is over", pb.ILLEGAL_REASON_GAME_OVER,
                         "state")
    if seat is not None and seat != player:
        whose = "chance moves next" if player == CHANCE else \
            f"it is the turn of {seat_label(player)}"
        return MoveCheck(False, resolved, f"{whose}, not of {seat_label(seat)}",
                         pb.ILLEGAL_REASON_NOT_YOUR_TURN, "seat")
    if not state.moves_known_to(observer):
        return MoveCheck(False, resolved, hidden_moves_reason(state, observer),
                         pb.ILLEGAL_REASON_HIDDEN, "state.observer_seat")
    if player == CHANCE:
        if any(m == resolved.id for m, _ in state.chance_outcomes()):
            return MoveCheck(True, resolved)
        return MoveCheck(False, resolved, "not a chance outcome of this position",
                         pb.ILLEGAL_REASON_RULES)
    why = state.why_illegal(resolved.id)
    if why is None:
        return MoveCheck(True, resolved)
    return MoveCheck(False, resolved, why, pb.ILLEGAL_REASON_RULES)


class FurnaceServicer(pb_grpc.FurnaceServiceServicer):
    """The service; ``pool`` runs searches and playouts."""

    def __init__(self, config: ServerConfig, pool: SearchPool) -> None:
        self.config = config
        self.pool = pool

    def close(self) -> None:
        """Release what the servicer holds (the pool is closed by its owner)."""

    # -- request pieces --------------------------------------------------------------
    def _load(self, message: pb.GameState, present: bool, field: str = "state") -> Loaded:
        decoded = codecs.decode_state(message, field, present)
        where = f"{field}.{decoded.form}"
        try:
            game = registry.get_game(decoded.game)
        except UnknownGameError as exc:
            untyped = decoded.form in codecs.UNTYPED
            raise invalid(str(exc), codecs.state_field(where, decoded.form, "game")
                          if untyped else where, errors.UNKNOWN_GAME) from None
        try:
            state = game.state_from_json(decoded.data)
        except FurnaceError as exc:
            # The field is the whole path of the fault: state.samara.foremen[0].tools.saw
            path = exc.path if isinstance(exc, InvalidStateError) else None
            raise invalid(str(exc), codecs.state_field(where, decoded.form, path),
                          errors.INVALID_STATE) from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                RecursionError) as exc:
            raise invalid(f"corrupt state: {type(exc).__name__}: {exc}", where,
                          errors.INVALID_STATE) from None
        note(game=game.info.name, players=state.num_players)
        observer = decoded.observer_seat
        if observer is not None and not 0 <= observer < state.num_players:
            raise invalid(f"observer_seat must be in {seat_range(state.num_players)}, "
                          f"got {observer}",
                          f"{field}.observer_seat", errors.SEAT_OUT_OF_RANGE)
        return Loaded(decoded, state)

    @staticmethod
    def _seat(request: Any, state: State, field: str = "seat") -> int | None:
        if not request.HasField(field):
            return None
        seat = int(getattr(request, field))
        if not 0 <= seat < state.num_players:
            raise invalid(f"{field} must be in {seat_range(state.num_players)}, got {seat}", field,
                          errors.SEAT_OUT_OF_RANGE)
        return seat

    def _encode(self, loaded: Loaded, state: State, requested_format: int) -> pb.GameState:
        form = codecs.response_form(loaded.decoded.form, requested_format, state.info.name)
        return codecs.encode_state(state.to_json(), form, loaded.decoded.observer_seat)

    def _deadline(self, context: grpc.aio.ServicerContext) -> float | None:
        """``time.monotonic()`` the work must stop by, or None without a deadline."""
        remaining = context.time_remaining()
        if remaining is None or remaining > 1e7:
            return None
        margin = self.config.deadline_margin + self.config.deadline_fraction * remaining
        return time.monotonic() + max(remaining - margin, 0.0)

    def _submit(self, context: grpc.aio.ServicerContext, fn: Callable[..., Any], *args: Any,
                time_limit: float | None, deadline: float | None, timed: bool,
                progress: Callable[[Any], None] | None = None, **kwargs: Any) -> Job:
        """Queue ``fn`` in the pool for this call's client (quota, queue and wait bounds).

        The job gets ``time_end``: ``time_limit`` (if any) capped by the server's
        ``max_time``, both counted from now, so time spent waiting for a worker
        counts; and ``deadline``.  It may wait for a worker until one of them.
        """
        now = time.monotonic()
        limit = self.config.max_time if time_limit is None else \
            min(time_limit, self.config.max_time)
        time_end = now + limit
        stop_by = time_end if deadline is None else min(time_end, deadline)
        return self.pool.submit(fn, *args, client=client_identity(context), stop_by=stop_by,
                                timed=timed, progress=progress, time_end=time_end,
                                deadline=deadline, **kwargs)

    def _search(self, context: grpc.aio.ServicerContext, plan: SearchPlan,
                progress: Callable[[Any], None] | None = None, **kwargs: Any) -> Job:
        return self._submit(context, worker.search_job, plan.data, time_limit=plan.time_limit,
                            deadline=plan.deadline,
                            timed=plan.time_limit is not None and plan.iterations is None,
                            progress=progress, iterations=plan.iterations, seed=plan.seed,
                            c=plan.c, observer=plan.observer, level=plan.level, **kwargs)

    def _budget(self, budget: pb.SearchBudget, analyze: bool, state: State, level: int = 0
                ) -> tuple[int | None, float | None]:
        cfg = self.config
        if not 0 <= budget.iterations <= cfg.max_iterations:
            raise invalid(f"budget.iterations must be in 0..{cfg.max_iterations} "
                          f"(0: no iteration budget), got {budget.iterations}",
                          "budget.iterations", errors.OUT_OF_RANGE)
        max_ms = int(cfg.max_time * 1000)
        if not 0 <= budget.time_limit_ms <= max_ms:
            raise invalid(f"budget.time_limit_ms must be in 0..{max_ms} "
                          f"(0: no time budget), got {budget.time_limit_ms}",
                          "budget.time_limit_ms", errors.OUT_OF_RANGE)
        iterations = int(budget.iterations) or None
        time_limit = budget.time_limit_ms / 1000 if budget.time_limit_ms else None
        if iterations is None and time_limit is None:
            if level:
                # The client asked for a level, not a number: a server that allows
                # fewer iterations caps it rather than refusing the call.
                iterations = min(config_for(state).level(level).iterations,
                                 cfg.max_iterations)
            elif analyze:
                time_limit = min(cfg.default_analyze_time, cfg.max_time)
            else:
                iterations = cfg.default_iterations
        return iterations, time_limit

    def _plan(self, request: Any, context: grpc.aio.ServicerContext, analyze: bool
              ) -> tuple[Loaded, SearchPlan]:
        loaded = self._load(request.state, request.HasField("state"))
        state = loaded.state
        seat = self._seat(request, state)
        player = state.current_player()
        if player == TERMINAL:
            raise precondition("the game is over: there is no move to search", "state",
                               errors.GAME_OVER)
        if player == CHANCE:
            raise precondition("chance moves next, not a seat: apply a chance outcome first",
                               "state", errors.CHANCE_TO_MOVE)
        if seat is not None and seat != player:
            raise precondition(f"it is the turn of {seat_label(player)}, not of "
                               f"{seat_label(seat)}", "seat",
                               errors.NOT_YOUR_TURN)
        observer = loaded.decoded.observer_seat
        if observer is not None and not state.moves_known_to(observer):
            raise invalid(f"{seat_label(player)} is to move, and its moves depend on what "
                          f"state.observer_seat, {seat_label(observer)}, cannot see: a search "
                          f"for {player_name(player)} needs its own view (observer_seat "
                          f"{player}) or the host's (no observer_seat)", "state.observer_seat",
                          errors.OBSERVER_CANNOT_SEE_MOVER)
        level = int(request.level)
        if level and not MIN_LEVEL <= level <= MAX_LEVEL:
            raise invalid(f"level must be in {MIN_LEVEL}..{MAX_LEVEL} ({MIN_LEVEL} weakest; "
                          f"0: no level), got {level}", "level", errors.OUT_OF_RANGE)
        iterations, time_limit = self._budget(request.budget, analyze, state, level)
        note(budget_iterations=iterations or 0,
             budget_ms=int(round(time_limit * 1000)) if time_limit else 0)
        exploration = float(request.exploration)
        if exploration != 0 and not (math.isfinite(exploration)
                                     and 0 < exploration <= MAX_EXPLORATION):
            raise invalid(f"exploration must be in (0, {MAX_EXPLORATION}] (0: default), "
                          f"got {exploration}", "exploration", errors.OUT_OF_RANGE)
        c = exploration or None  # None: the search's own default
        if request.max_candidates < 0:
            raise invalid("max_candidates must not be negative", "max_candidates",
                          errors.OUT_OF_RANGE)
        return loaded, SearchPlan(
            data=state.to_json(),
            iterations=iterations,
            time_limit=time_limit,
            deadline=self._deadline(context),
            seed=int(request.seed),
            c=c,
            max_candidates=int(request.max_candidates),
            observer=observer,
            level=level,
        )

    @staticmethod
    async def _finish(job: Job) -> Any:
        try:
            return _answered(await job.result())
        finally:
            if job.started is not None:
                note(queue_ms=(job.started - job.submitted) * 1000)

    def _admit(self, context: grpc.aio.ServicerContext) -> None:
        """Refuse a search at once, before any work, when the pool could not take it."""
        self.pool.admit(client_identity(context))

    @staticmethod
    def _searched(result: dict[str, Any]) -> None:
        note(iterations=result["iterations"], search_ms=result["elapsed"] * 1000,
             stop_reason=result.get("stop_reason") or None)

    # -- RPCs ----------------------------------------------------------------------
    @unary
    async def ListGames(self, request: pb.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> pb.ListGamesResponse:
        cfg = self.config
        games = []
        for name in registry.game_names():
            try:
                game = registry.get_game(name)
                games.append(game_info_message(game.info, game.kernel_available()))
            except Exception:  # noqa: BLE001 - one broken game must not hide the others
                log.exception("game %r failed to load; left out of ListGames", name)
        limits = pb.ServerLimits(
            max_iterations=cfg.max_iterations,
            max_time_ms=int(cfg.max_time * 1000),
            default_iterations=cfg.default_iterations,
            max_playouts=cfg.max_playouts,
            default_playouts=cfg.default_playouts,
            min_update_interval_ms=int(round(cfg.min_update_interval * 1000)),
            workers=cfg.workers,
            max_queue=cfg.max_queue,
            max_message_bytes=cfg.max_message_bytes,
            max_queue_wait_ms=int(cfg.max_queue_wait * 1000),
            max_searches_per_client=cfg.max_searches_per_client,
            max_search_memory_bytes=cfg.max_search_memory_bytes,
            max_concurrent_rpcs=cfg.max_concurrent_rpcs,
        )
        return pb.ListGamesResponse(games=games, limits=limits)

    @unary
    async def NewGame(self, request: pb.NewGameRequest,
                      context: grpc.aio.ServicerContext) -> pb.NewGameResponse:
        if not request.game:
            raise invalid("game is required (see ListGames)", "game", errors.MISSING_FIELD)
        try:
            game = registry.get_game(request.game)
        except UnknownGameError as exc:
            raise invalid(str(exc), "game", errors.UNKNOWN_GAME) from None
        info = game.info
        note(game=info.name, players=int(request.num_players))
        try:
            info.check_players(int(request.num_players))
        except InvalidOptionError as exc:
            raise invalid(str(exc), "num_players", errors.INVALID_PLAYER_COUNT) from None
        options: dict[str, Any] = {}
        for name in sorted(request.options):
            field = f"options[{name}]"
            value = _option_value(request.options[name], field)
            try:
                info.resolve_options({name: value})
            except InvalidOptionError as exc:
                raise invalid(str(exc), field, errors.INVALID_OPTION) from None
            options[name] = value
        state = game.new_game(seed=int(request.seed), num_players=int(request.num_players),
                              options=options)
        form = codecs.response_form(None, request.state_format, info.name)
        return pb.NewGameResponse(state=codecs.encode_state(state.to_json(), form),
                                  status=status_message(state), render=state.render())

    @unary
    async def LegalMoves(self, request: pb.LegalMovesRequest,
                         context: grpc.aio.ServicerContext) -> pb.LegalMovesResponse:
        loaded = self._load(request.state, request.HasField("state"))
        state = loaded.state
        seat = self._seat(request, state)
        observer = loaded.decoded.observer_seat
        player = state.current_player()
        response = pb.LegalMovesResponse(status=status_message(state))
        wanted = (player >= 0 and (seat is None or seat == player)) or (
            player == CHANCE and seat is None)
        if wanted and not state.moves_known_to(observer):
            response.moves_hidden = True  # they depend on what the observer cannot see
        elif player >= 0 and wanted:
            response.moves.extend(move_message(state, m) for m in state.legal_moves())
        elif wanted:
            for move, probability in state.chance_outcomes():
                response.chance_outcomes.add(move=move_message(state, move),
                                             probability=probability)
        if request.include_render:
            # Drawn as the observer sees it (the host without one).
            response.render = state.render(observer)
        return response

    @unary
    async def CheckMove(self, request: pb.CheckMoveRequest,
                        context: grpc.aio.ServicerContext) -> pb.CheckMoveResponse:
        loaded = self._load(request.state, request.HasField("state"))
        seat = self._seat(request, loaded.state)
        check = check_move(loaded.state, request.move, seat, request.HasField("move"),
                           loaded.decoded.observer_seat)
        return pb.CheckMoveResponse(legal=check.legal, move=check.move, reason=check.reason,
                                    reason_code=check.code)

    @unary
    async def ApplyMove(self, request: pb.ApplyMoveRequest,
                        context: grpc.aio.ServicerContext) -> pb.ApplyMoveResponse:
        loaded = self._load(request.state, request.HasField("state"))
        state = loaded.state
        seat = self._seat(request, state)
        observer = loaded.decoded.observer_seat
        # Judged as the host: the client vouches for the move even when its observer
        # could not judge it; only the error's words depend on the observer.
        check = check_move(state, request.move, seat, request.HasField("move"))
        if not check.legal and check.code == pb.ILLEGAL_REASON_RULES \
                and not state.moves_known_to(observer):
            # The rules' reason would show the observer what it cannot see.
            check.reason = ("the rules forbid it here (the reason is withheld: "
                            + hidden_moves_reason(state, observer) + ")")
        if not check.legal:
            code_name = pb.IllegalReason.Name(check.code)
            if check.code == pb.ILLEGAL_REASON_GAME_OVER:
                raise precondition(f"cannot play: {check.reason}", check.field, errors.GAME_OVER,
                                   illegal_reason=code_name)
            if check.code == pb.ILLEGAL_REASON_NOT_YOUR_TURN:
                raise precondition(f"cannot play: {check.reason}", check.field,
                                   errors.NOT_YOUR_TURN, illegal_reason=code_name)
            reason = errors.ILLEGAL_MOVE if check.code == pb.ILLEGAL_REASON_RULES else \
                errors.INVALID_MOVE
            if check.code == pb.ILLEGAL_REASON_NOT_A_MOVE:
                # The reason names the id already.
                raise invalid(check.reason, check.field, reason, illegal_reason=code_name)
            text = check.move.text or (str(check.move.id) if check.move.HasField("id") else "")
            raise invalid(f"illegal move {text!r}: {check.reason}" if text else check.reason,
                          check.field, reason, illegal_reason=code_name)
        player = state.current_player()
        seen = state.move_seen_by(check.move.id, observer)
        events = state.apply(check.move.id)
        record = pb.MoveRecord(player=player, events=events_seen_by(events, observer))
        if seen is None:
            record.move_hidden = True  # the observer only learns that `player` moved
        else:
            record.move.CopyFrom(pb.Move(id=check.move.id, text=seen))
        return pb.ApplyMoveResponse(
            state=self._encode(loaded, state, request.state_format),
            record=record,
            status=status_message(state),
            render=state.render(observer),
        )

    @unary
    async def BestMove(self, request: pb.BestMoveRequest,
                       context: grpc.aio.ServicerContext) -> pb.BestMoveResponse:
        self._admit(context)
        _, plan = self._plan(request, context, analyze=False)
        job = self._search(context, plan)
        try:
            result = await self._finish(job)
        finally:
            job.cancel()
        self._searched(result)
        analysis = analysis_message(result, plan.max_candidates)
        move = analysis.best_move
        if "chosen" in result:  # a level's choice, made in the worker
            chosen_id, chosen_text = result["chosen"]
            move = pb.Move(id=chosen_id, text=chosen_text)
        return pb.BestMoveResponse(move=move, analysis=analysis)

    @streaming
    async def Analyze(self, request: pb.AnalyzeRequest,
                      context: grpc.aio.ServicerContext) -> AsyncIterator[pb.AnalyzeResponse]:
        cfg = self.config
        self._admit(context)
        _, plan = self._plan(request, context, analyze=True)
        interval_ms = request.update_interval_ms or int(cfg.default_update_interval * 1000)
        min_ms = int(round(cfg.min_update_interval * 1000))
        if not min_ms <= interval_ms <= MAX_UPDATE_INTERVAL_MS:
            raise invalid(f"update_interval_ms must be in {min_ms}..{MAX_UPDATE_INTERVAL_MS} "
                          f"(0: {int(cfg.default_update_interval * 1000)}), got {interval_ms}",
                          "update_interval_ms", errors.OUT_OF_RANGE)
        loop = asyncio.get_running_loop()
        # Only the newest update waits to be sent: a client that reads slowly gets
        # fewer updates, never a growing backlog.
        latest: list[dict[str, Any]] = []
        arrived = asyncio.Event()

        def keep(data: dict[str, Any]) -> None:
            latest[:] = [data]
            arrived.set()

        def on_progress(data: dict[str, Any]) -> None:  # in the pool's dispatcher thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                loop.call_soon_threadsafe(keep, data)

        job = self._search(context, plan, progress=on_progress,
                           progress_interval=interval_ms / 1000)
        outcome = asyncio.ensure_future(job.result())
        sequence = 0
        try:
            while True:
                waiter = asyncio.ensure_future(arrived.wait())
                try:
                    await asyncio.wait({outcome, waiter}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
                if outcome.done():
                    break
                arrived.clear()
                if latest:
                    yield pb.AnalyzeResponse(
                        analysis=analysis_message(latest.pop(), plan.max_candidates),
                        final=False, sequence=sequence)
                    sequence += 1
            # The search ends by its time budget (at most the server's max_time), so
            # the stream does too, with its final message.
            result = _answered(outcome.result())
            if job.started is not None:
                note(queue_ms=(job.started - job.submitted) * 1000)
            self._searched(result)
            yield pb.AnalyzeResponse(analysis=analysis_message(result, plan.max_candidates),
                                     final=True, sequence=sequence)
        finally:
            outcome.cancel()
            job.cancel()

    @unary
    async def EstimateScores(self, request: pb.EstimateScoresRequest,
                             context: grpc.aio.ServicerContext) -> pb.EstimateScoresResponse:
        cfg = self.config
        self._admit(context)
        loaded = self._load(request.state, request.HasField("state"))
        playouts = request.playouts or cfg.default_playouts
        if not 1 <= playouts <= cfg.max_playouts:
            raise invalid(f"playouts must be in 0..{cfg.max_playouts} "
                          f"(0: {cfg.default_playouts}), got {request.playouts}", "playouts",
                          errors.OUT_OF_RANGE)
        # With observer_seat: from that seat's information; without: the host's.
        job = self._submit(context, worker.estimate_job, loaded.state.to_json(),
                           time_limit=None, deadline=self._deadline(context), timed=False,
                           playouts=playouts, seed=int(request.seed),
                           observer=loaded.decoded.observer_seat)
        try:
            result = await self._finish(job)
        finally:
            job.cancel()
        note(playouts=result["playouts"])
        return pb.EstimateScoresResponse(
            seats=[pb.SeatEstimate(**seat) for seat in result["seats"]],
            playouts=result["playouts"],
            elapsed_seconds=result["elapsed"],
        )


def _answered(result: Any) -> Any:
    """A job's result; None (it was stopped before it started) becomes UNAVAILABLE."""
    if result is None:
        raise RequestError(grpc.StatusCode.UNAVAILABLE,
                           "the search was stopped before it started; retry the call",
                           reason=errors.SHUTTING_DOWN)
    return result
