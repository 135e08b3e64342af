"""Samara's rules, one rulebook statement or example at a time.

Months are absolute: the game starts in September of year 1 (month 8); month
12 is January of year 2, month 17 June of year 2.
"""

from __future__ import annotations

import pytest

from engine.game import TERMINAL, IllegalMoveError
from engine.samara.catalogue import SAW, TOOL_NAMES, default_catalogue
from engine.samara.state import SamaraState

from .helpers import (
    clear_tools,
    fresh,
    non_build,
    put_tile,
    set_spot_tools,
    set_tools,
    set_track,
    spot,
    texts,
    track_codes,
)

SEP, OCT, NOV, DEC, JAN, FEB, MAR, APR, MAY, JUN = 8, 9, 10, 11, 12, 13, 14, 15, 16, 17


# -- setup ------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_lays_30_of_36_tiles_and_one_tool_set_per_player(players: int) -> None:
    state = fresh(players, seed=players)
    assert sum(t is not None for t in state.spot_tile) == 30
    assert len(state.unused_tiles) == 6
    for kind, per_set in enumerate((2, 1, 1, 1, 1)):
        assert sum(tools[kind] for tools in state.spot_tools) == per_set * players


def test_four_player_setup_puts_two_tools_on_each_tool_spot() -> None:
    state = fresh(4, seed=11)
    counts = [sum(tools) for tools in state.spot_tools if sum(tools)]
    assert counts == [2] * 12


def test_setup_worker_order_women_first_then_double_men_in_reverse() -> None:
    state = fresh(3)
    assert track_codes(state) == {SEP: ["P1W1", "P2W1", "P3W1", "P3M2", "P2M2", "P1M2"]}
    foreman = state.foremen[0]
    assert (foreman.pawn_men, foreman.pawn_women) == (1, 1)
    assert state.current_player() == 0


def test_setup_is_reproducible_from_the_seed() -> None:
    assert fresh(3, seed=5).to_json() == fresh(3, seed=5).to_json()
    assert fresh(3, seed=5).to_json() != fresh(3, seed=6).to_json()


def test_first_new_worker_costs_nine_months() -> None:
    state = fresh(2)
    assert state.track_end() - state.month == 9


# -- get a tool -------------------------------------------------------------------------

def test_example_trowel_compass_in_column_1_needs_strength_3_and_one_month() -> None:
    # "Yellow chooses to get the Trowel-compass tool in column 1 ... labor strength of 3 is
    # needed. So Yellow uses its single-pawn together with its double-pawn ... In October
    # they will be available for new orders again."
    state = fresh(2)
    clear_tools(state)
    set_spot_tools(state, "r3c1", compass=1)
    assert non_build(state) == ["tool compass r3c1 1+2", "recruit man", "recruit woman"]
    state.apply_text("tool compass r3c1 1+2")
    assert state.foremen[0].tools[TOOL_NAMES.index("compass")] == 1
    assert state.spot_tools[spot(state, "r3c1")] == [0] * 5
    assert track_codes(state) == {SEP: ["P2W1", "P2M2"], OCT: ["P1W1", "P1M2"]}
    assert state.current_player() == 1


def test_strength_shortfall_is_explained() -> None:
    state = fresh(2)
    clear_tools(state)
    set_spot_tools(state, "r3c1", compass=1)
    reason = state.why_illegal(state.parse_move("tool compass r3c1 1"))
    assert reason == "needs labor strength 3 in the current month; that group has 1"
    with pytest.raises(IllegalMoveError, match="labor strength 3"):
        state.apply_text("tool compass r3c1 1")


def test_a_worker_that_is_not_needed_cannot_join() -> None:
    state = fresh(2)
    clear_tools(state)
    set_spot_tools(state, "r1c1", saw=1)
    assert "tool saw r1c1 1" in texts(state)
    assert "tool saw r1c1 1+2" not in texts(state)
    assert "needed" in state.why_illegal(state.parse_move("tool saw r1c1 1+2"))


def test_column_sets_months_and_workers_join_the_end_of_a_month() -> None:
    state = fresh(2)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], NOV: ["P2M2", "P1M2"]})
    clear_tools(state)
    set_spot_tools(state, "r1c2", saw=1)
    state.apply_text("tool saw r1c2 1")
    assert track_codes(state) == {SEP: ["P2W1"], NOV: ["P2M2", "P1M2", "P1W1"]}


def test_tool_limits() -> None:
    state = fresh(2)
    clear_tools(state)
    set_spot_tools(state, "r1c1", saw=1, compass=1, glass_b=1)
    set_tools(state, 0, saw=2, compass=1)
    assert non_build(state) == ["recruit man", "recruit woman"]
    move = state.parse_move("tool saw r1c1 1")
    assert state.why_illegal(move) == "you already hold 2 saw, the most allowed"
    reason = state.why_illegal(state.parse_move("tool glass-b r1c1 1"))
    assert reason == "your first glass-blowing tool must be glass-a"
    set_tools(state, 0, glass_a=1)
    assert "tool glass-b r1c1 1" in texts(state)


def test_trowels_must_be_one_compass_and_one_square() -> None:
    state = fresh(2)
    clear_tools(state)
    set_spot_tools(state, "r1c1", compass=1, square=1)
    set_tools(state, 0, compass=1)
    assert non_build(state) == ["tool square r1c1 1", "recruit man", "recruit woman"]


# -- new worker ---------------------------------------------------------------------

def test_example_new_worker_goes_to_the_last_month_with_the_woman() -> None:
    # "The last month on the Timetrack now is June. So it costs Orange's woman 9 months,
    # from September to June. The new worker starts in that month too."
    state = fresh(2)
    state.apply_text("recruit man")
    assert track_codes(state)[JUN] == ["P1W1", "P1M1"]
    assert (state.foremen[0].pawn_men, state.foremen[0].pawn_women) == (0, 1)


def test_only_women_recruit_and_only_with_pawns_left() -> None:
    state = fresh(2)
    set_track(state, SEP, {SEP: ["P1M2", "P2W1"], OCT: ["P1W1", "P2M2"]})
    reason = state.why_illegal(state.parse_move("recruit man"))
    assert reason == "only a woman can get a new worker, and the acting worker is a man"
    state = fresh(2)
    state.foremen[0].pawn_men = 0
    assert "recruit man" not in texts(state)
    assert state.why_illegal(state.parse_move("recruit man")) == (
        "you have no man left on your Foreman board")


# -- buildings ----------------------------------------------------------------------

def test_example_building_the_hut_takes_three_months_for_one_worker() -> None:
    # "Red chooses to build the hut. That takes 3 months time for 1 worker. Red places the
    # tile face-down on its space on Red's board."
    state = fresh(2)
    put_tile(state, "hut-1", "r1c3")
    set_spot_tools(state, "r1c3", compass=1)
    set_tools(state, 0, saw=1)
    move = state.parse_move("build r1c3 1")
    assert move in state.legal_moves()
    events = state.apply(move)
    assert "builds Hut at r1c3" in events[0].text
    assert state.spot_tile[spot(state, "r1c3")] is None
    assert state.foremen[0].buildings == [state.catalogue.tile_index("hut-1")]
    assert track_codes(state)[DEC] == ["P1W1"]
    # "If tools were laying on the Building tile, you leave the tools in their space."
    assert state.spot_tools[spot(state, "r1c3")][TOOL_NAMES.index("compass")] == 1


def test_example_tile_with_two_prestige_needs_2_saws_1_trowel_1_glass() -> None:
    # "This building gives 2 Prestige points. For this building you need to have: 2 Saws,
    # 1 Trowel and 1 Glass tool."
    tile = default_catalogue().tiles[default_catalogue().tile_index("university")]
    assert (tile.prestige, tile.saws, tile.trowels, tile.glass) == (2, 2, 1, 1)
    state = fresh(2)
    put_tile(state, "university", "r1c1")
    set_tools(state, 0, saw=2, square=1)
    reason = state.why_illegal(state.parse_move("build r1c1 1"))
    assert reason == ("University needs 2 saws, 1 trowel, 1 glass tool; "
                      "you have 2, 1, 0")
    set_tools(state, 0, glass_a=1)
    assert "build r1c1 1" in texts(state)
    state.apply_text("build r1c1 1")
    assert state.foremen[0].tools == [2, 0, 1, 1, 0]  # "You don't loose the tools you use!"
    assert state.scores()[0] == 2


def test_building_beyond_the_track_end_stops_at_the_last_month() -> None:
    state = fresh(2)
    set_track(state, JUN, {JUN: ["P1W1", "P2W1"], 18: ["P2M2", "P1M2"]})
    assert state.track_end() == 23  # in June the track ends in December, 6 months on
    put_tile(state, "sandcastle", "r1c7")
    state.apply_text("build r1c7 1")
    assert track_codes(state)[23] == ["P1W1"]


# -- vacation, waiting, the time track ------------------------------------------------

def test_example_vacation_moves_to_the_next_month_with_own_workers() -> None:
    state = fresh(2)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], NOV: ["P2M2"], DEC: ["P1M2"]})
    state.apply_text("vacation")
    assert track_codes(state)[DEC] == ["P1M2", "P1W1"]


def test_vacation_needs_a_later_worker() -> None:
    state = fresh(2)
    assert "vacation" not in texts(state)
    assert state.why_illegal(state.parse_move("vacation")) == (
        "vacation needs one of your workers in a later month")


def test_a_man_with_nothing_to_do_moves_one_month() -> None:
    state = fresh(2)
    clear_tools(state)
    set_track(state, SEP, {SEP: ["P1M2", "P2W1"], OCT: ["P2M2"], JAN: ["P1W1"]})
    state.spot_tile = [None] * 30
    state.spot_tile[spot(state, "r4c9")] = state.catalogue.tile_index("cathedral")
    assert texts(state) == ["vacation"]
    state.apply_text("vacation")
    set_track(state, SEP, {SEP: ["P1M2", "P2W1", "P1W1"], OCT: ["P2M2"]})
    assert texts(state) == ["wait"]
    state.apply_text("wait")
    assert track_codes(state)[OCT] == ["P2M2", "P1M2"]
    assert "only allowed when no other action" in state.why_illegal(state.parse_move("wait"))


def test_example_track_shifts_only_to_the_next_month_with_workers() -> None:
    # "All workers in September are sent out ... The Timetrack shifts only 1 month, because
    # in October workers are available again. So Yellow must put his workers to work again."
    state = fresh(2)
    set_track(state, SEP, {SEP: ["P1W1"], OCT: ["P2W1", "P2M2"], DEC: ["P1M2"]})
    state.apply_text("vacation")
    assert state.month == OCT
    assert state.current_player() == 1


def test_example_december_over_adds_the_empty_board_behind_june() -> None:
    # "December is over, so the Jul-Dec tile gets placed at the other side of the Jan-Jun tile."
    state = fresh(2)
    set_track(state, DEC, {DEC: ["P1W1"], JAN: ["P2W1", "P2M2", "P1M2"]})
    assert state.track_end() == JUN
    state.apply_text("vacation")
    assert state.month == JAN
    assert state.track_end() == 23  # the Jul-Dec board now follows June
    state.apply_text("recruit man")  # P2's woman: Jan -> Dec, 11 months
    assert track_codes(state)[23] == ["P2W1", "P2M1"]


# -- special powers -------------------------------------------------------------------

def _build_power(tile_id: str, players: int = 2, **tools: int) -> SamaraState:
    state = fresh(players)
    put_tile(state, tile_id, "r1c1")
    clear_tools(state)
    set_tools(state, 0, **tools)
    return state


def test_boat_loses_a_saw_to_its_space() -> None:
    state = _build_power("boat", saw=2)
    state.apply_text("build r1c1 1")
    assert state.foremen[0].tools[SAW] == 1
    assert state.spot_tools[spot(state, "r1c1")][SAW] == 1


def test_ruin_loses_two_tools_of_choice_b_before_a() -> None:
    state = _build_power("ruin", saw=1, compass=1, glass_a=1, glass_b=1)
    state.apply_text("build r1c1 1")
    assert state.current_player() == 0
    assert texts(state) == ["give saw", "give compass", "give glass-b"]
    state.apply_text("give glass-b")
    assert texts(state) == ["give saw", "give compass", "give glass-a"]
    state.apply_text("give saw")
    assert state.foremen[0].tools == [0, 1, 0, 1, 0]
    assert state.spot_tools[spot(state, "r1c1")] == [1, 0, 0, 0, 1]
    assert state.current_player() == 1


def test_sculpture_and_vase() -> None:
    state = _build_power("sculpture", compass=1, square=1)
    state.apply_text("build r1c1 1")
    assert texts(state) == ["give compass", "give square"]
    state.apply_text("give square")
    assert state.foremen[0].tools == [0, 1, 0, 0, 0]
    state = _build_power("vase", glass_a=1, glass_b=1)
    state.apply_text("build r1c1 1")  # one option only: the B goes without asking
    assert state.foremen[0].tools == [0, 0, 0, 1, 0]


def test_barracks_every_other_foreman_gives_a_tool_in_turn() -> None:
    state = _build_power("barracks", players=3, saw=2, compass=1)
    set_tools(state, 1, saw=1, glass_a=1, glass_b=1)
    set_tools(state, 2, square=1)
    state.apply_text("build r1c1 1")
    assert state.current_player() == 1  # left neighbour chooses; P3 has a single option
    assert texts(state) == ["give saw", "give glass-b"]
    state.apply_text("give glass-b")
    assert state.foremen[2].tools == [0] * 5
    assert state.spot_tools[spot(state, "r1c1")] == [0, 0, 1, 0, 1]


def test_weight_room_trains_one_worker_of_the_group() -> None:
    state = fresh(2)
    put_tile(state, "weight-room", "r3c2")
    set_tools(state, 0, saw=1)
    assert [t for t in texts(state) if t.startswith("build r3c2")] == [
        "build r3c2 1+2 train 1", "build r3c2 1+2 train 2"]
    state.apply_text("build r3c2 1+2 train 1")
    # The group needs 2 months; the trainee one more, with a matching (female) pawn.
    assert track_codes(state)[NOV] == ["P1M2"]
    assert track_codes(state)[DEC] == ["P1W2"]
    assert (state.foremen[0].pawn_men, state.foremen[0].pawn_women) == (1, 0)


def test_weight_room_without_spare_pawns_moves_no_extra_month() -> None:
    state = fresh(2)
    put_tile(state, "weight-room", "r1c2")
    set_tools(state, 0, saw=1)
    state.foremen[0].pawn_men = state.foremen[0].pawn_women = 0
    assert "build r1c2 1" in texts(state)
    state.apply_text("build r1c2 1")
    assert track_codes(state)[NOV] == ["P1W1"]


def test_hospital_others_lose_one_strength_never_the_last_woman() -> None:
    state = _build_power("hospital", players=3, saw=1, compass=1)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1", "P3W1"],
                           OCT: ["P2M2", "P3M1", "P3M2", "P1M2"]})
    events = state.apply_text("build r1c1 1")
    # P2's only eligible worker is the double man: no choice to ask for.
    assert any("drops to strength 1" in e.text for e in events)
    assert state.current_player() == 2  # P3 chooses between its two men
    assert texts(state) == ["weaken 2", "weaken 3"]
    state.apply_text("weaken 2")  # the single man dies: his pawn goes back to the board
    assert track_codes(state)[OCT] == ["P2M1", "P3M2", "P1M2", "P1W1"]
    assert state.foremen[2].pawn_men == 1
    assert state.current_player() == 1


def test_tombstone_loses_a_whole_worker_but_not_the_last_woman() -> None:
    state = _build_power("tombstone", compass=1)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], OCT: ["P2M2", "P1M2"]})
    state.apply_text("build r1c1 1")  # only the double man may go
    assert track_codes(state) == {SEP: ["P2W1"], OCT: ["P2M2", "P1W1"]}
    assert state.foremen[0].pawn_men == 3


def test_prison_sends_a_weakest_worker_five_months_on() -> None:
    state = _build_power("prison", players=3, saw=2, glass_a=1)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1", "P3W1"], OCT: ["P2M1", "P3M2", "P1M2"]})
    state.apply_text("build r1c1 1")
    assert state.current_player() == 0  # the builder chooses, first for P2
    assert texts(state) == ["imprison 1", "imprison 2"]
    state.apply_text("imprison 2")  # P2's single man: Oct -> Mar
    assert track_codes(state)[MAR] == ["P2M1"]
    # P3's weakest is its woman in September (strength 1): the only candidate.
    assert track_codes(state)[FEB] == ["P3W1"]


def test_prison_falls_back_to_the_track_end() -> None:
    state = _build_power("prison", saw=2, glass_a=1)
    set_track(state, SEP, {SEP: ["P1W1"], MAY: ["P2W1"], JUN: ["P2M2", "P1M2"]})
    state.apply_text("build r1c1 1")
    assert texts(state) == ["imprison 1", "imprison 2"]  # nobody can go a full 5 months
    state.apply_text("imprison 1")
    assert track_codes(state)[JUN] == ["P2M2", "P1M2", "P2W1"]


def _lasting(tile_id: str, **tools: int) -> SamaraState:
    state = _build_power(tile_id, **tools)
    state.apply_text("build r1c1 1")
    assert tile_id.replace("-", "_") in state.foremen[0].powers
    return state


def test_university_counts_tools_not_kinds() -> None:
    state = _lasting("university", saw=2, compass=1, glass_a=1)
    put_tile(state, "glasshouse", "r1c2")  # needs 2 glass tools
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], OCT: ["P2M2", "P1M2"]})
    assert "build r1c2 1" in texts(state)


def test_school_adds_one_strength_to_groups() -> None:
    state = _lasting("school", saw=1, compass=1)
    set_track(state, SEP, {SEP: ["P1W1", "P1M1", "P2W1"], OCT: ["P2M2"]})
    set_spot_tools(state, "r3c2", saw=1)
    assert "tool saw r3c2 1+2" in texts(state)  # 1 + 1 + school's 1 = 3


def test_bridge_makes_every_action_a_month_quicker() -> None:
    state = _lasting("bridge", saw=2, compass=1, square=1)
    set_track(state, SEP, {SEP: ["P1W1", "P1M2", "P2W1"], OCT: ["P2M2"]})
    set_spot_tools(state, "r1c3", glass_a=1)
    state.apply_text("tool glass-a r1c3 1")
    assert track_codes(state)[NOV] == ["P1W1"]  # 3 months become 2
    state = _lasting("bridge", saw=2, compass=1, square=1)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], OCT: ["P2M2", "P1M2"]})
    state.apply_text("recruit woman")
    assert track_codes(state)[MAY] == ["P1W1", "P1W1"]  # 9 months become 8


def test_hermit_house_skips_months_with_other_foremen() -> None:
    state = _lasting("hermit-house", saw=1, glass_a=1)
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], OCT: ["P2M2"], NOV: ["P2M1"],
                           DEC: ["P1M2"]})
    set_spot_tools(state, "r1c1", saw=1)
    state.apply_text("tool saw r1c1 1")
    assert track_codes(state)[DEC] == ["P1M2", "P1W1"]


def test_powers_can_be_switched_off() -> None:
    state = fresh(2, powers=False)
    put_tile(state, "boat", "r1c1")
    set_tools(state, 0, saw=2)
    state.apply_text("build r1c1 1")
    assert state.foremen[0].tools[SAW] == 2
    assert state.scores()[0] == 5


# -- the end ---------------------------------------------------------------------------

def test_game_ends_when_the_last_tile_is_taken_and_ties_go_to_the_first_worker() -> None:
    state = fresh(2)
    cat = state.catalogue
    last = state.spot_tile[0]
    for si in range(1, 30):
        state.spot_tile[si] = None
    put_tile(state, "sandcastle", "r1c1")
    state.foremen[1].buildings = [cat.tile_index("cave")]  # 1 prestige each after the build
    set_track(state, SEP, {SEP: ["P1W1", "P2W1"], OCT: ["P2M2", "P1M2"]})
    del last
    state.apply_text("build r1c1 1")
    assert state.current_player() == TERMINAL
    assert state.legal_moves() == []
    assert state.scores() == [1.0, 1.0]
    # P2's woman still waits in September: P2's next worker comes first.
    assert state.ranking() == [[1], [0]]
    assert state.outcome().rewards == (0.0, 1.0)


def test_an_off_board_spot_names_the_boards_spots() -> None:
    """Issue 27: an off-board spot (r4c1, r9c9) was answered "expected a board spot like
    r3c1", as if the notation were wrong."""
    from engine import registry
    from engine.game import FurnaceError

    state = registry.get_game("samara").new_game(0, 2)
    for token in ("r4c1", "r9c9"):
        with pytest.raises(FurnaceError) as caught:
            state.parse_move(f"tool saw {token} 1")
        message = str(caught.value)
        assert f"{token} is off the board" in message
        assert "r1c1-r1c7" in message and "r4c4-r4c9" in message
    with pytest.raises(FurnaceError, match="a board spot like r3c1"):
        state.parse_move("tool saw here 1")


def test_the_board_says_what_a_moves_worker_group_is() -> None:
    """Issue 37: "tool saw r2c2 1+2" read like strengths, and nothing said what 1 and 2
    are: the board numbers each seat's workers of this month as the moves do."""
    state = fresh(2)
    set_track(state, SEP, {SEP: ["P2M2", "P1M2", "P2W1", "P1W1"], DEC: ["P1W1"]})
    board = state.render(0)
    line = next(x for x in board.splitlines() if "workers this month" in x)
    assert line.endswith("P1: 1 = man of strength 2, 2 = woman of strength 1; "
                         "P2: 1 = man of strength 2, 2 = woman of strength 1")
    assert any(k.startswith("key: moves: tool/build SPOT 1+2 = the mover's workers 1 and 2")
               for k in board.splitlines())
    # The numbers are the moves': group 1 sends the mover's worker 1 (a man of strength
    # 2), group 1+2 it and worker 2 (a woman of strength 1).
    who = f"P{state.current_player() + 1}"
    for group, sent in (("1", [f"{who}M2"]), ("1+2", [f"{who}M2", f"{who}W1"])):
        trial = state.clone()
        move = next(m for m in trial.legal_moves()
                    if trial.move_to_text(m).split()[0] in ("tool", "build")
                    and trial.move_to_text(m).split()[-1] == group)
        before = track_codes(trial)[SEP]
        trial.apply(move)
        left = track_codes(trial).get(SEP, [])
        gone = sorted(c for c in before if before.count(c) > left.count(c))
        assert gone == sorted(sent), (trial.move_to_text(move), left)
