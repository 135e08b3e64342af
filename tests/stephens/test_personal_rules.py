"""The rules over one player's position: investments (R4), supply (R6), contracts (R7),
activation plans, placement, the influence cap and the ability prerequisites."""

from __future__ import annotations

import pytest

from engine.game import IllegalMoveError
from engine.stephens.abilities import (
    gain_influence,
    influence_cap,
    products_limit,
    unlock,
    unlock_reason,
    unlockable_disks,
)
from engine.stephens.activation import (
    CUBES,
    CUBES_GAINED,
    DUNE,
    INFLUENCE,
    VP,
    Exchange,
    activation_plans,
    activation_reason,
    apply_exchange,
    apply_plan,
    describe_plan,
    exchanges,
    plan_outcome,
    row_workers,
)
from engine.stephens.contracts import Payment, fulfil, fulfil_reason, fulfilment_payments
from engine.stephens.investments import (
    activate_columns,
    column_sets,
    columns_reason,
    investment_columns,
    investment_rows,
)
from engine.stephens.placement import placement_reason, reinforce_reason
from engine.stephens.state import StephensState
from engine.stephens.supply import supply_factories, supply_plans, supply_reason
from engine.stephens.vocabulary import FN_UL, FN_UR, SF_LL, SF_LR, SF_UL, SMALL_FACTORIES
from tests.stephens.helpers import (
    ANDRE,
    ANGELA,
    MARIA,
    PEDRO,
    attach,
    blank,
    contract,
    cubes,
    give_investment,
    prof,
)


def disk(state: StephensState, ident: str) -> int:
    return state.catalogue.disk_ids[ident]


def grant(state: StephensState, seat: int, *idents: str) -> None:
    for ident in idents:
        state.players[seat].unlocked[disk(state, ident)] = 1


# -- R4: investment columns ---------------------------------------------------------------
def pedros_column() -> StephensState:
    state = blank(4)
    give_investment(state, PEDRO, "utensils-3", "orange")  # 1 orange, 1 VP, Forest 1
    give_investment(state, PEDRO, "theatre", "pink")  # no cubes: any row; 2 VP
    give_investment(state, PEDRO, "pottery-6", "black")  # 2 black, Dune 1
    return state


def test_e10_pedro_activates_his_column() -> None:
    state = pedros_column()
    pedro = state.players[PEDRO]
    (column,) = investment_columns(state, PEDRO)
    assert (column.forest, column.dune, column.vp, column.cubes) == (1, 1, 3, (1, 0, 2))
    before = (pedro.forest, pedro.dune, pedro.vp, list(pedro.cubes))
    assert column_sets(state, PEDRO) == [(), (0,)]
    activate_columns(state, PEDRO, [0])
    assert (pedro.forest, pedro.dune, pedro.vp) == (before[0] - 1, before[1] - 1, before[2] + 3)
    assert pedro.reserved == [1, 0, 2]  # on the cards, not in the personal supply
    assert pedro.cubes == before[3]


def test_e10_twin_forest_at_the_bottom_blocks_the_column() -> None:
    state = pedros_column()
    state.players[PEDRO].forest = 0
    assert column_sets(state, PEDRO) == [()]
    reason = columns_reason(state, PEDRO, [0])
    assert reason is not None and "Forest" in reason
    with pytest.raises(IllegalMoveError, match="Forest"):
        activate_columns(state, PEDRO, [0])
    assert state.players[PEDRO].vp == 0 and state.players[PEDRO].reserved == [0, 0, 0]


def test_columns_share_the_tracks() -> None:
    state = pedros_column()
    give_investment(state, PEDRO, "utensils-4", "orange")  # column 2: Dune 1
    state.players[PEDRO].dune = 1
    assert column_sets(state, PEDRO) == [(), (0,), (1,)]
    assert "Dune" in (columns_reason(state, PEDRO, [0, 1]) or "")
    assert columns_reason(state, PEDRO, [0, 0]) == "a column is activated at most once"


def test_investment_rows() -> None:
    cat = blank(2).catalogue
    assert investment_rows(cat, cat.investment_ids["theatre"]) == [0, 1, 2]
    assert investment_rows(cat, cat.investment_ids["fabrics-1"]) == [1]


# -- R6: supplying the small factories ---------------------------------------------------
def angela_with_reserved_cubes(influence: int = 3) -> StephensState:
    state = blank(4)
    grant(state, ANGELA, "I5")  # influence cap 9
    angela = state.players[ANGELA]
    angela.influence = influence
    angela.reserved = [2, 0, 2]  # 2 orange, 2 black
    return state


def names(state: StephensState, plan) -> list[str]:
    return [state.catalogue.bonuses[b].id for b in plan]


def test_e12_angela_supplies_the_factories() -> None:
    state = angela_with_reserved_cubes()
    plans = [names(state, p) for p in supply_plans(state, ANGELA)]
    assert plans == [["b1", "b1", "b2", "b2"], ["b1", "b1", "b2", "b3"],
                     ["b1", "b1", "b3", "b3"], ["b1", "b2", "b5"], ["b1", "b3", "b5"],
                     ["b5", "b5"]]
    angela = state.players[ANGELA]
    coins = angela.coins
    follow_ups = supply_factories(state, ANGELA, supply_plans(state, ANGELA)[0])
    assert follow_ups == []
    assert (angela.influence, angela.coins - coins) == (3 + 4, 2)
    factories = dict(zip(SMALL_FACTORIES, state.factories, strict=True))
    assert factories["SF-LL"] == [2, 0, 0] and factories["SF-UR"] == [0, 0, 2]
    assert angela.reserved == [0, 0, 0]


def test_e12_twin_every_reserved_cube_must_be_supplied() -> None:
    state = angela_with_reserved_cubes()
    leaves_one = (0, 0, 1)  # b1, b1, b2: a black cube unused
    assert leaves_one not in supply_plans(state, ANGELA)
    assert all(sum(sum(state.catalogue.bonuses[b].deliver) for b in p) == 4
               for p in supply_plans(state, ANGELA))
    assert "every reserved cube must be supplied" in (supply_reason(state, ANGELA, leaves_one)
                                                      or "")
    with pytest.raises(IllegalMoveError, match="every reserved cube"):
        supply_factories(state, ANGELA, leaves_one)
    assert state.factories == [[0, 0, 0]] * 4


def test_supply_bonuses_accessories_cap_and_follow_ups() -> None:
    state = angela_with_reserved_cubes(influence=8)
    angela = state.players[ANGELA]
    angela.reserved = [3, 1, 2]
    b = {x.id: k for k, x in enumerate(state.catalogue.bonuses)}
    plan = tuple(sorted((b["b1"], b["b5"], b["b7"])))  # orange; black+orange; all three
    assert plan in supply_plans(state, ANGELA)
    with pytest.raises(IllegalMoveError, match="name 1 accessory type"):
        supply_factories(state, ANGELA, plan)
    follow_ups = supply_factories(state, ANGELA, plan, accessory_types=[2])
    assert follow_ups == [b["b7"]]  # acquiring a card is a decision of its own
    assert angela.influence == 9  # +2 beyond the cap of 9 is lost
    assert angela.accessories == [0, 0, 1]
    assert supply_plans(blank(2), 0) == [()]  # nothing reserved: nothing to supply


# -- R7: fulfilling contracts ---------------------------------------------------------------
def maria_with_contracts() -> StephensState:
    state = blank(4)
    maria = state.players[MARIA]
    maria.contracts = [contract(state, "crown-01"), contract(state, "uk-03")]
    maria.cubes = cubes(white=1, pink=1, black=1, green=2)
    return state


def test_e13_maria_fulfils_two_contracts() -> None:
    state = maria_with_contracts()
    cat = state.catalogue
    maria = state.players[MARIA]
    crown, uk = maria.contracts
    (pay_crown,) = fulfilment_payments(state, MARIA, crown)
    assert pay_crown == Payment(tuple(cubes(pink=1)), (0, 0, 0), (0, 0, 0))
    fulfil(state, MARIA, crown, pay_crown)
    (pay_uk,) = fulfilment_payments(state, MARIA, uk)
    fulfil(state, MARIA, uk, pay_uk)
    assert maria.cubes == cubes(green=2)
    assert maria.contracts == []
    rows = {cat.contract_types[t]: row for t, row in zip(cat.board.contract_rows,
                                                         maria.fulfilled, strict=True)}
    assert rows == {"crown": [crown], "colonies": [], "uk": [uk]}


def test_a_contract_is_paid_whole_or_not_at_all() -> None:
    state = maria_with_contracts()
    maria = state.players[MARIA]
    crown, uk = maria.contracts
    maria.cubes = cubes(white=1)
    assert fulfilment_payments(state, MARIA, uk) == []
    assert "cannot pay everything" in (fulfil_reason(state, MARIA, uk, Payment(
        tuple(cubes(white=1, black=1)), (0, 0, 0), (0, 0, 0))) or "")
    other = state.catalogue.contract_ids["uk-04"]
    assert "not one of your contracts" in (fulfil_reason(state, MARIA, other, Payment(
        tuple(cubes()), (0, 0, 0), (0, 0, 0))) or "")


def test_c1_two_cubes_of_one_colour_replace_a_cube() -> None:
    state = maria_with_contracts()
    maria = state.players[MARIA]
    crown = maria.contracts[0]  # 1 pink
    maria.cubes = cubes(green=2, blue=1)
    assert fulfilment_payments(state, MARIA, crown) == []
    grant(state, MARIA, "C1")
    assert [p.cubes for p in fulfilment_payments(state, MARIA, crown)] == [tuple(cubes(green=2))]
    maria.cubes = cubes(green=2, pink=1)
    assert sorted(p.cubes for p in fulfilment_payments(state, MARIA, crown)) == sorted(
        [tuple(cubes(pink=1)), tuple(cubes(green=2))])


def test_c1_swapped_replacements_are_dominated() -> None:
    state = blank(2)
    grant(state, 0, "C1")
    me = state.players[0]
    card = contract(state, "crown-04")  # 1 white + 1 green
    me.contracts = [card]
    me.cubes = cubes(white=2, green=2)
    # Paying green with 2 white and white with 2 green only wastes cubes.
    assert [p.cubes for p in fulfilment_payments(state, 0, card)] == [tuple(cubes(white=1,
                                                                                green=1))]


def test_accessories_specific_ones_go_back_any_ones_stay_on_the_card() -> None:
    state = blank(2)
    cat = state.catalogue
    me = state.players[0]
    specific = contract(state, "crown-05")  # white + orange + a blowpipe
    chosen = contract(state, "crown-02")  # white + any accessory
    me.contracts = [specific, chosen]
    me.cubes = cubes(white=2, orange=1)
    me.accessories = [0, 1, 1]
    assert fulfilment_payments(state, 0, specific) == []  # no blowpipe
    options = fulfilment_payments(state, 0, chosen)
    assert [p.placed for p in options] == [(0, 0, 1), (0, 1, 0)]
    fulfil(state, 0, chosen, options[0])
    assert me.accessories == [0, 1, 0] and me.placed_accessories == [0, 0, 1]
    me.accessories = [1, 1, 0]
    (pay,) = fulfilment_payments(state, 0, specific)
    assert pay.returned == (1, 0, 0) and pay.placed == (0, 0, 0)
    fulfil(state, 0, specific, pay)
    assert me.accessories == [0, 1, 0] and me.placed_accessories == [0, 0, 1]
    assert me.fulfilled[cat.board.contract_rows.index(cat.contract_types.index("crown"))] == [
        chosen, specific]


# -- activation plans -------------------------------------------------------------------------
def andres_row() -> StephensState:
    """E5 (L739-L752): the professions on the left of the upper left furnace."""
    state = blank(4)
    attach(state, "fishwife", "FN-UL", ANDRE, apprentice=MARIA)  # 1 coin or 1 influence
    attach(state, "sand-digger", "FN-UL", ANDRE, apprentice=PEDRO)  # pay 1 influence: 1 Dune
    attach(state, "furnace-keeper", "FN-UL", ANGELA)  # 1 coin + 1 influence
    state.players[ANDRE].influence = 0
    return state


def texts(state: StephensState, seat: int, place: int = FN_UL) -> list[str]:
    return [describe_plan(state, seat, place, p.steps)
            for p in activation_plans(state, seat, place)]


def test_e5_each_players_plans() -> None:
    state = andres_row()
    assert texts(state, ANDRE) == ["fishwife: 1 coin", "fishwife: 1 influence",
                                   "fishwife: 1 influence; sand-digger: pay 1 influence: 1 dune"]
    assert texts(state, PEDRO) == ["nothing", "sand-digger: pay 1 influence: 1 dune"]
    assert texts(state, ANGELA) == ["furnace-keeper: 1 coin + 1 influence"]
    assert texts(state, MARIA) == ["fishwife: 1 coin", "fishwife: 1 influence"]


def test_e5_gain_then_trade_is_available_and_the_opposite_order_is_not() -> None:
    state = andres_row()
    gain_then_trade = ((0, 1), (1, 0))
    trade_then_gain = ((1, 0), (0, 1))
    andre = state.players[ANDRE]
    dune = andre.dune
    assert plan_outcome(state, ANDRE, FN_UL, trade_then_gain) is None
    assert "cannot pay" in (activation_reason(state, ANDRE, FN_UL, trade_then_gain) or "")
    outcome = plan_outcome(state, ANDRE, FN_UL, gain_then_trade)
    assert outcome is not None and (outcome[INFLUENCE], outcome[DUNE]) == (0, dune + 1)
    apply_plan(state, ANDRE, FN_UL, gain_then_trade)
    assert (andre.influence, andre.dune) == (0, dune + 1)
    with pytest.raises(IllegalMoveError):
        apply_plan(state, ANDRE, FN_UL, trade_then_gain)


def test_orders_reaching_one_outcome_are_offered_once() -> None:
    state = andres_row()
    state.players[ANDRE].influence = 1
    plans = activation_plans(state, ANDRE, FN_UL)
    # Both orders of influence and trade now work and end alike: only the smaller stays.
    assert plan_outcome(state, ANDRE, FN_UL, ((1, 0), (0, 1))) == \
        plan_outcome(state, ANDRE, FN_UL, ((0, 1), (1, 0)))
    assert [p.steps for p in plans] == [((0, 0),), ((0, 0), (1, 0)), ((0, 1),),
                                        ((0, 1), (1, 0))]
    assert len({p.outcome for p in plans}) == len(plans)
    unpruned = activation_plans(state, ANDRE, FN_UL, prune=False)
    assert {p.steps for p in unpruned} > {p.steps for p in plans}
    assert ((1, 0),) in {p.steps for p in unpruned}  # the trade alone: dominated


def test_victory_points_may_be_refused_when_they_would_end_the_game() -> None:
    state = blank(2)
    attach(state, "miller", "FN-UL", 0)  # 1 VP
    state.army = 5
    state.players[0].vp = 2
    assert texts(state, 0) == ["miller: 1 vp"]
    state.players[0].vp = 4  # 1 VP more reaches the army
    assert texts(state, 0) == ["nothing", "miller: 1 vp"]
    state.players[1].vp = 5  # the end is triggered anyway
    assert texts(state, 0) == ["miller: 1 vp"]


def test_any_cube_colours_are_chosen_after_the_plan() -> None:
    state = blank(2)
    attach(state, "carter", "FN-UL", 0)  # any 1 cube
    attach(state, "engraver", "FN-UL", 0)  # any 1 accessory, or any 2 cubes
    (best,) = [p for p in activation_plans(state, 0, FN_UL) if len(p.steps) == 2
               and p.outcome[CUBES_GAINED] == 3]
    assert describe_plan(state, 0, FN_UL, best.steps) == (
        "carter: 1 any cube; engraver: 2 any cube")
    assert texts(state, 0) == ["carter: 1 any cube; engraver: 1 any accessory",
                               "carter: 1 any cube; engraver: 2 any cube"]
    cube_exchange, accessory_exchange = apply_plan(state, 0, FN_UL, best.steps)
    assert (cube_exchange, accessory_exchange) == (Exchange(0, 3), Exchange(0, 0))
    assert state.players[0].cubes == cubes()  # the colours are still to choose
    options = exchanges(state.players[0].cubes, cube_exchange)
    assert len(options) == 56  # 3 cubes of 6 colours
    apply_exchange(state.players[0].cubes, (0, 1, 0, 0, 2, 0))
    assert state.players[0].cubes == cubes(pink=2, blue=1)


def test_any_cube_payments_are_coloured_after_the_plan_too() -> None:
    state = blank(2)
    attach(state, "carter", "FN-UL", 0)  # any 1 cube
    attach(state, "doctor", "FN-UL", 0)  # pay any 1 cube: 3 influence
    grant(state, 0, "I5")
    me = state.players[0]
    me.cubes = cubes(white=1)
    # One plan pays a cube and gains one: which colours is decided after it.
    plans = {describe_plan(state, 0, FN_UL, p.steps): p.outcome
             for p in activation_plans(state, 0, FN_UL)}
    assert set(plans) == {"carter: 1 any cube",
                          "doctor: pay 1 any cube: 3 influence; carter: 1 any cube"}
    outcome = plans["doctor: pay 1 any cube: 3 influence; carter: 1 any cube"]
    assert (outcome[INFLUENCE], outcome[CUBES], outcome[CUBES_GAINED]) == (5, 1, 1)
    # paying the white cube and gaining one of any colour, or keeping the white cube
    options = exchanges(me.cubes, Exchange(paid=1, gained=1))
    assert (0, 0, 0, 0, 0, 0) in options and (1, 0, -1, 0, 0, 0) in options
    assert len(options) == 6
    me.cubes = cubes()
    # without a cube of its own the trade needs the carter's cube first
    assert texts(state, 0) == ["carter: 1 any cube",
                               "carter: 1 any cube; doctor: pay 1 any cube: 3 influence"]
    assert exchanges(me.cubes, Exchange(paid=1, gained=1)) == [(0, 0, 0, 0, 0, 0)]


def test_gains_beyond_the_cap_are_lost() -> None:
    state = blank(2)
    attach(state, "stoker", "FN-UL", 0)  # 1 influence
    state.players[0].influence = 4  # at the cap
    assert plan_outcome(state, 0, FN_UL, ((0, 0),))[INFLUENCE] == 4  # type: ignore[index]
    assert texts(state, 0) == ["nothing"]  # the same outcome as doing nothing


def test_workers_of_a_row() -> None:
    state = andres_row()
    workers = row_workers(state, ANDRE, FN_UL)
    assert [(state.catalogue.professions[w.card].id, w.space) for w in workers] == [
        ("fishwife", 0), ("sand-digger", 0)]
    assert row_workers(state, PEDRO, FN_UL)[0].space == 1
    assert activation_plans(state, PEDRO, FN_UR) == activation_plans(state, PEDRO, SF_UL)
    assert [p.outcome[VP] for p in activation_plans(state, PEDRO, FN_UR)] == [0]
    assert activation_reason(state, ANDRE, FN_UL, ((0, 0), (0, 1))) == \
        "each worker collects its benefit at most once"


# -- the influence cap and the abilities ----------------------------------------------------
def test_influence_cap_with_blockers() -> None:
    state = blank(2)
    cat, me = state.catalogue, state.players[0]
    assert influence_cap(cat, me) == 4
    assert gain_influence(cat, me, 5) == 2 and me.influence == 4  # the rest is lost
    unlock(cat, me, disk(state, "I10"))
    assert influence_cap(cat, me) == 4  # the disk on 5 still blocks
    unlock(cat, me, disk(state, "I5"))
    assert influence_cap(cat, me) == 14
    unlock(cat, me, disk(state, "I15"))
    unlock(cat, me, disk(state, "I20"))
    assert influence_cap(cat, me) == 25
    assert gain_influence(cat, me, 100) == 21 and me.influence == 25


def test_only_the_lowest_influence_disk_is_offered() -> None:
    state = blank(2)
    cat, me = state.catalogue, state.players[0]
    offered = [cat.disks[d].id for d in unlockable_disks(cat, me)]
    assert offered == ["I5", "V1", "PR1", "PR2", "C1", "C3", "S1"]
    every = [cat.disks[d].id for d in unlockable_disks(cat, me, lowest_influence_only=False)]
    assert every[:4] == ["I5", "I10", "I15", "I20"]


def test_ability_prerequisites() -> None:
    state = blank(2)
    cat, me = state.catalogue, state.players[0]
    for ident, needs in (("V2", "V1"), ("V5", "V1"), ("C2", "C1"), ("C4", "C3"),
                         ("S2", "S1"), ("S3", "S2")):
        assert unlock_reason(cat, me, disk(state, ident)) == f"{ident} needs {needs} unlocked first"
    with pytest.raises(IllegalMoveError, match="S2 needs S1"):
        unlock(cat, me, disk(state, "S2"))
    assert products_limit(cat, me) == 1
    for ident in ("S1", "S2", "V1", "V2", "V3", "V4", "V5"):
        unlock(cat, me, disk(state, ident))
    assert products_limit(cat, me) == 3
    assert unlock_reason(cat, me, disk(state, "V1")) == "V1 is already unlocked"
    assert unlock_reason(cat, me, disk(state, "PR2")) is None


# -- placement ---------------------------------------------------------------------------------
def test_placement_rule_without_and_with_p2() -> None:
    state = blank(2)
    stoker, chair, miller = (prof(state, i) for i in ("stoker", "chair-caner", "miller"))
    assert placement_reason(state, 0, stoker, FN_UL) is None  # upper furnaces: no limit
    assert "fewer than" in (placement_reason(state, 0, stoker, SF_LL) or "")
    attach(state, "weaver", "FN-UL", 1)
    # SF-LL would hold 1 and FN-UL holds 1: equal is not fewer.
    assert placement_reason(state, 0, stoker, SF_LL) == (
        "SF-LL would hold 1 professions; a factory must hold fewer than the Stephens' factory "
        "below it (FN-UL: 1)")
    grant(state, 0, "PR2")
    assert placement_reason(state, 0, stoker, SF_LL) is None  # equal, with P2
    assert placement_reason(state, 1, stoker, SF_LL) is not None  # not for player 2
    attach(state, "carter", "SF-LL", 0)
    assert "no more than" in (placement_reason(state, 0, chair, SF_LL) or "")  # never higher
    assert placement_reason(state, 0, chair, SF_UL) is None  # 1 = 1, with P2
    assert placement_reason(state, 1, chair, SF_UL) is not None
    attach(state, "teacher", "FN-UL", 1)
    attach(state, "innkeeper", "SF-LL", 1)
    assert placement_reason(state, 1, miller, SF_UL) is None  # 1 < 2
    assert placement_reason(state, 0, prof(state, "packer"), SF_LL) == (
        "packer is a blue profession: it goes on the right side")
    assert placement_reason(state, 0, prof(state, "annealer"), FN_UR) is None
    assert placement_reason(state, 0, prof(state, "annealer"), FN_UL) is not None
    assert placement_reason(state, 0, prof(state, "priest"), SF_LR) is not None  # FN-UR empty


def test_reinforcing_a_profession() -> None:
    state = blank(3)
    fishwife = attach(state, "fishwife", "FN-UL", 0)
    stoker = attach(state, "stoker", "FN-UL", 1)
    assert reinforce_reason(state, 0, fishwife) == "the master of fishwife is your own worker"
    assert reinforce_reason(state, 1, fishwife) is None
    assert reinforce_reason(state, 0, stoker) == "stoker has no apprentice space"
    state.apprentice[fishwife] = 2
    assert reinforce_reason(state, 1, fishwife) == "fishwife already has an apprentice"
    assert reinforce_reason(state, 1, prof(state, "miller")) == "miller is not in play"
