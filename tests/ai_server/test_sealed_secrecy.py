"""Sealed means sealed (issue 42, item 1): the holder of a sealed game learns no seed.

A sealed game's seed deals it again in clear (every hand, the deck in draw order, each
reshuffle) with an unsealed NewGame on any server.  So a sealed NewGame refuses a
client's seed (INVALID_ARGUMENT, field ``seed``, reason SEAL_MISMATCH) unless the
operator allows it (``allow_sealed_seeds``, for tests and replays), deals from a 64-bit
seed of the server's own, and answers none; nor does any later answer (ApplyMove,
BestMove ``play``, ReviewGame) carry the seed, the generator's state or the hidden
cards.  Both doors: native gRPC and the HTTP door's Connect JSON.  The server's key is
known here, so that the test can open what the client cannot.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from ai_server.sealing import Sealer, new_key
from ai_server.server import BackgroundServer
from engine import registry
from engine.records import record_from_json
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info
from tests.ai_server.helpers_http import call_json, details_of

OMG = "oh-my-goods"
SEALER = Sealer([new_key()])
SETTINGS: dict[str, Any] = {"workers": 1, "call_workers": 1, "http_port": 0,
                            "max_time": 30.0, "sealer": SEALER}
SEALED_NEW_GAME = {"game": OMG, "numPlayers": 2, "observerSeat": 0,
                   "stateFormat": "STATE_FORMAT_SEALED"}


@pytest.fixture(scope="module")
def srv() -> Iterator[BackgroundServer]:
    with BackgroundServer(**SETTINGS) as server:
        yield server


@pytest.fixture(scope="module")
def stub(srv: BackgroundServer) -> Iterator[pb_grpc.FurnaceServiceStub]:
    with grpc.insecure_channel(srv.address) as channel:
        yield pb_grpc.FurnaceServiceStub(channel)


def sealed_new_game(**fields: Any) -> pb.NewGameRequest:
    return json_format.ParseDict({**SEALED_NEW_GAME, **fields}, pb.NewGameRequest())


def secrets_of(state: pb.GameState | dict[str, Any]) -> tuple[int, str, set[str]]:
    """What the holder must not learn of a sealed state (opened with the server's key):
    its game's seed, the generator's state, and the cards seat 0 cannot see."""
    blob = state.sealed if isinstance(state, pb.GameState) else \
        json_format.ParseDict(state, pb.GameState()).sealed
    opened = SEALER.unseal(blob)
    assert opened.seat == 0 and opened.record is not None
    seed = record_from_json(opened.record).seed
    assert seed is not None
    data = opened.state
    hidden = set(data["deck"]) | set(data["players"][1]["hand"])
    assert hidden
    return seed, data["rng"], hidden


def mentions(text: str, card: str) -> bool:
    """Whether ``text`` names ``card`` (mill-1, not the start of mill-10)."""
    return re.search(rf"(?<![\w-]){re.escape(card)}(?!\d)", text) is not None


def assert_tells_nothing(answer: Message | dict[str, Any], state: Any,
                         cards: bool = True) -> None:
    """``answer`` (a message, or Connect JSON) carries no seed field, neither the seed
    nor the generator's state in any field, and (``cards``) no card seat 0 cannot see."""
    data = answer if isinstance(answer, dict) else json_format.MessageToDict(answer)
    assert "seed" not in data, data.get("seed")
    seed, rng, hidden = secrets_of(state)
    text = json.dumps(data)
    for secret in (str(seed), format(seed, "x"), format(seed, "016x"), rng):
        assert secret not in text, secret
    if cards:
        visible = {k: v for k, v in data.items() if k != "state"}  # the blob is opaque
        shown = json.dumps(visible)
        for card in hidden:
            assert not mentions(shown, card), card


# -- NewGame -------------------------------------------------------------------------------
def test_a_sealed_new_game_answers_no_seed_and_deals_from_64_bits(
        srv: BackgroundServer, stub: pb_grpc.FurnaceServiceStub) -> None:
    seeds = []
    for _ in range(4):
        reply = stub.NewGame(sealed_new_game())
        assert reply.state.WhichOneof("state") == "sealed"
        assert reply.seed == 0 and "seed" not in json_format.MessageToDict(reply)
        assert_tells_nothing(reply, reply.state)
        seeds.append(secrets_of(reply.state)[0])
        status, answer = call_json(srv, "NewGame", SEALED_NEW_GAME)
        assert status == 200, answer
        assert "seed" not in answer
        assert_tells_nothing(answer, answer["state"])
        seeds.append(secrets_of(answer["state"])[0])
    assert len(set(seeds)) == len(seeds)
    # Drawn from 64 bits, not 53: eight draws all below 2^53 would be a 2^-88 chance.
    assert max(seeds) >= 1 << 53 and max(seeds) < 1 << 64
    # A game that is not sealed still answers its seed, below 2^53 (exact in JavaScript).
    plain = stub.NewGame(pb.NewGameRequest(game=OMG, num_players=2))
    assert plain.seed < 1 << 53


@pytest.mark.parametrize("seed", ["0", "7", "18446744073709551615"])
def test_a_client_seed_for_a_sealed_game_is_refused(
        srv: BackgroundServer, stub: pb_grpc.FurnaceServiceStub, seed: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.NewGame(sealed_new_game(seed=seed))
    code, fields, reason = rpc_error_info(caught.value)
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["seed"],
                                      "SEAL_MISMATCH")
    message = caught.value.details() or ""
    assert "a sealed game takes no seed" in message and "--allow-sealed-seeds" in message
    status, error = call_json(srv, "NewGame", {**SEALED_NEW_GAME, "seed": seed})
    assert status == 400 and error["code"] == "invalid_argument"
    assert error["message"] == message
    details = details_of(error)
    assert details["google.rpc.BadRequest"].field_violations[0].field == "seed"
    assert details["google.rpc.ErrorInfo"].reason == "SEAL_MISMATCH"
    # Unsealed, the same seed deals as ever.
    assert stub.NewGame(pb.NewGameRequest(game=OMG, num_players=2, seed=int(seed))).seed \
        == int(seed)


def test_the_operator_may_allow_sealed_seeds_for_tests_and_replays() -> None:
    with BackgroundServer(**SETTINGS, allow_sealed_seeds=True) as server, \
            grpc.insecure_channel(server.address) as channel:
        reply = pb_grpc.FurnaceServiceStub(channel).NewGame(sealed_new_game(seed="7"))
        truth = registry.get_game(OMG).new_game(seed=7, num_players=2, options={})
        assert json_format.MessageToDict(reply.view) == json.loads(
            json.dumps(truth.observation(0)), parse_int=float)
        assert secrets_of(reply.state)[0] == 7
        assert "seed" not in json_format.MessageToDict(reply)  # answered all the same: never
        status, answer = call_json(server, "NewGame", {**SEALED_NEW_GAME, "seed": "7"})
        assert status == 200 and "seed" not in answer
        assert secrets_of(answer["state"])[0] == 7


# -- the answers of a game ----------------------------------------------------------------------
def test_no_answer_of_a_sealed_game_tells_its_seed_or_the_hidden_cards(
        srv: BackgroundServer, stub: pb_grpc.FurnaceServiceStub) -> None:
    """A few moves through both doors: ApplyMove, BestMove play (the bot), LegalMoves,
    and a ReviewGame of the last position carry no seed, no generator state and none of
    the cards seat 0 cannot see."""
    reply = stub.NewGame(sealed_new_game())
    state = reply.state
    bot_moves = human_moves = 0
    for turn in range(40):
        if reply.status.terminal or (bot_moves >= 2 and human_moves >= 3):
            break
        http = turn % 2 == 1  # every other call through the HTTP door
        if reply.status.current_player == 0:
            legal = stub.LegalMoves(pb.LegalMovesRequest(state=state, seat=0,
                                                         include_render=True))
            assert_tells_nothing(legal, state)
            request = pb.ApplyMoveRequest(state=state, move=legal.moves[0], seat=0)
            method, human_moves = "ApplyMove", human_moves + 1
        else:
            request = pb.BestMoveRequest(state=state, play=True, seed=turn,
                                         budget=pb.SearchBudget(iterations=20))
            method, bot_moves = "BestMove", bot_moves + 1
        if http:
            status, answer = call_json(srv, method, json_format.MessageToDict(request))
            assert status == 200, answer
            reply = json_format.ParseDict(answer, getattr(pb, f"{method}Response")())
        else:
            reply = getattr(stub, method)(request)
            answer = json_format.MessageToDict(reply)
        assert reply.state.WhichOneof("state") == "sealed"
        assert_tells_nothing(answer, reply.state)
        state = reply.state
    assert bot_moves and human_moves

    review = pb.ReviewGameRequest(state=state, seat=0, seed=3,
                                  budget=pb.SearchBudget(iterations=8))
    replies = [json_format.MessageToDict(r) for r in stub.ReviewGame(review, timeout=120)]
    assert replies and "summary" in replies[-1]
    for item in replies:
        # A decision's principal variation may name cards the search dealt itself for
        # what seat 0 cannot see; the rest tells no secret of the last position...
        assert_tells_nothing(item, state, cards=False)
        decision = item.get("decision")
        if decision is not None:
            # ...and each decision is seat 0's, drawn as it saw it: the other hand a count.
            assert decision.get("seat", 0) == 0
            assert isinstance(decision["view"]["players"][1]["hand"], float)
