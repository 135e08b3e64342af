"""A turn, move by move: the rulebook's examples E1-E5 (analysis §5) and the abilities
that change a turn (P1, P2, S1-S3 and the furnace effect, C2-C4)."""

from __future__ import annotations

import pytest

from engine.game import IllegalMoveError
from engine.stephens.acquisition import EITHER, INVESTMENTS, open_acquisition
from engine.stephens.rules import StephensGame
from engine.stephens.state import EMPTY, StephensState
from engine.stephens.vocabulary import BLACK, FN_UL, GREEN, ORANGE, PINK, SF_LL, SF_UL, WHITE
from tests.stephens.helpers import (
    ANDRE,
    ANGELA,
    MARIA,
    PEDRO,
    attach,
    blank,
    contract,
    grant,
    on_display,
    play,
    prof,
    profession_on_display,
    round_trip,
    settle_disks,
    turn_of,
)


# -- E1 ------------------------------------------------------------------------------
def test_e1_angela_commits_to_the_cheapest_contract() -> None:
    state = turn_of(blank(4), ANGELA)
    crown = on_display(state, "contract", "crown-01", 0)
    rest = state.contract_display[1:]
    next_card = state.contract_deck[-1]
    angela = state.players[ANGELA]
    assert "glass FN-LL" in state.legal_moves_text()
    play(state, "glass FN-LL")
    assert state.current_player() == ANGELA and state.decisions[-1].kind == "acquire"
    assert "contract crown-01" in state.legal_moves_text() and "skip" in state.legal_moves_text()
    events = play(state, "contract crown-01")
    assert angela.cubes[WHITE] == 1 and state.furnaces[2] == 3
    assert angela.influence == 1 and angela.contracts == [crown]
    # the others slid toward cost 1; the deck's top card came in at cost 5
    assert state.contract_display == [*rest, next_card]
    assert any("new contract card on the display" in e for e in events)
    assert state.current_player() == MARIA  # the turn is over
    round_trip(state)


def test_e1_twins_taking_nothing_and_what_cannot_be_taken() -> None:
    state = turn_of(blank(4), ANGELA)
    on_display(state, "contract", "crown-01", 0)
    dear = on_display(state, "contract", "uk-03", 4)
    play(state, "glass FN-LL")
    # 5 influence for the cost-5 card; Angela has 2
    assert "costs 5 influence; you have 2" in (state.why_illegal(state.parse_move(
        "contract uk-03")) or "")
    assert dear in state.contract_display
    play(state, "skip")  # "you may also commit" (L328)
    assert state.players[ANGELA].contracts == [] and state.current_player() == MARIA
    state = turn_of(blank(4), ANGELA)
    state.players[ANGELA].contracts = [state.contract_deck.pop() for _ in range(3)]
    state.touched()
    play(state, "glass FN-LL")
    assert state.current_player() == MARIA  # no free slot: nothing to decide


# -- E2 ------------------------------------------------------------------------------
def test_e2_maria_funds_the_middle_investment() -> None:
    state = turn_of(blank(4), MARIA)
    card = on_display(state, "investment", "pottery-6", 2)
    before = list(state.investment_display)
    maria = state.players[MARIA]
    play(state, "glass FN-LR")
    assert state.why_illegal(state.parse_move("investment pottery-6 orange")) == \
        "pottery-6 goes in the black row"
    play(state, "investment pottery-6 black")
    assert maria.coins == 4 - 3 and maria.cubes[WHITE] == 1
    assert maria.investments == [[], [], [card]]
    assert state.investment_display[:4] == before[:2] + before[3:]
    assert EMPTY not in state.investment_display


def test_an_investment_without_cubes_goes_in_the_row_of_choice() -> None:
    state = turn_of(blank(4), MARIA)
    on_display(state, "investment", "theatre", 0)
    play(state, "glass FN-LR")
    texts = state.legal_moves_text()
    assert {"investment theatre orange", "investment theatre pink",
            "investment theatre black"} <= set(texts)
    play(state, "investment theatre pink")
    assert state.players[MARIA].investments[1] == [state.catalogue.investment_ids["theatre"]]


# -- E3 ------------------------------------------------------------------------------
def test_e3_andre_creates_a_profession_at_the_upper_left_furnace() -> None:
    state = blank(4)
    cutter = profession_on_display(state, "glass-cutter", 0)  # the 2nd leftmost face-up
    red = state.profession_decks[0]
    top, below = red[-1], red[-2]
    assert state.face_up_professions()[1] == cutter
    andre = state.players[ANDRE]
    play(state, "create glass-cutter FN-UL")
    assert andre.coins == 4 - 3 and state.master[cutter] == ANDRE
    assert state.places[FN_UL] == [cutter]
    # the deck top filled the empty space, the next card is face up now
    assert state.profession_display[0] == top and red[-1] == below
    assert state.decisions[-1].kind == "unlock" and state.current_player() == ANDRE
    assert "unlock I10" not in state.legal_moves_text()  # only the lowest influence disk
    play(state, "unlock V1")
    assert andre.unlocked[state.catalogue.disk_ids["V1"]] == 1
    assert state.current_player() == PEDRO
    round_trip(state)


def test_create_needs_the_cost_a_disk_and_the_placement_rule() -> None:
    state = blank(4)
    profession_on_display(state, "glass-cutter", 0)
    state.players[ANDRE].coins = 2
    state.touched()
    assert state.why_illegal(state.parse_move("create glass-cutter FN-UL")) == \
        "the master space of glass-cutter costs 3 coins; you have 2"
    assert "goes on the left side" in (state.why_illegal(
        state.parse_move("create glass-cutter FN-UR")) or "")
    assert "SF-LL would hold 1 professions" in (state.why_illegal(
        state.parse_move("create glass-cutter SF-LL")) or "")
    assert "not one of the six face-up" in (state.why_illegal(
        state.parse_move("create miller FN-UL")) or "miller is face up")
    state.players[ANDRE].unlocked = [1] * len(state.catalogue.disks)
    attach(state, "miller", "FN-UL", ANDRE)  # pretend 18 workers
    state.touched()
    assert not [t for t in state.legal_moves_text() if t.startswith(("create", "reinforce"))]


# -- E4 ------------------------------------------------------------------------------
def reinforce_position() -> StephensState:
    state = turn_of(blank(4), PEDRO)
    attach(state, "sand-digger", "FN-UL", ANDRE)  # free apprentice space
    attach(state, "stoker", "FN-UL", ANGELA)  # one space only
    attach(state, "fishwife", "FN-UL", ANDRE, apprentice=MARIA)
    attach(state, "woodcutter", "FN-UL", PEDRO)
    settle_disks(state)
    state.touched()
    return state


def test_e4_pedro_reinforces_a_profession() -> None:
    state = reinforce_position()
    pedro = state.players[PEDRO]
    coins, taken = pedro.coins, pedro.disks_taken
    play(state, "reinforce sand-digger")
    assert state.apprentice[prof(state, "sand-digger")] == PEDRO and pedro.coins == coins
    assert state.decisions[-1].kind == "unlock"
    play(state, "unlock S1")
    assert pedro.disks_taken == taken + 1 and state.current_player() == ANGELA


@pytest.mark.parametrize(("card", "why"), [
    ("stoker", "stoker has no apprentice space"),
    ("fishwife", "fishwife already has an apprentice"),
    ("woodcutter", "the master of woodcutter is your own worker"),
    ("miller", "miller is not in play"),
])
def test_e4_twins_cannot_be_reinforced(card: str, why: str) -> None:
    state = reinforce_position()
    move = state.parse_move(f"reinforce {card}")
    assert move not in state.legal_moves()
    assert state.why_illegal(move) == why
    with pytest.raises(IllegalMoveError, match=why):
        state.apply(move)


# -- E5 ------------------------------------------------------------------------------
def andres_row() -> StephensState:
    """L739-L752: the professions on the left of the upper left furnace."""
    state = blank(4)
    attach(state, "fishwife", "FN-UL", ANDRE, apprentice=MARIA)  # 1 coin or 1 influence
    attach(state, "sand-digger", "FN-UL", ANDRE, apprentice=PEDRO)  # pay 1 influence: 1 Dune
    attach(state, "furnace-keeper", "FN-UL", ANGELA)  # 1 coin + 1 influence
    settle_disks(state)
    state.players[ANDRE].influence = 0
    state.touched()
    return round_trip(state)


def test_e5_andre_activates_the_row_and_everyone_collects_in_turn_order() -> None:
    state = andres_row()
    andre, pedro, angela, maria = state.players
    before = [(p.coins, p.influence, p.dune) for p in state.players]
    deciders = []

    def step(text: str) -> list[str]:
        deciders.append(state.current_player())
        return play(state, text)

    step("glass FN-UL")
    assert andre.cubes[GREEN] == 1  # the cube comes first
    assert state.legal_moves_text() == ["activate fishwife:1", "activate fishwife:2",
                                        "activate fishwife:2 sand-digger:1"]
    # the trade before the gain cannot be paid with 0 influence
    reversed_plan = state.parse_move("activate sand-digger:1 fishwife:2")
    assert "cannot pay for sand-digger" in (state.why_illegal(reversed_plan) or "")
    step("activate fishwife:2 sand-digger:1")
    assert state.legal_moves_text() == ["activate nothing", "activate sand-digger:1"]
    events = step("activate sand-digger:1")
    assert "P3 collects: furnace-keeper: 1 coin + 1 influence" in events  # a single plan
    step("activate fishwife:1")
    assert deciders == [ANDRE, ANDRE, PEDRO, MARIA]
    after = [(p.coins, p.influence, p.dune) for p in state.players]
    assert after[ANDRE] == (before[ANDRE][0], 0, before[ANDRE][2] + 1)
    assert after[PEDRO] == (before[PEDRO][0], before[PEDRO][1] - 1, before[PEDRO][2] + 1)
    assert after[ANGELA] == (before[ANGELA][0] + 1, before[ANGELA][1] + 1, before[ANGELA][2])
    assert after[MARIA] == (before[MARIA][0] + 1, before[MARIA][1], before[MARIA][2])
    assert state.current_player() == PEDRO and state.decisions[-1].kind == "action"
    del angela, maria, pedro


def test_any_cube_gains_are_coloured_after_the_plan() -> None:
    state = blank(2)
    attach(state, "carter", "FN-UL", 0)  # 1 any cube
    settle_disks(state)
    state.touched()
    play(state, "glass FN-UL")
    assert state.decisions[-1].kind == "cubes" and len(state.legal_moves()) == 6
    play(state, "cubes pink")
    assert state.players[0].cubes[PINK] == 1 and state.players[0].cubes[GREEN] == 1


# -- products, S1-S3 and the furnace effect ---------------------------------------------
def test_products_take_one_cube_and_activate_the_row() -> None:
    state = blank(2)
    state.factories[SF_LL] = [2, 1, 0]  # SMALL_FACTORIES order: SF-UL, SF-LL, ...
    attach(state, "woodcutter", "SF-LL", 1)
    attach(state, "stoker", "FN-UL", 0)
    attach(state, "miller", "FN-UL", 1)
    settle_disks(state)
    state.touched()
    texts = [t for t in state.legal_moves_text() if t.startswith("products")]
    assert texts == ["products SF-LL orange", "products SF-LL pink"]
    forest = state.players[1].forest
    play(state, "products SF-LL pink")
    assert state.players[0].cubes[PINK] == 1 and state.factories[SF_LL] == [2, 0, 0]
    assert state.players[1].forest == forest + 1  # P2's woodcutter, its only plan


def test_s1_to_s3_take_up_to_2_3_4_cubes_and_3_or_more_may_use_an_empty_furnace() -> None:
    state = blank(2)
    grant(state, 0, "S1", "S2")
    state.factories[SF_UL] = [2, 2, 2]
    state.touched()
    texts = [t for t in state.legal_moves_text() if t.startswith("products SF-UL")]
    assert len(texts) == 3 + 6 + 7  # 1, 2 or 3 cubes, at most 2 of a colour there
    assert "products SF-UL orange orange black" in texts
    assert state.why_illegal(state.parse_move("products SF-UL orange orange pink pink")) == \
        "you may take 3 cubes from a small factory (the abilities S1-S3 allow 2, 3, 4)"
    state.furnaces[2] = 0  # FN-LL empty: its effect is on offer
    state.touched()
    play(state, "products SF-UL orange pink black")
    assert state.decisions[-1].kind == "effect"
    assert state.legal_moves_text() == ["effect SF-UL", "effect FN-LL"]
    play(state, "effect FN-LL")
    frame = state.decisions[-1]
    assert frame.kind == "acquire" and frame.num("pile") == 0
    assert state.players[0].cubes[ORANGE] == state.players[0].cubes[BLACK] == 1


# -- P1, P2 ---------------------------------------------------------------------------------
def test_p1_discards_two_display_professions_before_the_action() -> None:
    state = blank(2)
    grant(state, 0, "PR1")
    red = state.profession_decks[0]
    gone = state.profession_display[:2]
    incoming = red[-2:][::-1]
    top_after = red[-3]
    play(state, "discard red")
    assert state.profession_display[:2] == incoming and red[-1] == top_after
    assert state.profession_discards[0] == gone
    assert "discard blue" not in state.legal_moves_text()  # once per turn
    assert state.current_player() == 0 and state.decisions[-1].num("discarded") == 1
    play(state, "glass FN-UR")
    assert state.current_player() == 1


def test_p2_allows_equal_counts() -> None:
    state = blank(2)
    attach(state, "stoker", "FN-UL", 1)
    settle_disks(state)
    card = state.profession_display[0]
    name = state.catalogue.professions[card].id
    state.touched()
    assert f"create {name} SF-LL" not in state.legal_moves_text()
    grant(state, 0, "PR2")
    assert f"create {name} SF-LL" in state.legal_moves_text()


# -- C2-C4 ---------------------------------------------------------------------------------
def test_c2_two_cards_priced_where_they_lie_and_c4_discounts_one() -> None:
    state = blank(2)
    grant(state, 0, "C1", "C2", "C3", "C4")
    state.players[0].influence = 4
    a = on_display(state, "contract", "crown-01", 1)  # cost 2
    b = on_display(state, "contract", "uk-03", 3)  # cost 4
    state.touched()
    play(state, "glass FN-LL")
    assert "discard-cheapest contract" in state.legal_moves_text()
    play(state, "contract crown-01")  # 2 - 1 = 1: the discount is used
    assert state.players[0].influence == 3 and state.contract_display[1] == EMPTY
    # only a dearer space now; uk-03 costs its full 4
    assert state.why_illegal(state.parse_move("contract uk-03")) == \
        "uk-03 costs 4 influence; you have 3"
    first = state.contract_display[0]
    assert "dearer space" in (state.why_illegal(
        state.parse_move(f"contract {state.catalogue.contracts[first].id}")) or "")
    play(state, "skip")
    assert EMPTY not in state.contract_display and b in state.contract_display
    assert state.players[0].contracts == [a]


def test_c3_discards_the_cheapest_and_refills_at_once() -> None:
    state = blank(2)
    grant(state, 0, "C3")
    cheapest = state.investment_display[0]
    incoming = state.investment_deck[-1]
    play(state, "glass FN-LR", "discard-cheapest investment")
    assert state.investment_discard == [cheapest]
    assert state.investment_display[-1] == incoming
    assert "discard-cheapest investment" not in state.legal_moves_text()
    assert state.current_player() == 0


def test_c3_is_offered_only_when_a_card_could_be_acquired_after_it() -> None:
    """"You may discard ... before acquiring the new one" (L831-L832): with 3 contracts
    to fulfil, or nothing affordable, no contract can follow, so nothing is discarded
    and the acquisition, left with ``skip``, is played at once."""
    state = blank(2)
    grant(state, 0, "C3")
    state.players[0].contracts = [contract(state, c) for c in ("crown-01", "uk-03", "crown-04")]
    state.touched()
    shown = list(state.contract_display)
    play(state, "glass FN-LL")
    assert state.contract_display == shown and state.contract_discard == []
    assert state.current_player() == 1

    state = blank(2)
    grant(state, 0, "C3")
    state.players[0].influence = 0
    state.touched()
    play(state, "glass FN-LL")
    assert state.contract_discard == [] and state.current_player() == 1


def test_c3_in_an_either_acquisition_offers_only_the_pile_that_can_follow() -> None:
    state = blank(2)
    grant(state, 0, "C3")
    state.players[0].contracts = [contract(state, c) for c in ("crown-01", "uk-03", "crown-04")]
    open_acquisition(state, 0, EITHER, white=False)
    state.touched()
    texts = state.legal_moves_text()
    assert "discard-cheapest investment" in texts
    assert "discard-cheapest contract" not in texts
    assert "no contract could be acquired after it" in (
        state.why_illegal(state.parse_move("discard-cheapest contract")) or "")


def test_c3_is_not_offered_when_the_discard_would_empty_the_display() -> None:
    state = blank(2)
    grant(state, 0, "C3")
    state.investment_deck.clear()
    state.investment_display[1:] = [EMPTY] * 4  # one card left, nothing to refill from
    open_acquisition(state, 0, INVESTMENTS, white=False)
    state.touched()
    texts = state.legal_moves_text()
    assert "discard-cheapest investment" not in texts
    assert texts[0].startswith("investment ") and texts[-1] == "skip"


def test_the_discount_never_goes_below_one() -> None:
    state = blank(2)
    grant(state, 0, "C3", "C4")
    state.players[0].influence = 1
    on_display(state, "contract", "crown-01", 0)
    state.touched()
    play(state, "glass FN-LL", "contract crown-01")
    assert state.players[0].influence == 0


def test_the_game_is_a_registered_furnace_game() -> None:
    state = StephensGame().new_game(seed=3, num_players=3)
    assert state.info.name == "stephens" and not state.info.perfect_information
    assert state.legal_moves_text() == ["accessories blowpipe", "accessories shears",
                                        "accessories mould"]
    play(state, "accessories shears")
    assert state.players[0].accessories == [0, 1, 0] and state.current_player() == 1
