"""The solo game against the Automa: each instruction, the bag, the worker cap, the
end, the ranks and the opponent cards (docs/rules/stephens.md, "The solo game")."""

from __future__ import annotations

import random

import pytest

from engine.game import Event, IllegalMoveError
from engine.stephens.abilities import influence_cap, unlockable_disks
from engine.stephens.flow import advance
from engine.stephens.frames import Frame
from engine.stephens.moves import CREATE, encode, pack
from engine.stephens.rules import StephensGame
from engine.stephens.solo import (
    automa_supply,
    rank_name,
    rank_of,
    supply_number,
    target_score,
)
from engine.stephens.state import EMPTY, StephensState
from engine.stephens.vocabulary import AUTOMA, FURNACES, NOBODY, PLACES, SMALL_FACTORIES
from engine.stephens.workers import disks_left
from tests.stephens.helpers import attach, blank, contract, round_trip, settle_disks

GAME = StephensGame()
UL, UR, LL, LR = (FURNACES.index(n) for n in ("FN-UL", "FN-UR", "FN-LL", "FN-LR"))
SF = {name: k for k, name in enumerate(SMALL_FACTORIES)}


def solo(seed: int = 0) -> StephensState:
    """An empty solo board (no starting professions), the player to choose an action."""
    return blank(1, seed)


def automa_card(state: StephensState, card_id: str) -> None:
    """Put Automa card ``card_id`` on top of its deck."""
    card = next(k for k, c in enumerate(state.catalogue.solo.automa_cards) if c.id == card_id)
    for pile in (state.automa_deck, state.automa_revealed):
        if card in pile:
            pile.remove(card)
    state.automa_deck.append(card)


def automa_turn(state: StephensState, card_id: str) -> list[str]:
    """Run the Automa's turn with ``card_id``; stops at a decision of the player."""
    automa_card(state, card_id)
    state.decisions = [Frame.make("automa", 0, stage=0)]
    events: list[Event] = []
    state._moves = advance(state, events)
    return [str(e) for e in events]


def give_automa_workers(state: StephensState, n: int) -> None:
    """The Automa's masters on blue cards at FN-UR (no rules checked)."""
    blues = list(state.profession_decks[1][:n])
    for card in blues:
        attach(state, state.catalogue.professions[card].id, "FN-UR", AUTOMA)


def top(state: StephensState) -> Frame:
    return state.decisions[-1]


# -- setup ---------------------------------------------------------------------------------
def test_solo_setup() -> None:
    state = GAME.new_game(seed=3, num_players=1)
    assert state.furnaces == [3, 3, 3, 3]
    assert state.bag == [7, 7, 7] and sorted(state.automa_deck) == list(range(10))
    cat = state.catalogue
    mine = [c for cards in state.places for c in cards if state.master[c] == 0]
    theirs = [c for cards in state.places for c in cards if state.master[c] == AUTOMA]
    assert len(mine) == len(theirs) == 1
    assert cat.professions[mine[0]].side != cat.professions[theirs[0]].side
    assert state.current_player() == 0 and top(state).kind == "accessory"
    round_trip(state)
    assert GAME.new_game(3, 1).to_json() == state.to_json()


def test_solo_options() -> None:
    from engine.game import InvalidOptionError

    with pytest.raises(InvalidOptionError, match="difficulty"):
        GAME.new_game(1, 1, {"difficulty": "brutal"})
    with pytest.raises(InvalidOptionError, match="opponent"):
        GAME.new_game(1, 1, {"opponent": "opponent-9"})
    with pytest.raises(InvalidOptionError, match="solo"):
        GAME.new_game(1, 2, {"difficulty": "hard"})
    state = GAME.new_game(1, 1, {"difficulty": "easy", "opponent": "random"})
    assert state.opponent in range(5)
    assert state.to_json()["options"]["opponent"] == f"opponent-{state.opponent + 1}"


# -- the Automa's instructions ----------------------------------------------------------------
def test_furnace_instruction_removes_one_cube_and_activates_the_upper_row() -> None:
    state = solo()
    attach(state, "glass-cutter", "FN-UL", 0)  # 2 coins or 2 influence: a real choice
    settle_disks(state)
    events = automa_turn(state, "automa-01")  # FN-UL, clockwise
    assert state.furnaces[UL] == 2
    assert "the Automa removes a cube from FN-UL" in events
    assert top(state).kind == "activation" and top(state).seat == 0
    assert top(state).num("place") == PLACES.index("FN-UL")
    assert state.current_player() == 0
    round_trip(state)
    coins = state.players[0].coins
    state.apply_text("activate glass-cutter:1")
    assert state.players[0].coins == coins + 2
    # the Automa's turn is over: the player's next turn
    assert top(state).kind == "action" and state.decisions[0] == Frame.make("turn", 0, stage=1)


def test_furnace_instruction_follows_the_arrow_around_the_board() -> None:
    state = solo()
    state.furnaces = [0, 0, 3, 0]  # FN-LR ccw: LR, UR, UL, then LL (wrapping around)
    events = automa_turn(state, "automa-04")
    assert "the Automa removes a cube from FN-LL" in events
    assert any("triggered a reset phase" in e for e in events)  # 3 furnaces empty now
    state = solo()
    state.furnaces = [0, 3, 3, 3]  # FN-UL cw: the next is FN-UR
    automa_turn(state, "automa-01")
    assert state.furnaces == [0, 2, 3, 3]
    state = solo()
    state.furnaces = [3, 0, 3, 3]  # FN-UR ccw: the next is FN-UL
    automa_turn(state, "automa-02")
    assert state.furnaces == [2, 0, 3, 3]


def test_white_cube_removes_the_display_cards_at_the_card_costs() -> None:
    state = solo()
    display = list(state.contract_display)
    deck_top = state.contract_deck[-2:]
    events = automa_turn(state, "automa-03")  # FN-LL: contracts costing 1 and 2
    assert state.furnaces[LL] == 2
    assert state.contract_discard == display[:2]
    assert state.contract_display[:3] == display[2:]
    assert sorted(state.contract_display[3:]) == sorted(deck_top)
    assert any("from the display" in e for e in events)
    state = solo()
    display = list(state.investment_display)
    automa_turn(state, "automa-04")  # FN-LR: investments costing 1 and 3
    assert state.investment_discard == [display[0], display[2]]
    assert state.investment_display[:3] == [display[1], display[3], display[4]]


def test_factory_instruction_lets_the_player_choose_the_cubes() -> None:
    state = solo()
    give_automa_workers(state, 4)  # 4th disk taken: the number 2 is visible
    assert supply_number(state) == 2
    state.factories[SF["SF-UL"]] = [1, 1, 1]
    automa_turn(state, "automa-05")  # SF-UL clockwise
    assert top(state).kind == "remove" and state.current_player() == 0
    assert sorted(state.legal_moves_text()) == ["remove SF-UL orange black",
                                                "remove SF-UL orange pink",
                                                "remove SF-UL pink black"]
    round_trip(state)
    reason = state.why_illegal(state.parse_move("remove SF-UR pink black"))
    assert reason == "the Automa removes cubes from SF-UL: name 2 of them"
    state.apply_text("remove SF-UL pink black")
    assert state.factories[SF["SF-UL"]] == [1, 0, 0]


def test_factory_instruction_skips_empty_factories_without_spilling_over() -> None:
    state = solo()
    give_automa_workers(state, 4)
    state.factories[SF["SF-UR"]] = [0, 1, 0]  # SF-UL empty; clockwise next: SF-UR
    state.factories[SF["SF-LR"]] = [2, 0, 0]
    events = automa_turn(state, "automa-05")
    assert state.factories[SF["SF-UR"]] == [0, 0, 0]  # fewer than 2 there: all taken
    assert state.factories[SF["SF-LR"]] == [2, 0, 0]  # nothing spills over (A-27c)
    assert "the Automa removes pink from SF-UR" in events
    assert top(state).kind == "action"  # nothing to choose: no decision


def test_factory_instruction_with_all_factories_empty_takes_from_a_furnace() -> None:
    state = solo()
    state.furnaces = [3, 0, 3, 3]  # SF-UR clockwise: FN-UR (same corner), then FN-LR
    events = automa_turn(state, "automa-07")
    assert "the small factories are empty" in events
    assert state.furnaces == [3, 0, 3, 2]


def test_profession_instruction_takes_the_card_to_the_topmost_place_allowed() -> None:
    state = solo()
    red_top = state.profession_decks[0][-1]
    events = automa_turn(state, "automa-10")  # the red deck top; disk symbol
    assert state.place_of(red_top) == PLACES.index("FN-UL")  # empty board: the furnace
    assert state.master[red_top] == AUTOMA
    assert any("creates" in e for e in events)
    # two more at FN-UL: now the lower factory takes one (1 < 2)
    state = solo()
    for name in ("chair-caner", "fishwife"):
        attach(state, name, "FN-UL", AUTOMA)
    red_top = state.profession_decks[0][-1]
    automa_turn(state, "automa-10")
    assert state.place_of(red_top) == PLACES.index("SF-LL")


def test_profession_instruction_with_an_empty_position_takes_the_next_of_its_colour() -> None:
    state = solo()
    state.profession_decks[0].insert(0, state.profession_display[0])
    state.profession_display[0] = EMPTY  # position 1 empty
    second = state.profession_display[1]
    automa_turn(state, "automa-08")
    assert state.master[second] == AUTOMA


def test_disk_symbol_puts_an_apprentice_on_the_players_card() -> None:
    state = solo()
    card = attach(state, "glass-cutter", "FN-UL", 0)
    settle_disks(state)
    state.furnaces = [0, 0, 3, 3]  # automa-03 takes from FN-LL, then the disk
    automa_turn(state, "automa-03")
    assert state.apprentice[card] == AUTOMA
    assert state.workers_of(AUTOMA) == 1
    # no apprentice space left: the disk stays on the card (A-27f)
    automa_turn(state, "automa-03")
    assert state.workers_of(AUTOMA) == 1


def test_worker_supply_numbers() -> None:
    state = solo()
    seen = []
    blues = list(state.profession_decks[1][:12])
    for card in blues:
        attach(state, state.catalogue.professions[card].id, "FN-UR", AUTOMA)
        seen.append(supply_number(state))
    assert seen == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]


def test_automa_deck_is_reshuffled_when_empty() -> None:
    state = solo()
    state.automa_revealed = state.automa_deck[:-1]
    state.automa_deck = state.automa_deck[-1:]
    automa_turn(state, state.catalogue.solo.automa_cards[state.automa_deck[0]].id)
    assert len(state.automa_revealed) == 10 and not state.automa_deck
    events = automa_turn(state, "automa-06")
    assert "the Automa shuffles its revealed cards into a new deck" not in events
    state.automa_deck.clear()
    state.automa_revealed = list(range(10))
    state.decisions = [Frame.make("automa", 0, stage=0)]
    got: list[Event] = []
    state._moves = advance(state, got)
    assert "the Automa shuffles its revealed cards into a new deck" in [str(e) for e in got]
    assert len(state.automa_deck) == 9 and len(state.automa_revealed) == 1


# -- the reset phase ------------------------------------------------------------------------
def test_automa_supply_places_cubes_in_different_factories_along_the_arrow() -> None:
    state = solo()
    automa_card(state, "automa-02")  # 3 cubes from SF-UR counter-clockwise
    state.automa_revealed.append(state.automa_deck.pop())
    automa_supply(state, [])
    filled = [SMALL_FACTORIES[f] for f in range(4) if any(state.factories[f])]
    assert sorted(filled) == ["SF-LL", "SF-UL", "SF-UR"]
    assert all(sum(f) <= 1 for f in state.factories) and sum(state.bag) == 18


def test_bag_running_dry() -> None:
    state = solo()
    automa_card(state, "automa-05")  # 4 cubes
    state.automa_revealed.append(state.automa_deck.pop())
    state.bag = [0, 1, 1]
    events: list[Event] = []
    automa_supply(state, events)
    assert state.bag == [0, 0, 0] and sum(map(sum, state.factories)) == 2
    assert "the Automa's bag is empty" in [str(e) for e in events]
    automa_supply(state, [])  # nothing more for the rest of the game
    assert sum(map(sum, state.factories)) == 2


def test_reset_runs_the_automa_supply_after_emptying_the_factories() -> None:
    state = GAME.new_game(seed=5, num_players=1)
    rng = random.Random(5)
    events: list[str] = []
    while not any(e.startswith("the Automa supplies") for e in events):
        moves = state.legal_moves()
        events = [str(e) for e in state.apply(moves[rng.randrange(len(moves))])]
    emptied = events.index("the small factories are emptied") if \
        "the small factories are emptied" in events else -1
    supplied = next(k for k, e in enumerate(events) if e.startswith("the Automa supplies"))
    assert emptied < supplied and sum(state.bag) < 21


def test_supply_is_the_last_step_of_a_solo_reset() -> None:
    """L1592: "In the final step, supply small factories, the Automa performs their own
    supply step before you supply": the contracts are fulfilled before it (A-1)."""
    state = solo()
    card = contract(state, "crown-01")  # one cube of colour 4 to fulfil
    state.players[0].contracts.append(card)
    state.players[0].cubes = [0, 0, 0, 0, 1, 0]
    state.players[0].reserved = [2, 2, 2]
    state.automa_revealed.append(state.automa_deck.pop())  # its supply: that card's lower part
    state.decisions = [Frame.make("turn", 0, stage=2),
                       Frame.make("reset", 0, step=5, final=0)]  # the factories emptied next
    events: list[Event] = []
    state._moves = advance(state, events)
    assert top(state).kind == "fulfil"
    assert not any(str(e).startswith("the Automa supplies") for e in events)
    bag = sum(state.bag)
    state.apply_text("skip")
    assert top(state).kind == "supply" and sum(state.bag) < bag


# -- the worker cap -------------------------------------------------------------------------
def test_worker_cap() -> None:
    state = solo()
    give_automa_workers(state, 1)
    for name in ("chair-caner", "fishwife", "stoker", "weaver"):
        attach(state, name, "FN-UL", 0)
    settle_disks(state)
    assert state.workers_of(0) == 4 and state.workers_of(AUTOMA) == 1
    card = state.face_up_professions()[1]
    side = state.catalogue.professions[card].side
    move = encode(CREATE, pack([card, 3 * side + 2]))
    reason = state.why_illegal(move)
    assert reason is not None and "more than 3" in reason and "you have 4, the Automa 1" in reason
    with pytest.raises(IllegalMoveError, match="more than 3"):
        state.apply(move)
    assert not any(m >> 56 == CREATE for m in state.legal_moves())
    give_automa_workers(state, 1)
    state.touched()
    assert state.why_illegal(move) is None


# -- the end ------------------------------------------------------------------------------
def _play_out(state: StephensState, events: list[str], *moves: str) -> list[str]:
    """Play ``moves``, then the first legal move until the end; who took a turn after the
    final reset (``events``: what happened before)."""
    log: list[str] = []
    final = False

    def note(texts: list[str]) -> None:
        nonlocal final
        for text in texts:
            if text == "this is the final reset phase":
                final = True
            elif final and text.startswith("the Automa reveals"):
                log.append("automa")

    note(events)
    queue = list(moves)
    while not state.is_terminal():
        if final and top(state).kind == "action":
            log.append("player")
        move = state.parse_move(queue.pop(0)) if queue else state.legal_moves()[0]
        note([str(e) for e in state.apply(move)])
    return log


def test_player_triggers_the_final_reset_then_automa_and_player_play_once() -> None:
    state = solo()
    state.army = 30  # normal: the final reset at 25
    state.furnaces = [0, 0, 1, 3]
    # the second empty furnace: a reset at the end of the turn, the final one
    assert _play_out(state, [], "glass FN-LL", "skip") == ["automa", "player"]
    assert state.army == 25 and state.final_reset == 1


def test_automa_triggers_the_final_reset_then_the_player_plays_once() -> None:
    state = solo()
    state.army = 30
    state.furnaces = [1, 0, 3, 3]
    events = automa_turn(state, "automa-01")  # takes FN-UL's last cube: a reset after its turn
    assert "this is the final reset phase" in events
    assert _play_out(state, events) == ["player"]
    assert state.final_reset == 1 and state.is_terminal()


def test_no_reset_after_the_final_one() -> None:
    state = solo()
    state.final_reset, state.army = 1, 25
    state.furnaces = [1, 0, 3, 3]
    events = automa_turn(state, "automa-01")  # two furnaces empty: no reset any more
    assert not any("reset" in e for e in events) and top(state).kind == "action"
    state.apply_text("glass FN-LL")
    while not state.is_terminal():
        assert top(state).kind != "automa"
        state.apply(state.legal_moves()[0])


def test_random_solo_games_end() -> None:
    for seed, level in ((1, "easy"), (2, "normal"), (3, "hard")):
        state = GAME.new_game(seed, 1, {"difficulty": level})
        rng = random.Random(seed)
        plies = 0
        while not state.is_terminal():
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
            plies += 1
            assert plies < 2000
        assert state.army == {"easy": 20, "normal": 25, "hard": 30}[level]
        assert state.outcome().rewards == (1.0,)
        assert state.solo_rank() in ("Apprentice", "Artisan", "Glassblower")


# -- ranks and opponents --------------------------------------------------------------------------
@pytest.mark.parametrize(("level", "bars"), [("easy", (140, 180)), ("normal", (120, 160)),
                                             ("hard", (100, 140))])
def test_rank_boundaries(level: str, bars: tuple[int, int]) -> None:
    state = GAME.new_game(1, 1, {"difficulty": level})
    low, high = bars
    assert [rank_of(state, s) for s in (low, low + 1, high - 1, high)] == [0, 1, 1, 2]
    assert rank_name(state, low) == "Apprentice" and rank_name(state, high) == "Glassblower"
    assert target_score(state) == high and state.solo_target() == float(high)


@pytest.mark.parametrize(("level", "target"), [("easy", 100), ("normal", 130), ("hard", 160)])
def test_opponent_targets(level: str, target: int) -> None:
    state = GAME.new_game(1, 1, {"difficulty": level, "opponent": "opponent-1"})
    assert target_score(state) == target
    assert state.final_space() == 25  # every opponent game (L1799-L1800)


def test_opponent_1_tracks_start_lower() -> None:
    plain = GAME.new_game(1, 1)
    state = GAME.new_game(1, 1, {"opponent": "opponent-1"})
    assert state.players[0].forest == plain.players[0].forest - 2
    assert state.players[0].dune == plain.players[0].dune - 2


def test_opponent_2_accessory_sets() -> None:
    state = GAME.new_game(1, 1, {"opponent": "opponent-2"})
    names = state.catalogue.accessories
    state.apply_text(f"accessories {names[0]}")
    state.decisions.append(Frame.make("accessories", 0, paid=0, gained=2))
    state.touched()
    texts = state.legal_moves_text()
    assert f"accessories {names[1]} {names[2]}" in texts
    assert all(names[0] not in t for t in texts)
    reason = state.why_illegal(state.parse_move(f"accessories {names[0]} {names[1]}"))
    assert reason is not None and "set of 3" in reason


def test_opponent_3_influence_disks_stacked_on_10() -> None:
    state = GAME.new_game(1, 1, {"opponent": "opponent-3"})
    cat, player = state.catalogue, state.players[0]
    assert influence_cap(cat, player) == 9
    for disk in cat.influence_disks[:3]:
        player.unlocked[disk] = 1
    assert influence_cap(cat, player) == 9
    player.unlocked[cat.influence_disks[3]] = 1
    assert influence_cap(cat, player) == cat.board.influence_max


def test_opponent_4_closes_the_cost_5_spaces() -> None:
    from engine.stephens.displays import slide_and_refill

    state = GAME.new_game(1, 1, {"opponent": "opponent-4"})
    assert state.contract_display[4] == EMPTY and state.investment_display[4] == EMPTY
    state.contract_discard.append(state.contract_display[0])
    state.contract_display[0] = EMPTY
    slide_and_refill(state, 0, [])
    assert state.contract_display[3] != EMPTY and state.contract_display[4] == EMPTY
    round_trip(state)


def test_opponent_5_ability_unavailable() -> None:
    state = GAME.new_game(1, 1, {"opponent": "opponent-5"})
    cat, player = state.catalogue, state.players[0]
    v4 = cat.disk_ids["V4"]
    assert player.lost_disk == v4
    assert disks_left(state, 0) == disks_left(GAME.new_game(1, 1), 0) - 1
    for disk in range(len(cat.disks)):
        if disk != v4 and not cat.disks[disk].requires:
            player.unlocked[disk] = 1
    for disk in range(len(cat.disks)):
        if disk != v4:
            player.unlocked[disk] = 1
    assert v4 not in unlockable_disks(cat, player, lowest_influence_only=False)


def test_solo_positions_keep_their_hidden_parts_hidden() -> None:
    state = GAME.new_game(2, 1)
    view = state.observation(0)
    assert view["solo"]["automa_deck"] == 10 and view["solo"]["bag"]["orange"] == 7
    twins = {tuple(state.determinize(0, random.Random(k)).automa_deck) for k in range(5)}
    assert len(twins) > 1
    assert all(state.determinize(0, random.Random(k)).observation(0) == view for k in range(3))
    assert NOBODY != AUTOMA


# -- solo positions in JSON ---------------------------------------------------------------------
@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d["solo"]["automa_deck"].append("automa-01"),
     r"solo\.automa_deck\[10\]: Automa card 'automa-01' is also at"),
    (lambda d: d["solo"]["automa_deck"].pop(), r"solo: 1 Automa card\(s\) are nowhere"),
    (lambda d: d["solo"]["bag"].update(orange=8), r"solo\.bag\.orange: the bag holds at most 7"),
    (lambda d: d["solo"].update(final_reset=1), r"solo\.final_reset: the final reset begins"),
    (lambda d: d.pop("solo"), r"state: missing field\(s\) solo"),
    (lambda d: d["options"].update(difficulty="brutal"), r"options: option 'difficulty'"),
    (lambda d: d["options"].update(opponent="random"), r"options\.opponent: a position holds"),
    (lambda d: d["options"].update(difficulty=[[1]]), r"options\.difficulty must be a string"),
    (lambda d: d.update(active=1), r"active must be an integer in 0\.\.0"),
])
def test_bad_solo_positions_are_rejected(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    from engine.game import InvalidStateError
    from engine.stephens.codec import state_from_json

    data = GAME.new_game(6, 1).to_json()
    mutate(data)
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(data)


def test_automa_workers_only_in_the_solo_game() -> None:
    from engine.game import InvalidStateError
    from engine.stephens.codec import state_from_json

    data = GAME.new_game(6, 2).to_json()
    place = next(name for name, cards in data["places"].items() if cards)
    data["places"][place][0]["master"] = "automa"
    with pytest.raises(InvalidStateError, match=r"master must be an integer"):
        state_from_json(data)
    data = GAME.new_game(6, 2).to_json()
    data["options"] = {"difficulty": "hard", "opponent": "none"}
    with pytest.raises(InvalidStateError, match=r"options: .*solo game"):
        state_from_json(data)


def test_a_solo_game_in_progress_round_trips_at_every_step() -> None:
    state = GAME.new_game(8, 1, {"difficulty": "hard", "opponent": "opponent-4"})
    rng = random.Random(8)
    kinds = set()
    while not state.is_terminal():
        twin = round_trip(state)
        assert twin.legal_moves() == state.legal_moves()
        kinds.add(top(state).kind)
        state.apply(state.legal_moves()[rng.randrange(len(state.legal_moves()))])
    round_trip(state)
    assert {"action", "activation", "columns", "fulfil"} <= kinds
