"""Samara's feature vector per seat: simple counts of a position, the inputs of a
learned leaf value (:class:`engine.search.evaluate.LearnedEvaluator`).

The names and meanings are declared once, in :data:`FEATURES`; a model file records
the names it was fitted on, so a model and the features it reads cannot drift apart.
Samara has no hidden information, and every value is read from the position as it is.
The compiled kernel computes the same vectors in C (``ext/samara_kernel.pyx``).

>>> from engine.samara import GAME
>>> state = GAME.new_game(seed=3, num_players=2)
>>> values = features(state)
>>> len(values), len(values[0]) == len(FEATURE_NAMES)
(2, True)
>>> dict(zip(FEATURE_NAMES, values[0]))["prestige"]
0.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.samara.catalogue import COMPASS, GLASS_A, GLASS_B, SAW, SQUARE

if TYPE_CHECKING:
    from engine.samara.state import SamaraState

#: The ``next_wait`` of a seat with no worker on the time track: longer than any wait
#: on it (the track spans at most twelve months).
NO_WORKER_WAIT = 12

#: (name, meaning) of each feature, in the order of :func:`features`' vectors.
FEATURES: tuple[tuple[str, str], ...] = (
    ("prestige", "prestige points of the buildings built (the score, scores())"),
    ("buildings", "buildings built"),
    ("powers", "lasting powers held"),
    ("tools", "tools on the foreman's board"),
    ("saws", "saws on the foreman's board"),
    ("trowels", "trowels (compasses and squares) on the foreman's board"),
    ("glass", "glass tools on the foreman's board"),
    ("workers", "workers on the time track"),
    ("strength", "pawns in the workers on the time track (their labour strength)"),
    ("reserve", "pawns not in play (on the foreman's board)"),
    ("waiting", "strength-months the workers still wait before they act"),
    ("next_wait", "months before the seat's next worker acts (12 when it has none)"),
    ("buildable", "tiles on the board whose tools the seat has"),
    ("heuristic", "the hand-written heuristic() value"),
)

FEATURE_NAMES: tuple[str, ...] = tuple(name for name, _ in FEATURES)


def features(state: SamaraState) -> list[list[float]]:
    """One vector of :data:`FEATURES` per seat."""
    prestige = state.scores()
    judged = state.heuristic()
    out = []
    for seat, foreman in enumerate(state.foremen):
        placed = state.workers_of(seat)
        tools = foreman.tools
        month, _ = state.first_available(seat)
        buildable = sum(1 for tile in state.spot_tile
                        if tile is not None and state.meets_tools(seat, tile))
        out.append([
            prestige[seat], float(len(foreman.buildings)), float(len(foreman.powers)),
            float(sum(tools)), float(tools[SAW]), float(tools[COMPASS] + tools[SQUARE]),
            float(tools[GLASS_A] + tools[GLASS_B]), float(len(placed)),
            float(sum(w.strength for _, w in placed)),
            float(foreman.pawn_men + foreman.pawn_women),
            float(sum(w.strength * (m - state.month) for m, w in placed)),
            float(month - state.month if placed else NO_WORKER_WAIT),
            float(buildable), judged[seat],
        ])
    return out
