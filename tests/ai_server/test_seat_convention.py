"""Issue 13, item 7: one seat convention.  Seat numbers are 0-based everywhere (every
RPC field, every command-line flag); people read players as P1, P2, ...; text that
gives a seat's number names the player too: "P1 (seat 0)".  Errors used to say
"it is seat 0's turn, not seat 1's", Oh My Goods! events "player 1 ...", and a Samara
state error "seat 1 then seat 2" with 1-based numbers.
"""

from __future__ import annotations

import random

import grpc
import pytest

from clients.furnace_client import seat_label as client_seat_label
from engine import registry
from engine.game import InvalidStateError
from engine.seats import player_name, seat_label, seat_range
from furnace_proto.furnace.v1 import furnace_pb2 as pb


def test_one_label_in_the_engine_and_in_the_clients() -> None:
    for seat in range(6):
        assert seat_label(seat) == client_seat_label(seat) == f"P{seat + 1} (seat {seat})"
        assert player_name(seat) == f"P{seat + 1}"
    assert seat_range(3) == "0..2 (0 is P1)"


def test_not_your_turn_names_both_seats(stub, new_state: pb.GameState) -> None:
    # Samara, seat 0 to move; seat 1 tries.
    with pytest.raises(grpc.RpcError) as info:
        stub.BestMove(pb.BestMoveRequest(state=new_state, seat=1,
                                         budget=pb.SearchBudget(iterations=10)))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.details() == "it is the turn of P1 (seat 0), not of P2 (seat 1)"
    check = stub.CheckMove(pb.CheckMoveRequest(state=new_state, seat=1,
                                               move=pb.Move(text="recruit woman")))
    assert check.reason_code == pb.ILLEGAL_REASON_NOT_YOUR_TURN
    assert check.reason == "it is the turn of P1 (seat 0), not of P2 (seat 1)"


def test_seat_out_of_range_gives_the_range(stub, new_state: pb.GameState) -> None:
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalMoves(pb.LegalMovesRequest(state=new_state, seat=2))
    assert info.value.details() == "seat must be in 0..1 (0 is P1), got 2"


def test_hidden_moves_name_the_observer_and_the_mover(stub) -> None:
    game = stub.NewGame(pb.NewGameRequest(game="oh-my-goods", num_players=2, seed=7))
    placed = stub.ApplyMove(pb.ApplyMoveRequest(state=game.state,
                                                move=pb.Move(text="work #0 sloppy")))
    state = pb.GameState()
    state.CopyFrom(placed.state)
    state.observer_seat = 1  # seat 0 plans a building in phase II, from its own hand
    check = stub.CheckMove(pb.CheckMoveRequest(state=state, move=pb.Move(text="plan none")))
    assert check.reason_code == pb.ILLEGAL_REASON_HIDDEN
    assert check.reason == ("P2 (seat 1) cannot judge the moves of P1 (seat 0): they depend "
                            "on what P2 cannot see")


def test_oh_my_goods_names_players_as_renders_do() -> None:
    state = registry.get_game("oh-my-goods").new_game(3, 2)
    texts: list[str] = []
    for _ in range(60):
        if state.current_player() < 0:
            break
        texts += [event.text for event in state.apply(state.legal_moves()[0])]
    texts.append(state.render(None).splitlines()[0])
    assert any(text.startswith("P1 ") for text in texts), texts
    assert not any("player " in text for text in texts), texts


def test_samara_clockwise_error_uses_0_based_seats() -> None:
    """The pending decisions' order error said 'seat 2 then seat 3' for seats 1 and 2."""
    rng = random.Random(0)
    state = registry.get_game("samara").new_game(0, 3)
    while state.current_player() >= 0:  # random play until a power queues decisions
        data = state.to_json()
        if len(data.get("pending") or []) >= 2:
            break
        state.apply(rng.choice(state.legal_moves()))
    pending = data["pending"]
    assert [d["target"] for d in pending[:2]] == [0, 1]
    pending[0], pending[1] = pending[1], pending[0]
    with pytest.raises(InvalidStateError) as info:
        registry.state_from_json(data)
    assert str(info.value) == "pending[1]: decisions go clockwise, P2 (seat 1) then P3 (seat 2)"
