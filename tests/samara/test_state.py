"""Samara's game API: serialization, notation, explanations, catalogue validation."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine import registry
from engine.game import InvalidOptionError, InvalidStateError, MoveParseError
from engine.samara import GAME, CatalogueError, load_catalogue
from engine.samara.catalogue import parse_catalogue
from engine.samara.rules import state_from_json
from engine.validation import packaged_catalogue_json


def random_positions(games: int = 12, every: int = 7):
    for g in range(games):
        state = GAME.new_game(g, 2 + g % 4, {"powers": g % 5 != 4})
        rng = random.Random(g)
        ply = 0
        while not state.is_terminal():
            if ply % every == 0:
                yield state
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
            ply += 1
        yield state


def test_json_round_trip_and_clone_independence() -> None:
    for state in random_positions():
        data = state.to_json()
        assert json.loads(json.dumps(data)) == data
        assert state_from_json(data).to_json() == data
        twin = state.clone()
        if not twin.is_terminal():
            twin.apply(twin.legal_moves()[0])
            assert state.to_json() == data


def test_every_legal_move_prints_and_parses_back() -> None:
    for state in random_positions(games=8):
        for move in state.legal_moves():
            assert state.parse_move(state.move_to_text(move)) == move
            assert state.why_illegal(move) is None


def test_why_illegal_explains_every_other_move() -> None:
    rng = random.Random(3)
    for state in random_positions(games=6, every=11):
        legal = set(state.legal_moves())
        for _ in range(40):
            move = rng.randrange(0, 9 << 16)
            reason = state.why_illegal(move)
            assert (reason is None) == (move in legal)
            if reason is not None:
                assert isinstance(reason, str) and reason


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
        (lambda d: d["foremen"][0]["tools"].update(saw=3), "more than 2"),
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
