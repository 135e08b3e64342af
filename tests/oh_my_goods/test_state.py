"""Oh My Goods!'s game API: random games, serialization, notation, hidden information."""

from __future__ import annotations

import copy
import json
import random
from functools import cache

import pytest

from engine.game import InvalidOptionError, InvalidStateError, MoveParseError
from engine.oh_my_goods import GAME, CatalogueError, load_catalogue
from engine.oh_my_goods.catalogue import parse_catalogue
from engine.oh_my_goods.codec import state_from_json
from engine.oh_my_goods.vocabulary import BUILDINGS_TO_END, START_HAND, decode_move, encode_move
from engine.validation import packaged_catalogue_json
from fuzzers import states as fuzz


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


# -- hardening: the loader accepts exactly what the rules and the kernel can play ---------

@cache
def _found(kind: str) -> dict:
    """The JSON of the first position of seeded random games that is ``kind``."""
    tests = {
        "supply": lambda s: s.phase == "act" and s.step == "supply",
        "chain": lambda s: s.phase == "act" and s.step == "chain",
        "build": lambda s: s.pay is not None and s.pay["purpose"] == "build",
        "hire": lambda s: s.pay is not None and s.pay["purpose"] == "hire",
        "shift": lambda s: s.pay is not None and s.pay["purpose"] == "shift",
        "place": lambda s: s.phase == "act" and s.step == "place",
        "choose": lambda s: s.phase == "choose" and s.turn == 1,
        "act": lambda s: s.phase == "act" and s.turn >= 1 and s.step == "run",
        "over": lambda s: s.is_terminal(),
        "built": lambda s: s.phase == "act" and s.round > 2 and s.turn == 0
        and all(p.buildings for p in s.players),
        "redraw": lambda s: s.phase == "redraw" and s.turn == 0 and s.round > 1
        and bool(s.players[s.active].hand),
        "shown": lambda s: len(s.shown) >= 2,
    }
    for seed in range(60):
        state = GAME.new_game(seed, 2 + seed % 3, {"second_edition": seed % 2 == 1})
        rng = random.Random(seed)
        while True:
            if tests[kind](state):
                return state.to_json()
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))
    raise AssertionError(f"no {kind} position in 60 random games")


def _seat(data: dict) -> dict:
    return data["players"][(data["active"] + data["turn"]) % data["num_players"]]


def _discard_goods(player: dict, data: dict) -> None:
    for goods in player["goods"]:
        data["discard"] += goods
        data["shown_goods"] = [c for c in data["shown_goods"] if c not in goods]
        goods.clear()


def _rejected(data: dict, message: str) -> str:
    with pytest.raises(InvalidStateError, match=message) as caught:
        state_from_json(data)
    assert caught.value.__cause__ is None  # a check of the loader, not a stray exception
    return str(caught.value)


@pytest.mark.parametrize("kind", ["supply", "chain", "build", "hire", "shift", "place",
                                  "choose", "act", "over"])
def test_positions_of_every_phase_and_step_load(kind: str) -> None:
    data = _found(kind)
    assert state_from_json(data).to_json() == data


def test_the_building_being_run_is_one_the_seat_started() -> None:
    """Issue: act.running 0..63 was accepted; beyond the seat's buildings the kernel
    wrote goods out of bounds (a worker crashed) and the reference raised IndexError."""
    for value, message in ((60, "act.running must name a building that started"),
                           (-1, "act.running must name"), ("3", "act.running must be")):
        data = copy.deepcopy(_found("supply"))
        data["act"]["running"] = value
        _rejected(data, message)


def test_the_chain_runs_in_a_building_that_worked() -> None:
    """Issue: act.chain_slot was checked against the buildings only outside phase over,
    and never against the step."""
    data = copy.deepcopy(_found("chain"))
    data["act"]["handled"] = [s for s in data["act"]["handled"]
                              if s != data["act"]["chain_slot"]]
    if data["act"]["running"] >= 0:
        data["act"]["running"] = -1
    _rejected(data, "act.chain_slot must name a building that worked")
    data = copy.deepcopy(_found("over"))
    data["act"]["chain_slot"] = 63
    _rejected(data, "act.chain_slot must be -1 outside phase IV")
    data = copy.deepcopy(_found("act"))
    data["act"]["chain_slot"] = 0
    _rejected(data, "act.chain_slot must be -1 in step run")


def test_handled_names_distinct_production_buildings() -> None:
    """Issue: 60 handled entries passed the loader and were refused by the kernel (so
    search fell back to the slow reference rules without a word)."""
    data = copy.deepcopy(_found("act"))
    data["act"]["handled"] = [0] * 60
    _rejected(data, r"act.handled\[1\]: #0 is listed twice")
    data["act"]["handled"] = [len(_seat(data)["buildings"]) + 1]
    _rejected(data, r"act.handled\[0\]: #\d+ is not a production building")


def test_a_need_the_hand_cannot_cover_is_rejected() -> None:
    """Issue: raising act.need past the hand left the seat without a legal move (random
    play raised ZeroDivisionError)."""
    data = copy.deepcopy(_found("supply"))
    need = data["act"]["need"]
    r = next(i for i, n in enumerate(need) if n)
    need[r] += 1
    _rejected(data, r"act.need")


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    [
        ("build", lambda d: d["act"]["pay"].update(arg=387), "the planned card"),
        ("build", lambda d: d["act"]["pay"].update(due=d["act"]["pay"]["due"] + 1),
         "act.pay.due must be"),
        ("build", lambda d: d["act"]["pay"].update(paid=d["act"]["pay"]["due"]),
         "act.pay.paid"),
        ("build", lambda d: d["act"]["pay"].update(last=40), "act.pay.last: no building"),
        ("build", lambda d: _discard_goods(_seat(d), d), "cannot pay"),
        ("hire", lambda d: d["act"]["pay"].update(
            arg=next(i for i in range(8) if f"assistant-{i + 1}" not in
                     [p["assistant"] for p in d["pool"]])), "not for hire"),
        ("shift", lambda d: d["act"]["pay"].update(arg=63), "one of the seat's"),
        ("shift", lambda d: d["act"].update(step="build"), "act.step must be 'run'"),
        ("place", lambda d: d["act"].update(hired=None), "act.hired"),
    ],
)
def test_payments_and_hires_fit_their_purpose(kind, change, message) -> None:
    """Issue: a build payment's arg was any number (the reference raised IndexError on
    paying it off, the kernel built an unsigned-char wrap-around), a hire could name an
    assistant not for hire (StopIteration when placing it), a payment could be beyond
    the goods (no legal move)."""
    data = copy.deepcopy(_found(kind))
    change(data)
    _rejected(data, message)


def test_final_round_is_the_current_round() -> None:
    """Issue: final_round two rounds ahead passed the loader and the kernel refused it."""
    data = copy.deepcopy(_found("act"))
    data["final_round"] = data["round"] + 2
    _rejected(data, "final_round must be null or the current round")
    data["final_round"] = None
    extra = BUILDINGS_TO_END - len(data["players"][0]["buildings"])
    data["players"][0]["buildings"] += [data["deck"].pop() for _ in range(extra)]
    data["players"][0]["goods"] += [[] for _ in range(extra)]
    _rejected(data, r"players\[0\].buildings: \d+ buildings; a player builds at most one")


def test_starting_hands_name_every_seat() -> None:
    """Issue: missing starting_hands passed the loader and the kernel refused it."""
    data = copy.deepcopy(_found("act"))
    del data["starting_hands"]
    _rejected(data, "starting_hands: missing")
    data["starting_hands"] = [5]
    _rejected(data, "starting_hands must be a list of")


def test_starting_hands_are_hands_a_round_could_begin_with() -> None:
    """Issue 38: starting_hands [94, 0] (every card in one hand) loaded."""
    data = copy.deepcopy(GAME.new_game(1, 2).to_json())
    assert data["round"] == 1 and data["starting_hands"] == [START_HAND, START_HAND]
    data["starting_hands"] = [94, 0]
    message = _rejected(data, r"^starting_hands\[0\]: .*round 1 begins with the "
                              r"5 cards each seat is dealt")
    assert "94" in message
    later = copy.deepcopy(_found("built"))
    built = sum(len(p["buildings"]) for p in later["players"])
    # The seat to move may have built one of them this round: one card too many.
    later["starting_hands"] = [94 - built + 2] + [0] * (later["num_players"] - 1)
    with pytest.raises(InvalidStateError, match=r"^starting_hands: .* hands") as caught:
        state_from_json(later)
    assert caught.value.kind == "bound" and caught.value.path == "starting_hands"


def test_a_hand_does_not_grow_before_the_deal() -> None:
    """Phase I (redraw) comes before the deal: a hand holds at most the cards the
    round began with (a redraw draws as many as it discards)."""
    data = copy.deepcopy(_found("redraw"))
    seat = data["active"]
    data["starting_hands"][seat] = len(data["players"][seat]["hand"]) - 1
    _rejected(data, rf"^players\[{seat}\].hand: {len(data['players'][seat]['hand'])} cards "
                    rf"in phase I")


def test_shown_goods_are_in_catalogue_order() -> None:
    """Issue 38: the description says shown_goods are sorted; unsorted ones loaded."""
    data = copy.deepcopy(_found("shown"))
    data["shown_goods"].reverse()
    message = _rejected(data, r"^shown_goods\[1\]: .* comes before .* in the catalogue")
    assert "catalogue order" in message


def test_phase_two_choices_follow_the_turn() -> None:
    """Issue: a seat could plan twice when 'active' or 'turn' said it had not chosen
    yet: the second plan replaced the first and that card left the game."""
    data = copy.deepcopy(_found("choose"))
    data["turn"] = 0
    _rejected(data, r"players\[\d\].chosen")
    data = copy.deepcopy(_found("choose"))
    later = data["players"][(data["active"] + 2) % data["num_players"]] \
        if data["num_players"] > 2 else None
    if later is not None:
        later["plan"] = later["hand"].pop()
        _rejected(data, r"players\[\d\].(chosen|plan)")


def test_a_seat_that_is_done_holds_no_worker_or_plan() -> None:
    data = copy.deepcopy(_found("act"))
    done = data["players"][data["active"]]
    done["plan"] = done["hand"].pop() if done["hand"] else data["deck"].pop()
    _rejected(data, r"plan: no building is planned once its phase IV is done")


def test_redraw_is_a_second_edition_phase() -> None:
    data = copy.deepcopy(_found("choose"))
    data["options"] = {"second_edition": False}
    data["phase"] = "redraw"
    _rejected(data, "second edition only")


def test_placing_an_assistant_needs_room_for_it() -> None:
    """A seat with 2 assistants cannot place a third (the kernel holds 2 a seat)."""
    data = copy.deepcopy(_found("place"))
    seat = _seat(data)
    state = state_from_json(data)
    mover = state.seat()
    free = state._free_work_slots(mover)
    spare = [e for e in data["pool"] if e["assistant"] != data["act"]["hired"]]
    assert not seat["assistants"] and len(free) >= 2 and len(spare) >= 2
    for entry, slot in zip(spare[:2], free[:2], strict=True):
        data["pool"].remove(entry)
        seat["assistants"].append({**entry, "slot": slot})
    _rejected(data, "act.hired: the seat to move has 2 assistants already")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(rng="0x12"), "rng must be a hex string"),
        (lambda d: d.update(rng="1" * 17), "rng must be a hex string"),
        (lambda d: d.update(round=[[[]]] * 3), "^round must be an integer"),
        (lambda d: d["players"][0].update(hand=[["mill-1"]]),
         r"^players\[0\].hand\[0\] must be a string"),
        (lambda d: d["act"].update(hired=[]), "^act.hired must be a string"),
        (lambda d: d["act"].update(shifted=[{}]), r"^act.shifted\[0\] must be a string"),
        (lambda d: d["pool"].append({"assistant": [], "face": 0}),
         r"^pool\[\d\].assistant must be a string"),
        (lambda d: d.update(shown_goods=[{"a": 1}]), r"^shown_goods\[0\]"),
    ],
)
def test_hostile_values_are_rejected_naming_the_field(change, message) -> None:
    data = copy.deepcopy(_found("act"))
    change(data)
    _rejected(data, message)


def test_a_deeply_nested_value_is_rejected_not_a_recursion_error() -> None:
    """Issue: the error message's repr of a deeply nested value raised RecursionError."""
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    data = copy.deepcopy(_found("act"))
    data["active"] = deep
    message = _rejected(data, "^active must be an integer")
    assert len(message) < 200


def test_mutated_catalogues_are_rejected_naming_the_entry_or_load() -> None:
    """Issue: a catalogue whose 'resources' was not a list, or whose chain listed a
    list, raised TypeError instead of CatalogueError."""
    doc = default_data()
    source = fuzz.Corpus("oh-my-goods-catalogue", (doc,), (), {}, {})
    for data in ({**doc, "resources": 1.5},
                 {**doc, "buildings": [{**doc["buildings"][1], "chain": [[]]},
                                       *doc["buildings"][2:]]}):
        with pytest.raises(CatalogueError) as caught:
            parse_catalogue(data)
        assert caught.value.__cause__ is None
    for index in range(300):
        data, mutation = fuzz.mutate(doc, source, random.Random(index))
        try:
            parse_catalogue(data)
        except CatalogueError as exc:
            assert exc.__cause__ is None, (mutation, exc)
