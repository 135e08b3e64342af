"""Playouts guided by a table of move values (the playout step of MAST).

A uniformly random playout treats a blunder and a good move alike.  The
Move-Average Sampling Technique (Finnsson and Bjornsson 2008) keeps, for each seat
and each move, the mean utility of the playouts in which that seat played that move,
and lets later playouts prefer the moves that have done well.  This module is the
playout half, shared by every game: the search keeps the table
(:mod:`engine.search.mast`), the playout reads it.

The table is one flat array of ``num_players * MOVE_SLOTS`` floats: a move's value
for ``seat`` sits at ``seat * MOVE_SLOTS + move_slot(move)``, where
:func:`move_slot` hashes the integer move code (all its bits) into :data:`MOVE_SLOTS`
slots (moves that share a slot share a value: the table stays small whatever a game's
codes are).

Each decision of the playout is epsilon-greedy: with probability ``epsilon`` a legal
move drawn uniformly, otherwise the legal move with the highest value for the seat to
move, ties going to the first one met when scanning from a random start.  Chance
outcomes are drawn by their probabilities, as in :meth:`engine.game.State.rollout`.
Every draw comes from :class:`~engine.playout_rng.PlayoutRng`, so a compiled
kernel's ``guided_playout`` (the Samara, Oh My Goods! and Stephens kernels have one) plays
exactly the moves of :func:`guided_playout` on the reference rules;
``tests/engine/test_guided_playout.py`` and ``furnace check-kernel`` hold them to it.

>>> from engine.registry import new_game
>>> import numpy as np
>>> state = new_game("samara", seed=1, num_players=2)
>>> values = np.full(2 * MOVE_SLOTS, 0.5)
>>> trace = np.zeros(256, dtype=np.int32)
>>> steps = guided_playout(state, 7, values, 0.1, trace)
>>> state.is_terminal(), 0 < steps <= 256
(True, True)
"""

from __future__ import annotations

from typing import Any

from engine.game import CHANCE, TERMINAL, State, draw_chance_outcome
from engine.playout_rng import PlayoutRng

#: log2 of :data:`MOVE_SLOTS`.
MOVE_SLOT_BITS = 16
#: Slots per seat in a move-value table.
MOVE_SLOTS = 1 << MOVE_SLOT_BITS
# Fibonacci hashing: spreads nearby move codes (which differ in low bits) over the slots.
_GOLDEN = 0x9E3779B1
_MASK32 = 0xFFFFFFFF


def move_slot(move: int) -> int:
    """The slot of an integer move code in a seat's part of the table.

    >>> move_slot(0), 0 <= move_slot(123456) < MOVE_SLOTS
    (0, True)
    """
    # The high word folded onto the low one first: Stephens' codes name the kind of move in
    # their top byte.  A code below 2**32 (Samara's, Oh My Goods!') is left as it is.
    return (((move ^ (move >> 32)) * _GOLDEN) & _MASK32) >> (32 - MOVE_SLOT_BITS)


def guided_playout(state: State, seed: int, values: Any, epsilon: float, trace: Any,
                   max_moves: int = 0) -> int:
    """Play ``state`` on (in place) with epsilon-greedy moves over ``values``.

    ``values``: the flat table described in the module docstring (a float sequence
    of ``num_players * MOVE_SLOTS``); ``trace``: an integer array that receives, for
    each decision played, its table index ``seat * MOVE_SLOTS + move_slot(move)``
    (decisions past its length are played but not recorded); ``max_moves``: stop
    after that many moves, chance outcomes included (``0``: play to the end).
    Returns how many decisions were recorded in ``trace``.
    """
    rng = PlayoutRng(seed)
    # Kernel twins need not derive from State: theirs is apply (they have a C playout).
    play = getattr(state, "play_legal", None) or state.apply
    capacity = len(trace)
    recorded = 0
    played = 0
    while True:
        player = state.current_player()
        if player == TERMINAL or (max_moves and played >= max_moves):
            return recorded
        if player == CHANCE:
            state.apply(draw_chance_outcome(state, rng))
        else:
            legal = state.legal_moves()
            n = len(legal)
            base = player << MOVE_SLOT_BITS
            if rng.unit() < epsilon:
                move = legal[rng.below(n)]
            else:
                start = rng.below(n)
                move = legal[start]
                best = values[base + move_slot(move)]
                for k in range(1, n):
                    candidate = legal[(start + k) % n]
                    value = values[base + move_slot(candidate)]
                    if value > best:
                        best = value
                        move = candidate
            if recorded < capacity:
                trace[recorded] = base + move_slot(move)
                recorded += 1
            play(move)
        played += 1
