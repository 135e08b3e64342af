"""Positions as game records on the wire: ``GameState.record`` <-> :mod:`engine.records`.

A ``GameRecord`` is a game's setup (NewGame's ``seed``, or an ``initial`` position as
a json_object) plus the moves played since.  :func:`load_record` replays it in the
worker (on the game's kernel where there is one), each fault an INVALID_ARGUMENT
naming its field as the calls that take those values name them: ``state.record.game``,
``.num_players`` and ``.options[name]`` as NewGame, ``.initial:<path>`` as a
json_object state, ``.moves[k]`` (``.id``, ``.text``) as ApplyMove's move, with the
same reasons and ``illegal_reason``.

Answers in record form (:func:`answer_record`, :func:`new_game_record`) are the
request's record plus the move played, or a record starting from the request's
position (or NewGame's seed).
"""

from __future__ import annotations

from typing import Any

from ai_server import codecs, errors, messages
from ai_server.codecs import DecodedState
from ai_server.errors import RequestError, invalid
from engine import records, registry
from engine.game import (
    FurnaceError,
    GameInfo,
    InvalidOptionError,
    InvalidStateError,
    State,
    UnknownGameError,
)
from engine.move_checks import MoveFault
from furnace_proto.furnace.v1 import furnace_pb2 as pb

#: The GameState field of a record, and its form in DecodedState.
RECORD = codecs.RECORD

#: The faults of a record's move that the rules find (the others name no move).
_REFUSED_BY_RULES = (MoveFault.RULES, MoveFault.GAME_OVER)


def option_values(info: GameInfo, options: Any, field: str) -> dict[str, bool | int | str]:
    """A request's ``map<string, OptionValue>`` checked as NewGame checks it; faults
    name ``field[name]``."""
    values: dict[str, bool | int | str] = {}
    for name in sorted(options):
        where = f"{field}[{name}]"
        value = options[name]
        kind = value.WhichOneof("kind")
        if kind is None:
            raise invalid(f"{where} has no value: set bool_value, int_value or string_value",
                          where, errors.INVALID_OPTION)
        values[name] = getattr(value, kind)
        try:
            info.resolve_options({name: values[name]})
        except InvalidOptionError as exc:
            raise invalid(str(exc), where, errors.INVALID_OPTION) from None
    return values


def _entries(moves: Any) -> list[records.MoveEntry]:
    entries: list[records.MoveEntry] = []
    for move in moves:
        if move.HasField("id") and move.text.strip():
            entries.append((int(move.id), move.text))
        elif move.HasField("id"):
            entries.append(int(move.id))
        else:
            entries.append(move.text)  # empty: resolve_move names it
    return entries


def _start(record: pb.GameRecord, where: str) -> State:
    """The position ``record`` starts from, every setup field checked."""
    start = record.WhichOneof("start")
    if start is None:
        raise invalid(f"{where} needs its setup: set seed (NewGame's deal) or initial (a "
                      f"position as json_object)", f"{where}.seed", errors.MISSING_FIELD)
    initial: dict[str, Any] | None = None
    name = record.game
    if start == "initial":
        initial = codecs.decode_json_object(record.initial, f"{where}.initial")
        name = name or initial["game"]
    if not name:
        raise invalid(f"{where}.game is required (see ListGames)", f"{where}.game",
                      errors.MISSING_FIELD)
    try:
        game = registry.get_game(name)
    except UnknownGameError as exc:
        field = f"{where}.game" if record.game else f"{where}.initial:game"
        raise invalid(str(exc), field, errors.UNKNOWN_GAME) from None
    info = game.info
    if initial is None:
        try:
            info.check_players(int(record.num_players))
        except InvalidOptionError as exc:
            raise invalid(str(exc), f"{where}.num_players",
                          errors.INVALID_PLAYER_COUNT) from None
        options = option_values(info, record.options, f"{where}.options")
        return game.new_game(seed=int(record.seed), num_players=int(record.num_players),
                             options=options)
    try:
        if registry.get_game(initial["game"]).info.name != info.name:
            raise invalid(f"{where}.game is {info.name} but the initial position is a game "
                          f"of {initial['game']}", f"{where}.game", errors.INVALID_STATE)
    except UnknownGameError as exc:
        raise invalid(str(exc), f"{where}.initial:game", errors.UNKNOWN_GAME) from None
    try:
        state = game.state_from_json(initial)
    except InvalidStateError as exc:
        raise invalid(str(exc), codecs.state_field(f"{where}.initial", codecs.JSON_OBJECT,
                                                   exc.path), errors.INVALID_STATE) from None
    except FurnaceError as exc:
        raise invalid(str(exc), f"{where}.initial", errors.INVALID_STATE) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError,
            RecursionError) as exc:
        raise invalid(f"corrupt state: {type(exc).__name__}: {exc}", f"{where}.initial",
                      errors.INVALID_STATE) from None
    if record.num_players and record.num_players != state.num_players:
        raise invalid(f"{where}.num_players is {record.num_players} but the initial position "
                      f"is a game of {state.num_players}", f"{where}.num_players",
                      errors.INVALID_PLAYER_COUNT)
    return state


def move_error(exc: records.RecordMoveError, where: str) -> RequestError:
    """A bad move of a record as the status ApplyMove would give it, naming
    ``where.moves[k]`` (and ``.id`` or ``.text``)."""
    code, _ = messages.ILLEGAL_REASONS[exc.kind]
    reason = errors.ILLEGAL_MOVE if exc.kind in _REFUSED_BY_RULES else errors.INVALID_MOVE
    return invalid(f"{where}.{exc}", f"{where}.{exc.field}", reason,
                   illegal_reason=pb.IllegalReason.Name(code))


def load_record(message: pb.GameState, field: str = "state") -> tuple[DecodedState, State]:
    """A request's record, replayed: its position, as the game's reference rules hold it."""
    where = f"{field}.{RECORD}"
    record = message.record
    if len(record.moves) > records.MAX_RECORD_MOVES:
        raise invalid(f"a record holds at most {records.MAX_RECORD_MOVES} moves, got "
                      f"{len(record.moves)}", f"{where}.moves", errors.OUT_OF_RANGE)
    start = _start(record, where)
    try:
        state = records.replay_from(start, _entries(record.moves))
    except records.RecordMoveError as exc:
        raise move_error(exc, where) from None
    observer = message.observer_seat if message.HasField("observer_seat") else None
    return DecodedState(game=state.info.name, data={}, form=RECORD,
                        observer_seat=observer), state


def engine_record(record: pb.GameRecord, state: State, field: str = "state") -> records.GameRecord:
    """A request's record, once :func:`load_record` has replayed it into ``state``, as
    :mod:`engine.records` holds records (the engine's reviews take them)."""
    initial = codecs.decode_json_object(record.initial, f"{field}.{RECORD}.initial") \
        if record.WhichOneof("start") == "initial" else None
    options = {} if initial is not None else \
        option_values(state.info, record.options, f"{field}.{RECORD}.options")
    return records.GameRecord(game=state.info.name, num_players=state.num_players,
                              options=options,
                              seed=int(record.seed) if initial is None else None,
                              initial=initial, moves=_entries(record.moves))


def answer_record(request: pb.GameRecord | None, state: State, move: int) -> pb.GameRecord:
    """The record of the position after ``move``, called *before* it is played in
    ``state``: the request's record plus the move (id and text), or, for a request
    in another form, a record starting from ``state``."""
    played = pb.Move(id=move, text=state.move_to_text(move))
    if request is not None:
        answered = pb.GameRecord()
        answered.CopyFrom(request)
    else:
        answered = pb.GameRecord(game=state.info.name, num_players=state.num_players,
                                 initial=codecs.encode_json_object(state.to_json()))
    answered.moves.append(played)
    return answered


def new_game_record(info: GameInfo, request: pb.NewGameRequest, seed: int) -> pb.GameRecord:
    """NewGame's answer as a record: the game, its options and the seed dealt from."""
    record = pb.GameRecord(game=info.name, num_players=request.num_players, seed=seed)
    for name, value in request.options.items():
        record.options[name].CopyFrom(value)
    return record


def state_message(record: pb.GameRecord, observer: int | None) -> pb.GameState:
    """``record`` as a ``GameState`` (``observer_seat`` kept)."""
    message = pb.GameState(record=record)
    if observer is not None:
        message.observer_seat = observer
    return message
