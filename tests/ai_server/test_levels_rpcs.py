"""Strength levels (``BestMoveRequest.level``, ``AnalyzeRequest.level``) and the one-seat
``Analysis.target`` through the gRPC service."""

from __future__ import annotations

import argparse
import json
import random
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from ai_server.server import BackgroundServer
from engine import registry
from engine.game import State
from engine.search.config import config_for
from engine.search.dispatch import make_tree
from engine.search.levels import LEVELS, choice_rng, get_level
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_furnace import rpc_error_info

Stub = pb_grpc.FurnaceServiceStub


def opaque_of(state: State) -> pb.GameState:
    return pb.GameState(opaque=zlib.compress(json.dumps(state.to_json()).encode()))


def without_elapsed(analysis: pb.Analysis) -> pb.Analysis:
    copy = pb.Analysis()
    copy.CopyFrom(analysis)
    copy.elapsed_seconds = 0.0
    copy.queued_seconds = 0.0
    return copy


def final_of(stream: Iterable[pb.AnalyzeResponse]) -> pb.AnalyzeResponse:
    updates = list(stream)
    assert [u.final for u in updates].count(True) == 1 and updates[-1].final
    final: pb.AnalyzeResponse = updates[-1]
    return final


def stephens(players: int, plies: int = 0) -> State:
    """A Stephens position (seeded random moves from a seeded deal)."""
    state = registry.get_game("stephens").new_game(seed=3, num_players=players)
    rng = random.Random(3)
    for _ in range(plies):
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    return state


# -- levels on BestMove ---------------------------------------------------------------------
@pytest.mark.parametrize("level", [1, 2])
def test_a_level_without_a_budget_searches_its_own(stub: Stub, new_state: pb.GameState,
                                                   level: int) -> None:
    reply = stub.BestMove(pb.BestMoveRequest(state=new_state, seed=4, level=level))
    analysis = reply.analysis
    assert analysis.iterations == get_level(level).iterations
    assert analysis.stop_reason == pb.SEARCH_STOP_REASON_ITERATIONS
    assert reply.move in [m.move for m in analysis.moves if m.visits > 0]
    again = stub.BestMove(pb.BestMoveRequest(state=new_state, seed=4, level=level))
    assert again.move == reply.move
    assert without_elapsed(again.analysis) == without_elapsed(analysis)


def test_the_levels_move_is_the_engines_choice_seeded_by_the_request(stub: Stub) -> None:
    """The analysis is the plain search's; ``move`` is the level's choice from it, drawn
    with the generator the request's seed gives (engine.search.levels.choice_rng)."""
    state = registry.get_game("samara").new_game(seed=5, num_players=3)
    message = opaque_of(state)
    differed = 0
    for seed in range(8):
        reply = stub.BestMove(pb.BestMoveRequest(state=message, seed=seed, level=1,
                                                 budget=pb.SearchBudget(iterations=60)))
        plain = stub.BestMove(pb.BestMoveRequest(state=message, seed=seed,
                                                 budget=pb.SearchBudget(iterations=60)))
        assert without_elapsed(reply.analysis) == without_elapsed(plain.analysis)
        assert plain.move == plain.analysis.best_move
        engine = make_tree(state, seed=seed).search(60)
        chosen = get_level(1).choose(engine, choice_rng(seed))
        assert reply.move.id == chosen
        assert reply.move.text == state.move_to_text(chosen)
        differed += reply.move != reply.analysis.best_move
    assert differed  # a weak level does not always play the most visited move


def test_an_explicit_budget_replaces_the_levels_but_keeps_its_choice(
        stub: Stub, new_state: pb.GameState) -> None:
    for level in LEVELS:
        reply = stub.BestMove(pb.BestMoveRequest(state=new_state, seed=2, level=level.number,
                                                 budget=pb.SearchBudget(iterations=40)))
        assert reply.analysis.iterations == 40
        if level.temperature == 0:  # the strong levels play the most visited move
            assert reply.move == reply.analysis.best_move
    timed = stub.BestMove(pb.BestMoveRequest(state=new_state, level=5,
                                             budget=pb.SearchBudget(time_limit_ms=150)))
    assert timed.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
    assert timed.move == timed.analysis.best_move


def test_level_zero_is_no_level(stub: Stub, new_state: pb.GameState) -> None:
    request = pb.BestMoveRequest(state=new_state, seed=6, max_candidates=2)
    unset = stub.BestMove(request)
    request.level = 0
    zero = stub.BestMove(request)
    assert unset.analysis.iterations == zero.analysis.iterations == 100  # the default budget
    assert zero.move == unset.move == zero.analysis.best_move
    assert without_elapsed(zero.analysis) == without_elapsed(unset.analysis)


@pytest.mark.parametrize("level", [-1, 6, 100, 2**31 - 1])
def test_a_level_out_of_range_is_invalid(stub: Stub, new_state: pb.GameState, level: int) -> None:
    for call, request in (
            (stub.BestMove, pb.BestMoveRequest(state=new_state, level=level)),
            (stub.Analyze, pb.AnalyzeRequest(state=new_state, level=level))):
        with pytest.raises(grpc.RpcError) as info:
            result = call(request)
            if not isinstance(result, pb.BestMoveResponse):
                list(result)
        code, fields, reason = rpc_error_info(info.value)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert fields == ["level"] and reason == "OUT_OF_RANGE"
        assert "1..5" in (info.value.details() or "")


def test_the_server_caps_a_levels_budget() -> None:
    with BackgroundServer(workers=1, max_iterations=150, default_iterations=50) as server, \
            grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.FurnaceServiceStub(channel)
        state = registry.get_game("samara").new_game(seed=1, num_players=2)
        reply = stub.BestMove(pb.BestMoveRequest(state=opaque_of(state), level=3, seed=1))
        assert reply.analysis.iterations == 150
        assert reply.analysis.stop_reason == pb.SEARCH_STOP_REASON_ITERATIONS


def test_a_level_in_a_hidden_information_game(stub: Stub) -> None:
    state = registry.get_game("oh-my-goods").new_game(seed=2, num_players=2)
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    mover = state.current_player()
    message = opaque_of(state)
    message.observer_seat = mover  # the bot's own view: ISMCTS for that seat
    for seed in range(3):
        reply = stub.BestMove(pb.BestMoveRequest(state=message, seed=seed, level=1,
                                                 budget=pb.SearchBudget(iterations=40)))
        assert reply.move.id in state.legal_moves()
        assert reply.move in [m.move for m in reply.analysis.moves if m.visits > 0]
        assert not reply.analysis.HasField("target")


def test_a_level_searches_its_games_budget(stub: Stub) -> None:
    state = registry.get_game("oh-my-goods").new_game(seed=2, num_players=2)
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    message = opaque_of(state)
    message.observer_seat = state.current_player()
    own = config_for("oh-my-goods").level(2)
    assert own.iterations != get_level(2).iterations  # the game has a table of its own
    reply = stub.BestMove(pb.BestMoveRequest(state=message, seed=1, level=2))
    assert reply.analysis.iterations == own.iterations


# -- levels on Analyze -----------------------------------------------------------------------
def test_analyze_searches_the_levels_budget(stub: Stub, new_state: pb.GameState) -> None:
    final = final_of(stub.Analyze(pb.AnalyzeRequest(state=new_state, seed=3, level=2,
                                                    update_interval_ms=100)))
    assert final.analysis.iterations == get_level(2).iterations
    assert final.analysis.stop_reason == pb.SEARCH_STOP_REASON_ITERATIONS
    best = stub.BestMove(pb.BestMoveRequest(state=new_state, seed=3, level=2))
    assert without_elapsed(final.analysis) == without_elapsed(best.analysis)
    timed = final_of(stub.Analyze(pb.AnalyzeRequest(
        state=new_state, level=2, budget=pb.SearchBudget(time_limit_ms=200))))
    assert timed.analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT


# -- Analysis.target -------------------------------------------------------------------------
def test_a_solo_analysis_has_the_target(stub: Stub) -> None:
    state = stephens(players=1)
    target = state.solo_target()
    assert target is not None
    reply = stub.BestMove(pb.BestMoveRequest(state=opaque_of(state), seed=1,
                                             budget=pb.SearchBudget(iterations=8)))
    assert reply.analysis.HasField("target")
    assert reply.analysis.target == target
    assert len(reply.analysis.win_probabilities) == 1
    assert 0 < reply.analysis.win_probabilities[0] < 1  # the chance of reaching it
    final = final_of(stub.Analyze(pb.AnalyzeRequest(state=opaque_of(state), seed=1, level=1,
                                                    budget=pb.SearchBudget(iterations=8))))
    assert final.analysis.HasField("target") and final.analysis.target == target


def test_no_target_with_two_seats(stub: Stub, new_state: pb.GameState) -> None:
    reply = stub.BestMove(pb.BestMoveRequest(state=opaque_of(stephens(players=2)), seed=1,
                                             budget=pb.SearchBudget(iterations=8)))
    assert not reply.analysis.HasField("target")
    samara = stub.BestMove(pb.BestMoveRequest(state=new_state, budget=pb.SearchBudget(
        iterations=10)))
    assert not samara.analysis.HasField("target")
    assert "target" not in json_format.MessageToDict(samara.analysis)


# -- the Python client -----------------------------------------------------------------------
def test_the_python_client_sends_the_level(server: BackgroundServer, new_state: pb.GameState,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from clients import cli
    from clients.furnace_client import FurnaceClient

    with FurnaceClient(server.address) as client:
        reply = client.best_move(new_state, seed=7, level=1)
        assert reply.analysis.iterations == get_level(1).iterations
        final = final_of(client.analyze(new_state, seed=7, level=1, iterations=30))
        assert final.analysis.iterations == 30
    parser = argparse.ArgumentParser(prog="furnace")
    cli.add_commands(parser.add_subparsers(dest="command", required=True))
    state = registry.get_game("samara").new_game(seed=1, num_players=2)
    for seed in range(6):
        args = parser.parse_args(["client", "best-move", "--game", "samara", "--players", "2",
                                  "--seed", "1", "--level", "1", "--iterations", "40",
                                  "--search-seed", str(seed), "--json",
                                  "--server", server.address])
        assert args.func(args) == 0
        answer = json.loads(capsys.readouterr().out)
        engine = make_tree(state, seed=seed).search(40)
        assert answer["move"]["text"] == state.move_to_text(
            get_level(1).choose(engine, choice_rng(seed)))


# -- docs/api.md ---------------------------------------------------------------------------
def test_the_documented_tables_are_the_engines() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    section = doc.split("### Strength levels", 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines()
             if line.startswith("|") and not re.fullmatch(r"\|[\s:|-]+\|", line)]
    columns = [cell.strip() for cell in lines[0].strip("|").split("|")][1:]
    documented: dict[str, list[tuple[int, int, float]]] = {title: [] for title in columns}
    for line in lines[1:]:
        number, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        for title, cell in zip(columns, cells, strict=True):
            found = re.fullmatch(r"([\d,]+) iterations, (?:sampled at temperature ([\d.]+)|"
                                 r"the most visited move)", cell)
            assert found, cell
            documented[title].append((int(number), int(found.group(1).replace(",", "")),
                                      float(found.group(2) or 0.0)))
    # Each column names the games that use its table, and every game is in one.
    tables: dict[str, list[tuple[int, int, float]]] = {}
    for info in registry.list_games():
        [column] = [c for c in columns if info.title in c.split(", ")]
        tables.setdefault(column, [(lv.number, lv.iterations, lv.temperature)
                                   for lv in config_for(info.name).levels])
        assert tables[column] == documented[column], info.name
    assert set(tables) == set(columns)
