"""Sealed states (issue 23, item 5): ai_server.sealing, and the server answering them.

A client that plays one seat holds its position sealed: it cannot read the hidden
parts (no card id in any encoding it could try), cannot alter it (any changed byte
is INVALID_ARGUMENT on state.sealed), cannot look through another seat's eyes, and a
key rotated out of first place still opens the states it sealed while it is listed.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import os
import pickle
import re
import signal
import stat
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from ai_server import calls, cli, sealing
from ai_server.sealing import PAD_BYTES, Sealer, SealError, key_id
from ai_server.server import BackgroundServer
from engine import records as engine_records
from engine import registry
from engine.records import GameRecord, record_from_json, replay
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.conftest import TEST_SETTINGS
from tests.ai_server.helpers_furnace import card_ids, rpc_error_info
from tests.ai_server.helpers_http import post

OMG = "oh-my-goods"
OLD_KEY = bytes(range(32))
NEW_KEY = bytes(range(100, 132))


def omg_state(seed: int = 3) -> dict[str, Any]:
    state = registry.get_game(OMG).new_game(seed=seed, num_players=3, options={})
    data: dict[str, Any] = state.to_json()
    return data


def readable_texts(blob: bytes) -> list[bytes]:
    """What a client could make of ``blob``: itself, its base64 (the JSON form), its
    base64 decoded again, and whatever zlib inflates from any offset of it."""
    texts = [blob, base64.b64encode(blob), base64.urlsafe_b64encode(blob)]
    try:
        texts.append(base64.b64decode(blob, validate=False))
    except ValueError:
        pass
    for offset in range(len(blob)):
        for wbits in (15, -15, 31):
            try:
                texts.append(zlib.decompressobj(wbits).decompress(blob[offset:], 1 << 20))
            except zlib.error:
                pass
    return texts


# -- the Sealer ------------------------------------------------------------------------------
def test_round_trip_and_the_blob_layout() -> None:
    sealer = Sealer([NEW_KEY, OLD_KEY])
    data = omg_state()
    blob = sealer.seal(data, 2)
    assert sealer.open(blob) == (data, 2)
    assert blob[0] == sealing.VERSION and blob[1:9] == key_id(NEW_KEY)
    assert (len(blob) - sealing.HEADER_BYTES - sealing.TAG_BYTES) % PAD_BYTES == 0
    # A fresh nonce each time: the same state never seals to the same bytes.
    assert sealer.seal(data, 2) != blob


def test_a_game_record_travels_inside_and_a_blob_without_one_still_opens() -> None:
    sealer = Sealer([NEW_KEY])
    data = omg_state()
    record = {"format": "furnace-record", "version": 1, "game": OMG, "num_players": 3,
              "options": {}, "seed": 3, "moves": [{"id": 4}]}
    opened = sealer.unseal(sealer.seal(data, 1, record))
    assert (opened.state, opened.seat, opened.record) == (data, 1, record)
    assert sealer.open(sealer.seal(data, 1, record)) == (data, 1)
    # A blob sealed without a record (as before records were sealed) opens with none.
    assert sealer.unseal(sealer.seal(data, 1)).record is None


def test_a_malformed_record_member_is_refused() -> None:
    """Only this server writes the plaintext; a record member that is not an object is
    a fault told in words, never a crash later."""
    sealer = Sealer([NEW_KEY])
    text = json.dumps({"seat": 0, "state": omg_state(), "record": [1, 2]}).encode()
    packed = zlib.compress(text)
    packed += bytes(-len(packed) % PAD_BYTES)
    header = bytes([sealing.VERSION]) + key_id(NEW_KEY) + bytes(sealing.NONCE_BYTES)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    blob = header + AESGCM(NEW_KEY).encrypt(header[9:], packed, header)
    with pytest.raises(SealError, match="malformed"):
        sealer.unseal(blob)


def sealed_text(text: bytes, key: bytes = NEW_KEY) -> bytes:
    """A blob holding ``text`` as its plaintext, sealed with ``key`` as the server seals
    (what only a holder of the key could make)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    packed = zlib.compress(text)
    packed += bytes(-len(packed) % PAD_BYTES)
    header = bytes([sealing.VERSION]) + key_id(key) + bytes(sealing.NONCE_BYTES)
    return header + AESGCM(key).encrypt(header[9:], packed, header)


#: Nesting far past Python's recursion limit (issue 42, item 7.3).
DEEP = 100_000


def deeply_nested(depth: int = DEEP) -> bytes:
    """An envelope whose state holds arrays nested ``depth`` deep."""
    return (b'{"seat":0,"state":{"game":"oh-my-goods","deep":' + b"[" * depth
            + b"]" * depth + b"}}")


def test_a_deeply_nested_plaintext_is_a_seal_error_not_a_crash() -> None:
    """json.loads raises RecursionError on it: told in words like any malformed
    content, as the unsealed JSON path tells it (codecs._parse_json)."""
    with pytest.raises(SealError, match="nest"):
        Sealer([NEW_KEY]).unseal(sealed_text(deeply_nested()))


def test_no_card_id_in_any_encoding_a_client_can_read() -> None:
    data = omg_state()
    cards = card_ids(data)
    blob = Sealer([NEW_KEY]).seal(data, 0)
    message = pb.GameState(sealed=blob, observer_seat=0)
    texts = readable_texts(blob) + [
        json_format.MessageToJson(message).encode(), message.SerializeToString(),
        base64.b64decode(json_format.MessageToDict(message)["sealed"])]
    for text in texts:
        for card in cards:
            assert card.encode() not in text, card
        assert data["rng"].encode() not in text
    # The plaintext as the opaque form would hold it shares no run of 8 bytes with the blob.
    plain = zlib.compress(json.dumps({"seat": 0, "state": data}, separators=(",", ":"),
                                     sort_keys=True).encode(), 9)
    runs = {plain[i:i + 8] for i in range(len(plain) - 8)}
    assert not any(blob[i:i + 8] in runs for i in range(len(blob) - 8))


def test_any_changed_byte_is_refused() -> None:
    sealer = Sealer([NEW_KEY, OLD_KEY])
    blob = sealer.seal({"game": "samara", "month": 8}, 1)
    for i in range(len(blob)):
        for flip in (1, 0x80):
            changed = blob[:i] + bytes([blob[i] ^ flip]) + blob[i + 1:]
            with pytest.raises(SealError):
                sealer.open(changed)
    for length in range(len(blob)):
        with pytest.raises(SealError):
            sealer.open(blob[:length])
    with pytest.raises(SealError, match="truncated"):
        sealer.open(b"")
    with pytest.raises(SealError, match="version 2"):
        sealer.open(bytes([2]) + blob[1:])
    with pytest.raises(SealError):
        sealer.open(blob + b"\0")


def test_a_rotated_out_key_opens_while_listed_and_not_once_removed() -> None:
    data = omg_state()
    old_blob = Sealer([OLD_KEY]).seal(data, 1)
    rotated = Sealer([NEW_KEY, OLD_KEY])
    assert rotated.open(old_blob) == (data, 1)
    assert rotated.seal(data, 1)[1:9] == key_id(NEW_KEY)  # new states: the newest key
    with pytest.raises(SealError, match=f"key this server does not hold \\(key id "
                                        f"{key_id(OLD_KEY).hex()}\\)"):
        Sealer([NEW_KEY]).open(old_blob)


def test_the_sealer_travels_by_its_keys_and_shows_only_their_ids() -> None:
    sealer = Sealer([NEW_KEY, OLD_KEY])
    copy = pickle.loads(pickle.dumps(sealer))
    assert copy == sealer and copy.open(sealer.seal({"game": "samara"}, 0))[1] == 0
    shown = repr(sealer)
    assert key_id(NEW_KEY).hex() in shown and key_id(OLD_KEY).hex() in shown
    for key in (NEW_KEY, OLD_KEY):
        assert key.hex() not in shown and base64.b64encode(key).decode() not in shown
    with pytest.raises(ValueError, match="listed twice"):
        Sealer([OLD_KEY, OLD_KEY])
    with pytest.raises(ValueError, match="not 32 bytes"):
        Sealer([b"short"])
    with pytest.raises(ValueError, match="at least one key"):
        Sealer([])


def test_key_files(tmp_path: Path) -> None:
    path = tmp_path / "seal.key"
    kid = sealing.write_key_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    key = sealing.read_key_file(path)
    assert key_id(key).hex() == kid and len(key) == 32
    with pytest.raises(FileExistsError):
        sealing.write_key_file(path)  # never replaces a key
    for text in (OLD_KEY, OLD_KEY.hex().encode() + b"\n", base64.b64encode(OLD_KEY) + b"\n"):
        other = tmp_path / "other.key"
        other.write_bytes(text)
        other.chmod(0o600)
        assert sealing.read_key_file(other) == OLD_KEY
    other.write_bytes(b"not a key\n")
    with pytest.raises(ValueError, match="holds no 32-byte key"):
        sealing.read_key_file(other)
    with pytest.raises(ValueError, match="cannot read the sealing key"):
        sealing.read_key_file(tmp_path / "missing.key")


def test_a_key_shared_with_the_servers_group_alone_is_not_warned(tmp_path, caplog) -> None:
    """A Kubernetes Secret's files are root's, readable by the pod's group (fsGroup): how
    the deployment reads its sealing key, and no reason for a warning (as token files)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    path = tmp_path / "seal.key"
    path.write_bytes(base64.b64encode(OLD_KEY))
    others = next(gid for gid in range(54321, 60000) if gid not in os.getgroups())
    for owner, group, mode, warned in (
            (os.geteuid(), os.getegid(), 0o600, False),
            (os.geteuid(), os.getegid(), 0o640, True),   # our own file needs no group
            (12345, os.getegid(), 0o440, False),         # shared with us by its owner
            (12345, others, 0o440, True),                # with a group we are not in
            (12345, os.getegid(), 0o444, True)):         # with anyone
        os.chown(path, owner, group)
        path.chmod(mode)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ai_server.sealing"):
            assert sealing.read_key_file(path) == OLD_KEY
        assert ("can be read by other users" in caplog.text) == warned, (owner, group, mode)


def mentions(text: bytes | str, card: str) -> bool:
    """Whether ``text`` names ``card`` (mill-1, not the start of mill-10)."""
    data = text.encode() if isinstance(text, str) else text
    return re.search(rb"(?<![\w-])" + re.escape(card.encode()) + rb"(?!\d)", data) is not None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="furnace")
    cli.add_commands(parser.add_subparsers(dest="command", required=True))
    return parser


def test_the_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new, old = tmp_path / "new.key", tmp_path / "old.key"
    for path in (new, old):
        args = _parser().parse_args(["seal-key", "new", str(path)])
        assert args.func(args) == 0
    printed = capsys.readouterr().out
    args = _parser().parse_args(["seal-key", "id", str(new), str(old)])
    assert args.func(args) == 0
    assert capsys.readouterr().out == printed  # the same ids, in the same words
    args = _parser().parse_args(["seal-key", "new", str(new)])
    assert args.func(args) == 2  # never replaces a key
    config = cli.config_from_args(_parser().parse_args(
        ["serve", "--seal-key", str(new), "--seal-key", str(old)]))
    assert config.sealer is not None
    assert config.sealer.key_ids == [key_id(sealing.read_key_file(p)).hex() for p in (new, old)]
    assert config.sealer is not None and not config.sealer.per_process
    # Without --seal-key: a key of the process's own, fresh for every process.
    default = cli.config_from_args(_parser().parse_args(["serve"])).sealer
    again = cli.config_from_args(_parser().parse_args(["serve"])).sealer
    assert default is not None and again is not None
    assert default.per_process and default.key_ids != again.key_ids
    assert pickle.loads(pickle.dumps(default)).per_process  # so the workers know it too
    args = _parser().parse_args(["serve", "--seal-key", str(tmp_path / "missing.key")])
    assert args.func(args) == 2
    assert "cannot read the sealing key" in capsys.readouterr().err


# -- the server --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sealed_stub() -> Iterator[pb_grpc.FurnaceServiceStub]:
    """A server sealing with NEW_KEY that still opens OLD_KEY's states, and taking a
    client's seed for a sealed game (allow_sealed_seeds, for tests: these compare the
    answers with the game dealt from the seed; test_sealed_secrecy.py: refused without)."""
    server = BackgroundServer(**TEST_SETTINGS, sealer=Sealer([NEW_KEY, OLD_KEY]),
                              allow_sealed_seeds=True)
    server.start()
    try:
        with grpc.insecure_channel(server.address) as channel:
            yield pb_grpc.FurnaceServiceStub(channel)
    finally:
        server.stop(grace=0.5)


def refused(call: Any, request: Any) -> tuple[grpc.StatusCode, list[str], str | None, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call(request)
    code, fields, reason = rpc_error_info(caught.value)
    return code, fields, reason, caught.value.details() or ""


def sealed_game(stub: pb_grpc.FurnaceServiceStub, seat: int = 0, seed: int = 3,
                players: int = 2) -> pb.NewGameResponse:
    reply: pb.NewGameResponse = stub.NewGame(pb.NewGameRequest(
        game=OMG, num_players=players, seed=seed, observer_seat=seat,
        state_format=pb.STATE_FORMAT_SEALED))
    return reply


def test_new_game_sealed_for_a_seat_shows_that_seat_only(sealed_stub) -> None:
    reply = sealed_game(sealed_stub, seat=0)
    truth = registry.get_game(OMG).new_game(seed=3, num_players=2, options={})
    assert reply.state.WhichOneof("state") == "sealed" and reply.state.observer_seat == 0
    assert reply.state.sealed[1:9] == key_id(NEW_KEY)
    view = json_format.MessageToDict(reply.view)
    hands = [player["hand"] for player in truth.to_json()["players"]]
    assert view["players"][0]["hand"] == hands[0]
    assert view["players"][1]["hand"] == len(hands[1])  # a count, not the cards
    assert view == json.loads(json.dumps(truth.observation(0)), parse_int=float)
    assert reply.render == truth.render(0)
    text = json_format.MessageToJson(reply.state)
    for card in card_ids(truth.to_json()):
        assert card not in text
    for card in hands[1]:
        assert card not in reply.render and card not in json.dumps(view)


def test_list_games_offers_sealed_states(sealed_stub, stub) -> None:
    """With keys or without (then the server's own key), every server seals."""
    for each in (sealed_stub, stub):
        for info in each.ListGames(pb.ListGamesRequest()).games:
            formats = list(info.state_formats)
            assert pb.STATE_FORMAT_SEALED in formats
            assert (pb.STATE_FORMAT_TYPED in formats) is info.typed_state
            assert {pb.STATE_FORMAT_OPAQUE, pb.STATE_FORMAT_JSON,
                    pb.STATE_FORMAT_JSON_OBJECT} <= set(formats)


def test_a_sealed_state_is_read_only_through_its_seat(sealed_stub) -> None:
    reply = sealed_game(sealed_stub, seat=0)
    other = pb.GameState(sealed=reply.state.sealed, observer_seat=1)
    code, fields, reason, message = refused(sealed_stub.LegalMoves,
                                            pb.LegalMovesRequest(state=other))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT,
                                      ["state.observer_seat"], "SEAL_MISMATCH")
    assert "sealed for P1 (seat 0)" in message
    # Without observer_seat the sealed seat is the observer: never the host.
    bare = pb.GameState(sealed=reply.state.sealed)
    listed = sealed_stub.LegalMoves(pb.LegalMovesRequest(state=bare, include_render=True))
    assert listed.render == reply.render
    # Nor may an answer unseal it.
    move = listed.moves[0]
    for form in (pb.STATE_FORMAT_JSON, pb.STATE_FORMAT_OPAQUE, pb.STATE_FORMAT_TYPED,
                 pb.STATE_FORMAT_JSON_OBJECT):
        code, fields, reason, _ = refused(sealed_stub.ApplyMove, pb.ApplyMoveRequest(
            state=bare, move=move, state_format=form))
        assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["state_format"],
                                          "SEAL_MISMATCH")


def test_a_changed_byte_is_invalid_argument(sealed_stub) -> None:
    blob = sealed_game(sealed_stub).state.sealed
    for i in sorted({0, 1, 5, 9, 15, 21, len(blob) // 2, len(blob) - 17, len(blob) - 1}):
        changed = blob[:i] + bytes([blob[i] ^ 0x20]) + blob[i + 1:]
        code, fields, reason, _ = refused(sealed_stub.LegalMoves, pb.LegalMovesRequest(
            state=pb.GameState(sealed=changed)))
        assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["state.sealed"],
                                          "INVALID_SEAL"), i
    code, fields, reason, message = refused(sealed_stub.ApplyMove, pb.ApplyMoveRequest(
        state=pb.GameState(sealed=blob[:30]), move=pb.Move(id=0)))
    assert (fields, reason) == (["state.sealed"], "INVALID_SEAL") and "truncated" in message


def test_a_deeply_nested_sealed_state_is_invalid_argument(sealed_stub) -> None:
    """A sealed blob nested 100,000 deep (made with the server's key) answered INTERNAL
    (RecursionError): it is refused as a malformed sealed state, on every call that
    opens one, and the server serves on."""
    blob = sealed_text(deeply_nested())
    for call, request in ((sealed_stub.LegalMoves, pb.LegalMovesRequest(
            state=pb.GameState(sealed=blob))),
                          (sealed_stub.BestMove, pb.BestMoveRequest(
            state=pb.GameState(sealed=blob))),
                          (sealed_stub.ReviewGame, pb.ReviewGameRequest(
            state=pb.GameState(sealed=blob), seat=0))):
        code, fields, reason, message = refused(
            lambda r, c=call: list(c(r, timeout=60)) if c is sealed_stub.ReviewGame
            else c(r, timeout=60), request)
        assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["state.sealed"],
                                          "INVALID_SEAL"), (call, message)
        assert "nest" in message
    assert sealed_game(sealed_stub).state.sealed


def test_a_state_sealed_with_the_rotated_out_key_opens_while_listed(sealed_stub) -> None:
    data = registry.get_game(OMG).new_game(seed=8, num_players=2, options={}).to_json()
    old = pb.GameState(sealed=Sealer([OLD_KEY]).seal(data, 1))
    listed = sealed_stub.LegalMoves(pb.LegalMovesRequest(state=old, include_render=True))
    assert listed.status.game == OMG and "hand:" in listed.render
    # A key no longer listed: refused, in words.
    retired = pb.GameState(sealed=Sealer([bytes(32)]).seal(data, 1))
    code, fields, reason, message = refused(sealed_stub.LegalMoves,
                                            pb.LegalMovesRequest(state=retired))
    assert (fields, reason) == (["state.sealed"], "INVALID_SEAL")
    assert f"key id {key_id(bytes(32)).hex()}" in message


def test_apply_move_on_a_sealed_state_answers_sealed_with_the_view(sealed_stub) -> None:
    reply = sealed_game(sealed_stub, seat=0, seed=5)
    state = reply.state
    truth = registry.get_game(OMG).new_game(seed=5, num_players=2, options={})
    while truth.current_player() == 0:
        move = sealed_stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves[0]
        applied = sealed_stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=move))
        truth.apply(move.id)
        state = applied.state
        assert state.WhichOneof("state") == "sealed" and state.observer_seat == 0
        assert applied.record.move.id == move.id
        assert json_format.MessageToDict(applied.view) == json.loads(
            json.dumps(truth.observation(0)), parse_int=float)
        assert applied.render == truth.render(0)
        assert applied.status.current_player == truth.current_player()


def carried(state: pb.GameState) -> GameRecord | None:
    record = Sealer([NEW_KEY]).unseal(state.sealed).record
    return None if record is None else record_from_json(record)


def test_sealed_states_carry_the_games_record_on(sealed_stub) -> None:
    """NewGame's seed and every move since, the bot's hidden ones too: the record replays
    to the sealed position (what ReviewGame reads)."""
    state = sealed_game(sealed_stub, seat=0, seed=5).state
    assert carried(state) == GameRecord(OMG, 2, {}, seed=5, moves=[])
    hidden = 0
    for _ in range(12):
        status = sealed_stub.LegalMoves(pb.LegalMovesRequest(state=state))
        if status.status.current_player == 0:
            answer: Any = sealed_stub.ApplyMove(pb.ApplyMoveRequest(state=state,
                                                                    move=status.moves[0]))
        else:
            answer = sealed_stub.BestMove(pb.BestMoveRequest(
                state=state, budget=pb.SearchBudget(iterations=10), seed=1, play=True))
            hidden += answer.record.move_hidden
        record = carried(answer.state)
        assert record is not None and record.moves[:-1] == carried(state).moves  # type: ignore[union-attr]
        state = answer.state
        assert replay(record).to_json() == Sealer([NEW_KEY]).open(state.sealed)[0]
    assert hidden, "the bot should have made a secret choice"


def test_a_record_answered_sealed_carries_on_and_a_whole_state_carries_none(
        sealed_stub) -> None:
    game = registry.get_game(OMG)
    truth = game.new_game(seed=2, num_players=2, options={})
    moves = []
    for _ in range(3):
        moves.append(truth.legal_moves()[0])
        truth.apply(moves[-1])
    request = pb.ApplyMoveRequest(
        state=pb.GameState(record=pb.GameRecord(game=OMG, num_players=2, seed=2,
                                                moves=[pb.Move(id=m) for m in moves[:2]]),
                           observer_seat=0),
        move=pb.Move(id=moves[2]), state_format=pb.STATE_FORMAT_SEALED)
    assert carried(sealed_stub.ApplyMove(request).state) == GameRecord(OMG, 2, {}, seed=2,
                                                                       moves=moves)
    whole = pb.ApplyMoveRequest(state=pb.GameState(json=json.dumps(game.new_game(
        seed=2, num_players=2, options={}).to_json()), observer_seat=0),
        move=pb.Move(id=moves[0]), state_format=pb.STATE_FORMAT_SEALED)
    assert carried(sealed_stub.ApplyMove(whole).state) is None


def test_a_record_past_its_length_limit_is_no_longer_carried(monkeypatch) -> None:
    """The game plays on; its sealed states stop carrying a record they could not replay."""
    monkeypatch.setattr(engine_records, "MAX_RECORD_MOVES", 2)
    truth = registry.get_game(OMG).new_game(seed=2, num_players=2, options={})
    moves = []
    for _ in range(2):
        moves.append(truth.legal_moves()[0])
        truth.apply(moves[-1])

    def sealed_after(played: list[int]) -> pb.GameState:
        request = pb.ApplyMoveRequest(
            state=pb.GameState(record=pb.GameRecord(game=OMG, num_players=2, seed=2, moves=[
                pb.Move(id=m) for m in played[:-1]]), observer_seat=0),
            move=pb.Move(id=played[-1]), state_format=pb.STATE_FORMAT_SEALED)
        with sealing.using(Sealer([NEW_KEY])):
            return calls.apply_move(request).state

    assert carried(sealed_after(moves[:1])) == GameRecord(OMG, 2, {}, seed=2, moves=moves[:1])
    assert carried(sealed_after(moves)) == GameRecord(OMG, 2, {}, seed=2, moves=moves)
    truth_next = truth.legal_moves()[0]
    assert carried(sealed_after([*moves, truth_next])) is None


def test_best_move_plays_a_bot_seat_the_observer_cannot_see(sealed_stub) -> None:
    reply = sealed_game(sealed_stub, seat=0, seed=5)
    state = reply.state
    while True:  # the human (seat 0) plays until the bot's turn
        status = sealed_stub.LegalMoves(pb.LegalMovesRequest(state=state))
        if status.status.current_player != 0:
            break
        state = sealed_stub.ApplyMove(pb.ApplyMoveRequest(state=state,
                                                          move=status.moves[0])).state
    bot = status.status.current_player
    budget = pb.SearchBudget(iterations=30)
    # The bot places its worker (moves seat 0 may know), then plans from its hand.
    worker_step = state
    assert not status.moves_hidden and status.moves
    first = sealed_stub.BestMove(pb.BestMoveRequest(state=state, budget=budget, seed=1,
                                                    play=True))
    # The bot moved on its own cards: neither its secret choice nor its analysis is shown.
    assert not first.HasField("move") and not first.HasField("analysis")
    assert first.record.player == bot and first.record.move_hidden
    state = first.state
    assert sealed_stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves_hidden
    # The holder plays its own seat only: not the bot's moves, whether it may know them or
    # not (legal or not would show its cards).
    for position in (worker_step, state):
        data, _ = Sealer([NEW_KEY]).open(position.sealed)
        truth = registry.get_game(OMG).state_from_json(data)
        for move in truth.legal_moves()[:1] + [truth.legal_moves()[-1] + 1]:
            code, fields, reason, _ = refused(sealed_stub.ApplyMove, pb.ApplyMoveRequest(
                state=position, move=pb.Move(id=move)))
            assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT,
                                              ["state.observer_seat"], "SEAL_MISMATCH")
    # Without play: refused where the bot's hand decides, as before.
    code, fields, reason, _ = refused(sealed_stub.BestMove, pb.BestMoveRequest(
        state=state, budget=budget, seed=1))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT,
                                      ["state.observer_seat"], "OBSERVER_CANNOT_SEE_MOVER")
    played = sealed_stub.BestMove(pb.BestMoveRequest(state=state, budget=budget, seed=1,
                                                     play=True))
    assert not played.HasField("move") and not played.HasField("analysis")
    assert played.state.WhichOneof("state") == "sealed" and played.state.observer_seat == 0
    assert played.record.player == bot and played.HasField("status")
    assert played.view.fields["observer"].number_value == 0
    assert played.render and "hand: " in played.render
    # The bot's secret move shows as the observer sees it, never its cards.
    data, seat = Sealer([NEW_KEY]).open(played.state.sealed)
    after = registry.get_game(OMG).state_from_json(data)
    assert seat == 0 and played.render == after.render(0)
    for card in after.to_json()["players"][bot]["hand"]:
        assert card not in played.render and card not in str(played.record)
    # Sealed answers only: a readable form of the new position is refused before the search.
    code, fields, reason, _ = refused(sealed_stub.BestMove, pb.BestMoveRequest(
        state=state, budget=budget, play=True, state_format=pb.STATE_FORMAT_JSON))
    assert (fields, reason) == (["state_format"], "SEAL_MISMATCH")


def test_best_move_play_in_samara_answers_the_move_and_the_new_position(stub) -> None:
    game = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=4))
    request = pb.BestMoveRequest(state=game.state, budget=pb.SearchBudget(iterations=40),
                                 seed=9, play=True)
    played = stub.BestMove(request)
    assert played.move.text and played.analysis.best_move == played.move
    applied = stub.ApplyMove(pb.ApplyMoveRequest(state=game.state, move=played.move))
    assert played.state == applied.state and played.state.WhichOneof("state") == "samara"
    assert played.record == applied.record and played.record.move == played.move
    assert played.status == applied.status and played.render == applied.render
    assert not played.HasField("view")
    # The same search without play: the same move, and nothing played.
    request.play = False
    alone = stub.BestMove(request)
    assert alone.move == played.move and not alone.HasField("state")
    # In another form on request.
    request.play, request.state_format = True, pb.STATE_FORMAT_JSON
    assert stub.BestMove(request).state.WhichOneof("state") == "json"


def test_a_server_given_no_key_seals_with_a_key_of_its_own(stub, sealed_stub,
                                                           server) -> None:
    """A server started without a key (the ``stub`` server) still hands out hidden
    positions sealed only: no card of the other hands or the deck is readable in
    what it answers, the state plays on there, and no other server opens it."""
    stub_server = server
    for info in stub.ListGames(pb.ListGamesRequest()).games:
        assert pb.STATE_FORMAT_SEALED in info.state_formats, info.name
    reply = stub.NewGame(pb.NewGameRequest(game=OMG, num_players=2, observer_seat=0,
                                           state_format=pb.STATE_FORMAT_SEALED))
    # The server's own key (what only the server holds) opens the game it dealt.
    assert stub_server.server is not None and stub_server.server.config.sealer is not None
    truth = registry.get_game(OMG).state_from_json(
        stub_server.server.config.sealer.open(reply.state.sealed)[0])
    assert reply.state.WhichOneof("state") == "sealed" and reply.state.observer_seat == 0
    hidden = set(truth.to_json()["players"][1]["hand"]) | set(truth.to_json()["deck"])
    assert hidden
    texts = readable_texts(reply.state.sealed) + [
        json_format.MessageToJson(reply).encode(), reply.render.encode()]
    for card in hidden:
        assert not any(mentions(text, card) for text in texts), card
    assert json_format.MessageToDict(reply.view) == json.loads(
        json.dumps(truth.observation(0)), parse_int=float)
    # It plays on where it was sealed...
    move = stub.LegalMoves(pb.LegalMovesRequest(state=reply.state)).moves[0]
    applied = stub.ApplyMove(pb.ApplyMoveRequest(state=reply.state, move=move))
    assert applied.state.WhichOneof("state") == "sealed" and applied.view
    # ...and nowhere else: another process holds another key.
    code, fields, reason, message = refused(sealed_stub.LegalMoves,
                                            pb.LegalMovesRequest(state=applied.state))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["state.sealed"],
                                      "INVALID_SEAL")
    assert "another server process" in message


def test_furnace_serve_without_a_key_seals_and_says_its_states_die_with_it() -> None:
    """`furnace serve` given no --seal-key makes a key for the process and warns that no
    restart or other replica opens its states; the web table's door seals with it.
    Given --allow-sealed-seeds (so that the test knows the deal), it warns of that too."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--http-port", "0",
         "--workers", "1", "--call-workers", "1", "--allow-sealed-seeds"],
        stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2])
    lines: list[str] = []
    warned = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "--allow-sealed-seeds:" in line:  # logged after "no --seal-key"
                warned.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert warned.wait(60), "".join(lines)
        said = "".join(lines)
        assert re.search(r"WARNING .*key made for this process \(key id [0-9a-f]{16}\); a "
                         r"restarted server or another replica cannot open them", said), said
        assert re.search(r"WARNING .*--allow-sealed-seeds: a sealed NewGame takes the "
                         r"client's seed", said), said
        http = re.search(r"http://127\.0\.0\.1:(\d+)/", said)
        assert http, said
        status, _, body = post(f"http://127.0.0.1:{http.group(1)}/furnace.v1.FurnaceService/"
                               "NewGame", json.dumps({
                                   "game": OMG, "numPlayers": 2, "seed": "3", "observerSeat": 0,
                                   "stateFormat": "STATE_FORMAT_SEALED"}).encode())
        assert status == 200, body
        answer = json.loads(body)
        assert set(answer["state"]) == {"sealed", "observerSeat"}
        truth = registry.get_game(OMG).new_game(seed=3, num_players=2, options={}).to_json()
        blob = base64.b64decode(answer["state"]["sealed"])
        for card in set(truth["players"][1]["hand"]) | set(truth["deck"]):
            assert not mentions(json.dumps(answer["view"]), card)
            assert not mentions(answer["render"], card)
            assert not any(mentions(text, card) for text in readable_texts(blob)), card
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0


def test_new_game_needs_a_seat_to_seal_for(sealed_stub) -> None:
    code, fields, reason, _ = refused(sealed_stub.NewGame, pb.NewGameRequest(
        game=OMG, num_players=2, seed=1, state_format=pb.STATE_FORMAT_SEALED))
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["observer_seat"],
                                      "MISSING_FIELD")
    code, fields, reason, _ = refused(sealed_stub.NewGame, pb.NewGameRequest(
        game=OMG, num_players=2, seed=1, observer_seat=2))
    assert (fields, reason) == (["observer_seat"], "SEAT_OUT_OF_RANGE")
    # observer_seat without sealing: a readable state for that seat, drawn as it sees it.
    plain = sealed_stub.NewGame(pb.NewGameRequest(game=OMG, num_players=2, seed=1,
                                                  observer_seat=1))
    truth = registry.get_game(OMG).new_game(seed=1, num_players=2, options={})
    assert plain.state.observer_seat == 1 and plain.render == truth.render(1)
    assert not plain.HasField("view")


# -- docs/api.md, "Sealed states" ----------------------------------------------------------------
def sealed_examples() -> list[Any]:
    """The section's examples tagged sealed-rpc:/sealed-reply/sealed-error, in order."""
    from tests.ai_server import test_api_examples as docs

    text = docs.DOC.read_text(encoding="utf-8")
    start = text.index("\n## Sealed states\n")
    section = text[start:text.index("\n## ", start + 5)]
    examples, pending = [], None
    for block in docs.FENCE.finditer(section):
        tag = block.group("info").split()[0] if block.group("info").split() else ""
        if tag.startswith("sealed-rpc:"):
            pending = (tag.split(":", 1)[1], block.group("body"))
        elif tag in ("sealed-reply", "sealed-error"):
            assert pending is not None, f"{tag} without a request"
            examples.append(docs.Example(pending[0], pending[1], tag.split("-")[1],
                                         block.group("body"), 0, "Sealed states"))
            pending = None
    assert pending is None
    return examples


def test_the_documented_sealed_examples_hold(sealed_stub, monkeypatch) -> None:
    from tests.ai_server import test_api_examples as docs

    monkeypatch.setattr(docs, "FORMS", (*docs.FORMS, "sealed"))
    examples = sealed_examples()
    assert len(examples) >= 6
    assert {e.method for e in examples} >= {"NewGame", "ApplyMove", "BestMove", "LegalMoves"}
    session = docs.Session(sealed_stub)
    for example in examples:
        problems = session.run(example)
        assert not problems, f"{example.method}: {problems}"
