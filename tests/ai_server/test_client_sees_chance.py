"""ListGames says which games show chance nodes to clients (issue 13, item 3).

``has_chance`` is about the rules (chance plays a part after setup); a client only
meets a chance node in a game with ``client_sees_chance``.  Oh My Goods! and Stephens
draw cards inside the moves that draw them, so their clients never apply a chance
outcome.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.game import CHANCE
from furnace_proto.furnace.v1 import furnace_pb2 as pb


def test_list_games_tells_whether_a_client_meets_chance_nodes(stub) -> None:
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    for name, info in games.items():
        assert info.client_sees_chance == registry.get_game(name).info.chance_nodes
    assert games["oh-my-goods"].has_chance and not games["oh-my-goods"].client_sees_chance
    assert not games["samara"].has_chance and not games["samara"].client_sees_chance


def test_client_sees_chance_is_a_new_field_of_game_info() -> None:
    field = pb.GameInfo.DESCRIPTOR.fields_by_name["client_sees_chance"]
    assert field.number == 12 and field.type == field.TYPE_BOOL
    assert pb.GameInfo.DESCRIPTOR.fields_by_name["has_chance"].number == 7


@pytest.mark.parametrize("name", registry.game_names())
def test_a_game_without_chance_nodes_never_has_chance_to_move(name: str) -> None:
    game = registry.get_game(name)
    if game.info.chance_nodes:
        pytest.skip("this game shows chance nodes")
    rng = random.Random(11)
    for seed in range(3):
        state = game.new_game(seed=seed, num_players=game.info.min_players)
        for _ in range(150):
            assert state.current_player() != CHANCE
            assert state.chance_outcomes() == []
            if state.is_terminal():
                break
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
