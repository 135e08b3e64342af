"""The game side of every FurnaceService call, run in the server's worker processes.

The servicer (:mod:`ai_server.service`) runs no game code: it admits a call, hands its
request to a worker process and answers what comes back.  What a worker runs is
here: a request message in, a response message (or a :class:`RequestError`) out.

* :func:`run_call` is the job of the *call pool*: NewGame, LegalMoves, CheckMove and
  ApplyMove, whole (decoding the position, the game's validation, the game's answer,
  encoding the response).  Nothing in it can be asked to stop: the pool kills the
  worker when the call outruns its deadline or the server's ``max_call_time``.
* :func:`search_call` and :func:`estimate_call` are the jobs of the *search pool*:
  BestMove and Analyze, EstimateScores, from the request to the response, the search
  itself in :mod:`ai_server.jobs`.

Positions are rebuilt and validated by the game
(``registry.get_game(name).state_from_json``), a proposed move is judged by the engine
(:func:`engine.move_checks.judge_move`), and engine values become messages in
:mod:`ai_server.messages`.  Every failure is a status from
:mod:`ai_server.errors`, never UNKNOWN; a bug is INTERNAL, its traceback handed to
the server to log (the workers have no log of their own).

Whose view: a request's state is the whole position; ``GameState.observer_seat``
(``None`` without it: the host, who sees every seat's private information) says
whom the answer is for.  Everything shown goes through the game's observer model:
renders are ``render(observer)``, move records ``move_seen_by`` and
``events_seen_by``, and the moves of a seat the observer cannot know
(``moves_known_to``) are neither listed, judged nor searched for.

What a call learned for the access log (game, players, budget, iterations...) is set
with :func:`ai_server.observe.note` as in the server, collected here and noted again
by the servicer (:class:`Answer`).
"""

from __future__ import annotations

import copyreg
import dataclasses
import secrets
import traceback
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

import grpc
from google.protobuf import struct_pb2
from google.protobuf.message import Message

from ai_server import codecs, errors, jobs, messages, records, sealing
from ai_server.codecs import DecodedState
from ai_server.config import ServerConfig
from ai_server.errors import RequestError, invalid, precondition
from ai_server.observe import CALL, CallRecord, note
from ai_server.search_requests import SearchRequest
from engine import records as engine_records
from engine import registry
from engine.game import (
    CHANCE,
    TERMINAL,
    FurnaceError,
    InvalidOptionError,
    InvalidStateError,
    State,
    UnknownGameError,
    events_seen_by,
)
from engine.move_checks import MoveFault, hidden_moves_reason, judge_move
from engine.search.analysis import Analysis
from engine.seats import player_name, seat_label, seat_range
from furnace_proto.furnace.v1 import furnace_pb2 as pb


# -- messages between processes ---------------------------------------------------------
def _message(name: str, data: bytes) -> Message:
    message: Message = getattr(pb, name).FromString(data)
    return message


def _reduce_message(message: Message) -> tuple[Any, ...]:
    return _message, (type(message).__name__, message.SerializeToString())


# Requests and responses cross to and from the worker processes pickled: by their
# bytes, since the generated classes name a module ("furnace.v1.furnace_pb2") that
# pickle cannot import by that name.
for _name in pb.DESCRIPTOR.message_types_by_name:
    copyreg.pickle(getattr(pb, _name), _reduce_message)


# -- what a job hands back ---------------------------------------------------------------
@dataclass
class Answer:
    """A call's outcome as a worker hands it back: the response or the error, what the
    call learned for the access log, and the traceback of a bug (to be logged)."""

    #: The response message (ReviewGame's jobs: its plan, or a judged decision, which
    #: the servicer turns into messages).
    response: Any = None
    error: RequestError | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    bug: str | None = None


def _internal() -> RequestError:
    return RequestError(grpc.StatusCode.INTERNAL,
                        "internal server error; see the server log", reason=errors.INTERNAL)


def answer(method: str, work: Callable[[], Any]) -> Answer:
    """Run ``work`` as ``method``'s game side: its response, or its error as a status."""
    record = CallRecord(method)
    token = CALL.set(record)
    result = Answer()
    try:
        result.response = work()
    except RequestError as error:
        result.error = error
    except FurnaceError as exc:
        result.error = errors.refused(exc)
    except Exception:  # noqa: BLE001 - a bug: INTERNAL, and the server logs it
        result.error = _internal()
        result.bug = traceback.format_exc()
    finally:
        CALL.reset(token)
    if result.error is not None:
        record.reason = result.error.reason
    result.notes = {k: v for k, v in asdict(record).items()
                    if v is not None and k != "method"}
    return result


@dataclass
class Loaded:
    """A request's position: how it came and the game's validated state."""

    decoded: DecodedState
    state: State
    #: The request's game record (GameState.record), when it came as one.
    record: pb.GameRecord | None = None
    #: The game's record a sealed state carries (a record file's JSON), read only when
    #: needed (:func:`history_of`).
    sealed_record: dict[str, Any] | None = None


def load(message: pb.GameState, present: bool, field: str = "state") -> Loaded:
    """Decode a request's position and have the game validate it."""
    if present and message.WhichOneof("state") == records.RECORD:
        decoded, state = records.load_record(message, field)  # replayed, every move checked
        return _checked(Loaded(decoded, state, message.record), field)
    sealed_record = None
    if present and message.WhichOneof("state") == SEALED:
        decoded, sealed_record = open_sealed(message, field)
    else:
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
        if decoded.form == SEALED:  # its words could quote what the holder may not see
            raise _stale_seal(where) from None
        # The field is the whole path of the fault: state.samara.foremen[0].tools.saw
        path = exc.path if isinstance(exc, InvalidStateError) else None
        raise invalid(str(exc), codecs.state_field(where, decoded.form, path),
                      errors.INVALID_STATE) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError,
            RecursionError) as exc:
        if decoded.form == SEALED:
            raise _stale_seal(where) from None
        raise invalid(f"corrupt state: {type(exc).__name__}: {exc}", where,
                      errors.INVALID_STATE) from None
    return _checked(Loaded(decoded, state, sealed_record=sealed_record), field)


def _checked(loaded: Loaded, field: str) -> Loaded:
    state, observer = loaded.state, loaded.decoded.observer_seat
    note(game=state.info.name, players=state.num_players)
    if observer is not None and not 0 <= observer < state.num_players:
        raise invalid(f"observer_seat must be in {seat_range(state.num_players)}, "
                      f"got {observer}",
                      f"{field}.observer_seat", errors.SEAT_OUT_OF_RANGE)
    return loaded


def seat_of(request: Any, state: State, field: str = "seat") -> int | None:
    """The request's seat field checked against the position (None when unset)."""
    if not request.HasField(field):
        return None
    seat = int(getattr(request, field))
    if not 0 <= seat < state.num_players:
        raise invalid(f"{field} must be in {seat_range(state.num_players)}, got {seat}", field,
                      errors.SEAT_OUT_OF_RANGE)
    return seat


# -- sealed states (ai_server.sealing) ----------------------------------------------------
#: The GameState field of a sealed state, and its form in DecodedState.
SEALED = "sealed"


def _sealer() -> sealing.Sealer:
    """The server's sealer: every server has one (its own key when given none)."""
    sealer = sealing.SEALER.get()
    assert sealer is not None, "a call runs with its server's sealer (sealing.using)"
    return sealer


def _stale_seal(where: str) -> RequestError:
    return invalid("the sealed state does not load in this server's version of the game",
                   where, errors.INVALID_STATE)


def open_sealed(message: pb.GameState, field: str = "state"
                ) -> tuple[DecodedState, dict[str, Any] | None]:
    """A request's sealed position, opened (its observer is the seat it was sealed for),
    and the game's record it carries, if any (a record file's JSON)."""
    where = f"{field}.{SEALED}"
    try:
        opened = _sealer().unseal(message.sealed)
    except sealing.SealError as exc:
        raise invalid(str(exc), where, errors.INVALID_SEAL) from None
    data, seat = opened.state, opened.seat
    if message.HasField("observer_seat") and message.observer_seat != seat:
        raise invalid(f"the state is sealed for {seat_label(seat)}: {field}.observer_seat must "
                      f"be {seat} or unset, got {message.observer_seat}",
                      f"{field}.observer_seat", errors.SEAL_MISMATCH)
    return DecodedState(game=data["game"], data=data, form=SEALED,
                        observer_seat=seat), opened.record


def history_of(loaded: Loaded, field: str = "state") -> engine_records.GameRecord | None:
    """The game's record up to the loaded position, where the server knows it: the one
    its sealed state carries, or the request's record when that starts from NewGame's
    seed (None otherwise: a position given whole has no known past)."""
    if loaded.sealed_record is not None:
        try:
            return engine_records.record_from_json(loaded.sealed_record)
        except FurnaceError:  # its words could quote a move the holder did not see
            raise _stale_seal(f"{field}.{SEALED}") from None
    if loaded.record is not None and loaded.record.WhichOneof("start") == "seed":
        return records.engine_record(loaded.record, loaded.state, field)
    return None


def _extended(history: engine_records.GameRecord | None,
              move: int) -> engine_records.GameRecord | None:
    """``history`` plus ``move``; None past a record's length limit (the game plays on,
    its sealed states no longer carry a record)."""
    if history is None or len(history.moves) >= engine_records.MAX_RECORD_MOVES:
        return None
    return dataclasses.replace(history, moves=[*history.moves, move])


def answer_form(request_form: str | None, requested: int, game: str, observer: int | None,
                observer_field: str = "state.observer_seat") -> str:
    """The form of an answered state: sealed when asked (STATE_FORMAT_SEALED) or when the
    request's was and no other is asked; a sealed request is never answered readable."""
    if requested == pb.STATE_FORMAT_SEALED or (
            requested == pb.STATE_FORMAT_UNSPECIFIED and request_form == SEALED):
        if observer is None:
            raise invalid(f"a state is sealed for one seat (the host sees every hand): set "
                          f"{observer_field}", observer_field, errors.MISSING_FIELD)
        return SEALED
    if request_form == SEALED:
        raise invalid("a sealed state is answered sealed, never in a form its holder could "
                      "read: leave state_format unset or STATE_FORMAT_SEALED", "state_format",
                      errors.SEAL_MISMATCH)
    return codecs.response_form(request_form, requested, game)


def encode_for(state: State, form: str, observer: int | None,
               history: engine_records.GameRecord | None = None) -> pb.GameState:
    """``state`` as a ``GameState`` of ``form`` (from :func:`answer_form`) for ``observer``;
    sealed, with the game's record ``history`` when known (ReviewGame reads it)."""
    if form == SEALED:
        assert observer is not None  # answer_form saw to it
        record = None if history is None else engine_records.record_to_json(history)
        return pb.GameState(sealed=_sealer().seal(state.to_json(), observer, record),
                            observer_seat=observer)
    return codecs.encode_state(state.to_json(), form, observer)


def view_of(state: State, message: pb.GameState) -> struct_pb2.Struct | None:
    """Beside a sealed answer: the position as its seat sees it (None for other forms)."""
    if message.WhichOneof("state") != SEALED:
        return None
    return codecs.encode_json_object(state.observation(message.observer_seat))


# -- the call pool's calls ---------------------------------------------------------------
def list_games(config: ServerConfig, log: Any = None) -> pb.ListGamesResponse:
    """Every game that loads, and the server's limits (a broken game is left out)."""
    cfg = config
    games = []
    for name in registry.game_names():
        try:
            game = registry.get_game(name)
            games.append(messages.game_info_message(game.info, game.kernel_available(),
                                                      cfg.max_iterations))
        except Exception:  # noqa: BLE001 - one broken game must not hide the others
            if log is not None:
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
        max_review_decisions=cfg.max_review_decisions,
    )
    return pb.ListGamesResponse(games=games, limits=limits)


#: Bits of the seed a sealed game is dealt from: the games' generators take 64 (a seed
#: answered to a client stays below 2^53, exact as a JavaScript number; a sealed game's
#: seed is never answered, and a wider one makes guessing it from the cards hopeless).
SEALED_SEED_BITS = 64
#: Bits of a seed drawn for a game that is not sealed (answered: exact in JavaScript).
ANSWERED_SEED_BITS = 53


#: Whether the server takes a client's seed for a sealed game (``ServerConfig``'s
#: ``allow_sealed_seeds``), while a worker runs a call (:func:`run_call` sets it).
SEALED_SEEDS_ALLOWED: ContextVar[bool] = ContextVar("furnace_sealed_seeds", default=False)


def new_game(request: pb.NewGameRequest) -> pb.NewGameResponse:
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
        where = f"options[{name}]"
        value = messages.option_value(request.options[name], where)
        try:
            info.resolve_options({name: value})
        except InvalidOptionError as exc:
            raise invalid(str(exc), where, errors.INVALID_OPTION) from None
        options[name] = value
    observer = request.observer_seat if request.HasField("observer_seat") else None
    if observer is not None and not 0 <= observer < request.num_players:
        raise invalid(f"observer_seat must be in {seat_range(request.num_players)}, got "
                      f"{observer}", "observer_seat", errors.SEAT_OUT_OF_RANGE)
    form = answer_form(None, request.state_format, info.name, observer, "observer_seat")
    sealed = form == SEALED
    if sealed and request.HasField("seed") and not SEALED_SEEDS_ALLOWED.get():
        # Whoever knows a sealed game's seed deals it again unsealed, on any server: every
        # hand, the deck in draw order and every reshuffle.
        raise invalid("a sealed game takes no seed: whoever knows it can deal the game again "
                      "in clear (the other hands, the deck); leave seed unset, and the server "
                      "deals from a secret seed of its own (a server started with "
                      "--allow-sealed-seeds takes one, for tests and replays)", "seed",
                      errors.SEAL_MISMATCH)
    # Without a seed, a fresh one from the operating system's secure generator.  Not
    # sealed, it is answered (so that the game can be dealt again).  Sealed, it is kept
    # for the server alone, inside the seal (the game's record, for ReviewGame).
    if request.HasField("seed"):
        seed = int(request.seed)
    else:
        seed = secrets.randbits(SEALED_SEED_BITS if sealed else ANSWERED_SEED_BITS)
    state = game.new_game(seed=seed, num_players=int(request.num_players), options=options)
    history = engine_records.GameRecord(info.name, int(request.num_players), options,
                                        seed=seed)
    encoded = records.state_message(records.new_game_record(info, request, seed), observer) \
        if form == records.RECORD else encode_for(state, form, observer, history)
    response = pb.NewGameResponse(state=encoded, status=messages.status_message(state),
                                  render=state.render(observer), view=view_of(state, encoded))
    if not sealed:  # a sealed game's seed re-deals it in clear: never answered
        response.seed = seed
    return response


def legal_moves(request: pb.LegalMovesRequest) -> pb.LegalMovesResponse:
    loaded = load(request.state, request.HasField("state"))
    state = loaded.state
    seat = seat_of(request, state)
    observer = loaded.decoded.observer_seat
    player = state.current_player()
    response = pb.LegalMovesResponse(status=messages.status_message(state))
    wanted = (player >= 0 and (seat is None or seat == player)) or (
        player == CHANCE and seat is None)
    if wanted and not state.moves_known_to(observer):
        response.moves_hidden = True  # they depend on what the observer cannot see
    elif player >= 0 and wanted:
        response.moves.extend(messages.move_message(state, m) for m in state.legal_moves())
    elif wanted:
        for move, probability in state.chance_outcomes():
            response.chance_outcomes.add(move=messages.move_message(state, move),
                                         probability=probability)
    if request.include_render:
        # Drawn as the observer sees it (the host without one).
        response.render = state.render(observer)
    return response


def check_move_call(request: pb.CheckMoveRequest) -> pb.CheckMoveResponse:
    loaded = load(request.state, request.HasField("state"))
    seat = seat_of(request, loaded.state)
    move, text = messages.proposed_move(request.move, request.HasField("move"))
    return messages.check_move_response(judge_move(
        loaded.state, move, text, seat=seat, observer=loaded.decoded.observer_seat))


def apply_move(request: pb.ApplyMoveRequest) -> pb.ApplyMoveResponse:
    loaded = load(request.state, request.HasField("state"))
    state = loaded.state
    seat = seat_of(request, state)
    observer = loaded.decoded.observer_seat
    mover = state.current_player()
    if loaded.decoded.form == SEALED and observer is not None \
            and mover not in (TERMINAL, observer):
        # The seal keeps the holder to its seat: choosing another seat's moves (or a chance
        # outcome) would alter the game, and whether a move of a seat whose hand decides it
        # is legal would tell what the holder may not see.  BestMove with play moves them.
        raise invalid(f"the state is sealed for {seat_label(observer)}, and "
                      f"{'chance' if mover == CHANCE else seat_label(mover)} is to move: the "
                      f"holder of a sealed state plays its own seat's moves (BestMove with "
                      f"play moves the others)", "state.observer_seat", errors.SEAL_MISMATCH)
    # Judged as the host: the client vouches for the move even when its observer
    # could not judge it; only the error's words depend on the observer.
    move, text = messages.proposed_move(request.move, request.HasField("move"))
    verdict = judge_move(state, move, text, seat=seat)
    if verdict.fault is not None:
        code, field = messages.ILLEGAL_REASONS[verdict.fault]
        why = verdict.reason
        if verdict.fault is MoveFault.RULES and not state.moves_known_to(observer):
            # The rules' reason would show the observer what it cannot see.
            why = ("the rules forbid it here (the reason is withheld: "
                   + hidden_moves_reason(state, observer) + ")")
        code_name = pb.IllegalReason.Name(code)
        if verdict.fault is MoveFault.GAME_OVER:
            raise precondition(f"cannot play: {why}", field, errors.GAME_OVER,
                               illegal_reason=code_name)
        if verdict.fault is MoveFault.NOT_YOUR_TURN:
            raise precondition(f"cannot play: {why}", field, errors.NOT_YOUR_TURN,
                               illegal_reason=code_name)
        reason = errors.ILLEGAL_MOVE if verdict.fault is MoveFault.RULES else \
            errors.INVALID_MOVE
        if verdict.fault is MoveFault.NOT_A_MOVE:
            # The reason names the id already.
            raise invalid(why, field, reason, illegal_reason=code_name)
        shown = verdict.text or (str(verdict.move) if verdict.move is not None else "")
        raise invalid(f"illegal move {shown!r}: {why}" if shown else why, field, reason,
                      illegal_reason=code_name)
    assert verdict.move is not None  # a legal move is resolved
    return pb.ApplyMoveResponse(**play(loaded, verdict.move, request.state_format))


def play(loaded: Loaded, move: int, requested_format: int) -> dict[str, Any]:
    """Play the legal ``move`` in the loaded position: the fields ApplyMove's answer and
    BestMove's with ``play`` share (the new state in the requested form, else the
    request's; what happened; the new status, render and, sealed, view), each as the
    request's observer sees it."""
    state = loaded.state
    observer = loaded.decoded.observer_seat
    player = state.current_player()
    seen = state.move_seen_by(move, observer)
    form = answer_form(loaded.decoded.form, requested_format, state.info.name, observer)
    # A record answer is the request's record (or its position) plus the move: taken first.
    recorded = records.state_message(records.answer_record(loaded.record, state, move),
                                     observer) if form == records.RECORD else None
    # A sealed answer carries the game's record on, the move added (hidden or not).
    history = _extended(history_of(loaded), move) if form == SEALED else None
    events = state.apply_judged(move)  # judged legal by the caller: not checked twice
    record = pb.MoveRecord(player=player, events=events_seen_by(events, observer))
    if seen is None:
        record.move_hidden = True  # the observer only learns that `player` moved
    else:
        record.move.CopyFrom(pb.Move(id=move, text=seen))
    encoded = recorded if recorded is not None else encode_for(state, form, observer, history)
    return {"state": encoded, "record": record, "status": messages.status_message(state),
            "render": state.render(observer), "view": view_of(state, encoded)}


#: The calls of the call pool, by method name.
CALLS: dict[str, Callable[[Any], Message]] = {
    "NewGame": new_game,
    "LegalMoves": legal_moves,
    "CheckMove": check_move_call,
    "ApplyMove": apply_move,
}


def run_call(method: str, request: Message, *, slot: int | None = None,
             sealer: sealing.Sealer, allow_sealed_seeds: bool = False) -> Answer:
    """The call pool's job: ``method``'s whole game side for ``request`` (``sealer``: the
    server's sealing keys; ``allow_sealed_seeds``: the server's option of that name)."""
    token = SEALED_SEEDS_ALLOWED.set(allow_sealed_seeds)
    try:
        with sealing.using(sealer):
            return answer(method, lambda: CALLS[method](request))
    finally:
        SEALED_SEEDS_ALLOWED.reset(token)


# -- searches ------------------------------------------------------------------------------
@dataclass
class SearchPlan:
    """A BestMove/Analyze request's position, checked against what it asks."""

    state: State
    #: The iteration budget in this position (:meth:`SearchRequest.iterations_for`).
    iterations: int | None
    observer: int | None = None
    #: BestMove ``play``: the loaded position, to play the chosen move in.
    played: Loaded | None = None
    #: ``play`` for a mover whose moves the observer cannot know: the search is the
    #: mover's, and its move and analysis are not answered.
    withhold: bool = False


def plan_search(request: Any, asked: SearchRequest, config: ServerConfig) -> SearchPlan:
    """The position of a BestMove/Analyze request whose other fields ``asked`` holds,
    every check that needs it made."""
    loaded = load(request.state, request.HasField("state"))
    state = loaded.state
    seat = seat_of(request, state)
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
    played = loaded if getattr(request, "play", False) else None  # Analyze has no play
    if played is not None:  # the answer's form is refused before any search, not after
        answer_form(loaded.decoded.form, request.state_format, state.info.name, observer)
    withhold = False
    if played is not None and observer is not None and observer != player:
        # A bot moves on its own information.  Where it holds some the observer does not
        # see, its move and analysis would show it (the values of its options reflect its
        # hand): the observer learns what the record shows.
        observer, withhold = player, state.info.private_information
    elif observer is not None and not state.moves_known_to(observer):
        raise invalid(f"{seat_label(player)} is to move, and its moves depend on what "
                      f"state.observer_seat, {seat_label(observer)}, cannot see: a search "
                      f"for {player_name(player)} needs its own view (observer_seat "
                      f"{player}) or the host's (no observer_seat)", "state.observer_seat",
                      errors.OBSERVER_CANNOT_SEE_MOVER)
    iterations = asked.iterations_for(state, config)
    note(budget_iterations=iterations or 0,
         budget_ms=int(round(asked.time_limit * 1000)) if asked.time_limit else 0)
    return SearchPlan(state=state, iterations=iterations, observer=observer, played=played,
                      withhold=withhold)


def _searched(result: jobs.SearchResult) -> None:
    note(iterations=result.analysis.iterations, search_ms=result.analysis.elapsed * 1000,
         stop_reason=result.stop_reason or None)


def search_call(method: str, request: Any, asked: SearchRequest, config: ServerConfig, *,
                time_end: float,
                deadline: float | None, slot: int | None = None,
                report: Callable[[pb.Analysis], None] | None = None,
                progress_interval: float = 0.5, received: float | None = None,
                queued: float = 0.0) -> Answer:
    """The search pool's job for BestMove (a BestMoveResponse) and Analyze (the final
    ``Analysis``; ``report`` gets the updates); ``asked``: the request as the servicer
    read it (:func:`ai_server.search_requests.read_search`).  ``time_end`` and ``deadline`` are
    ``time.monotonic()`` times, and so is ``received``, when the server received the
    call; ``queued`` is how long the job waited for a worker (see
    :func:`ai_server.jobs.run_search`)."""
    def work() -> Message | None:
        plan = plan_search(request, asked, config)
        on_progress = None
        if report is not None:
            send = report

            def on_progress(update: Analysis) -> None:
                send(messages.analysis_message(update, asked.max_candidates))

        result = jobs.run_search(
            plan.state, iterations=plan.iterations, time_end=time_end, deadline=deadline,
            seed=asked.seed, c=asked.c, observer=plan.observer, level=asked.level, slot=slot,
            report=on_progress, progress_interval=progress_interval, received=received,
            queued=queued)
        if result is None:
            return None  # cancelled before it ran
        _searched(result)
        analysis = messages.analysis_message(result.analysis, asked.max_candidates,
                                             result.stop_reason, result.queued_seconds)
        if asked.analyze:
            return analysis
        move = analysis.best_move
        if result.chosen is not None:  # a level's choice
            chosen_id, chosen_text = result.chosen
            move = pb.Move(id=chosen_id, text=chosen_text)
        response = pb.BestMoveResponse() if plan.withhold else \
            pb.BestMoveResponse(move=move, analysis=analysis)
        if plan.played is not None:
            response.MergeFrom(pb.BestMoveResponse(
                **play(plan.played, move.id, request.state_format)))
        return response

    with sealing.using(config.sealer):
        return answer(method, work)


def estimate_call(request: pb.EstimateScoresRequest, playouts: int, config: ServerConfig, *,
                  time_end: float, deadline: float | None,
                  slot: int | None = None) -> Answer:
    """The search pool's job for EstimateScores; ``playouts``: the request's, as the
    servicer read them (:func:`ai_server.search_requests.read_playouts`)."""
    def work() -> Message | None:
        loaded = load(request.state, request.HasField("state"))
        # With observer_seat: from that seat's information; without: the host's.
        result = jobs.run_estimate(loaded.state, playouts=playouts, seed=int(request.seed),
                                     time_end=time_end, deadline=deadline,
                                     observer=loaded.decoded.observer_seat, slot=slot)
        if result is None:
            return None
        note(playouts=result["playouts"])
        return pb.EstimateScoresResponse(
            seats=[pb.SeatEstimate(**seat) for seat in result["seats"]],
            playouts=result["playouts"],
            elapsed_seconds=result["elapsed"],
        )

    with sealing.using(config.sealer):
        return answer("EstimateScores", work)
