"""Samara's game API: serialization, notation, explanations, catalogue validation."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine import registry
from engine.game import InvalidOptionError, InvalidStateError, MoveParseError
from engine.samara import GAME, CatalogueError, load_catalogue
from engine.samara.catalogue import COMPASS, SAW, SQUARE, parse_catalogue
from engine.samara.codec import state_from_json
from engine.samara.state import Decision, SamaraState
from engine.validation import packaged_catalogue_json
from fuzzers import states as fuzz


def test_malformed_moves_are_rejected_with_the_notation() -> None:
    state = GAME.new_game(0, 2)
    for text in ["", "fly", "tool hammer r1c1 1", "build r9c9 1", "recruit child",
                 "tool saw r1c1 0", "give 3"]:
        with pytest.raises(MoveParseError):
            state.parse_move(text)


def test_bad_player_counts_and_options() -> None:
    with pytest.raises(InvalidOptionError, match="2-5 players, not 6"):
        GAME.new_game(0, 6)
    with pytest.raises(InvalidOptionError, match="unknown option 'speed'"):
        GAME.new_game(0, 2, {"speed": 1})
    with pytest.raises(InvalidOptionError, match="must be bool"):
        GAME.new_game(0, 2, {"powers": "yes"})


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(game="chess"), "field 'game'"),
        (lambda d: d.update(num_players=9), "num_players"),
        (lambda d: d["spots"][0].update(tile="castle"), "unknown tile 'castle'"),
        (lambda d: d["spots"][1].update(tile=d["spots"][0]["tile"]), "is also at"),
        (lambda d: d["spots"][0]["tools"].update(saw=5), "saw in play"),
        (lambda d: d["foremen"][0]["tools"].update(saw=3), r"tools.saw must be an integer in 0..2"),
        (lambda d: d["track"][0]["workers"].pop(), "men and"),
        (lambda d: d["track"][0]["workers"][0].update(owner=7), "owner"),
        (lambda d: d["foremen"][0].update(powers=["bridge"]), "without its building"),
        (lambda d: d.update(month="soon"), "month"),
        (lambda d: d.update(spots=[]), "spots must be a list"),
    ],
)
def test_corrupt_states_are_rejected_naming_the_field(mutate, message) -> None:
    data = copy.deepcopy(GAME.new_game(4, 3).to_json())
    mutate(data)
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(data)


def test_registry_rebuilds_states_and_rejects_junk() -> None:
    state = GAME.new_game(1, 2)
    assert registry.state_from_json(state.to_json()).to_json() == state.to_json()
    with pytest.raises(InvalidStateError):
        registry.state_from_json([1, 2, 3])  # type: ignore[arg-type]


def _catalogue() -> dict:
    return packaged_catalogue_json("engine.samara")


def test_default_catalogue_is_consistent() -> None:
    cat = load_catalogue()
    assert len(cat.tiles) == 36 and len(cat.spots) == 30 and cat.tiles_used == 30
    assert sum(1 for t in cat.tiles if t.power) == 13
    assert (3, 1) in {(s.row, s.col) for s in cat.spots}  # the rulebook's compass example


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["tiles"][3].update(saws=7), r"tiles\[3\] \(hut-2\): field 'saws'"),
        (lambda d: d["tiles"][4].update(id="hut-1"), "duplicate tile id"),
        (lambda d: d["tiles"][0].pop("prestige"), "missing field 'prestige'"),
        (lambda d: d["tiles"][0].update(power="teleport"), "unknown power"),
        (lambda d: d["spots"][0].update(tools=[1, 1]), r"spots\[0\] \(r1c1\)"),
        (lambda d: d["spots"][0].update(tools=[5, 2, 2, 3]), "tools laid for 2 players"),
        (lambda d: d["spots"].pop(), "29 spots"),
        (lambda d: d["tiles"][0].update(source="guess"), "field 'source'"),
    ],
)
def test_broken_catalogues_are_rejected_naming_the_entry(mutate, message, tmp_path) -> None:
    data = _catalogue()
    mutate(data)
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(path)
    with pytest.raises(CatalogueError):
        parse_catalogue("not a catalogue")


# -- hardening: the loader accepts exactly what the rules and the kernel can play ---------

def _just_built(power: str, players: int = 2, seat: int = 0) -> SamaraState:
    """A position where ``seat`` has just taken the tile with ``power`` (from its spot,
    left empty) and holds a compass and a square (moved from the board)."""
    state = GAME.new_game(4, players)
    tile = next(i for i, t in enumerate(state.catalogue.tiles) if t.power == power)
    if tile in state.unused_tiles:  # swap it onto the first spot
        state.unused_tiles[state.unused_tiles.index(tile)] = state.spot_tile[0]
        state.spot_tile[0] = tile
    si = state.spot_tile.index(tile)
    state.spot_tile[si] = None
    state.foremen[seat].buildings.append(tile)
    for kind in (COMPASS, SQUARE):
        source = next(t for t in state.spot_tools if t[kind])
        source[kind] -= 1
        state.foremen[seat].tools[kind] += 1
    return state


def _sculpture() -> SamaraState:
    """P1 must choose which trowel the Sculpture takes (compass or square)."""
    state = _just_built("sculpture")
    si = state.spot_tile.index(None)
    state.pending = [Decision("give", 0, 0, si, 1, "trowel")]
    return state


def test_a_pending_decision_from_a_power_just_used_is_accepted() -> None:
    state = state_from_json(_sculpture().to_json())
    assert state.legal_moves_text() == ["give compass", "give square"]
    state.apply_text("give square")
    assert not state.pending and state.legal_moves()


def test_a_pending_decision_nobody_can_take_is_rejected() -> None:
    """Issue: a pending 'give' for a seat without a suitable tool left the game with no
    legal move (random play raised ZeroDivisionError, the kernel ValueError)."""
    data = _sculpture().to_json()
    data["foremen"][0]["tools"].update(compass=0, square=0)
    data["spots"][0]["tools"]["compass"] += 1
    data["spots"][0]["tools"]["square"] += 1
    with pytest.raises(InvalidStateError, match=r"pending\[0\]: choose a trowel tool .* "
                                                r"impossible: P1 has nothing"):
        state_from_json(data)


def _queue(kind: str, player: int, target: int, spot: str | None, only: str = "any",
           count: int = 1) -> dict:
    return {"kind": kind, "player": player, "target": target, "spot": spot, "count": count,
            "only": only}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # more decisions than a power asks for (and than the kernel holds: 8)
        (lambda d: d["pending"].extend([d["pending"][0]] * 9), "at most the 1 other"),
        (lambda d: d["pending"][0].update(target=1), r"pending\[0\].target"),
        (lambda d: d["pending"][0].update(spot=next(x["spot"] for x in d["spots"]
                                                       if x["tile"])), "still holds a tile"),
        (lambda d: d["pending"][0].update(spot=None), r"pending\[0\].spot"),
        (lambda d: d["pending"][0].update(kind="weaken"), "only a give decision names"),
        (lambda d: d["pending"][0].update(count=2), r"pending\[0\].count"),
        (lambda d: d["pending"][0].update(only="saw"), "Boat"),
        (lambda d: d["pending"][0].update(player=1, target=1), "Sculpture"),
        (lambda d: d.update(options={"powers": False}), "without powers"),
        (lambda d: d.update(pending={"kind": "give"}), "pending must be a list"),
        (lambda d: d["foremen"][0]["buildings"].reverse(), "Sculpture"),
    ],
)
def test_pending_decisions_are_those_of_the_power_just_used(change, message) -> None:
    data = _sculpture().to_json()
    if len(data["foremen"][0]["buildings"]) < 2:  # give P1 an older building to reorder
        data["foremen"][0]["buildings"].insert(0, data["unused_tiles"].pop())
        data["unused_tiles"].append(data["spots"][1]["tile"])
        data["spots"][1]["tile"] = None
    state_from_json(data)  # valid before the change
    change(data)
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(data)


def test_more_decisions_than_the_kernel_holds_are_rejected() -> None:
    """Issue: the loader took any number of decisions; the kernel holds 8 and refused
    the state, crashing the search."""
    state = _just_built("barracks", players=5)
    si = state.spot_tile.index(None)
    for q in range(1, 5):
        state.foremen[q].tools[SAW] = 0
    state.pending = [Decision("give", q % 5, q % 5, si) for q in range(1, 10)]
    data = state.to_json()
    with pytest.raises(InvalidStateError, match="9 decisions, a power asks at most the 4"):
        state_from_json(data)


def test_a_barracks_queue_may_hold_seats_with_nothing_to_give() -> None:
    """As in play: each seat gives a tool in turn; one without tools is skipped when
    its turn comes, so such a queue is valid (and plays on)."""
    state = _just_built("barracks", players=3, seat=0)
    si = state.spot_tile.index(None)
    for kind in (COMPASS, SQUARE):  # P2 gets P1's trowels, P3 has nothing
        state.foremen[0].tools[kind] -= 1
        state.foremen[1].tools[kind] += 1
    state.pending = [Decision("give", 1, 1, si), Decision("give", 2, 2, si)]
    again = state_from_json(state.to_json())
    assert again.legal_moves_text() == ["give compass", "give square"]
    again.apply_text("give compass")
    assert not again.pending and again.current_player() >= 0
    state.pending.reverse()  # but not out of turn
    with pytest.raises(InvalidStateError, match="clockwise"):
        state_from_json(state.to_json())


@pytest.mark.parametrize(
    ("powers", "message"),
    [
        (["bridge", "bridge"], "listed twice"),
        ([], "'bridge' is missing"),
        (["school"], "without its building"),
    ],
)
def test_lasting_powers_are_those_of_the_buildings(powers, message) -> None:
    state = _just_built("bridge")
    state.foremen[0].powers = ["bridge"]
    data = state.to_json()
    state_from_json(data)
    data["foremen"][0]["powers"] = powers
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(data)
    data["foremen"][0]["powers"] = ["bridge"]
    data["options"] = {"powers": False}
    with pytest.raises(InvalidStateError, match="played without powers"):
        state_from_json(data)


def _deep(depth: int = 50_000) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(month=_deep()), r"^month must be an integer"),
        (lambda d: d["spots"][0].update(tile=_deep()), r"^spots\[0\].tile must be a string"),
        (lambda d: d["spots"][0].update(tile=["hut-1"]), r"^spots\[0\].tile must be a string"),
        (lambda d: d["track"][0]["workers"][0].update(gender={"x": 1}),
         r"^track\[0\].workers\[0\].gender"),
        (lambda d: d.update(options=[1]), "^options must be an object"),
        (lambda d: d.update(options={"powers": 1}), r"^options.powers must be bool"),
        (lambda d: d.update(unused_tiles="hut-1"), "^unused_tiles must be a list"),
        (lambda d: d["foremen"][0].update(pawns=[]), r"^foremen\[0\].pawns must be an object"),
    ],
)
def test_hostile_values_are_rejected_naming_the_field(change, message) -> None:
    """Issue: a deeply nested value raised RecursionError (the error message's repr),
    a list where a tile id belongs a bare 'corrupt Samara state: TypeError'."""
    data = GAME.new_game(4, 3).to_json()
    change(data)
    with pytest.raises(InvalidStateError, match=message) as caught:
        state_from_json(data)
    assert caught.value.__cause__ is None and len(str(caught.value)) < 300


def test_catalogue_files_that_are_not_utf8_or_too_deep_are_rejected(tmp_path) -> None:
    """Issue: a catalogue that is not UTF-8 raised UnicodeDecodeError."""
    path = tmp_path / "cat.json"
    path.write_bytes(b'{"game": "samara", "notes": "\xff\xfe"}')
    with pytest.raises(CatalogueError, match="not UTF-8"):
        load_catalogue(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CatalogueError, match="nested too deeply"):
        load_catalogue(path)


def test_mutated_catalogues_are_rejected_naming_the_entry_or_load() -> None:
    doc = _catalogue()
    source = fuzz.Corpus("samara-catalogue", (doc,), (), {}, {})
    for index in range(300):
        data, mutation = fuzz.mutate(doc, source, random.Random(index))
        try:
            parse_catalogue(data)
        except CatalogueError as exc:
            assert exc.__cause__ is None, (mutation, exc)
