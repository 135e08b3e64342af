"""The games' catalogues as a server serves them (``GameInfo.catalogue``): the components
of the box the engine plays with, which the web table draws card faces and tooltips
from instead of copying them."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from ai_server.messages import game_info_message
from engine import registry
from engine.oh_my_goods.catalogue import parse_catalogue as omg_catalogue
from engine.oh_my_goods.rules import OhMyGoodsGame
from engine.samara.catalogue import parse_catalogue as samara_catalogue
from engine.samara.rules import SamaraGame
from engine.stephens.catalogue import parse_catalogue as stephens_catalogue
from engine.stephens.rules import StephensGame
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

ROOT = Path(__file__).parents[2]
#: Each game's package directory, where its catalogue.json ships.
PACKAGES = {"samara": "samara", "oh-my-goods": "oh_my_goods", "stephens": "stephens"}


def shipped(game: str) -> object:
    return json.loads((ROOT / "engine" / PACKAGES[game] / "catalogue.json").read_text())


def test_list_games_sends_each_game_s_catalogue(stub: pb_grpc.FurnaceServiceStub) -> None:
    games = stub.ListGames(pb.ListGamesRequest(), timeout=60).games
    assert {g.name for g in games} == set(PACKAGES) == set(registry.game_names())
    for info in games:
        assert json.loads(info.catalogue) == shipped(info.name), info.name
        assert json.loads(info.catalogue) == registry.get_game(info.name).catalogue_data()


@pytest.mark.parametrize(("game", "parse"), [(SamaraGame, samara_catalogue),
                                             (OhMyGoodsGame, omg_catalogue),
                                             (StephensGame, stephens_catalogue)],
                         ids=["samara", "oh-my-goods", "stephens"])
def test_the_catalogue_sent_is_the_one_the_game_plays(game: type, parse: object) -> None:
    """A game made with another catalogue (a user's own card list) sends that one, as
    read: a change to the data after it was read changes neither."""
    data = shipped(game.info.name)
    assert isinstance(data, dict) and callable(parse)
    data["notes"] = "a user's own card list"
    played = game(parse(data))
    data["notes"] = "changed after reading"
    assert played.catalogue_data()["notes"] == "a user's own card list"
    assert played.catalogue.data == played.catalogue_data()
    assert json.loads(game_info_message(game.info, False, 1000).catalogue) == shipped(game.info.name)


def test_a_position_sent_to_a_search_worker_leaves_the_catalogue_data_behind() -> None:
    """A position pickled for a search worker carries its catalogue, but not the JSON
    data read for front ends (the rules never read it)."""
    state = registry.get_game("stephens").new_game(1, 2)
    assert state.catalogue.data
    copy = pickle.loads(pickle.dumps(state))
    assert copy.catalogue == state.catalogue and not copy.catalogue.data
    assert len(pickle.dumps(state)) < len(json.dumps(state.catalogue.data))
