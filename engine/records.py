"""Game records: a game's setup plus the moves played, and their replay.

A position can be handed over whole (``State.to_json``), or as the game was
played: the setup (NewGame's ``seed``, or an explicit ``initial`` position, e.g. a
deal a site made itself) and the moves since, in order.  A record needs no
knowledge of a game's internals, so a site that keeps its games as move lists can
ask about any position of them in one call (as KataGo's analysis engine takes rules
plus moves) instead of one ApplyMove per move.

:func:`replay` rebuilds the position: it deals from the seed exactly as NewGame does
(or loads ``initial``), then plays every move, each checked as ApplyMove checks it
(a text is read in the position reached; an id must be a move of the game, legal
there; id and text together must agree).  A bad move raises
:class:`RecordMoveError` naming its index, so the caller can point at it.  Replay
runs on the game's compiled kernel when there is one (much faster per move) and
answers the reference rules' state all the same.

>>> record = GameRecord("samara", 2, seed=7, moves=["recruit woman"])
>>> state = replay(record)
>>> state.to_json() == replay(record, kernel=False).to_json()
True
>>> replay(GameRecord("samara", 2, seed=7, moves=["recruit woman", "fly away"]))
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.records.RecordMoveError: moves[1]: cannot read move 'fly away': expected one of: ...
>>> record_from_json(record_to_json(record)) == record
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import registry
from engine.game import (
    CHANCE,
    FurnaceError,
    InvalidStateError,
    MoveParseError,
    State,
)
from engine.move_checks import MoveFault, judge_move, why_rules_forbid
from engine.validation import short_repr

#: Most moves a record may hold: a replay costs time in proportion, and no game of
#: ours runs near this long (a whole game is a few hundred moves: random 4-player
#: games of Oh My Goods! run to about 600).  Below the server's limit of 5,000 list
#: entries per request (ai_server.wire), so that a record over it is named as such.
MAX_RECORD_MOVES = 4_000

#: The ``format`` and ``version`` of a record file (:func:`record_to_json`).
FILE_FORMAT = "furnace-record"
FILE_VERSION = 1

#: A move of a record: its id, its text, or both (which must then agree).
MoveEntry = int | str | tuple[int, str]



class RecordError(FurnaceError):
    """A record that does not describe a game: ``field`` names the part at fault
    (``game``, ``num_players``, ``options[name]``, ``initial``, ``moves``...)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RecordMoveError(RecordError):
    """Move ``index`` of a record cannot be played where the record reaches.

    ``part`` is the part of the move at fault: ``"id"`` (no move of the game),
    ``"text"`` (not the game's notation), or None (the move itself: illegal there,
    or id and text disagree); ``kind`` says which, in the words of ApplyMove's judge
    (:class:`~engine.move_checks.MoveFault`: ``RULES``, ``UNPARSEABLE``...).
    """

    def __init__(self, message: str, index: int, kind: MoveFault,
                 part: str | None = None) -> None:
        where = f"moves[{index}]" + (f".{part}" if part else "")
        super().__init__(f"moves[{index}]: {message}", where)
        self.index = index
        self.kind = kind
        self.part = part
        self.reason = message


@dataclass
class GameRecord:
    """A game as it was played: the setup and the moves since.

    The setup is NewGame's deal of ``seed`` (with ``num_players`` and ``options``),
    or the position ``initial`` (the game's JSON state; then ``options`` are the
    position's own and ignored here).  ``moves`` are ids, texts, or ``(id, text)``.
    """

    game: str
    num_players: int
    options: dict[str, bool | int | str] = field(default_factory=dict)
    seed: int | None = None
    initial: dict[str, Any] | None = None
    moves: list[MoveEntry] = field(default_factory=list)


def start_state(record: GameRecord) -> State:
    """The position a record starts from: NewGame's deal of its seed, or ``initial``."""
    game = registry.get_game(record.game)
    if record.initial is not None:
        if record.seed is not None:
            raise RecordError("a record starts from a seed or from an initial position, "
                              "not both", "seed")
        state = game.state_from_json(record.initial)
        if state.num_players != record.num_players:
            raise RecordError(f"num_players is {record.num_players} but the initial position "
                              f"is a game of {state.num_players}", "num_players")
        return state
    if record.seed is None:
        raise RecordError("a record needs its setup: a seed (NewGame's deal) or an initial "
                          "position", "seed")
    return game.new_game(seed=record.seed, num_players=record.num_players,
                         options=dict(record.options))


def _split(entry: Any, index: int) -> tuple[int | None, str | None]:
    if isinstance(entry, tuple) and len(entry) == 2:
        move_id, text = entry
    elif isinstance(entry, str):
        move_id, text = None, entry
    else:
        move_id, text = entry, None
    if move_id is not None and (not isinstance(move_id, int) or isinstance(move_id, bool)):
        raise RecordMoveError(f"a move id is an integer, got {short_repr(move_id)}", index,
                              MoveFault.NOT_A_MOVE, "id")
    if text is not None and not isinstance(text, str):
        raise RecordMoveError(f"a move text is a string, got {short_repr(text)}", index,
                              MoveFault.UNPARSEABLE, "text")
    text = text.strip() if text is not None else None
    if move_id is None and not text:
        raise RecordMoveError("give the move's id or its text", index, MoveFault.EMPTY)
    return move_id, text or None


def resolve_move(state: State, index: int, entry: MoveEntry) -> int:
    """Move ``index`` of a record (``entry``) checked in ``state``, the position it is
    played in: its id, legal there.  Raises :class:`RecordMoveError` as ApplyMove
    would refuse it (its judge, :func:`~engine.move_checks.judge_move`, finds the
    fault).  ``state`` may be a kernel twin: every check it makes is the reference
    rules' (the twin's notation and reasons are theirs)."""
    move_id, text = _split(entry, index)
    if text is None or move_id is None:
        # The common case, a move given one way and legal: a kernel says so without
        # leaving C, and nothing need be judged.
        try:
            move = move_id if text is None else state.parse_move(text)
        except MoveParseError:
            move = None
        if move is not None and why_rules_forbid(state, move) is None:
            return move
    verdict = judge_move(state, move_id, text or "")
    if verdict.legal:
        assert verdict.move is not None
        return verdict.move
    fault, why = verdict.fault, verdict.reason
    assert fault is not None
    if fault is MoveFault.UNPARSEABLE:
        raise RecordMoveError(why, index, fault, "text")
    if fault is MoveFault.NOT_A_MOVE:
        raise RecordMoveError(why, index, fault, "id")
    if fault is MoveFault.ID_TEXT_MISMATCH:
        assert move_id is not None and text is not None
        raise RecordMoveError(f"id {move_id} is {state.move_to_text(move_id)!r} but text "
                              f"{text!r} is move {state.parse_move(text)}", index, fault)
    shown = text if text is not None else verdict.text
    if fault is MoveFault.GAME_OVER:
        raise RecordMoveError(f"cannot play {shown!r}: {why}", index, fault)
    raise RecordMoveError(f"illegal move {shown!r}: {why}", index, fault)


def replay(record: GameRecord, *, kernel: bool = True) -> State:
    """The position a record reaches, as the game's reference rules hold it.

    Raises :class:`RecordError` for a bad setup, :class:`RecordMoveError` for a bad
    move, and the game's own errors (unknown game, player count, option, invalid
    initial state).  ``kernel``: see :func:`replay_from`.
    """
    check_length(record.moves)
    return replay_from(start_state(record), record.moves, kernel=kernel)


def check_length(moves: Sequence[MoveEntry]) -> None:
    """Refuse a record of more than :data:`MAX_RECORD_MOVES` moves (before any work)."""
    if len(moves) > MAX_RECORD_MOVES:
        raise RecordError(f"a record holds at most {MAX_RECORD_MOVES} moves, got "
                          f"{len(moves)}", "moves")


def replay_from(start: State, moves: Sequence[MoveEntry], *, kernel: bool = True) -> State:
    """``start`` with ``moves`` played, each checked (:func:`resolve_move`), as the
    game's reference rules hold it.  ``start`` itself is left as it was only on the
    kernel path: pass a copy to keep it.

    With ``kernel`` (and a compiled kernel built for the position), the moves are
    played on the kernel twin (``State.search_state``) and the result converted back
    (``to_reference``): the same state, many times faster per move.  A twin that
    fails otherwise than on a bad move (a position past its fixed bounds) hands the
    replay to the reference rules.
    """
    check_length(moves)
    if not moves:
        return start
    twin = start.search_state() if kernel else start
    if twin is not start and hasattr(twin, "to_reference"):
        try:
            _play(twin, moves)
        except FurnaceError:
            raise
        except ValueError:  # the kernel's bounds: the reference rules have none
            return _play(start, moves)
        reference: State = twin.to_reference()  # type: ignore[attr-defined]
        return reference
    return _play(start, moves)


def _play(state: State, moves: Sequence[MoveEntry]) -> State:
    # resolve_move has judged each move legal: the reference need not judge it again
    # (play_legal); a kernel's apply checks in C.
    play_legal = getattr(state, "play_legal", state.apply)
    for index, entry in enumerate(moves):
        move = resolve_move(state, index, entry)
        (state.apply if state.current_player() == CHANCE else play_legal)(move)
    return state


def replay_steps(record: GameRecord) -> list[tuple[int, int]]:
    """``(player, move id)`` of every move of ``record``, as replayed (reference rules)."""
    state = start_state(record)
    steps = []
    for index, entry in enumerate(record.moves):
        move = resolve_move(state, index, entry)
        steps.append((state.current_player(), move))
        state.apply(move)
    return steps


# -- record files ---------------------------------------------------------------------------
def record_to_json(record: GameRecord, texts: Sequence[str | None] | None = None
                   ) -> dict[str, Any]:
    """``record`` as a JSON-ready dict (a record file, ``furnace play``'s ``save``).

    Moves are written as ``{"id": ..., "text": ...}`` (either part as the record has
    them; ``texts``, one per move, adds the texts of moves given by id).
    """
    moves: list[dict[str, Any]] = []
    for k, entry in enumerate(record.moves):
        move_id, text = _split(entry, k)
        if text is None and texts is not None:
            text = texts[k]
        moves.append({key: value for key, value in (("id", move_id), ("text", text))
                      if value is not None})
    data: dict[str, Any] = {"format": FILE_FORMAT, "version": FILE_VERSION,
                            "game": record.game, "num_players": record.num_players,
                            "options": dict(record.options)}
    if record.initial is not None:
        data["initial"] = record.initial
    else:
        data["seed"] = record.seed
    data["moves"] = moves
    return data


def is_record_json(data: Any) -> bool:
    """Whether ``data`` (a loaded JSON file) is a record file rather than a state."""
    return isinstance(data, Mapping) and data.get("format") == FILE_FORMAT


def record_from_json(data: Any) -> GameRecord:
    """The record of a record file (:func:`record_to_json`); :class:`InvalidStateError`
    naming the field for anything else."""
    if not is_record_json(data):
        raise InvalidStateError(f"format: a record file has \"format\": \"{FILE_FORMAT}\"")
    if data.get("version") != FILE_VERSION:
        raise InvalidStateError(f"version: this is record version {FILE_VERSION}, got "
                                f"{short_repr(data.get('version'))}")
    game, players = data.get("game"), data.get("num_players")
    if not isinstance(game, str) or not game:
        raise InvalidStateError("game: the game's name, a string")
    if not isinstance(players, int) or isinstance(players, bool):
        raise InvalidStateError(f"num_players: an integer, got {short_repr(players)}")
    options = data.get("options", {})
    if not isinstance(options, Mapping) or not all(
            isinstance(v, bool | int | str) for v in options.values()):
        raise InvalidStateError("options: an object of option values")
    seed, initial = data.get("seed"), data.get("initial")
    if (seed is None) == (initial is None):
        raise InvalidStateError("seed: a record has a seed or an initial position (one)")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise InvalidStateError(f"seed: a non-negative integer, got {short_repr(seed)}")
    if initial is not None and not isinstance(initial, dict):
        raise InvalidStateError("initial: the game's JSON state, an object")
    raw_moves = data.get("moves", [])
    if not isinstance(raw_moves, list):
        raise InvalidStateError("moves: a list")
    moves: list[MoveEntry] = []
    for k, raw in enumerate(raw_moves):
        if isinstance(raw, Mapping):
            move_id, text = raw.get("id"), raw.get("text")
            if move_id is not None and text is not None:
                moves.append((move_id, text))
            elif move_id is not None:
                moves.append(move_id)
            elif text is not None:
                moves.append(text)
            else:
                raise InvalidStateError(f"moves[{k}]: give the move's id or its text")
        elif isinstance(raw, int | str) and not isinstance(raw, bool):
            moves.append(raw)
        else:
            raise InvalidStateError(f"moves[{k}]: a move id, a text, or {{\"id\", \"text\"}}")
    return GameRecord(game=game, num_players=players, options=dict(options), seed=seed,
                      initial=initial, moves=moves)
