"""The HTTP door (``--http-port``): Connect JSON/binary and gRPC-Web from the same servicer.

Calls are made as curl or a browser would: plain HTTP requests (``urllib``) with
the protobuf JSON form or binary envelopes, against a real server that also
serves native gRPC.  docs/api.md's curl examples ("HTTP and the browser") are run
here with curl, against this server.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
import trustme
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from ai_server.http_door import peer_of
from ai_server.security import SecurityConfig
from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.conftest import TEST_SETTINGS
from tests.ai_server.helpers_http import (
    SERVICE,
    call_json,
    details_of,
    envelope,
    frames,
    grpc_web_trailers,
    post,
    url,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
TOKEN = "alice-0123456789abcdef"


@pytest.fixture(scope="module")
def door() -> Iterator[BackgroundServer]:
    # A deadline's margin of a second: a search stopped for its call's deadline has that
    # long to answer, however loaded the machine (the default 80 ms assumes a quiet one).
    srv = BackgroundServer(http_port=0, **{**TEST_SETTINGS, "max_searches_per_client": 1,
                                           "deadline_margin": 1.0})
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


# -- Connect with JSON: what curl does -------------------------------------------------------
def test_list_games_new_game_and_best_move_in_json(door: BackgroundServer) -> None:
    status, games = call_json(door, "ListGames", {})
    assert status == 200
    assert [g["name"] for g in games["games"]][:3] == ["samara", "oh-my-goods", "stephens"]
    assert games["limits"]["maxIterations"] == TEST_SETTINGS["max_iterations"]

    status, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 3, "seed": "1"})
    assert status == 200
    assert game["status"]["numPlayers"] == 3 and "render" in game
    assert game["state"]["samara"]["numPlayers"] == 3

    request = {"state": game["state"], "budget": {"iterations": "200"}, "seed": "5"}
    status, best = call_json(door, "BestMove", request)
    assert status == 200, best
    assert best["analysis"]["iterations"] == 200  # int32: a JSON number
    assert best["move"]["text"] and best["analysis"]["moves"]

    # One implementation: native gRPC answers the same request with the same move.
    with grpc.insecure_channel(door.address) as channel:
        native = pb_grpc.FurnaceServiceStub(channel).BestMove(
            json_format.ParseDict(request, pb.BestMoveRequest()), timeout=120)
    assert json_format.MessageToDict(native.move) == best["move"]


def test_errors_carry_the_same_code_and_details(door: BackgroundServer) -> None:
    status, error = call_json(door, "NewGame", {"game": "chess", "numPlayers": 2})
    assert status == 400
    assert error["code"] == "invalid_argument" and "unknown game 'chess'" in error["message"]
    details = details_of(error)
    assert details["google.rpc.BadRequest"].field_violations[0].field == "game"
    info = details["google.rpc.ErrorInfo"]
    assert (info.reason, info.domain) == ("UNKNOWN_GAME", "furnace.v1")
    # ... and decoded for people reading curl's output.
    assert error["details"][1]["debug"] == {"reason": "UNKNOWN_GAME", "domain": "furnace.v1"}

    with grpc.insecure_channel(door.address) as channel, pytest.raises(grpc.RpcError) as caught:
        pb_grpc.FurnaceServiceStub(channel).NewGame(pb.NewGameRequest(game="chess",
                                                                      num_players=2))
    assert caught.value.details() == error["message"]

    _, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 2})
    status, error = call_json(door, "ApplyMove", {"state": game["state"],
                                                  "move": {"text": "fly to the moon"}})
    assert status == 400 and error["code"] == "invalid_argument"
    assert details_of(error)["google.rpc.BadRequest"].field_violations[0].field == "move.text"

    status, error = call_json(door, "BestMove", {"state": game["state"], "seat": 1})
    assert status == 400 and error["code"] == "failed_precondition"  # Connect's HTTP status
    assert details_of(error)["google.rpc.ErrorInfo"].reason == "NOT_YOUR_TURN"


def test_wire_limits_apply(door: BackgroundServer) -> None:
    status, _, body = post(url(door, "NewGame"), b'{"game": "samara", "numPlayers": ')
    error = json.loads(body)
    assert status == 400 and "in JSON" in error["message"]
    assert details_of(error)["google.rpc.ErrorInfo"].reason == "MALFORMED_REQUEST"

    status, error = call_json(door, "NewGame", {"game": "x" * 5000, "numPlayers": 2})
    assert status == 400
    assert details_of(error)["google.rpc.ErrorInfo"].reason == "FIELD_TOO_LONG"

    # ListGames takes 64 KiB of binary, twice that of JSON.
    status, _, body = post(url(door, "ListGames"), b" " * (200 * 1024) + b"{}")
    error = json.loads(body)
    assert status == 400 and details_of(error)["google.rpc.ErrorInfo"].reason == \
        "REQUEST_TOO_LARGE"
    status, _, _ = post(url(door, "ListGames"), b" " * (100 * 1024) + b"{}")
    assert status == 200


def test_the_connect_deadline_is_the_search_deadline(door: BackgroundServer) -> None:
    _, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 2})
    started = time.monotonic()
    status, best = call_json(door, "BestMove",
                             {"state": game["state"], "budget": {"timeLimitMs": 20000}},
                             headers={"Connect-Timeout-Ms": "3000"})
    assert status == 200, best
    assert best["analysis"]["stopReason"] == "SEARCH_STOP_REASON_DEADLINE"
    assert best["analysis"]["elapsedSeconds"] < 3.0  # within the call's 3 s, not 20
    assert time.monotonic() - started < 20  # the budget asked for: the deadline cut it


def test_per_client_quota_counts_both_doors(door: BackgroundServer) -> None:
    """max_searches_per_client=1: a native Analyze running, an HTTP search is refused."""
    _, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 2, "stateFormat":
                                          "STATE_FORMAT_JSON"})
    request = pb.AnalyzeRequest(state=pb.GameState(json=game["state"]["json"]),
                                budget=pb.SearchBudget(time_limit_ms=10000),
                                update_interval_ms=100)
    with grpc.insecure_channel(door.address) as channel:
        stream = pb_grpc.FurnaceServiceStub(channel).Analyze(request, timeout=60)
        next(stream)  # the search runs
        try:
            status, error = call_json(door, "BestMove", {"state": {"json": game["state"]["json"]}})
        finally:
            stream.cancel()
    assert status == 429 and error["code"] == "resource_exhausted"
    assert details_of(error)["google.rpc.ErrorInfo"].reason == "CLIENT_QUOTA"
    assert "google.rpc.RetryInfo" in details_of(error)
    # The cancelled search leaves the quota soon after.
    for _ in range(100):
        status, _ = call_json(door, "BestMove", {"state": {"json": game["state"]["json"]},
                                                 "budget": {"iterations": 10}})
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200


# -- streaming -------------------------------------------------------------------------------
def test_analyze_streams_over_connect(door: BackgroundServer) -> None:
    _, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 2})
    request = {"state": game["state"], "budget": {"timeLimitMs": 2000}, "updateIntervalMs": 100}
    status, headers, body = post(url(door, "Analyze"), envelope(json.dumps(request).encode()),
                                 "application/connect+json")
    assert status == 200 and headers["content-type"] == "application/connect+json"
    messages = frames(body)
    assert messages[-1] == (2, b"{}")  # end of stream, no error
    updates = [json.loads(data) for flags, data in messages[:-1]]
    assert updates and updates[-1]["final"] is True
    # An update every 100 ms of search, then the final one: how many depends on how
    # long the search ran, which a wait for a worker on a loaded machine shortens (the
    # time budget counts from the call's arrival), so the count follows what it reports.
    searched = updates[-1]["analysis"].get("elapsedSeconds", 0.0)
    if searched >= 0.2:
        assert len(updates) >= 2, searched
    assert [u.get("sequence", 0) for u in updates] == list(range(len(updates)))
    assert all(not u.get("final") for u in updates[:-1])
    assert updates[-1]["analysis"]["moves"][0]["visits"] > 0


def test_analyze_errors_end_the_connect_stream_with_details(door: BackgroundServer) -> None:
    _, game = call_json(door, "NewGame", {"game": "samara", "numPlayers": 2})
    request = {"state": game["state"], "updateIntervalMs": 1}
    _, _, body = post(url(door, "Analyze"), envelope(json.dumps(request).encode()),
                      "application/connect+json")
    (flags, data), = frames(body)
    assert flags == 2
    error = json.loads(data)["error"]
    assert error["code"] == "invalid_argument"
    assert details_of(error)["google.rpc.BadRequest"].field_violations[0].field == \
        "update_interval_ms"


# -- gRPC-Web --------------------------------------------------------------------------------
def test_grpc_web_binary_calls(door: BackgroundServer) -> None:
    kind = "application/grpc-web+proto"
    new_game = pb.NewGameRequest(game="oh-my-goods", num_players=2, seed=3)
    status, headers, body = post(url(door, "NewGame"), envelope(new_game.SerializeToString()),
                                 kind, headers={"X-Grpc-Web": "1"})
    assert status == 200 and headers["content-type"] == kind
    (flags, data), (end, trailer) = frames(body)
    assert (flags, end) == (0, 0x80) and grpc_web_trailers(trailer)["grpc-status"] == "0"
    state = pb.NewGameResponse.FromString(data).state

    # Analyze: several messages, then the trailer frame.
    analyze = pb.AnalyzeRequest(state=pb.GameState(oh_my_goods=state.oh_my_goods,
                                                   observer_seat=0),
                                budget=pb.SearchBudget(time_limit_ms=500),
                                update_interval_ms=100)
    _, _, body = post(url(door, "Analyze"), envelope(analyze.SerializeToString()), kind)
    *updates, (end, trailer) = frames(body)
    replies = [pb.AnalyzeResponse.FromString(data) for _, data in updates]
    assert end == 0x80 and grpc_web_trailers(trailer)["grpc-status"] == "0"
    assert replies[-1].final and replies[-1].analysis.iterations > 0

    # An error: the status and its details, as in a native call's trailers.
    bad = pb.NewGameRequest(game="oh-my-goods", num_players=9)
    status, headers, body = post(url(door, "NewGame"), envelope(bad.SerializeToString()), kind)
    trailers = headers if "grpc-status" in headers else grpc_web_trailers(frames(body)[-1][1])
    assert status == 200 and trailers["grpc-status"] == str(grpc.StatusCode.INVALID_ARGUMENT
                                                            .value[0])
    raw = trailers["grpc-status-details-bin"]
    rich = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    violation = error_details_pb2.BadRequest()
    assert rich.details[0].Unpack(violation) and violation.field_violations[0].field == \
        "num_players"


# -- TLS and tokens ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    folder = tmp_path_factory.mktemp("http-pki")
    ca = trustme.CA()
    cert = ca.issue_cert("localhost", "127.0.0.1")
    (folder / "server.pem").write_bytes(b"".join(b.bytes() for b in cert.cert_chain_pems))
    cert.private_key_pem.write_to_path(str(folder / "server.key"))
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    (folder / "tokens.txt").write_text(f"alice:{TOKEN}\n")
    (folder / "tokens.txt").chmod(0o600)
    return SimpleNamespace(dir=folder, ca=str(folder / "ca.pem"),
                           cert=str(folder / "server.pem"), key=str(folder / "server.key"),
                           tokens=str(folder / "tokens.txt"))


def test_tls_and_tokens_on_the_http_port(pki: SimpleNamespace) -> None:
    hosting = SecurityConfig.from_files(tls_cert=pki.cert, tls_key=pki.key,
                                        token_file=pki.tokens)
    context = ssl.create_default_context(cafile=pki.ca)
    with BackgroundServer(security=hosting, http_port=0, workers=1) as srv:
        address = url(srv, "ListGames", "https")
        status, _, body = post(address, b"{}", context=context)
        error = json.loads(body)
        assert status == 401 and error["code"] == "unauthenticated"
        assert "Bearer" in error["message"]
        assert details_of(error)["google.rpc.ErrorInfo"].reason == "UNAUTHENTICATED"
        status, _, _ = post(address, b"{}", context=context,
                            headers={"Authorization": "Bearer wrong-token-0123456789"})
        assert status == 401
        status, _, body = post(address, b"{}", context=context,
                               headers={"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and json.loads(body)["games"]
        # gRPC-Web and streams are guarded too.
        status, headers, body = post(url(srv, "Analyze", "https"),
                                     envelope(pb.AnalyzeRequest().SerializeToString()),
                                     "application/grpc-web+proto", context=context)
        trailers = headers if "grpc-status" in headers else \
            grpc_web_trailers(frames(body)[-1][1])
        assert trailers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
        with pytest.raises((urllib.error.URLError, ConnectionError)):  # plaintext to TLS
            urllib.request.urlopen(url(srv, "ListGames"), data=b"{}", timeout=10)


# -- CORS: pages of other origins ---------------------------------------------------------------
SITE = "https://play.example.org"


def request(address: str, method: str, headers: dict[str, str], body: bytes | None = None
            ) -> tuple[int, dict[str, str], bytes]:
    """HTTP status, headers (lower-case names) and body of any request (errors included)."""
    message = urllib.request.Request(address, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(message, timeout=60) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def preflight(address: str, origin: str, headers: str = "content-type, authorization"
              ) -> tuple[int, dict[str, str]]:
    status, reply, _ = request(address, "OPTIONS", {
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": headers})
    return status, reply


def test_without_cors_origins_no_cors_headers(door: BackgroundServer) -> None:
    status, headers = preflight(url(door, "ListGames"), SITE)
    assert "access-control-allow-origin" not in headers
    status, headers, _ = request(url(door, "ListGames"), "POST", {
        "Origin": SITE, "Content-Type": "application/json"}, b"{}")
    assert status == 200 and "access-control-allow-origin" not in headers


def test_cors_lets_the_named_origins_call(pki: SimpleNamespace) -> None:
    # A game site's page on another origin calls the door from the browser: the
    # preflight must allow its headers (the token, Connect's and gRPC-Web's), and the
    # answer must let the page read gRPC-Web's status trailers-in-headers.
    hosting = SecurityConfig.from_files(token_file=pki.tokens,
                                        cors_origins=[SITE, "http://localhost:3000"])
    with BackgroundServer(security=hosting, http_port=0, workers=1) as srv:
        address = url(srv, "ListGames")
        status, headers = preflight(address, SITE, "authorization, content-type, "
                                    "connect-protocol-version, connect-timeout-ms, "
                                    "x-grpc-web, x-user-agent, grpc-timeout")
        assert status == 200
        assert headers["access-control-allow-origin"] == SITE
        assert "POST" in headers["access-control-allow-methods"]
        allowed = headers["access-control-allow-headers"].lower()
        for name in ("authorization", "connect-protocol-version", "x-grpc-web", "grpc-timeout"):
            assert name in allowed
        assert int(headers["access-control-max-age"]) > 0
        status, headers = preflight(address, "https://elsewhere.example.com")
        assert status == 400 and "access-control-allow-origin" not in headers
        # The call itself: the token still decides; CORS only lets the page read it.
        status, headers, body = request(address, "POST", {
            "Origin": SITE, "Content-Type": "application/json",
            "Authorization": f"Bearer {TOKEN}"}, b"{}")
        assert status == 200 and json.loads(body)["games"]
        assert headers["access-control-allow-origin"] == SITE
        assert "grpc-status" in headers["access-control-expose-headers"].lower()
        status, headers, _ = request(address, "POST", {
            "Origin": SITE, "Content-Type": "application/json"}, b"{}")
        assert status == 401 and headers["access-control-allow-origin"] == SITE


@pytest.mark.parametrize(("origins", "message"), [
    (["play.example.org"], "not an origin"),
    (["https://play.example.org/"], "not an origin"),
    (["https://play.example.org/table"], "not an origin"),
    (["ftp://play.example.org"], "not an origin"),
    (["*", SITE], r"'\*' \(any origin\) goes alone"),
    ([""], "not an origin"),
])
def test_bad_cors_origins_are_refused(origins: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SecurityConfig(cors_origins=tuple(origins))


def test_any_origin_and_the_description() -> None:
    assert "CORS: any origin" in SecurityConfig(cors_origins=("*",)).describe()
    assert "CORS: 2 origins" in SecurityConfig(
        cors_origins=(SITE, "http://[::1]:8080")).describe()
    assert "CORS" not in SecurityConfig().describe()


def test_furnace_serve_takes_cors_origins_only_with_an_http_port() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--cors-origin", SITE],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 2
    assert "--cors-origin needs --http-port" in result.stderr


# -- the command line and the docs --------------------------------------------------------------
def test_peer_of() -> None:
    assert peer_of("10.0.0.1:443") == "ipv4:10.0.0.1:443"
    assert peer_of("::1:443") == "ipv6:[::1]:443"


def test_furnace_serve_opens_both_doors(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--http-port", "0",
         "--workers", "1"], stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2])
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "HTTP" in line and "http://" in line:
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(60), "".join(lines)
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", "".join(lines))
        assert match
        base = f"http://127.0.0.1:{match.group(1)}"
        status, _, body = post(f"{base}{SERVICE}NewGame",
                               b'{"game":"samara","numPlayers":3}')
        assert status == 200 and json.loads(body)["status"]["numPlayers"] == 3
        native = re.search(r"listening on 127\.0\.0\.1:(\d+)", "".join(lines))
        assert native
        with grpc.insecure_channel(f"127.0.0.1:{native.group(1)}") as channel:
            reply = pb_grpc.FurnaceServiceStub(channel).ListGames(pb.ListGamesRequest(),
                                                                  timeout=30)
        assert reply.games
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0


def test_the_documented_curl_examples(door: BackgroundServer) -> None:
    """docs/api.md, "HTTP and the browser": each ```sh curl block, run by curl, answers
    what the ```json curl-reply block after it shows (a subset; "…" matches anything)."""
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    text = DOC.read_text()
    section = text[text.index("## HTTP and the browser"):]
    section = section[:section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    blocks = re.findall(r"^```(\w+) (curl|curl-reply)\n(.*?)^```", section, re.M | re.S)
    assert blocks and len(blocks) % 2 == 0
    assert door.server is not None
    env = {**os.environ, "FURNACE_HTTP": f"http://127.0.0.1:{door.server.http_port}"}
    for (_, tag, command), (_, answer_tag, expected) in zip(blocks[::2], blocks[1::2],
                                                            strict=True):
        assert (tag, answer_tag) == ("curl", "curl-reply")
        command = command.replace("http://127.0.0.1:8080", "$FURNACE_HTTP")
        run = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                             env=env, timeout=120)
        assert run.returncode == 0, run.stderr
        problems = _mismatches(json.loads(expected), json.loads(run.stdout))
        assert not problems, f"{command}\n{problems}\n{run.stdout[:2000]}"


def _mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    if expected == "…":
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object"]
        return [p for k, v in expected.items() if k != "…"
                for p in (_mismatches(v, actual[k], f"{path}.{k}") if k in actual
                          else [f"{path}.{k}: missing"])]
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list"]
        if expected and expected[-1] == "…":
            expected = expected[:-1]
            actual = actual[:len(expected)]
        if len(expected) != len(actual):
            return [f"{path}: {len(actual)} entries, expected {len(expected)}"]
        return [p for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                for p in _mismatches(e, a, f"{path}[{i}]")]
    if isinstance(expected, str) and "…" in expected:
        pattern = ".*".join(re.escape(part) for part in expected.split("…"))
        return [] if re.fullmatch(pattern, str(actual), re.S) else [f"{path}: {actual!r}"]
    return [] if expected == actual else [f"{path}: {actual!r} != {expected!r}"]
