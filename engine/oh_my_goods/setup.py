"""The seeded deal of a 2-4 player game: the position its first move is made in.

:func:`new_state` shuffles with the state's own SplitMix64 generator, seeded from
``seed``: each player's Charburner and Worker, the assistants for hire (2 a player,
each on a random face), then the deck, from which each player takes 5 hand cards and
7 Coal (goods on the Charburner).  The first round then begins, and the moves no seat
has a choice in are played (:meth:`OhMyGoodsState.apply`'s autoplay), so the state
waits for the first real decision.

>>> from engine.oh_my_goods.catalogue import default_catalogue
>>> state = new_state(default_catalogue(), seed=1, num_players=3, second_edition=False)
>>> [len(p.hand) for p in state.players], [len(p.goods[0]) for p in state.players]
([7, 7, 7], [7, 7, 7])
>>> len(state.pool)
6
"""

from __future__ import annotations

from engine.game import Event
from engine.oh_my_goods.catalogue import Catalogue
from engine.oh_my_goods.state import OhMyGoodsState, Player, _rng_below
from engine.oh_my_goods.vocabulary import START_COAL, START_HAND
from engine.playout_rng import MASK64


def new_state(catalogue: Catalogue, seed: int, num_players: int,
              second_edition: bool) -> OhMyGoodsState:
    """Deal a game: Charburners, Workers, 2 Assistants per player, 5 cards and 7 coal each."""
    state = OhMyGoodsState(catalogue, num_players, second_edition)
    state.rng = [(seed * 0x9E3779B97F4A7C15 + 0x1234567) & MASK64]
    rng = state.rng
    burners = list(range(len(catalogue.charburners)))
    workers = list(range(len(catalogue.workers)))
    assistants = list(range(len(catalogue.assistants)))
    for items in (burners, workers, assistants):
        state._shuffle(items)
    state.pool = sorted([a, _rng_below(rng, 2)] for a in assistants[:2 * num_players])
    state.deck = list(range(len(catalogue.cards)))
    state._shuffle(state.deck)
    for p in range(num_players):
        state.players.append(Player(burners[p], workers[p]))
    for player in state.players:
        player.hand = [state.deck.pop() for _ in range(START_HAND)]
        player.goods[0] = [state.deck.pop() for _ in range(START_COAL)]
    events: list[Event] = []
    state._start_round(events)
    state._autoplay(events)
    return state
