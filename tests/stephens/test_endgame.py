"""The end of the game: the trigger, the round played out, one more round, the final
reset phase, final scoring and the ranking (L1028-L1030, L1298-L1350, L1384-L1388)."""

from __future__ import annotations

from engine.game import TERMINAL
from engine.stephens.state import StephensState
from tests.stephens.helpers import (
    attach,
    blank,
    contract,
    cubes,
    play,
    round_trip,
    settle_disks,
    turn_of,
)


def near_the_end(players: int = 3) -> StephensState:
    """P2 is one VP short of the French army on 20, with a miller (1 VP) to activate."""
    state = turn_of(blank(players), 1)
    state.army = 20
    state.round = 6
    state.players[1].vp = 19
    attach(state, "miller", "FN-UL", 1)
    attach(state, "stoker", "FN-UL", 0)
    settle_disks(state, {0: ["V1"]})
    state.touched()
    return round_trip(state)


def actions_until_the_end(state: StephensState) -> list[tuple[int, int]]:
    """(round, seat) of every turn until the game is over, taking glass from the
    fullest furnace (no reset) and declining everything else."""
    turns = []
    while not state.is_terminal():
        frame = state.decisions[-1]
        if frame.kind == "action":
            turns.append((state.round, frame.seat))
            fullest = max(range(4), key=lambda f: state.furnaces[f])
            play(state, f"glass {('FN-UL', 'FN-UR', 'FN-LL', 'FN-LR')[fullest]}")
        elif "skip" in state.legal_moves_text():
            play(state, "skip")
        else:
            state.apply(state.legal_moves()[0])
    return turns


def test_the_round_is_played_out_then_one_more_then_the_final_reset() -> None:
    state = near_the_end()
    play(state, "glass FN-UL")
    # 1 VP more reaches the army: refusing it is a real choice (A-15, N8)
    assert state.legal_moves_text() == ["activate nothing", "activate miller:1"]
    events = play(state, "activate miller:1")
    assert "the French army (20) meets a score: the game ends after round 7" in events
    assert state.end_round == 6
    assert actions_until_the_end(state) == [(6, 2), (7, 0), (7, 1), (7, 2)]
    assert state.current_player() == TERMINAL and state.legal_moves() == []
    assert state.army == 20  # the final reset does not move the army
    round_trip(state)


def test_the_final_reset_scores_the_reset_ability_and_then_the_game_is_scored() -> None:
    state = near_the_end()
    vp = state.players[0].vp
    play(state, "glass FN-UL", "activate miller:1")
    actions_until_the_end(state)
    # P1 has V1: +1 in the final reset (no other reset happened on the way)
    assert state.players[0].vp == vp + 1
    outcome = state.outcome()
    assert outcome.scores == tuple(state.scores()) and sum(outcome.rewards) == 1
    assert state.render().startswith("Stephens, 3 players, round 7, the game is over")


def test_the_final_reset_starts_with_the_player_who_took_the_last_turn() -> None:
    """The final reset follows the last player's last turn (L1347-L1350), as a reset
    follows the turn that triggered it, and its steps go in turn order from that player
    (L951-L956): P3, then P1 and P2."""
    state = near_the_end()
    for seat, card in enumerate(("crown-01", "crown-03", "crown-04")):
        state.players[seat].contracts = [contract(state, card)]
        state.players[seat].cubes = cubes(green=1, white=2, pink=1)
    state.touched()
    play(state, "glass FN-UL", "activate miller:1")
    fulfilling = []
    while not state.is_terminal():
        frame = state.decisions[-1]
        if frame.kind == "fulfil":
            if not fulfilling:
                assert round_trip(state).decisions == state.decisions
            fulfilling.append(frame.seat)
            play(state, "skip")
        elif frame.kind == "action":
            fullest = max(range(4), key=lambda f: state.furnaces[f])
            play(state, f"glass {('FN-UL', 'FN-UR', 'FN-LL', 'FN-LR')[fullest]}")
        else:
            play(state, "skip")
    assert fulfilling == [2, 0, 1]


def test_a_second_empty_furnace_in_the_last_turn_means_one_reset_the_final_one() -> None:
    state = near_the_end(2)
    play(state, "glass FN-UL", "activate miller:1")
    assert state.end_round == 6 and state.current_player() == 0 and state.round == 7
    play(state, "glass FN-UR")
    state.furnaces = [0, 0, 3, 3]  # P2's last turn will empty a second furnace
    state.furnaces[1] = 1
    state.touched()
    play(state, "glass FN-UR")
    assert state.is_terminal() and state.army == 20  # no ordinary reset first


def test_the_score_meeting_the_army_in_a_reset_ends_the_game_too() -> None:
    state = turn_of(blank(2), 1)
    state.army = 15
    state.players[0].vp = 10  # the army comes down to 10 in the reset
    state.furnaces = [0, 2, 3, 1]
    state.round = 9
    state.touched()
    events = play(state, "glass FN-LR", "skip")
    assert "the French army advances to 10" in events
    assert state.end_round == 9 and state.current_player() == 0 and state.round == 10
    assert actions_until_the_end(state) == [(10, 0), (10, 1)]


def test_terminal_positions_rank_by_score_then_influence_then_coins() -> None:
    state = near_the_end(2)
    play(state, "glass FN-UL", "activate miller:1")
    actions_until_the_end(state)
    ranking = state.ranking()
    keys = [(state.scores()[s], state.players[s].influence, state.players[s].coins)
            for s in range(2)]
    assert ranking[0][0] == max(range(2), key=lambda s: keys[s])
