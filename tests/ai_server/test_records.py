"""Positions as game records on the wire (GameState.record, docs/api.md "Game records").

A record (NewGame's seed or an initial position, plus the moves) is replayed by the
server in one call: its answers are those of the replayed position, a bad move is
INVALID_ARGUMENT naming state.record.moves[k], and answers can be records too.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server import codecs
from engine import records, registry
from engine.game import State
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_details


def random_ids(game: str, players: int, seed: int, count: int) -> list[int]:
    """The first ``count`` moves of a random game dealt from ``seed`` (a seat to move after)."""
    state = registry.get_game(game).new_game(seed=seed, num_players=players)
    rng = random.Random(seed)
    ids = []
    for _ in range(count):
        move = rng.choice(state.legal_moves())
        ids.append(move)
        state.apply(move)
    assert state.current_player() >= 0
    return ids


def record_state(game: str, players: int, moves: list[Any], seed: int | None = None,
                 initial: dict[str, Any] | None = None, **fields: Any) -> pb.GameState:
    record = pb.GameRecord(game=game, num_players=players)
    if seed is not None:
        record.seed = seed
    if initial is not None:
        record.initial.update(initial)
    for move in moves:
        record.moves.append(pb.Move(id=move) if isinstance(move, int) else
                            pb.Move(text=move) if isinstance(move, str) else move)
    return pb.GameState(record=record, **fields)


def error_of(call: Any, request: Any
             ) -> tuple[grpc.StatusCode, list[str], str | None, dict[str, str]]:
    """(code, BadRequest fields, ErrorInfo reason, ErrorInfo metadata) of a failing call."""
    with pytest.raises(grpc.RpcError) as info:
        call(request)
    return rpc_error_details(info.value)


def replayed(record: pb.GameRecord) -> State:
    """The position of an answered record, replayed by the engine itself."""
    moves: list[records.MoveEntry] = [(m.id, m.text) for m in record.moves]
    start = record.WhichOneof("start")
    initial = codecs.decode_json_object(record.initial) if start == "initial" else None
    options = {k: getattr(v, v.WhichOneof("kind")) for k, v in record.options.items()}
    return records.replay(records.GameRecord(
        record.game, record.num_players, options, seed=record.seed if start == "seed" else None,
        initial=initial, moves=moves))


@pytest.mark.parametrize(("game", "players"), [("oh-my-goods", 2), ("samara", 3)])
def test_one_best_move_on_a_record_of_60_moves(stub: pb_grpc.FurnaceServiceStub, game: str,
                                                players: int) -> None:
    """One BestMove on a 60-move record answers as BestMove on the position 61 calls
    (NewGame, 60 ApplyMoves) reach."""
    ids = random_ids(game, players, seed=21, count=60)
    state = stub.NewGame(pb.NewGameRequest(game=game, num_players=players, seed=21,
                                           state_format=pb.STATE_FORMAT_OPAQUE)).state
    for move in ids:
        state = stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=pb.Move(id=move))).state
    budget = pb.SearchBudget(iterations=150)
    on_state = stub.BestMove(pb.BestMoveRequest(state=state, seed=3, budget=budget))
    on_record = stub.BestMove(pb.BestMoveRequest(
        state=record_state(game, players, ids, seed=21), seed=3, budget=budget))
    for reply in (on_state, on_record):
        reply.analysis.ClearField("elapsed_seconds")
        reply.analysis.ClearField("queued_seconds")
    assert on_record == on_state
    assert on_record.analysis.iterations == 150


BAD_MOVES = [
    # (move k, field, ErrorInfo reason, illegal_reason)
    ("illegal", "state.record.moves[5]", "ILLEGAL_MOVE", "ILLEGAL_REASON_RULES"),
    (pb.Move(text="fly to the moon"), "state.record.moves[5].text", "INVALID_MOVE",
     "ILLEGAL_REASON_UNPARSEABLE"),
    (pb.Move(id=-4), "state.record.moves[5].id", "INVALID_MOVE", "ILLEGAL_REASON_NOT_A_MOVE"),
    ("mismatch", "state.record.moves[5]", "INVALID_MOVE", "ILLEGAL_REASON_ID_TEXT_MISMATCH"),
    (pb.Move(), "state.record.moves[5]", "INVALID_MOVE", "ILLEGAL_REASON_EMPTY"),
]


@pytest.mark.parametrize(("bad", "field", "reason", "illegal_reason"), BAD_MOVES)
def test_a_bad_move_is_named_by_its_index(stub: pb_grpc.FurnaceServiceStub, bad: Any,
                                          field: str, reason: str, illegal_reason: str) -> None:
    ids = random_ids("samara", 2, seed=6, count=12)
    before = records.replay(records.GameRecord("samara", 2, seed=6, moves=list(ids[:5])))
    text = before.move_to_text(ids[5])
    if bad == "illegal":
        bad = pb.Move(id=next(m for m in ids if before.why_illegal(m) is not None))
    elif bad == "mismatch":
        other = next(m for m in before.legal_moves() if m != ids[5])
        bad = pb.Move(id=other, text=text)
    moves: list[Any] = [*ids[:5], bad, *ids[6:]]
    request = pb.LegalMovesRequest(state=record_state("samara", 2, moves, seed=6))
    for call in (stub.LegalMoves, stub.CheckMove, stub.EstimateScores):
        code, fields, got_reason, metadata = error_of(
            call, request if call is stub.LegalMoves else
            (pb.CheckMoveRequest if call is stub.CheckMove else pb.EstimateScoresRequest)(
                state=request.state))
        assert (code, fields, got_reason) == (grpc.StatusCode.INVALID_ARGUMENT, [field], reason)
        assert metadata.get("illegal_reason") == illegal_reason


@pytest.mark.parametrize(("change", "field", "reason"), [
    ({"game": "chess"}, "state.record.game", "UNKNOWN_GAME"),
    ({"game": ""}, "state.record.game", "MISSING_FIELD"),
    ({"num_players": 9}, "state.record.num_players", "INVALID_PLAYER_COUNT"),
    ({"options": {"powers": pb.OptionValue(int_value=3)}}, "state.record.options[powers]",
     "INVALID_OPTION"),
    ({"options": {"speed": pb.OptionValue(bool_value=True)}}, "state.record.options[speed]",
     "INVALID_OPTION"),
    ({"seed": None}, "state.record.seed", "MISSING_FIELD"),
    ({"moves": [pb.Move(id=0)] * (records.MAX_RECORD_MOVES + 1)}, "state.record.moves",
     "OUT_OF_RANGE"),
])
def test_a_bad_setup_names_its_field(stub: pb_grpc.FurnaceServiceStub, change: dict[str, Any],
                                     field: str, reason: str) -> None:
    record = pb.GameRecord(game="samara", num_players=2, seed=1)
    for name, value in change.items():
        if name == "seed":
            record.ClearField("seed")
        elif name == "options":
            for key, option in value.items():
                record.options[key].CopyFrom(option)
        elif name == "moves":
            record.moves.extend(value)
        else:
            setattr(record, name, value)
    code, fields, got, _ = error_of(stub.LegalMoves,
                                    pb.LegalMovesRequest(state=pb.GameState(record=record)))
    assert (code, fields, got) == (grpc.StatusCode.INVALID_ARGUMENT, [field], reason)


def test_an_initial_position_and_its_faults(stub: pb_grpc.FurnaceServiceStub) -> None:
    ids = random_ids("oh-my-goods", 2, seed=4, count=30)
    middle = records.replay(records.GameRecord("oh-my-goods", 2, seed=4, moves=list(ids[:10])))
    initial = middle.to_json()
    reply = stub.LegalMoves(pb.LegalMovesRequest(
        state=record_state("oh-my-goods", 2, ids[10:], initial=initial)))
    expected = stub.LegalMoves(pb.LegalMovesRequest(
        state=record_state("oh-my-goods", 2, ids, seed=4)))
    assert reply == expected and reply.moves
    # game and num_players may be left to the position
    assert stub.LegalMoves(pb.LegalMovesRequest(
        state=record_state("", 0, ids[10:], initial=initial))) == expected
    for state, field, reason in [
        (record_state("samara", 2, [], initial=initial), "state.record.game", "INVALID_STATE"),
        (record_state("oh-my-goods", 3, [], initial=initial), "state.record.num_players",
         "INVALID_PLAYER_COUNT"),
        (record_state("oh-my-goods", 2, [], initial={**initial, "round": "one"}),
         "state.record.initial:round", "INVALID_STATE"),
        (record_state("oh-my-goods", 2, ["plan nothing-at-all"], initial=initial),
         "state.record.moves[0].text", "INVALID_MOVE"),
    ]:
        code, fields, got, _ = error_of(stub.LegalMoves, pb.LegalMovesRequest(state=state))
        assert (code, fields, got) == (grpc.StatusCode.INVALID_ARGUMENT, [field], reason)


def test_answers_in_record_form_round_trip(stub: pb_grpc.FurnaceServiceStub) -> None:
    """NewGame asked for a record, then ApplyMoves on records: the answered record
    replays to the position the same moves reach in another form."""
    started = stub.NewGame(pb.NewGameRequest(game="stephens", num_players=2,
                                             state_format=pb.STATE_FORMAT_RECORD))
    record = started.state
    assert record.record.seed == started.seed and not record.record.moves
    state = stub.NewGame(pb.NewGameRequest(game="stephens", num_players=2, seed=started.seed,
                                           state_format=pb.STATE_FORMAT_JSON_OBJECT)).state
    rng = random.Random(5)
    for k in range(12):
        moves = stub.LegalMoves(pb.LegalMovesRequest(state=record)).moves
        move = pb.Move(text=rng.choice(moves).text)
        if k % 3 == 2:  # BestMove play answers in the request's form too
            applied: Any = stub.BestMove(pb.BestMoveRequest(
                state=record, seed=k, budget=pb.SearchBudget(iterations=20), play=True))
            move = applied.move
        else:
            applied = stub.ApplyMove(pb.ApplyMoveRequest(state=record, move=move))
        assert applied.state.WhichOneof("state") == "record"
        assert list(applied.state.record.moves)[:-1] == list(record.record.moves)
        assert applied.state.record.moves[-1] == applied.record.move  # id and text
        record = applied.state
        state = stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=move)).state
    assert replayed(record.record).to_json() == codecs.decode_json_object(state.json_object)
    # A position in another form asked for a record: that position plus the move.
    move = stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves[0]
    answer = stub.ApplyMove(pb.ApplyMoveRequest(
        state=pb.GameState(json_object=state.json_object, observer_seat=1), move=move,
        state_format=pb.STATE_FORMAT_RECORD))
    assert answer.state.observer_seat == 1
    assert answer.state.record.WhichOneof("start") == "initial"
    assert answer.state.record.initial == state.json_object
    assert list(answer.state.record.moves) == [move]
    # ...and a record asked for another form answers that form.
    opaque = stub.ApplyMove(pb.ApplyMoveRequest(state=record, move=move,
                                                state_format=pb.STATE_FORMAT_OPAQUE)).state
    assert codecs.decode_opaque(opaque.opaque) == replayed(answer.state.record).to_json()


def test_new_game_record_keeps_options_and_observer(stub: pb_grpc.FurnaceServiceStub) -> None:
    reply = stub.NewGame(pb.NewGameRequest(
        game="oh-my-goods", num_players=3, seed=12, observer_seat=2,
        options={"second_edition": pb.OptionValue(bool_value=True)},
        state_format=pb.STATE_FORMAT_RECORD))
    assert json_format.MessageToDict(reply.state) == {
        "record": {"game": "oh-my-goods", "numPlayers": 3, "seed": "12",
                   "options": {"second_edition": {"boolValue": True}}},
        "observerSeat": 2}
    dealt = registry.get_game("oh-my-goods").new_game(12, 3, {"second_edition": True})
    assert replayed(reply.state.record).to_json() == dealt.to_json()
