"""Move ids that are not move codes of the game (issue 13, item 1).

A move id the game cannot produce (negative, past the game's move-code range, or
one that does not decode to a move) is refused cleanly: CheckMove answers
``legal=false`` with one sentence that invents no move text and does not repeat
itself; ApplyMove answers INVALID_ARGUMENT on ``move.id``.  At the engine level
``move_to_text`` and ``why_illegal`` never fail with an internal error, and a
text ``move_to_text`` gives always reads back (``parse_move``) as the same id.
"""

from __future__ import annotations

import random

import grpc
import pytest

from engine import registry
from engine.game import MoveParseError, State
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import rpc_error_info

GAMES = ("samara", "oh_my_goods", "stephens")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Ids that are no move of any game: negative, huge, past every move-code range.
BAD_IDS = (-1, -2, -1023, INT64_MIN, INT64_MIN + 1, INT64_MAX, 2**62, 2**40, 10**9)


def arbitrary_ids(seed: int = 0, count: int = 400) -> list[int]:
    rng = random.Random(seed)
    ids = list(BAD_IDS) + list(range(-40, 80)) + [1 << k for k in range(64)]
    ids += [(1 << k) - 1 for k in range(1, 64)]
    ids += [rng.randrange(INT64_MIN, INT64_MAX) for _ in range(count)]
    ids += [rng.randrange(0, 1 << 22) for _ in range(count)]
    return ids


def positions(name: str) -> list[State]:
    """A new game and a few positions along a random game, with their kernel twins."""
    game = registry.get_game(name)
    rng = random.Random(3)
    state = game.new_game(seed=5, num_players=game.info.min_players)
    found = [state.clone()]
    for step in range(60):
        if state.is_terminal():
            break
        if state.current_player() < 0:
            outcomes = state.chance_outcomes()
            state.apply(outcomes[rng.randrange(len(outcomes))][0])
        else:
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        if step % 20 == 19:
            found.append(state.clone())
    return found + [s.search_state() for s in found]


@pytest.mark.parametrize("name", GAMES)
def test_engine_never_fails_internally_on_an_arbitrary_id(name: str) -> None:
    for state in positions(name):
        legal = set(state.legal_moves())
        for move in arbitrary_ids():
            try:
                text = state.move_to_text(move)
            except MoveParseError:
                text = None
            code = state.is_move_code(move)
            if code:
                # A move code's text reads back as the same id.
                assert text is not None and state.parse_move(text) == move, (name, move)
            why = state.why_illegal(move)
            assert why is None or isinstance(why, str)
            if not code:
                assert move not in legal
                assert why and why.endswith(f"is not a move of {state.info.title}"), why
            if name != "stephens":
                # A text only for a move code: never an invented one.
                assert (text is not None) == code, (name, move, text)


@pytest.mark.parametrize("name", ("samara", "oh_my_goods"))
def test_every_move_code_of_the_code_space_round_trips(name: str) -> None:
    """Every id of the game's code space either is refused or reads back as itself."""
    state = registry.get_game(name).new_game(seed=2, num_players=2)
    limit = 9 << 16 if name == "samara" else 20 << 10
    for move in range(-1, limit + 2):
        try:
            text = state.move_to_text(move)
        except MoveParseError:
            continue
        assert state.parse_move(text) == move, (move, text)


@pytest.mark.parametrize("name", ("samara", "oh_my_goods"))
@pytest.mark.parametrize("move", (-1, -2, INT64_MIN))
def test_negative_ids_are_not_moves_in_the_engine(name: str, move: int) -> None:
    state = registry.get_game(name).new_game(seed=2, num_players=2)
    for each in (state, state.search_state()):
        with pytest.raises(MoveParseError):
            each.move_to_text(move)
        with pytest.raises(MoveParseError):
            each.move_seen_by(move, None)
        assert "is not a move" in (each.why_illegal(move) or "")


def new_state(stub, name: str) -> pb.GameState:
    info = registry.get_game(name).info
    reply = stub.NewGame(pb.NewGameRequest(game=name, num_players=info.min_players, seed=4))
    state: pb.GameState = reply.state
    return state


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("move", BAD_IDS + (4096, 5000, 1 << 20))
def test_check_move_refuses_ids_that_are_not_moves(stub, name: str, move: int) -> None:
    state = new_state(stub, name)
    legal = {m.id for m in stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves}
    if move in legal:
        return
    reply = stub.CheckMove(pb.CheckMoveRequest(state=state, move=pb.Move(id=move)))
    assert not reply.legal
    assert reply.reason_code in (pb.ILLEGAL_REASON_NOT_A_MOVE, pb.ILLEGAL_REASON_RULES)
    assert not reply.move.text, reply.move.text  # no invented move text
    reason = reply.reason
    assert reason and "index" not in reason and "Error" not in reason
    # One sentence that does not repeat itself.
    assert reason.count(str(move)) <= 1, reason
    assert reason.count("not a move") <= 1, reason
    assert reason.count(". ") == 0, reason


@pytest.mark.parametrize("name", ("samara", "oh_my_goods"))
@pytest.mark.parametrize("move", (-1, -2, INT64_MIN, INT64_MAX))
def test_check_move_says_an_impossible_id_is_not_a_move(stub, name: str, move: int) -> None:
    state = new_state(stub, name)
    reply = stub.CheckMove(pb.CheckMoveRequest(state=state, move=pb.Move(id=move)))
    assert not reply.legal
    assert reply.reason_code == pb.ILLEGAL_REASON_NOT_A_MOVE
    assert reply.move.text == ""
    assert reply.reason == f"move id {move} is not a move of {registry.get_game(name).info.title}"


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("move", (-1, INT64_MIN, INT64_MAX, 2**40))
def test_apply_move_refuses_ids_that_are_not_moves(stub, name: str, move: int) -> None:
    state = new_state(stub, name)
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyMove(pb.ApplyMoveRequest(state=state, move=pb.Move(id=move)))
    code, fields, reason = rpc_error_info(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert fields == ["move.id"]
    assert reason == "INVALID_MOVE"
    details = info.value.details() or ""
    assert "index" not in details and details.count(str(move)) == 1, details


def test_a_move_id_and_text_that_disagree_are_still_told_apart(stub) -> None:
    state = new_state(stub, "samara")
    first = stub.LegalMoves(pb.LegalMovesRequest(state=state)).moves[0]
    reply = stub.CheckMove(pb.CheckMoveRequest(
        state=state, move=pb.Move(id=-1, text=first.text)))
    assert not reply.legal
    assert reply.reason_code == pb.ILLEGAL_REASON_NOT_A_MOVE
