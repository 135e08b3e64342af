"""Every rulebook example and rule, as a test (see docs/rules/oh-my-goods.md)."""

from __future__ import annotations

import pytest

from engine.game import Event, IllegalMoveError, InvalidStateError
from engine.oh_my_goods import GAME
from engine.oh_my_goods.catalogue import default_catalogue
from engine.oh_my_goods.codec import state_from_json
from engine.oh_my_goods.vocabulary import MAX_ROUNDS, ORDERLY, SLOPPY
from tests.oh_my_goods.helpers import (
    blank,
    build,
    card,
    give,
    goods,
    market,
    set_charburner,
    text_moves,
)

CAT = default_catalogue()


def building(name: str):
    return CAT.buildings[CAT.building_index(name)]


# -- the cards ---------------------------------------------------------------
def test_catalogue_matches_the_rulebook_and_the_public_list() -> None:
    assert len(CAT.cards) + len(CAT.charburners) + len(CAT.workers) + len(CAT.assistants) == 110
    assert (len(CAT.charburners), len(CAT.workers), len(CAT.assistants)) == (4, 4, 8)
    assert any(dict(c.inputs) == {"grain": 2, "wood": 1} for c in CAT.charburners)
    assert building("shoemaker").value == 8 and building("tannery").value == 6
    assert building("iron-smelter").value == 3 and building("mill").value == 2
    assert building("brick-manufacture").chain == ("clay", "coal")
    assert building("mill").chain == ("grain",) and building("shoemaker").chain == ("leather",)
    counts = {r: sum(c.resource == r for c in CAT.cards) for r in
              ("wood", "clay", "grain", "wool", "stone")}
    assert counts == {"wood": 22, "clay": 18, "grain": 18, "wool": 18, "stone": 18}
    suns = sum(c.half_sun for c in CAT.cards)
    assert len(CAT.cards) / 3 <= suns <= len(CAT.cards) / 2
    colours = [CAT.buildings[c.building].colour for c in CAT.cards]
    assert colours.count("green") == 26
    assert all(colours.count(k) == 17 for k in ("red", "yellow", "white", "gray"))


def test_setup_deals_charburners_coal_hands_and_assistants() -> None:
    for n, pool in ((2, 4), (3, 6), (4, 8)):
        s = GAME.new_game(5, n)
        assert len(s.pool) == pool
        assert len({p.charburner for p in s.players}) == n
        for p in s.players:
            assert len(p.goods[0]) == 7  # 7 coal
            assert len(p.hand) == 5 + 2  # setup 5, then phase I deals 2
        assert s.phase == "choose" and s.current_player() == 0


def test_market_draws_until_two_half_suns_each_time() -> None:
    for seed in range(10):
        s = GAME.new_game(seed, 2)
        row = [CAT.cards[c].half_sun for c in s.display]
        assert sum(row) == 2 and row[-1]
        while s.phase == "choose":
            s.apply(s.legal_moves()[0])
        sunset = [CAT.cards[c].half_sun for c in s.display[s.sunset_at:]]
        assert sum(sunset) == 2 and sunset[-1]


# -- production --------------------------------------------------------------
def charburner_example(mode: int):
    s = blank()
    set_charburner(s, 0, "charburner-2")  # 2 Grain + 1 Wood
    market(s, "grain", "clay")
    wood, grain = give(s, 0, "wood", "grain")
    s.players[0].work = (0, mode)
    return s, wood, grain


@pytest.mark.parametrize("resource", ["wood", "grain"])
def test_sloppy_charburner_needs_one_of_the_two_missing(resource: str) -> None:
    s, wood, grain = charburner_example(SLOPPY)
    s.apply_text("produce #0")
    assert sorted(text_moves(s)) == sorted([f"supply {CAT.cards[wood].id}",
                                            f"supply {CAT.cards[grain].id}"])
    used = wood if resource == "wood" else grain
    s.apply_text(f"supply {CAT.cards[used].id}")
    assert len(s.players[0].goods[0]) == 1  # 1 coal
    assert used in s.discard or used in s.deck  # discarded (maybe reshuffled)
    assert used not in s.players[0].hand


def test_orderly_charburner_needs_both_and_makes_two_coal() -> None:
    s, wood, grain = charburner_example(ORDERLY)
    s.apply_text("produce #0")
    assert sorted(text_moves(s)) == sorted([f"supply {CAT.cards[wood].id}",
                                            f"supply {CAT.cards[grain].id}"])
    s.apply_text(f"supply {CAT.cards[grain].id}")
    # the Wood is still missing: its only supply is a forced move, played at once
    assert wood not in s.players[0].hand and grain not in s.players[0].hand
    assert len(s.players[0].goods[0]) == 2


def test_orderly_without_the_resources_cannot_produce() -> None:
    s, wood, _ = charburner_example(ORDERLY)
    s.players[0].hand.remove(wood)
    reason = s.why_illegal(s.parse_move("produce #0"))
    assert reason and "short" in reason
    with pytest.raises(IllegalMoveError):
        s.apply_text("produce #0")


def test_each_hand_card_counts_for_one_building() -> None:
    s = blank()
    set_charburner(s, 0, "charburner-2")
    mill = build(s, 0, "mill-2")  # 3 Grain + 1 Wood
    s.players[0].assistants = [[0, 0, mill]]
    market(s, "grain", "grain", "grain")
    (wood,) = give(s, 0, "wood")
    s.players[0].work = (0, ORDERLY)
    s.apply_text(f"produce #{mill}")  # the single Wood card goes to the Mill
    assert len(s.players[0].goods[mill]) == 1  # assistant: one good
    assert wood not in s.players[0].hand
    assert s.why_illegal(s.parse_move("produce #0")) is not None


def test_mill_chain_turns_grain_from_hand_into_flour() -> None:
    s = blank()
    mill = build(s, 0, "mill-1")  # 3 Grain + 1 Wool
    market(s, "grain", "grain", "grain", "wool")
    grains = give(s, 0, "grain", "grain", "wood")[:2]
    s.players[0].work = (mill, ORDERLY)
    s.apply_text(f"produce #{mill}")
    assert s.step == "chain"
    s.apply_text(f"chain {CAT.cards[grains[0]].id}")
    s.apply_text(f"chain {CAT.cards[grains[1]].id}")
    assert len(s.players[0].goods[mill]) == 4  # 2 produced + 2 chained
    assert all(g in s.players[0].goods[mill] for g in grains)


def test_shoemaker_chain_turns_leather_into_shoes() -> None:
    s = blank()
    tannery = build(s, 0, "tannery-1")
    shoes = build(s, 0, "shoemaker-1")  # 2 Grain + 4 Wool
    goods(s, 0, tannery, 2)
    market(s, "grain", "grain", "wool", "wool", "wool", "wool")
    s.players[0].work = (shoes, SLOPPY)
    before = s.coins(0)
    s.apply_text(f"produce #{shoes}")
    assert s.coins(0) == before + 8
    s.apply_text("chain")
    assert s.coins(0) == before + 8 + 8 - 6  # Leather 6 became Shoes 8
    s.apply_text("chain")
    assert len(s.players[0].goods[tannery]) == 0 and len(s.players[0].goods[shoes]) == 3


def test_brick_chain_needs_clay_and_coal_together() -> None:
    s = blank()
    bricks = build(s, 0, "brick-manufacture-1")  # 3 Stone + 1 Clay
    market(s, "stone", "stone", "stone", "clay")
    clays = give(s, 0, "clay", "clay", "clay")
    goods(s, 0, 0, 2)  # 2 coal
    s.players[0].work = (bricks, ORDERLY)
    s.apply_text(f"produce #{bricks}")
    produced = len(s.players[0].goods[bricks])
    assert produced == 2
    s.apply_text(f"chain {CAT.cards[clays[0]].id}")
    s.apply_text(f"chain {CAT.cards[clays[1]].id}")
    # "place 2 Coal and 2 Clay on the Brickworks, effectively producing 4 Bricks":
    # every item placed is a brick, so each use of the two-input chain makes 2.
    assert len(s.players[0].goods[bricks]) == produced + 4
    assert s.coins(0) == (produced + 4) * 2
    assert len(s.players[0].goods[0]) == 0
    assert clays[2] in s.players[0].hand  # no coal left: the chain stopped by itself
    # the Clay cards were shown; the coal came face down from the Charburner
    assert {clays[0], clays[1]} <= s.shown
    assert len(s.shown & set(s.players[0].goods[bricks])) == 2


def test_why_illegal_names_the_missing_good() -> None:
    s = blank()
    butcher = build(s, 0, "butcher-1")
    s.step, s.chain_slot = "chain", butcher
    assert s.why_illegal(s.parse_move("chain")) == "Butcher's chain needs 1 cattle; you have 0"


def test_market_office_resource_helps_production_but_not_chains() -> None:
    s = blank()
    build(s, 0, "market-office-1")  # Wood
    set_charburner(s, 0, "charburner-2")
    market(s, "grain", "grain")
    s.players[0].work = (0, ORDERLY)
    s.apply_text("produce #0")  # Grain x2 from the market, Wood from the office
    assert len(s.players[0].goods[0]) == 2
    assert s.step != "chain"  # the Charburner chain wants Wood from hand: none


def test_glassmaker_takes_any_eleven_resources() -> None:
    s = blank()
    glass = build(s, 0, "glassmaker-3")  # any 11
    market(s, "wood", "clay", "grain", "wool", "stone", "wood", "clay", "grain")
    hand = give(s, 0, "stone", "wool", "wood")
    s.players[0].work = (glass, ORDERLY)
    s.apply_text(f"produce #{glass}")
    for c in hand:
        if s.step == "supply":
            s.apply_text(f"supply {CAT.cards[c].id}")
    assert len(s.players[0].goods[glass]) == 2


def test_market_office_extra_card_only_with_small_hands() -> None:
    for size, expected in ((3, 3 + 3), (4, 4 + 2)):
        s = blank()
        build(s, 0, "market-office-15")  # +1 card
        give(s, 0, *["wood"] * size)
        s.phase = "over"
        s._end_round([])  # not over: start the next round
        s.final_round = None
        s.round, s.phase = 1, "act"
        s.players[0].hand = s.players[0].hand[:size]
        s._start_round([])
        assert len(s.players[0].hand) == expected


# -- building, assistants -------------------------------------------------------
def test_build_paid_with_goods_without_change() -> None:
    s = blank()
    iron = build(s, 0, "iron-smelter-1")
    mill = build(s, 0, "mill-1")
    goods(s, 0, 0, 2)  # 2 coal
    goods(s, 0, iron, 2)
    goods(s, 0, mill, 3)
    plan = card(s, "tailors-shop-2")  # costs 7
    s.deck.remove(plan)
    s.players[0].plan = plan
    s.players[0].work = (0, ORDERLY)
    s.apply_text("done")
    assert s.step == "build"
    s.apply_text("build")
    assert s.why_illegal(s.parse_move(f"pay #{mill}")) is not None  # 3 flour = 6 < 7
    s.apply_text(f"pay #{iron}")
    # payments go in building order: no coal after iron
    assert s.why_illegal(s.parse_move("pay #0")) is not None
    s.apply_text(f"pay #{iron}")
    # only Flour can finish: 3 + 3 + 2 = 8 for a cost of 7, played at once; no change
    assert plan in s.players[0].buildings
    assert len(s.players[0].goods[mill]) == 2 and not s.players[0].goods[iron]
    assert len(s.players[0].goods[0]) == 2


def test_cannot_build_without_enough_goods() -> None:
    s = blank()
    plan = card(s, "food-factory-3")
    s.deck.remove(plan)
    s.players[0].plan = plan
    s.step = "build"
    assert s.why_illegal(s.parse_move("build")) == \
        "food-factory-3 costs 21 coins; your goods are worth 0"


def test_hiring_needs_colours_coins_and_at_most_two() -> None:
    s = blank()
    s.pool = [[0, 0]]  # assistant-1: 3 coins, green + red
    goods(s, 0, 0, 5)
    s.step = "hire"
    assert "needs 1 green" in (s.why_illegal(s.parse_move("hire assistant-1")) or "")
    build(s, 0, "sawmill-2")
    red = build(s, 0, "brick-manufacture-2")
    assert s.why_illegal(s.parse_move("hire assistant-1")) is None
    s.apply_text("hire assistant-1")  # the 3 coins can only be paid in coal: forced
    assert s.step == "place" and s.why_illegal(s.parse_move(f"place #{red}")) is None
    s.apply_text(f"place #{red}")
    assert s.players[0].assistants == [[0, 0, red]] and s.pool == []
    s2 = blank()
    s2.pool = [[0, 0]]
    build(s2, 0, "sawmill-2")
    build(s2, 0, "brick-manufacture-2")
    goods(s2, 0, 0, 5)
    s2.players[0].assistants = [[1, 0, 0], [2, 0, 1]]
    s2.step = "hire"
    assert s2.why_illegal(s2.parse_move("hire assistant-1")) == "you already have 2 assistants"


def test_moving_an_assistant_costs_two_coins_in_phase_two() -> None:
    s = blank()
    mill = build(s, 0, "mill-1")
    s.players[0].assistants = [[0, 0, 0]]
    goods(s, 0, 0, 3)
    s.phase = "shift"
    s.apply_text(f"shift assistant-1 #{mill}")  # paying with 2 coal is forced
    assert s.players[0].assistants[0][2] == mill and len(s.players[0].goods[0]) == 1


def test_worker_cannot_share_a_building_with_an_assistant() -> None:
    s = blank()
    s.players[0].assistants = [[0, 0, 0]]
    build(s, 0, "market-office-2")
    s.phase = "choose"
    assert text_moves(s) == ["idle"] or s.players[0].chosen == 1  # forced: played at once
    s.players[0].chosen = 0
    assert s.why_illegal(s.parse_move("work #0 orderly")) == \
        "Charburner #0 already has an assistant"
    assert s.why_illegal(s.parse_move("work #1 sloppy")) == \
        "#1 is not one of your production buildings"


# -- the end ---------------------------------------------------------------------
def test_eight_buildings_trigger_one_more_round() -> None:
    s = GAME.new_game(3, 2)
    for name in ["mill-1", "mill-2", "mill-3", "mill-4", "mill-5", "mill-6", "sawmill-1"]:
        c = card(s, name)
        for lst in [s.deck, s.discard, s.display] + [p.hand for p in s.players] + \
                [g for p in s.players for g in p.goods]:
            if c in lst:
                lst.remove(c)
        s.players[1].buildings.append(c)
        s.players[1].goods.append([])
    start = s.round
    while s.round == start:
        s.apply(s.legal_moves()[0])
    assert s.final_round == start + 1 and not s.is_terminal()
    while not s.is_terminal():
        s.apply(s.legal_moves()[0])
    assert s.round == start + 1


def test_a_game_nobody_ends_stops_after_the_round_limit() -> None:
    """Engine safeguard (docs/rules/oh-my-goods.md): round MAX_ROUNDS is the last."""
    s = GAME.new_game(3, 2)
    s.round = MAX_ROUNDS - 1
    events: list[Event] = []
    while s.round == MAX_ROUNDS - 1:
        events += s.apply(s.legal_moves()[0])
    assert s.final_round == MAX_ROUNDS and not s.is_terminal()
    assert any("last" in e.text for e in events)
    while not s.is_terminal():
        s.apply(s.legal_moves()[0])
    assert s.round == MAX_ROUNDS and max(1 + len(p.buildings) for p in s.players) < 8
    with pytest.raises(InvalidStateError, match="round"):
        state_from_json({**s.to_json(), "round": MAX_ROUNDS + 1})


def test_scoring_one_vp_per_five_coins_and_tie_break_on_leftover() -> None:
    s = blank()
    build(s, 0, "mill-1")  # 2 VP
    build(s, 1, "sawmill-1")  # 2 VP
    goods(s, 0, 0, 9)  # 9 coal: +1 VP, 4 left
    goods(s, 1, 0, 7)  # 7 coal: +1 VP, 2 left
    s.players[1].assistants = []
    assert s.scores() == [3.0, 3.0]
    assert s.ranking() == [[0], [1]]
    s.players[1].goods[0].append(s.deck.pop())
    s.players[1].goods[0].append(s.deck.pop())
    assert s.ranking() == [[0, 1]]
    s.phase = "over"
    assert s.outcome().rewards == (0.5, 0.5)


# -- second edition --------------------------------------------------------------
def test_second_edition_redraw_keeps_the_hand_size() -> None:
    s = GAME.new_game(4, 2, {"second_edition": True})
    assert s.phase == "redraw" and text_moves(s) == ["keep", "redraw"]
    old = list(s.players[0].hand)
    s.apply_text("redraw")
    assert len(s.players[0].hand) == len(old) and not set(old) & set(s.players[0].hand)
    s.apply_text("keep")
    assert len(s.players[0].hand) == len(old) + 2


def test_second_edition_last_round_chains_without_production() -> None:
    for second in (False, True):
        s = blank(second_edition=second)
        mill = build(s, 0, "mill-1")
        give(s, 0, "grain", "grain")
        s.final_round = s.round
        reason = s.why_illegal(s.parse_move(f"chain-only #{mill}"))
        assert (reason is None) == second
        if second:
            s.apply_text(f"chain-only #{mill}")
            s.apply(s.legal_moves()[0])
            assert len(s.players[0].goods[mill]) >= 1


def test_empty_draw_and_discard_piles_halve_the_hands() -> None:
    s = blank()
    s.players[0].hand = s.deck[:7]
    s.players[1].hand = s.deck[7:10]
    rest = s.deck[10:]
    s.deck = []
    s.players[1].goods[0] = rest
    events: list[Event] = []
    card_drawn = s._draw(events)
    assert card_drawn is not None
    assert len(s.players[0].hand) == 4 and len(s.players[1].hand) == 2
    assert any("half" in e.text for e in events)
    assert len(s.deck) + 1 == 3 + 1


def test_a_reshuffle_during_production_is_reported() -> None:
    """Issue 8, item 9: draws inside production used to throw their events away."""
    s = blank()
    s.players[0].work = (0, ORDERLY)
    for key, n in s.slot_inputs(0, 0):
        market(s, *[key] * n)
    s.discard = s.deck[1:]
    s.deck = s.deck[:1]  # one card left: the second good needs a reshuffle
    events = s.apply_text("produce #0")
    texts = [e.text for e in events]
    assert any("shuffled into a new draw pile" in t for t in texts), texts
    assert any("produces 2 coal" in t for t in texts), texts
    assert s.reshuffled and set(s.deck) <= set(s.reshuffled)


def test_everyone_discarding_half_during_production_is_reported() -> None:
    s = blank()
    s.players[0].work = (0, ORDERLY)
    for key, n in s.slot_inputs(0, 0):
        market(s, *[key] * n)
    s.players[1].hand = s.deck[:6]
    s.deck = s.deck[6:7]  # one card, an empty discard pile: the second draw halves hands
    hand = list(s.players[1].hand)
    events = s.apply_text("produce #0")
    texts = [e.text for e in events]
    produced = next(i for i, t in enumerate(texts) if "produces 2 coal" in t)
    halved = [i for i, t in enumerate(texts[:produced]) if "discards half" in t]
    assert halved, texts  # reported as part of the production that caused it
    # the event names the three cards P2 dropped, from the hand it held
    named = texts[halved[0]].split("P2 ", 1)[1].split(";")[0].split(", ")
    assert len(named) == 3 and set(named) <= {s.card_name(c) for c in hand}


def test_own_draws_are_private_events() -> None:
    s = GAME.new_game(5, 3)
    while s.phase != "act":
        s.apply(s.legal_moves()[0])
    events: list[Event] = []
    while not any("draws" in e.text for e in events):
        events = s.apply(s.legal_moves()[0])
    draws = [e for e in events if " draws " in e.text]
    assert len(draws) == 3
    for seat, event in enumerate(sorted(draws, key=lambda e: e.text)):
        assert event.seats == frozenset({seat})
        assert event.seen_by(seat) == event.text and event.seen_by(None) == event.text
        other = (seat + 1) % 3
        assert event.seen_by(other) == f"P{seat + 1} draws 2 cards"
