"""Whose view: every RPC answers for ``state.observer_seat`` (the host without one).

The checks follow one pattern: two whole states that differ only in what the
observer cannot see (built with the engine's ``determinize(observer, rng)``) must
get the same answer, and nothing the observer cannot know may be in it.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest

from ai_server import codecs
from engine import registry
from engine.game import State
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from tests.ai_server.helpers_furnace import rpc_error_info

GAME = "oh-my-goods"


def _game() -> Any:
    return registry.get_game(GAME)


def typed(state: State, observer: int | None = None) -> pb.GameState:
    return codecs.encode_state(state.to_json(), "typed", observer)


def planning() -> State:
    """Seed 7, two players: P1 placed its worker and is to plan (phase II, secret)."""
    state = _game().new_game(seed=7, num_players=2)
    state.apply_text("work #0 sloppy")
    assert state.current_player() == 0 and state.to_json()["phase"] == "choose"
    return state


def twins(state: State, observer: int | None, count: int = 2) -> list[State]:
    """States that differ from ``state`` only in what ``observer`` cannot see."""
    result = [state.determinize(observer, random.Random(n)) for n in range(1, count + 1)]
    for twin in result:
        assert twin.observation(observer) == state.observation(observer)
        assert twin.to_json() != state.to_json()
    return result


def random_positions(seed: int, wanted: tuple[str, ...] = ("choose", "act")) -> list[State]:
    """Positions of one seeded random 3-player game, one per phase in ``wanted``."""
    rng = random.Random(seed)
    state = _game().new_game(seed=seed, num_players=3)
    found: dict[str, State] = {}
    plies = 0
    while not state.is_terminal() and len(found) < len(wanted):
        phase = state.to_json()["phase"]
        if phase in wanted and phase not in found and plies > 6 and state.current_player() >= 0:
            found[phase] = state.clone()
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
        plies += 1
    assert set(found) == set(wanted)
    return [found[p] for p in wanted]


def _estimate(stub, state: pb.GameState, playouts: int = 20, seed: int = 5
              ) -> pb.EstimateScoresResponse:
    reply: pb.EstimateScoresResponse = stub.EstimateScores(
        pb.EstimateScoresRequest(state=state, playouts=playouts, seed=seed))
    reply.elapsed_seconds = 0.0
    return reply


# -- EstimateScores -----------------------------------------------------------------------------
def test_estimate_with_observer_depends_only_on_its_view(stub) -> None:
    for state in random_positions(3):
        mover = state.current_player()
        for observer in (mover, (mover + 1) % state.num_players):  # the mover and another
            answers = [_estimate(stub, typed(s, observer), playouts=12)
                       for s in (state, *twins(state, observer))]
            assert answers[0].playouts == 12
            assert answers[1] == answers[0] and answers[2] == answers[0], observer


def test_estimate_without_observer_resamples_what_no_seat_sees(stub) -> None:
    """The host knows every hand, not the deck order or the generator of future draws."""
    for state in (planning(), *random_positions(4)):
        hosts = twins(state, None)
        for twin in hosts:
            data, other = state.to_json(), twin.to_json()
            assert [p["hand"] for p in other["players"]] == [p["hand"] for p in data["players"]]
            assert other["deck"] != data["deck"] or other["rng"] != data["rng"]
        answers = [_estimate(stub, typed(s), playouts=12) for s in (state, *hosts)]
        assert answers[1] == answers[0] and answers[2] == answers[0]


def test_estimate_matches_the_engine(stub) -> None:
    from engine.forecast import forecast_estimate
    from engine.search import estimate_scores

    state = random_positions(6, ("act",))[0]
    for observer in (None, 1):
        reply = _estimate(stub, typed(state, observer), playouts=15, seed=9)
        raw = estimate_scores(state, observer, playouts=15, seed=9)
        expected = forecast_estimate(state, raw)
        assert reply.playouts == expected.playouts
        for got, want, playouts in zip(reply.seats, expected.seats, raw.seats, strict=True):
            assert got.win_probability == pytest.approx(want.win_probability)
            assert got.score_mean == pytest.approx(want.score_mean)
            assert got.score_stddev == pytest.approx(want.score_stddev)
            assert got.playout_win_share == pytest.approx(playouts.win_probability)
            assert got.playout_score_mean == pytest.approx(playouts.score_mean)


# -- BestMove / Analyze -------------------------------------------------------------------------
def test_search_for_a_seat_the_observer_cannot_see_is_refused(stub) -> None:
    state = planning()  # seat 0 to move
    for seat in (None, 0):
        for observer in (1,):
            kwargs: dict[str, Any] = {"state": typed(state, observer),
                                      "budget": pb.SearchBudget(iterations=20)}
            if seat is not None:
                kwargs["seat"] = seat
            for call, request in ((stub.BestMove, pb.BestMoveRequest(**kwargs)),
                                  (stub.Analyze, pb.AnalyzeRequest(**kwargs))):
                with pytest.raises(grpc.RpcError) as info:
                    result = call(request)
                    if call is stub.Analyze:
                        list(result)
                code, fields, reason = rpc_error_info(info.value)
                assert code == grpc.StatusCode.INVALID_ARGUMENT
                assert fields == ["state.observer_seat"]
                assert reason == "OBSERVER_CANNOT_SEE_MOVER"
                assert "seat 0" in info.value.details() and "seat 1" in info.value.details()
    # In phase IV too (another seat's hand still hidden).
    act = random_positions(5, ("act",))[0]
    other = (act.current_player() + 1) % act.num_players
    with pytest.raises(grpc.RpcError) as info:
        stub.BestMove(pb.BestMoveRequest(state=typed(act, other),
                                         budget=pb.SearchBudget(iterations=20)))
    assert rpc_error_info(info.value)[1:] == (["state.observer_seat"],
                                              "OBSERVER_CANNOT_SEE_MOVER")


def test_search_as_the_mover_or_as_the_host_is_the_same(stub) -> None:
    state = planning()
    answers = []
    for observer in (None, 0):
        reply = stub.BestMove(pb.BestMoveRequest(state=typed(state, observer), seed=2,
                                                 budget=pb.SearchBudget(iterations=40)))
        reply.analysis.elapsed_seconds = 0.0
        reply.analysis.queued_seconds = 0.0
        answers.append(reply)
    assert answers[0] == answers[1]
    assert answers[0].move.id in state.legal_moves()
    # The search reads nothing the mover cannot see: twins of its view, same answer.
    for twin in twins(state, 0):
        reply = stub.BestMove(pb.BestMoveRequest(state=typed(twin), seed=2,
                                                 budget=pb.SearchBudget(iterations=40)))
        reply.analysis.elapsed_seconds = 0.0
        reply.analysis.queued_seconds = 0.0
        assert reply == answers[0]


def test_perfect_information_any_observer_may_search(stub, new_state) -> None:
    view = pb.GameState()
    view.CopyFrom(new_state)
    view.observer_seat = 1  # Samara: seat 0 to move, seat 1 sees everything
    reply = stub.BestMove(pb.BestMoveRequest(state=view, seed=1,
                                             budget=pb.SearchBudget(iterations=20)))
    assert reply.analysis.player == 0 and reply.move.text
    legal = stub.LegalMoves(pb.LegalMovesRequest(state=view))
    assert legal.moves and not legal.moves_hidden
    check = stub.CheckMove(pb.CheckMoveRequest(state=view, move=pb.Move(text="build r1c1 1")))
    assert check.reason_code == pb.ILLEGAL_REASON_RULES


# -- LegalMoves / CheckMove ---------------------------------------------------------------------
def test_legal_moves_of_a_seat_the_observer_cannot_see_are_hidden(stub) -> None:
    state = planning()
    hand = state.to_json()["players"][0]["hand"]
    answers = []
    for whole in (state, *twins(state, 1)):
        reply = stub.LegalMoves(pb.LegalMovesRequest(state=typed(whole, 1), include_render=True))
        assert list(reply.moves) == [] and list(reply.chance_outcomes) == []
        assert reply.moves_hidden
        assert reply.status.current_player == 0
        assert reply.render == state.render(1)
        assert not any(card in reply.render for card in hand)
        answers.append(reply)
    assert answers[1] == answers[0] and answers[2] == answers[0]
    # Naming the mover as `seat` changes nothing; another seat simply has no moves.
    named = stub.LegalMoves(pb.LegalMovesRequest(state=typed(state, 1), seat=0))
    assert not named.moves and named.moves_hidden
    not_turn = stub.LegalMoves(pb.LegalMovesRequest(state=typed(state, 1), seat=1))
    assert not not_turn.moves and not not_turn.moves_hidden
    # The mover itself and the host see every move; the render is always the observer's,
    # whatever `seat` says.
    for observer in (0, None):
        reply = stub.LegalMoves(pb.LegalMovesRequest(state=typed(state, observer), seat=0,
                                                     include_render=True))
        assert [m.text for m in reply.moves] == state.legal_moves_text()
        assert not reply.moves_hidden and reply.render == state.render(observer)
    host = stub.LegalMoves(pb.LegalMovesRequest(state=typed(state), seat=1, include_render=True))
    assert host.render == state.render(None)


def test_check_move_of_a_seat_the_observer_cannot_see_is_not_judged(stub) -> None:
    state = planning()
    data = state.to_json()
    legal = "plan iron-smelter-3"                       # in P1's hand
    illegal = f"plan {data['players'][1]['hand'][0]}"  # in P2's hand
    unseen = f"plan {data['deck'][0]}"                  # in the deck
    assert state.why_illegal(state.parse_move(legal)) is None
    assert state.why_illegal(state.parse_move(illegal)) is not None
    assert state.why_illegal(state.parse_move(unseen)) is not None
    verdicts = set()
    for whole in (state, *twins(state, 1)):
        for text in (legal, illegal, unseen):
            reply = stub.CheckMove(pb.CheckMoveRequest(state=typed(whole, 1),
                                                       move=pb.Move(text=text)))
            assert not reply.legal
            assert reply.reason_code == pb.ILLEGAL_REASON_HIDDEN
            assert "hand" not in reply.reason and "plan" not in reply.reason
            assert reply.move.text == text
            verdicts.add((reply.legal, reply.reason, reply.reason_code))
    assert len(verdicts) == 1  # the same answer, whatever the move and the hidden cards
    # The checks that reveal nothing still come first.
    parse = stub.CheckMove(pb.CheckMoveRequest(state=typed(state, 1),
                                               move=pb.Move(text="plan nothing-9")))
    assert parse.reason_code == pb.ILLEGAL_REASON_UNPARSEABLE
    turn = stub.CheckMove(pb.CheckMoveRequest(state=typed(state, 1), seat=1,
                                              move=pb.Move(text=legal)))
    assert turn.reason_code == pb.ILLEGAL_REASON_NOT_YOUR_TURN
    # The mover and the host get the rules' judgement.
    for observer in (0, None):
        ok = stub.CheckMove(pb.CheckMoveRequest(state=typed(state, observer),
                                                move=pb.Move(text=legal)))
        assert ok.legal
        no = stub.CheckMove(pb.CheckMoveRequest(state=typed(state, observer),
                                                move=pb.Move(text=illegal)))
        assert not no.legal and no.reason_code == pb.ILLEGAL_REASON_RULES
        assert "not in your hand" in no.reason


# -- ApplyMove ----------------------------------------------------------------------------------
def test_apply_move_records_what_the_observer_sees(stub) -> None:
    from engine.game import events_seen_by

    state = planning()
    move = state.parse_move("plan iron-smelter-3")
    after = state.clone()
    events = after.apply(move)
    secret = stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, 1), move=pb.Move(id=move),
                                                seat=0))
    # The whole new state (the client holds the truth), its observer kept.
    assert codecs.decode_state(secret.state).data == after.to_json()
    assert secret.state.observer_seat == 1
    assert secret.record.player == 0
    assert secret.record.move_hidden and not secret.record.HasField("move")
    assert list(secret.record.events) == events_seen_by(events, 1)
    assert secret.render == after.render(1) and "iron-smelter-3" not in secret.render
    for observer in (0, None):
        seen = stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, observer),
                                                  move=pb.Move(id=move), seat=0))
        assert not seen.record.move_hidden
        assert seen.record.move == pb.Move(id=move, text="plan iron-smelter-3")
        assert seen.render == after.render(observer)


def test_apply_move_events_are_the_observers(stub) -> None:
    """A move whose events show a seat its own draws shows the others only counts."""
    from engine.game import events_seen_by

    rng = random.Random(2)
    state = _game().new_game(seed=2, num_players=3)
    for _ in range(2000):
        moves = state.legal_moves()
        move = moves[rng.randrange(len(moves))]
        trial = state.clone()
        events = trial.apply(move)
        if any(e.seats is not None for e in events):
            break
        state = trial
    else:  # pragma: no cover - the game always deals private cards
        pytest.fail("no private event in 2000 plies")
    private = next(e for e in events if e.seats is not None)
    outsider = next(s for s in range(3) if s not in private.seats)
    insider = next(iter(private.seats))
    for observer in (outsider, insider, None):
        reply = stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, observer),
                                                   move=pb.Move(id=move)))
        assert list(reply.record.events) == events_seen_by(events, observer)
    hidden = stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, outsider),
                                                move=pb.Move(id=move)))
    assert private.text not in hidden.record.events


def test_illegal_move_error_keeps_the_rules_reason_from_other_seats(stub) -> None:
    state = planning()
    illegal = f"plan {state.to_json()['players'][1]['hand'][0]}"
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, 1), move=pb.Move(text=illegal)))
    code, fields, reason = rpc_error_info(info.value)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "ILLEGAL_MOVE")
    assert "not in your hand" not in info.value.details()
    assert "withheld" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        stub.ApplyMove(pb.ApplyMoveRequest(state=typed(state, 0), move=pb.Move(text=illegal)))
    assert "not in your hand" in info.value.details()
