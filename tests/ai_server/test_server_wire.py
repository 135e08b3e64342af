"""The front door (ai_server.wire): raw request bytes checked before any game code runs.

Requests are sent raw (``channel.unary_unary(method, request_serializer=None)``),
bypassing the stubs' serializers, so anything can be sent.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import grpc
import pytest
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from ai_server import codecs, errors, wire
from ai_server.loopwatch import LoopWatchdog
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from fuzzers import server as fuzz
from tests.ai_server.helpers_furnace import positions_json, rpc_error_info

SERVICE = "furnace.v1.FurnaceService"


def raw_call(channel: grpc.Channel, method: str, body: bytes, timeout: float = 30.0) -> bytes:
    """Send ``body`` as ``method``'s request; the raw answer (raises grpc.RpcError)."""
    path = f"/{SERVICE}/{method}"
    if method == "Analyze":
        stream = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
        return b"".join(stream(body, timeout=timeout))
    call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
    reply: bytes = call(body, timeout=timeout)
    return reply


def raw_error(channel: grpc.Channel, method: str, body: bytes,
              timeout: float = 30.0) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        raw_call(channel, method, body, timeout)
    return info.value


@pytest.fixture(scope="module")
def big_channel(server) -> Any:
    """A channel that sends messages past the server's limits."""
    channel = fuzz.open_fuzz_channel(server.address)
    try:
        yield channel
    finally:
        channel.close()


def heavy_spots(count: int) -> bytes:
    """A LegalMoves request whose typed Samara state holds ``count`` empty spots."""
    spot = fuzz.tag(pb.SamaraState.DESCRIPTOR.fields_by_name["spots"].number, 2) + b"\x00"
    return fuzz.wrap_state(fuzz.typed_state("samara", spot * count))


# -- bytes that do not parse -------------------------------------------------------------
@pytest.mark.parametrize("method", ["ListGames", "NewGame", "LegalMoves", "Analyze"])
@pytest.mark.parametrize("body", [b"\xff\xff\xff", b"\x0a\x05abc", b"\x08",
                                  b"\x0a\x80\x80\x80\x80\x10"])
def test_undecodable_bytes_are_invalid_argument(channel, method, body, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        error = raw_error(channel, method, body)
    code, fields, reason = rpc_error_info(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert fields == ["request"] and reason == wire.MALFORMED_REQUEST
    details = error.details()
    assert "not a valid furnace.v1." in details and len(details) < 200
    for internal in ("DecodeError", "Wire format", "Traceback", "google.protobuf"):
        assert internal not in details
    # Bad bytes are the client's mistake, not the server's: nothing is logged.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_invalid_utf8_is_invalid_argument(channel) -> None:
    body = fuzz.length_delimited(1, b"samara\xff\xfe")
    code, fields, reason = rpc_error_info(raw_error(channel, "NewGame", body))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["request"],
                                      wire.MALFORMED_REQUEST)


# -- size and counts ---------------------------------------------------------------------
def test_oversized_request_is_refused_before_parsing(big_channel) -> None:
    body = heavy_spots(1_800_000)  # 3.6 MB: under the transport's 4 MiB
    error = raw_error(big_channel, "LegalMoves", body)
    code, fields, reason = rpc_error_info(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert fields == ["request"] and reason == wire.REQUEST_TOO_LARGE
    assert f"{len(body)} bytes" in error.details()


def test_element_heavy_state_is_refused_before_game_code(server, big_channel,
                                                         monkeypatch) -> None:
    calls: list[str] = []
    pool = server.server.call_pool
    original = pool.submit

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append("game work")
        return original(*args, **kwargs)

    monkeypatch.setattr(pool, "submit", spy)
    body = heavy_spots(300_000)  # 600 KB: under the size limit, far over the count
    assert len(body) < wire.WireLimits().max_state_bytes
    error = raw_error(big_channel, "LegalMoves", body)
    code, fields, reason = rpc_error_info(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert reason == wire.REQUEST_TOO_COMPLEX and fields == ["state.samara.spots"]
    assert calls == []  # no worker saw it
    fine = pb.LegalMovesRequest(state=codecs.encode_state(positions_json(1, seed=3)[0], "typed"))
    raw_call(big_channel, "LegalMoves", fine.SerializeToString())
    assert calls == ["game work"]


def test_heavy_requests_do_not_stall_other_calls(big_channel, channel) -> None:
    """Cheap calls keep being answered while heavy requests are decoded and refused.

    Before, one 3.6 MB typed state with 1.8 million empty entries held the event
    loop for about ten seconds: every other call waited.  The check is the server's
    loop watchdog (tests/conftest.py fails a test during which anything held a
    server's loop past 100 ms), not a latency: decoding runs in the decode threads.
    """
    heavy = [heavy_spots(1_800_000), heavy_spots(300_000), heavy_spots(400_000)] * 2
    answers: list[str] = []
    held_before = len(LoopWatchdog.held_anywhere)

    def send_heavy() -> None:
        for body in heavy:
            try:
                raw_call(big_channel, "LegalMoves", body)
                answers.append("OK")
            except grpc.RpcError as error:
                answers.append(error.code().name)

    sender = threading.Thread(target=send_heavy)
    sender.start()
    answered = 0
    list_games = channel.unary_unary(f"/{SERVICE}/ListGames", request_serializer=None,
                                     response_deserializer=None)
    while sender.is_alive() or not answered:
        assert list_games(b"", timeout=30)
        answered += 1
    sender.join()
    assert answers == ["INVALID_ARGUMENT"] * len(heavy)
    assert LoopWatchdog.held_anywhere[held_before:] == []


def test_string_and_map_limits(channel) -> None:
    request = pb.NewGameRequest(game="samara", num_players=2)
    request.options["x" * 2000].bool_value = True
    code, fields, reason = rpc_error_info(raw_error(channel, "NewGame",
                                                    request.SerializeToString()))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, wire.FIELD_TOO_LONG)
    assert fields == ["options key"]
    many = pb.LegalMovesRequest(state=pb.GameState(oh_my_goods=pb.OhMyGoodsState(
        discard=["mill-1"] * 4000, deck=["mill-2"] * 1001)))
    code, fields, reason = rpc_error_info(raw_error(channel, "LegalMoves",
                                                    many.SerializeToString()))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, wire.REQUEST_TOO_COMPLEX)
    assert fields == ["state.oh_my_goods.discard"]
    long_card = pb.LegalMovesRequest(state=pb.GameState(
        oh_my_goods=pb.OhMyGoodsState(deck=["mill-1", "x" * 5000])))
    error = raw_error(channel, "LegalMoves", long_card.SerializeToString())
    code, fields, reason = rpc_error_info(error)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, wire.FIELD_TOO_LONG)
    assert fields == ["state.oh_my_goods.deck"] and "5000 characters" in error.details()


def test_check_message_limits() -> None:
    state = codecs.encode_state(positions_json(1, seed=5)[0], "typed")
    request = pb.LegalMovesRequest(state=state)
    wire.check_message(request, wire.WireLimits())
    with pytest.raises(errors.RequestError) as info:
        wire.check_message(request, wire.WireLimits(max_depth=2))
    assert info.value.reason == wire.REQUEST_TOO_COMPLEX and "deep" in info.value.message
    with pytest.raises(errors.RequestError) as info:
        wire.check_message(request, wire.WireLimits(max_elements=10))
    assert info.value.reason == wire.REQUEST_TOO_COMPLEX
    # The json form is bounded by the request size, not the string limit.
    big_json = pb.LegalMovesRequest(state=pb.GameState(json=" " * 100_000))
    wire.check_message(big_json, wire.WireLimits())


# -- echoed input is clipped ---------------------------------------------------------------
def _assert_clipped(error: grpc.RpcError, length: int) -> None:
    """INVALID_ARGUMENT, short, and the input quoted back clipped (or not at all)."""
    code, _fields, _reason = rpc_error_info(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (code, error.details()[:200])
    details = error.details()
    assert len(details) < 400, len(details)
    if length <= wire.WireLimits().max_string:
        assert f"… ({length} characters)" in details, details
    else:
        assert f"{length} characters long" in details, details


@pytest.mark.parametrize("length", [1000, 5000])
def test_long_game_name_is_clipped(channel, length) -> None:
    """1000: the service's UNKNOWN_GAME; 5000: the front door's FIELD_TOO_LONG."""
    name = ("chess-é😀'" * length)[:length]
    request = pb.NewGameRequest(game=name, num_players=2)
    error = raw_error(channel, "NewGame", request.SerializeToString())
    _assert_clipped(error, length)


def test_huge_game_name_is_invalid_argument(big_channel) -> None:
    """Past the request size limit, still INVALID_ARGUMENT (never a metadata overflow)."""
    request = pb.NewGameRequest(game="😀" * 50_000, num_players=2)
    error = raw_error(big_channel, "NewGame", request.SerializeToString())
    code, fields, reason = rpc_error_info(error)
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["request"],
                                      wire.REQUEST_TOO_LARGE)


@pytest.mark.parametrize("method", ["ApplyMove", "CheckMove"])
def test_long_move_text_is_clipped(channel, new_state, method) -> None:
    text = ("build r1c1 😀 '\"" * 100)[:1000]
    request = getattr(pb, f"{method}Request")(state=new_state, move=pb.Move(text=text))
    if method == "CheckMove":  # an illegal move is an answer, not an error
        reply = pb.CheckMoveResponse.FromString(
            raw_call(channel, method, request.SerializeToString()))
        assert not reply.legal
        return
    error = raw_error(channel, method, request.SerializeToString())
    _assert_clipped(error, 1000)
    assert error.details().count("😀") <= 2 * errors.MAX_ECHO


def test_clip_message_shapes() -> None:
    long = "é" * 500
    message = errors.clip_message(f"illegal move {long!r}: cannot read {long!r}")
    assert message.count("(500 characters)") == 2 and len(message) < 200
    assert errors.clip_message("it is the turn of P2 (seat 1), not of P1 (seat 0)") == \
        "it is the turn of P2 (seat 1), not of P1 (seat 0)"
    assert len(errors.clip_message("word " * 10_000)) <= errors.MAX_MESSAGE + 30


# -- bugs: INTERNAL, logged once, never UNKNOWN -------------------------------------------
def test_a_bug_is_internal_and_logged_once_without_the_request(monkeypatch, caplog) -> None:
    """A bug in a call's game work (in a worker process) is answered INTERNAL, and the
    server logs its traceback once, without the request."""
    from ai_server import calls
    from ai_server.sealing import Sealer
    from ai_server.service import FurnaceServicer

    def broken(request: Any) -> Any:
        raise RuntimeError("a bug")

    marker = "secret-request-marker"
    request = pb.NewGameRequest(game=marker, num_players=2)
    # The worker's side: the bug becomes INTERNAL, its traceback handed back.
    monkeypatch.setitem(calls.CALLS, "NewGame", broken)
    answer = calls.run_call("NewGame", request, sealer=Sealer.for_this_process())
    assert answer.error is not None and answer.error.code == grpc.StatusCode.INTERNAL
    assert answer.error.reason == errors.INTERNAL and marker not in answer.error.message
    assert answer.bug is not None and "RuntimeError: a bug" in answer.bug
    # The server's side: one log line with the traceback, the error raised as it is.
    with caplog.at_level(logging.INFO), pytest.raises(errors.RequestError) as raised:
        FurnaceServicer._response("NewGame", answer)
    assert raised.value is answer.error
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1, caplog.text
    assert "RuntimeError: a bug" in records[0].getMessage()
    assert marker not in caplog.text


def test_reflection_still_describes_the_service(channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    assert SERVICE in database.get_services()
    file = database.FindFileContainingSymbol(SERVICE)
    assert file.name == "furnace/v1/furnace.proto"


# -- a JSON field given twice (issue 42, item 7.5) ------------------------------------------
def json_refusal(body: str, request_type: Any) -> errors.RequestError:
    with pytest.raises(errors.RequestError) as caught:
        wire.parse(wire.JsonBody(body.encode()), request_type, wire.WireLimits())
    return caught.value


@pytest.mark.parametrize("body,request_type,field", [
    # Both spellings of one field: json_format kept the later one silently.
    ('{"game": "samara", "numPlayers": 2, "num_players": 3}', pb.NewGameRequest,
     "num_players"),
    ('{"game": "samara", "num_players": 3, "numPlayers": 2}', pb.NewGameRequest,
     "num_players"),
    # ... in a nested message, a message in a list, a map's message values.
    ('{"budget": {"timeLimitMs": 100, "time_limit_ms": 5000}}', pb.BestMoveRequest,
     "budget.time_limit_ms"),
    ('{"state": {"record": {"game": "samara", "numPlayers": 2, "num_players": 5}}}',
     pb.BestMoveRequest, "state.record.num_players"),
    ('{"state": {"record": {"moves": [{"id": "1"}, {"text": "a", "text": "b"}]}}}',
     pb.LegalMovesRequest, "state.record.moves[1].text"),
    # A oneof member (observer_seat is optional) and the same key twice: json_format
    # refused them, with words naming no field.
    ('{"state": {"observerSeat": 1, "observer_seat": 0}}', pb.BestMoveRequest,
     "state.observer_seat"),
    ('{"budget": {"iterations": 5, "iterations": 6}}', pb.BestMoveRequest,
     "budget.iterations"),
    # Keys of a map and of a game's JSON state are data: given twice, refused by path.
    ('{"game": "samara", "options": {"a": {"intValue": 1}, "a": {"intValue": 2}}}',
     pb.NewGameRequest, "options.a"),
    ('{"game": "samara", "options": {"a": {"intValue": 1, "int_value": 2}}}',
     pb.NewGameRequest, "options[a].int_value"),
    ('{"state": {"jsonObject": {"game": "samara", "p": {"x": 1, "x": 2}}}}',
     pb.LegalMovesRequest, "state.json_object.p.x"),
])
def test_a_json_field_given_twice_is_refused_by_name(body: str, request_type: Any,
                                                     field: str) -> None:
    error = json_refusal(body, request_type)
    assert (error.code, error.field, error.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT, field, wire.DUPLICATE_FIELD), error.message


def test_json_names_given_once_still_parse() -> None:
    body = ('{"game": "samara", "num_players": 2, "seed": "3", '
            '"options": {"a": {"intValue": 1}}, "stateFormat": "STATE_FORMAT_JSON_OBJECT", "observer_seat": 1}')
    message = wire.parse(wire.JsonBody(body.encode()), pb.NewGameRequest, wire.WireLimits())
    assert (message.num_players, message.seed, message.observer_seat) == (2, 3, 1)
    # Unknown fields and bad JSON keep their refusals.
    assert json_refusal('{"numPlayerz": 2}', pb.NewGameRequest).reason == wire.UNKNOWN_FIELD
    assert json_refusal('{"numPlayers": ', pb.NewGameRequest).reason == wire.MALFORMED_REQUEST
    deep = '{"state": {"jsonObject": {"game": "x", "d": ' + "[" * 100_000 + "]" * 100_000 \
        + "}}}"
    assert json_refusal(deep, pb.LegalMovesRequest).reason == wire.MALFORMED_REQUEST
