"""The seeded setup of a Samara game.

:func:`new_state` lays out the board as the rulebook's setup does: 30 of the 36
building tiles shuffled onto the spots (the other 6 stay unused), the tool sets of
the players mixed and dealt to the spots by the player count's column, and each
seat's first two workers (a woman and a double-pawn man) in the starting month, the
rest of its pawns on its Foreman board.  Every random choice flows from ``seed``.

>>> from engine.samara.catalogue import default_catalogue
>>> state = new_state(default_catalogue(), seed=1, num_players=3, powers=True)
>>> len(state.unused_tiles), [(w.owner, w.strength) for w in state.track[state.month]]
(6, [(0, 1), (1, 1), (2, 1), (2, 2), (1, 2), (0, 2)])
"""

from __future__ import annotations

import random

from engine.samara.catalogue import Catalogue
from engine.samara.state import Foreman, SamaraState, Worker


def new_state(catalogue: Catalogue, seed: int, num_players: int, powers: bool) -> SamaraState:
    """Set up a game: lay 30 of the 36 tiles and the mixed tool sets, place the workers."""
    rng = random.Random(seed)
    state = SamaraState(catalogue, num_players, powers)
    order = list(range(len(catalogue.tiles)))
    rng.shuffle(order)
    used = len(catalogue.spots)
    state.spot_tile = list(order[:used])
    state.unused_tiles = sorted(order[used:])
    tools = [kind for kind in range(5) for _ in range(catalogue.tool_set[kind] * num_players)]
    rng.shuffle(tools)
    column = num_players - 2
    for si, spot in enumerate(catalogue.spots):
        for _ in range(spot.tools[column]):
            state.spot_tools[si][tools.pop()] += 1
    # 1 man and 1 woman wait on the board; 1 woman and a double-pawn man stand in the month.
    state.foremen = [Foreman([0] * 5, catalogue.pawn_men - 2, catalogue.pawn_women - 1)
                     for _ in range(num_players)]
    women = [Worker(p, True, 0, 1) for p in range(num_players)]
    men = [Worker(p, False, 2, 0) for p in reversed(range(num_players))]
    state.track[state.month] = women + men
    return state
