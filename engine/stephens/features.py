"""Stephens' feature vector per seat: simple counts of a position, the inputs of a
learned leaf value (:class:`engine.search.evaluate.LearnedEvaluator`).

The names and meanings are declared once, in :data:`FEATURES`; a model file records
the names it was fitted on, so a model and the features it reads cannot drift apart.
Every value is read from the position as it is (a determinized one, in a search): no
hidden information is looked at beyond what the state holds.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=3, num_players=2)
>>> values = features(state)
>>> len(values), len(values[0]) == len(FEATURE_NAMES)
(2, True)
>>> dict(zip(FEATURE_NAMES, values[0]))["coins"]
4.0
"""

from __future__ import annotations

from engine.stephens.heuristic import heuristic, resets_left
from engine.stephens.investments import investment_columns
from engine.stephens.position import Position
from engine.stephens.scoring import scores

#: (name, meaning) of each feature, in the order of :func:`features`' vectors.
FEATURES: tuple[tuple[str, str], ...] = (
    ("coins", "coins in the personal supply"),
    ("influence", "influence track position"),
    ("vp", "the Scoring track"),
    ("forest", "forest track position"),
    ("dune", "dune track position"),
    ("cubes", "glass and product cubes in the personal supply"),
    ("reserved", "cubes reserved on investments (orange, pink, black)"),
    ("accessories", "accessories in the personal supply"),
    ("contracts", "contracts held, to fulfil"),
    ("contract_cubes", "cubes the contracts held ask for"),
    ("contract_cubes_held", "cubes in supply that the contracts held ask for"),
    ("fulfilled", "contracts fulfilled"),
    ("investments", "investment cards funded"),
    ("column_vp", "victory points of the investment columns, scored at each reset"),
    ("disks", "disks taken off the player board"),
    ("workers", "masters and apprentices on profession cards"),
    ("score", "the final-scoring count if the game ended now (scores())"),
    ("heuristic", "the hand-written heuristic() value"),
    ("resets_left", "a rough count of the reset phases to come (same for every seat)"),
    ("army", "the army's track position (same for every seat)"),
)

FEATURE_NAMES: tuple[str, ...] = tuple(name for name, _ in FEATURES)


def features(state: Position) -> list[list[float]]:
    """One vector of :data:`FEATURES` per seat."""
    cat = state.catalogue
    base = scores(state)
    judged = heuristic(state)
    resets = resets_left(state)
    out = []
    for seat, player in enumerate(state.players):
        asked = held = 0
        for contract in player.contracts:
            spec = cat.contracts[contract]
            asked += spec.cube_count
            held += sum(min(n, h) for n, h in zip(spec.cubes, player.cubes, strict=True))
        column_vp = sum(column.vp for column in investment_columns(state, seat))
        out.append([
            float(player.coins), float(player.influence), float(player.vp),
            float(player.forest), float(player.dune), float(sum(player.cubes)),
            float(sum(player.reserved)), float(sum(player.accessories)),
            float(len(player.contracts)), float(asked), float(held),
            float(sum(len(row) for row in player.fulfilled)),
            float(sum(len(row) for row in player.investments)),
            float(column_vp), float(player.disks_taken), float(state.workers_of(seat)),
            float(base[seat]), float(judged[seat]), float(resets), float(state.army),
        ])
    return out
