"""Oh My Goods!'s game API: random games, serialization, notation, hidden information."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.game import InvalidOptionError, InvalidStateError, MoveParseError
from engine.oh_my_goods import GAME, CatalogueError, load_catalogue
from engine.oh_my_goods.catalogue import parse_catalogue
from engine.oh_my_goods.rules import decode_move, encode_move, state_from_json
from engine.validation import packaged_catalogue_json


def random_positions(games: int = 9, every: int = 13):
    for g in range(games):
        state = GAME.new_game(g, 2 + g % 3, {"second_edition": g % 3 == 2})
        rng = random.Random(g)
        ply = 0
        while not state.is_terminal():
            if ply % every == 0:
                yield state
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
            ply += 1
        yield state


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("second", [False, True])
def test_seeded_random_games_finish_and_rank(players: int, second: bool) -> None:
    for seed in range(3):
        state = GAME.new_game(seed, players, {"second_edition": second})
        outcome = state.clone().rollout(seed)
        assert abs(sum(outcome.rewards) - 1) < 1e-9
        assert len(outcome.scores) == players
        replay = GAME.new_game(seed, players, {"second_edition": second})
        assert replay.clone().rollout(seed) == outcome  # reproducible


def test_json_round_trip_and_clone_independence() -> None:
    for state in random_positions():
        data = state.to_json()
        assert json.loads(json.dumps(data)) == data
        assert state_from_json(data).to_json() == data
        twin = state.clone()
        if not twin.is_terminal():
            twin.apply(twin.legal_moves()[0])
            assert state.to_json() == data


def test_restored_state_plays_on_identically() -> None:
    state = GAME.new_game(11, 3)
    for _ in range(40):
        state.apply(state.legal_moves()[-1])
    twin = GAME.state_from_json(state.to_json())
    assert twin.clone().rollout(5) == state.clone().rollout(5)


def test_every_legal_move_prints_and_parses_back() -> None:
    for state in random_positions(games=6):
        for move in state.legal_moves():
            assert state.parse_move(state.move_to_text(move)) == move
            assert state.why_illegal(move) is None


def test_why_illegal_is_none_exactly_for_legal_moves() -> None:
    rng = random.Random(3)
    for state in random_positions(games=6, every=17):
        legal = set(state.legal_moves())
        probes = list(state._candidates()) + [rng.randrange(0, 20 << 10) for _ in range(30)]
        for move in probes:
            reason = state.why_illegal(move)
            assert (reason is None) == (move in legal), (state.move_to_text(move), reason)
            if reason is not None:
                assert isinstance(reason, str) and reason


def test_malformed_moves_are_rejected_with_the_notation() -> None:
    state = GAME.new_game(0, 2)
    for text in ["", "fly", "work #1", "work 1 orderly", "plan nothing", "hire bob",
                 "pay 3", "keep now", "chain mill-1 mill-2"]:
        with pytest.raises(MoveParseError):
            state.parse_move(text)
    assert decode_move(encode_move(9, 77)) == (9, 77)


def test_bad_player_counts_and_options() -> None:
    with pytest.raises(InvalidOptionError, match="2-4 players, not 5"):
        GAME.new_game(0, 5)
    with pytest.raises(InvalidOptionError, match="unknown option"):
        GAME.new_game(0, 2, {"speed": 1})
    with pytest.raises(InvalidOptionError, match="must be bool"):
        GAME.new_game(0, 2, {"second_edition": "yes"})


# -- hidden information -------------------------------------------------------
def choose_position(seed: int = 2, players: int = 3):
    """Phase II with seat 0 (and maybe 1) already decided, seat 2 or later to move."""
    state = GAME.new_game(seed, players)
    rng = random.Random(seed)
    while not (state.phase == "choose" and state.current_player() != state.active):
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    return state


def test_observation_hides_hands_deck_and_pending_choices() -> None:
    state = choose_position()
    me = state.current_player()
    done = state.active
    obs = state.observation(me)
    assert isinstance(obs["deck"], int)
    assert obs["players"][me]["hand"] == [state.catalogue.cards[c].id
                                          for c in state.players[me].hand]
    other = obs["players"][done]
    assert isinstance(other["hand"], int)
    assert other["work"] is None and other["plan"] is None
    assert other["hand"] == len(state.players[done].hand) + (state.players[done].plan is not None)
    assert "rng" not in obs
    assert all(card is None for g in other["goods"] for card in g)  # face down
    json.dumps(obs)


def test_determinize_keeps_what_the_observer_sees() -> None:
    for state in random_positions(games=4, every=23):
        if state.is_terminal():
            continue
        me = state.current_player()
        twin = state.determinize(me, random.Random(1))
        assert twin.observation(me) == state.observation(me) or state.phase == "choose"
        if state.phase == "choose":
            a, b = twin.observation(me), state.observation(me)
            assert a["players"][me] == b["players"][me]
            assert [p["hand"] for p in a["players"]] == [p["hand"] for p in b["players"]]
        GAME.state_from_json(twin.to_json())  # a consistent, valid state
        twin.clone().rollout(3)


def test_determinize_never_depends_on_hidden_truth() -> None:
    state = choose_position()
    me = state.current_player()
    other = state.active
    alt = state.clone()
    # swap the opponent's hand and pending choice with deck cards, change its worker mode
    p = alt.players[other]
    hidden = p.hand + ([p.plan] if p.plan is not None else [])
    fresh = alt.deck[:len(hidden)]
    alt.deck = hidden + alt.deck[len(hidden):]
    p.hand = fresh[:len(p.hand)]
    p.plan = fresh[-1] if p.plan is not None else None
    p.work = (0, 1 - p.work[1]) if p.work else None
    alt.rng = [12345]
    random.Random(0).shuffle(alt.deck)
    assert alt.observation(me) == state.observation(me)
    a = state.determinize(me, random.Random(7)).to_json()
    b = alt.determinize(me, random.Random(7)).to_json()
    assert a == b


def test_determinize_in_phase_four_hides_only_plans_and_cards() -> None:
    state = GAME.new_game(4, 2)
    rng = random.Random(4)
    while state.phase != "act":
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    me = state.current_player()
    twin = state.determinize(me, random.Random(2))
    for p, (x, y) in enumerate(zip(twin.players, state.players, strict=True)):
        assert x.work == y.work and x.buildings == y.buildings
        assert [len(g) for g in x.goods] == [len(g) for g in y.goods]
        assert len(x.hand) == len(y.hand) and (x.plan is None) == (y.plan is None)
        if p == me:
            assert x.hand == y.hand and x.plan == y.plan


# -- validation -----------------------------------------------------------------
def default_data() -> dict:
    return packaged_catalogue_json("engine.oh_my_goods")


def test_default_catalogue_loads() -> None:
    cat = load_catalogue()
    assert len(cat.cards) == 94


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["deck"].append(dict(d["deck"][0], id="extra-1")), "111 cards"),
        (lambda d: d["deck"][3].update(resource="iron"),
         r"deck\[3\] \(brick-manufacture-4\).*'resource'"),
        (lambda d: d["deck"][5]["inputs"].update(sand=2), r"deck\[5\].*unknown resource 'sand'"),
        (lambda d: d["deck"][0].pop("cost"), r"deck\[0\].*missing field 'cost'"),
        (lambda d: d["deck"][1].update(building="castle"), r"deck\[1\].*unknown building"),
        (lambda d: d["deck"][2].update(source="guess"), r"deck\[2\].*'source'"),
        (lambda d: d["deck"][7].update(id=d["deck"][6]["id"]), r"deck\[7\].*duplicate id"),
        (lambda d: d["assistants"][0]["faces"].pop(), r"assistants\[0\].*exactly 2 faces"),
        (lambda d: d["assistants"][1]["faces"][0]["needs"].update(purple=1),
         r"assistants\[1\].*faces\[0\].*unknown colour"),
        (lambda d: d["buildings"][3].update(chain=["gold"]), r"buildings\[3\].*'gold'"),
        (lambda d: d["deck"][0].update(half_sun="yes"), r"deck\[0\].*'half_sun'"),
        (lambda d: d.update(game="samara"), "'game'"),
    ],
)
def test_broken_catalogues_are_rejected_naming_entry_and_field(mutate, message) -> None:
    data = default_data()
    mutate(data)
    with pytest.raises(CatalogueError, match=message):
        parse_catalogue(data)


def test_catalogue_file_errors(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CatalogueError, match="not valid JSON"):
        load_catalogue(bad)
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["players"][0]["hand"].append(d["deck"][0]),
         r"players\[0\].hand.*also at deck"),
        (lambda d: d["deck"].pop(), "nowhere"),
        (lambda d: d["deck"].append("castle-9"), "unknown card"),
        (lambda d: d.update(num_players=5), "num_players"),
        (lambda d: d["players"][1].update(charburner=d["players"][0]["charburner"]),
         r"players\[1\].charburner"),
        (lambda d: d["act"].update(need=[0, -1, 0, 0, 0, 0]), r"act.need\[1\]"),
        (lambda d: d["players"][0]["goods"].append([]), r"players\[0\].goods"),
        (lambda d: d.update(phase="dusk"), "phase"),
        (lambda d: d.update(rng=7), "rng"),
        (lambda d: d["pool"].append(dict(d["pool"][0])), r"pool\[\d\].assistant"),
    ],
)
def test_impossible_states_are_rejected_naming_the_field(mutate, message) -> None:
    data = copy.deepcopy(GAME.new_game(1, 2).to_json())
    mutate(data)
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(data)


def test_render_and_heuristic() -> None:
    state = GAME.new_game(0, 3)
    text = state.render()
    assert "Charburner" in text and "market:" in text
    assert len(state.heuristic()) == 3


def test_a_seat_supplying_out_of_sight_keeps_a_playable_hand() -> None:
    """Determinizing another seat's supply step: its new hand still covers the need, and
    the draw pile still fits inside the last reshuffle (a sloppy worker one unit short
    once took a pile card the draw pile needed)."""
    state = GAME.new_game(101, 3, {"second_edition": False})
    rng = random.Random(101)
    for _ in range(350):
        state.apply(rng.choice(state.legal_moves()))
    assert state.step == "supply" and state.reshuffled and state.slack == 1
    mover = state.seat()
    for observer in range(3):
        for k in range(50):
            twin = state.determinize(observer, random.Random(k))
            assert twin.legal_moves(), (observer, k)
            assert len(twin.deck) == len(state.deck)
            assert set(twin.deck) <= set(state.reshuffled)
            assert twin._shortfall(mover, twin.need) <= twin.slack
    # many more supply steps, seen from every other seat
    checked = 0
    for seed in range(12):
        s = GAME.new_game(seed, 2 + seed % 3)
        r = random.Random(seed)
        while not s.is_terminal():
            if s.phase == "act" and s.step == "supply":
                for observer in range(s.num_players):
                    twin = s.determinize(observer, random.Random(checked))
                    assert twin.legal_moves()
                    checked += 1
            s.apply(r.choice(s.legal_moves()))
    assert checked > 100
