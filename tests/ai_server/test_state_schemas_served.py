"""The games' state schemas as a server serves them: in ListGames (``GameInfo.state_schema``)
and over HTTP at ``GET /schemas/<game>.json``, the same text, equal to the engine's, and
a JSON Schema (draft 2020-12) every state the server answers validates against."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import json_format
from jsonschema import Draft202012Validator

from ai_server.security import SecurityConfig
from ai_server.server import BackgroundServer
from engine import registry
from engine.state_schema import json_schema, schema_text
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.conftest import TEST_SETTINGS

SITE = "https://games.example.com"


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    security = SecurityConfig(cors_origins=(SITE,))
    srv = BackgroundServer(http_port=0, security=security, **TEST_SETTINGS)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


def get(srv: BackgroundServer, path: str, method: str = "GET",
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    assert srv.server is not None and srv.server.http_port
    request = urllib.request.Request(f"http://127.0.0.1:{srv.server.http_port}{path}",
                                     method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def test_list_games_and_http_serve_the_engines_schema(server: BackgroundServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        games = pb_grpc.FurnaceServiceStub(channel).ListGames(pb.ListGamesRequest(), timeout=60)
    served = {g.name: g.state_schema for g in games.games}
    assert set(served) == set(registry.game_names())
    for name, text in served.items():
        engine = json_schema(registry.get_game(name).state_description())
        assert text == schema_text(engine)  # compact, sorted keys
        assert json.loads(text) == engine
        Draft202012Validator.check_schema(json.loads(text))
        status, headers, body = get(server, f"/schemas/{name}.json")
        assert status == 200
        assert headers["content-type"] == "application/schema+json"
        assert body.decode() == text
        status, headers, body = get(server, f"/schemas/{name}.json", "HEAD")
        assert status == 200 and body == b""
        assert headers["content-type"] == "application/schema+json"


def test_unknown_schemas_are_404_with_a_short_text(server: BackgroundServer) -> None:
    for path in ("/schemas/chess.json", "/schemas/samara", "/schemas/", "/schemas/samara.json/x",
                 "/schemas/" + "x" * 5000 + ".json"):
        status, headers, body = get(server, path)
        assert status == 404, path
        assert headers["content-type"].startswith("text/plain")
        assert len(body) < 400 and b"/schemas/samara.json" in body
    status, _, _ = get(server, "/schemas/samara.json", "POST")
    assert status == 404


def test_schemas_follow_the_doors_cors(server: BackgroundServer) -> None:
    status, headers, _ = get(server, "/schemas/samara.json", headers={"Origin": SITE})
    assert status == 200 and headers["access-control-allow-origin"] == SITE
    status, headers, _ = get(server, "/schemas/samara.json",
                             headers={"Origin": "https://elsewhere.example.com"})
    assert status == 200 and "access-control-allow-origin" not in headers


def test_states_the_server_answers_validate(server: BackgroundServer) -> None:
    """NewGame and ApplyMove answers in the json_object form, every game and player count
    (solo Stephens included), validate against the schema ListGames serves."""
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        games = stub.ListGames(pb.ListGamesRequest(), timeout=60)
        for info in games.games:
            validator = Draft202012Validator(json.loads(info.state_schema))
            for players in info.player_counts:
                reply = stub.NewGame(pb.NewGameRequest(
                    game=info.name, num_players=players, seed=players,
                    state_format=pb.STATE_FORMAT_JSON_OBJECT), timeout=60)
                state = reply.state
                for _ in range(3):
                    data = json.loads(json_format.MessageToJson(state.json_object))
                    data = _ints(data)
                    errors = list(validator.iter_errors(data))
                    assert not errors, (info.name, players, errors[0].message[:300])
                    legal = stub.LegalMoves(pb.LegalMovesRequest(state=state), timeout=60)
                    if not legal.moves:
                        break
                    state = stub.ApplyMove(pb.ApplyMoveRequest(
                        state=state, move=pb.Move(id=legal.moves[0].id)), timeout=60).state


def _ints(value: object) -> object:
    """A Struct's integral doubles as ints (what the server reads them as)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    return value
