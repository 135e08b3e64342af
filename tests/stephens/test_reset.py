"""The reset phase, move by move: the chain E6-E13 (analysis §5) as one continuing
reset, and the supply bonuses that open decisions of their own."""

from __future__ import annotations

from engine.stephens.state import EMPTY
from engine.stephens.vocabulary import BLACK, PINK, SMALL_FACTORIES, WHITE
from tests.stephens.helpers import (
    ANGELA,
    MARIA,
    PEDRO,
    blank,
    contract,
    cubes,
    give_investment,
    pedros_reset,
    play,
    round_trip,
    turn_of,
)

SF_LL, SF_UR, SF_LR = (SMALL_FACTORIES.index(f) for f in ("SF-LL", "SF-UR", "SF-LR"))


def test_e6_to_e13_one_reset_phase_from_trigger_to_fulfilment() -> None:
    state = pedros_reset()
    cat = state.catalogue
    andre, pedro, angela, maria = state.players
    vp = [p.vp for p in state.players]
    forest, dune = pedro.forest, pedro.dune

    # E6: Pedro funds an investment with the last white cube: two furnaces are empty
    # at the end of his turn, so the reset starts, Pedro first.
    play(state, "glass FN-LR")
    events = play(state, "investment utensils-1 orange")
    assert "P2 triggered a reset phase" in events
    # E7: the army advances 5 spaces.
    assert state.army == 45 and "the French army advances to 45" in events
    # E8: only the two empty furnaces are refilled, 3 cubes each for 4 players at 45.
    assert state.furnaces == [3, 2, 3, 3]
    # E9: +1 VP for the players with the ability.
    assert [p.vp - v for p, v in zip(state.players, vp, strict=True)] == [1, 0, 0, 1]

    # E10: investment columns, in turn order from Pedro.
    assert state.current_player() == PEDRO and state.decisions[-1].kind == "columns"
    assert state.legal_moves_text() == ["columns none", "columns 1", "columns 2",
                                        "columns 1 2"]
    play(state, "columns 1")
    assert (pedro.forest, pedro.dune, pedro.vp) == (forest - 1, dune - 1, vp[PEDRO] + 3)
    assert pedro.reserved == [1, 0, 2] and sum(pedro.cubes) == 1  # his white cube only
    assert state.current_player() == ANGELA
    events = play(state, "columns 1")
    assert angela.reserved == [2, 0, 2]

    # E11: the small factories are emptied before anyone supplies them.
    assert "the small factories are emptied" in events
    assert state.factories == [[0, 0, 0]] * 4

    # R6 in turn order: Pedro supplies first (orange + black for an accessory, black
    # for influence), choosing the accessory's type once every cube is placed.
    assert state.current_player() == PEDRO and state.decisions[-1].kind == "supply"
    # b5 (orange + black) first would leave a black cube no later combination takes
    assert state.legal_moves_text() == ["supply b1", "supply b2", "supply b3"]
    events = play(state, "supply b3")  # then b5 is the only way to place the rest
    assert "P2 supplies orange + black to SF-LR (b5: 1 accessory)" in events
    assert state.decisions[-1].kind == "accessories"
    play(state, "accessories shears")
    assert pedro.accessories[1] == 1 and pedro.reserved == [0, 0, 0]

    # E12: Angela supplies 2 orange to the lower left and 2 black to the upper right
    # small factory: 4 influence and 2 coins.
    assert state.current_player() == ANGELA
    coins, influence = angela.coins, angela.influence
    assert "skip" not in state.legal_moves_text()  # every reserved cube is supplied
    play(state, "supply b1", "supply b1", "supply b2")
    assert state.why_illegal(state.parse_move("supply b1")) == \
        "name the combinations in catalogue order: b2 was supplied already"
    assert state.why_illegal(state.parse_move("supply b4")) == \
        "b4 needs cubes you have not reserved"
    play(state, "supply b2")
    assert (angela.coins, angela.influence) == (coins + 2, influence + 4)
    assert state.factories[SF_LL] == [2, 0, 0]
    assert state.factories[SF_UR] == [0, 0, 2] and angela.reserved == [0, 0, 0]

    # E13: Maria fulfils her two contracts.
    assert state.current_player() == MARIA and state.decisions[-1].kind == "fulfil"
    assert state.legal_moves_text() == ["fulfil crown-01 pink", "fulfil uk-03 white black",
                                        "skip"]
    play(state, "fulfil crown-01 pink", "fulfil uk-03 white black")
    crown, uk = cat.contract_ids["crown-01"], cat.contract_ids["uk-03"]
    assert maria.contracts == [] and maria.fulfilled == [[crown], [], [uk]]
    assert maria.cubes[PINK] == maria.cubes[WHITE] == maria.cubes[BLACK] == 0

    # The reset is over: the player after Pedro takes the next turn.
    assert state.current_player() == ANGELA and state.decisions[-1].kind == "action"
    assert state.active == ANGELA
    round_trip(state)
    del andre


def test_fulfilling_contracts_of_one_type_in_either_order() -> None:
    """Two contracts of one type may be fulfilled in either order (it sets their columns,
    A-40); contracts of different types go in type order (their order changes nothing)."""
    state = pedros_reset()
    maria = state.players[MARIA]
    maria.contracts.append(contract(state, "crown-03"))  # besides crown-01 and uk-03
    maria.cubes = cubes(pink=1, white=3, black=1)
    state.touched()
    play(state, "glass FN-LR", "investment utensils-1 orange", "columns none", "columns none")
    assert state.current_player() == MARIA
    twin = state.clone()
    texts = state.legal_moves_text()
    assert "fulfil crown-03 white white" in texts and "fulfil crown-01 pink" in texts
    play(state, "fulfil crown-03 white white")
    assert "fulfil crown-01 pink" in state.legal_moves_text()  # the same type: any order
    play(state, "fulfil crown-01 pink", "fulfil uk-03 white black")
    crown_01, crown_03 = (state.catalogue.contract_ids[c] for c in ("crown-01", "crown-03"))
    assert maria.fulfilled[0] == [crown_03, crown_01] and maria.contracts == []
    # a UK contract first closes the Crown ones for this reset: type order
    maria = twin.players[MARIA]
    play(twin, "fulfil uk-03 white black")
    assert twin.current_player() == ANGELA and len(maria.contracts) == 2


def test_an_acquire_bonus_takes_a_contract_or_an_investment() -> None:
    state = pedros_reset()
    pedro = state.players[PEDRO]
    pedro.coins = 10
    give_investment(state, PEDRO, "fabrics-1", "pink")  # column 2: pink
    state.touched()
    play(state, "glass FN-LR", "investment utensils-1 orange")
    # column 1: 1 orange + 2 black; column 2: 1 orange (utensils-1) + 1 pink
    play(state, "columns 1 2", "columns none")
    assert pedro.reserved == [2, 1, 2]
    play(state, "supply b1", "supply b2", "supply b7")  # orange+pink+black: acquire
    frame = state.decisions[-1]
    assert frame.kind == "acquire" and frame.num("pile") == 2
    texts = state.legal_moves_text()
    assert any(t.startswith("contract ") for t in texts)
    assert any(t.startswith("investment ") for t in texts) and "skip" in texts
    cheapest = state.contract_display[0]
    influence = pedro.influence
    play(state, f"contract {state.catalogue.contracts[cheapest].id}")
    assert pedro.contracts == [cheapest] and pedro.influence == influence - 1
    assert EMPTY not in state.contract_display  # refilled at once
    assert state.current_player() == MARIA


def test_an_assign_bonus_creates_or_reinforces_with_its_disk_or_is_declined() -> None:
    state = pedros_reset()
    pedro = state.players[PEDRO]
    give_investment(state, PEDRO, "fabrics-1", "pink")
    state.touched()
    play(state, "glass FN-LR", "investment utensils-1 orange", "columns 1 2", "columns none",
         "supply b1", "supply b2", "supply b8")
    assert state.decisions[-1].kind == "assign" and "skip" in state.legal_moves_text()
    card = state.profession_display[2]  # a blue card
    name = state.catalogue.professions[card].id
    taken = pedro.disks_taken
    play(state, f"create {name} FN-UR")
    assert state.master[card] == PEDRO and state.decisions[-1].kind == "unlock"
    play(state, "unlock S1")
    assert pedro.disks_taken == taken + 1
    state = pedros_reset()
    give_investment(state, PEDRO, "fabrics-1", "pink")
    state.touched()
    play(state, "glass FN-LR", "investment utensils-1 orange", "columns 1 2", "columns none",
         "supply b1", "supply b2", "supply b8", "skip")
    assert state.current_player() == MARIA


def test_a_reset_is_checked_only_at_the_end_of_a_turn() -> None:
    state = turn_of(blank(2), 0)
    state.furnaces = [0, 2, 3, 1]
    state.touched()
    play(state, "glass FN-UR")
    assert state.army == 55 and state.current_player() == 1
    play(state, "glass FN-LR", "skip")
    assert state.army == 50 and state.furnaces == [2, 1, 3, 2]
    assert state.current_player() == 0 and state.active == 0
