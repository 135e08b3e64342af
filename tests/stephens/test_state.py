"""The position: setup, JSON, what players see, determinization."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine.game import InvalidOptionError, InvalidStateError
from engine.stephens.codec import PLAYER_FIELDS, STATE_FIELDS, state_from_json
from engine.stephens.frames import Frame
from engine.stephens.randomness import seed_state, shuffle
from engine.stephens.setup import new_state
from engine.stephens.state import EMPTY, StephensState
from engine.stephens.vocabulary import FN_UL, FN_UR, NOBODY, SF_LL
from tests.stephens.helpers import (
    attach,
    blank,
    contract,
    give_investment,
    round_trip,
    settle_disks,
)


# -- setup ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_lays_out_the_board_as_the_rulebook_says(players: int) -> None:
    state = new_state(seed=players, num_players=players)
    cat = state.catalogue
    assert state.army == 55
    assert state.furnaces == [4, 4, 4, 4]
    assert state.factories == [[0, 0, 0]] * 4
    assert len(state.contract_display) == 5 and EMPTY not in state.contract_display
    assert len(state.investment_display) == 5 and EMPTY not in state.investment_display
    assert list(cat.contract_costs) == [1, 2, 3, 4, 5] == list(cat.investment_costs)
    assert len(state.contract_deck) == 39 - 5 and len(state.investment_deck) == 32 - 5
    # 2 red and 2 blue face up beside their face-up decks: 6 selectable cards.
    red, blue = state.profession_decks
    assert len(red) == len(blue) == 21
    face_up = state.face_up_professions()
    assert [cat.professions[c].deck for c in face_up] == [0, 0, 0, 1, 1, 1]
    for player in state.players:
        assert (player.coins, player.influence, player.vp) == (4, 2, 0)
        assert (player.forest, player.dune) == (cat.forest.start, cat.dune.start)
        assert sum(player.unlocked) == 0 and len(player.unlocked) + 3 == 21
        assert sum(player.cubes) == sum(player.accessories) == 0
    # One starting profession each, on the upper furnace of its side; the rest boxed.
    starting = [c for cards in state.places for c in cards]
    assert sorted(state.master[c] for c in starting) == list(range(players))
    for card in starting:
        place = state.place_of(card)
        assert place == (FN_UL if cat.professions[card].side == 0 else FN_UR)
        assert cat.professions[card].deck == 2
    assert len(state.box) == 4 - players
    # The setup decisions wait: accessories, then the starting masters' disks; then the
    # start player's first turn.
    order = [(f.kind, f.seat) for f in reversed(state.decisions)]
    assert order == ([("accessory", s) for s in range(players)]
                     + [("unlock", s) for s in range(players)] + [("turn", 0)])
    assert state.current_seat() == 0


def test_the_first_card_drawn_lies_beside_its_deck() -> None:
    """Red cards fill "the next 2 leftmost" spaces, blue ones "the previous 2 rightmost"
    (L82-L96): the display reads red deck, 1st red, 2nd red, 2nd blue, 1st blue, blue deck."""
    state = new_state(seed=11, num_players=2)
    cat = state.catalogue
    rng = [seed_state(11)]
    red, blue = cat.deck("red"), cat.deck("blue")
    shuffle(rng, red)
    shuffle(rng, blue)
    assert state.profession_display == [red[-1], red[-2], blue[-2], blue[-1]]
    assert state.face_up_professions() == [red[-3], *state.profession_display, blue[-3]]


def test_setup_is_seeded() -> None:
    assert new_state(9, 3).to_json() == new_state(9, 3).to_json()
    assert new_state(9, 3).to_json() != new_state(10, 3).to_json()


def test_setup_player_counts() -> None:
    for bad in (0, 5, "2"):
        with pytest.raises(InvalidOptionError, match="1-4 players"):
            new_state(0, bad)  # type: ignore[arg-type]


# -- JSON ---------------------------------------------------------------------------------
def busy_position() -> StephensState:
    """A mid-game-looking position touching every field."""
    state = blank(3, seed=4)
    attach(state, "furnace-keeper", "FN-UL", 0, apprentice=1)
    attach(state, "stoker", "FN-UL", 2)
    attach(state, "fishwife", "SF-LL", 1, apprentice=0)
    attach(state, "annealer", "FN-UR", 2)
    settle_disks(state, {0: ["I5", "V1", "V4"]})
    me = state.players[0]
    me.coins, me.influence, me.vp, me.forest, me.dune = 7, 6, 12, 2, 9
    me.cubes[2] = 3
    me.accessories[1] = 2
    me.reserved = [1, 0, 2]
    give_investment(state, 0, "utensils-3", "orange")
    give_investment(state, 0, "theatre", "pink")
    give_investment(state, 0, "pottery-6", "black")
    me.fulfilled[0].append(contract(state, "crown-02"))
    me.placed_accessories[0] = 1
    state.players[1].contracts.append(state.contract_deck.pop())
    state.contract_discard.append(state.contract_deck.pop())
    state.investment_discard.append(state.investment_deck.pop())
    state.profession_discards[0].append(state.profession_decks[0].pop())
    state.profession_discards[1].append(state.profession_display[3])
    state.profession_display[3] = EMPTY
    state.factories[2] = [0, 1, 3]
    state.furnaces = [1, 2, 1, 4]
    state.army, state.round, state.active = 45, 3, 2
    # P3 triggered a reset; P1 is to supply the cubes reserved on investments.
    state.decisions = [Frame.make("turn", 2, stage=2), Frame.make("reset", 2, step=7, final=0),
                       Frame.make("supply", 0, last=-1, accessories=0, influence=0, assign=0,
                                  acquire=0)]
    return state


def positions() -> list[StephensState]:
    return [new_state(s, n) for s, n in ((0, 2), (1, 3), (2, 4))] + [busy_position()]


def test_json_round_trip_and_clone_independence() -> None:
    for state in positions():
        data = state.to_json()
        assert json.loads(json.dumps(data)) == data
        assert tuple(data) == STATE_FIELDS and tuple(data["players"][0]) == PLAYER_FIELDS
        twin = state_from_json(data)
        assert twin.to_json() == data
        copy_ = state.clone()
        copy_.players[0].cubes[0] += 1
        copy_.places[FN_UL].append(0)
        copy_.contract_deck.pop()
        copy_.decisions.clear()
        copy_.rng[0] ^= 1
        assert state.to_json() == data


def pull(data: dict[str, Any], card: str, section: str = "professions") -> str:
    """Take ``card`` out of the decks, display, discards or box of ``data``."""
    for name, pile in data[section].items():
        if card in pile:
            if name == "display":
                pile[pile.index(card)] = None
            else:
                pile.remove(card)
            return card
    raise AssertionError(card)


def pop_contracts(data: dict[str, Any], n: int) -> list[str]:
    return [data["contracts"]["deck"].pop() for _ in range(n)]


def broken(mutate) -> dict[str, Any]:
    data = copy.deepcopy(busy_position().to_json())
    mutate(data)
    return data


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(game="samara"), "field 'game' must be 'stephens'"),
    (lambda d: d.update(num_players=5), r"num_players must be an integer in 1\.\.4"),
    (lambda d: d.update(army=43), "army must be a space the French army stops on"),
    (lambda d: d.update(rng="xyz"), "rng must be a hex string"),
    (lambda d: d["furnaces"].update({"FN-UL": 9}), r"furnaces\.FN-UL must be an integer"),
    (lambda d: d["contracts"]["deck"].pop(), r"contracts: 1 contract\(s\) are nowhere"),
    (lambda d: d["investments"]["deck"].append(d["investments"]["deck"][0]),
     r"investments\.deck\[\d+\]: investment '.*' is also at investments\.deck\[0\]"),
    (lambda d: d["professions"]["red_deck"].append("packer"),
     r"professions\.red_deck\[\d+\]: packer is not a red profession"),
    (lambda d: d["places"]["FN-UR"].append({"card": pull(d, "chair-caner"), "master": 0,
                                            "apprentice": None}),
     r"places\.FN-UR\[1\]\.card: chair-caner belongs on the left side"),
    (lambda d: d["places"]["FN-UL"][1].update(apprentice=2),
     r"places\.FN-UL\[1\]\.apprentice: stoker has no apprentice space"),
    (lambda d: d["places"]["FN-UL"][0].update(apprentice=0),
     r"places\.FN-UL\[0\]\.apprentice: the master's own colour cannot reinforce"),
    (lambda d: d["players"][0].update(influence=10), r"players\[0\]\.influence must be an "
                                                     r"integer in 0\.\.9"),
    (lambda d: d["players"][0].update(unlocked=["I5", "V4"]),
     r"players\[0\]\.unlocked: V4 needs V1 unlocked first"),
    (lambda d: d["players"][0]["investments"]["pink"].append(
        pull(d, "utensils-1", "investments")),
     r"players\[0\]\.investments\.pink\[1\]: utensils-1 depicts orange cubes, not pink"),
    (lambda d: d["players"][0]["fulfilled"]["uk"].append(
        d["players"][0]["fulfilled"]["crown"].pop()),
     r"players\[0\]\.fulfilled\.uk\[0\]: crown-02 is a crown contract"),
    (lambda d: d["players"][1]["contracts"].extend(pop_contracts(d, 3)),
     r"players\[1\]\.contracts: at most 3 contracts to fulfil"),
    (lambda d: d["players"][0]["unlocked"].append("S1"),
     r"players\[0\]\.unlocked: 2 workers on profession cards, but 3 disks are off"),
    (lambda d: d["decisions"].append({"kind": "unlock", "seat": 2, "context": {}}),
     r"players\[2\]\.unlocked: 2 workers on profession cards, but 2 disks are off the board "
     r"and 1 unlock decision\(s\) pending"),
    (lambda d: d["decisions"].append({"kind": "fly", "seat": 0, "context": {}}),
     r"decisions\[3\]\.kind must be one of"),
    (lambda d: d["decisions"].append({"kind": "accessory", "seat": 0, "context": {"x": 1}}),
     r"decisions\[3\]\.context of a 'accessory' frame holds nothing"),
    (lambda d: d["places"]["SF-LL"].append({"card": "stoker", "master": 0, "apprentice": None}),
     r"places\.FN-UL\[1\]\.card: profession 'stoker' is also at places\.SF-LL\[1\]"),
    (lambda d: d["places"]["SF-UL"].append({"card": pull(d, "chair-caner"), "master": 1,
                                            "apprentice": None}),
     r"places: SF-UL holds 1 professions and SF-LL below it 1 \(the placement rule\)"),
    (lambda d: d["players"][0].update(placed_accessories={"blowpipe": 2, "shears": 0,
                                                          "mould": 0}),
     r"players\[0\]\.placed_accessories: 2 accessories on fulfilled contracts that take 1"),
    (lambda d: d["players"][1].update(reserved={"orange": 0, "pink": 1, "black": 0}),
     r"players\[1\]\.reserved\.pink: no pink investment to hold the cubes"),
    (lambda d: d["players"][0].pop("dune"), r"players\[0\]: missing field\(s\) dune"),
    (lambda d: d.update(extra=1), r"state: unknown field\(s\) extra"),
    (lambda d: d["players"][2]["cubes"].update(green=-1),
     r"players\[2\]\.cubes\.green must be an integer"),
])
def test_impossible_positions_are_rejected_naming_the_field(mutate, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(broken(mutate))


def test_a_hand_built_position_is_legal() -> None:
    round_trip(busy_position())


# -- what players see ------------------------------------------------------------------
def test_observation_is_the_same_for_everyone_and_hides_only_deck_order() -> None:
    for state in positions():
        view = state.observation(None)
        assert all(state.observation(s) == view for s in range(state.num_players))
        assert "rng" not in view
        assert view["contracts"]["deck"] == len(state.contract_deck)
        assert view["investments"]["deck"] == len(state.investment_deck)
        red = view["professions"]["red_deck"]
        top = state.catalogue.professions[state.profession_decks[0][-1]].id
        assert red == {"count": len(state.profession_decks[0]), "top": top}
        assert view["contracts"]["display"] == state.to_json()["contracts"]["display"]
        json.dumps(view)


@pytest.mark.parametrize("observer", [None, 0, 1, 2])
def test_determinize_keeps_the_observation_and_reshuffles_the_decks(observer) -> None:
    for state in positions():
        if observer is not None and observer >= state.num_players:
            continue
        seen = state.observation(observer)
        changed = set()
        for k in range(8):
            other = state.determinize(observer, random.Random(k))
            assert other.observation(observer) == seen
            round_trip(other)
            changed |= {name for name in ("contract_deck", "investment_deck")
                        if getattr(other, name) != getattr(state, name)}
            if other.profession_decks[0][:-1] != state.profession_decks[0][:-1]:
                changed.add("red")
            if other.rng != state.rng:
                changed.add("rng")
            assert other.profession_decks[0][-1] == state.profession_decks[0][-1]
        assert changed == {"contract_deck", "investment_deck", "red", "rng"}


def test_render_draws_the_observation() -> None:
    state = busy_position()
    text = state.render(0)
    assert "French army on 45" in text and "waiting for P1: supply" in text and "player 1" not in text
    assert "fishwife[P2+P1]" in text and "fulfilled crown: crown-02" in text
    assert "deck" in text and str(state.contract_deck[-1]) not in text.split()
    assert state.render(None) == state.render(1)


def test_state_helpers() -> None:
    state = busy_position()
    fishwife = state.catalogue.profession_ids["fishwife"]
    assert state.place_of(fishwife) == SF_LL and state.workers_of(0) == 2 + 0
    assert state.place_of(state.profession_decks[0][0]) is None
    assert state.master[state.profession_decks[0][0]] == NOBODY


def test_render_names_the_seat_to_play_and_the_track() -> None:
    """The first line names the seat whose decision is on top (not the round's active
    player: at the start P2 unlocks while P1 is active), and a player's VP is the
    scoring track's, which the score of a game in progress (final scoring as if it
    ended now) exceeds: the line says which it is."""
    state = new_state(seed=0, num_players=2)
    while state.current_player() != 1:
        state.apply(state.legal_moves()[0])
    first = state.render(0).splitlines()[0]
    assert "P2 to play" in first, first
    assert "P1: 0 VP on the scoring track" in state.render(0)
