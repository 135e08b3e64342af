"""Personal investments: the rows they go in and the columns activated in a reset (R4).

A card with cubes goes to the leftmost free space of the row of its colour; a card
without cubes to any row (L435-L447), so column k holds the k-th card of each row.
In a reset each column is activated whole or not at all: first its Forest and
Dune costs are paid (going down those tracks; a column whose costs cannot be paid
cannot be activated), then its VP are scored and its cubes reserved on the cards,
never in the personal supply (L1107-L1138).  Columns are activated one after
another, so a set of columns is possible when the tracks cover their summed costs.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=0, num_players=2)
>>> cat, me = state.catalogue, state.players[0]
>>> me.investments[0].append(cat.investment_ids["utensils-3"])
>>> [(c.index, c.forest, c.vp, c.cubes) for c in investment_columns(state, 0)]
[(0, 1, 1, (1, 0, 0))]
>>> activate_columns(state, 0, [0]); me.forest, me.vp, me.reserved
(3, 1, [1, 0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.game import IllegalMoveError
from engine.stephens.components import Catalogue
from engine.stephens.position import Position
from engine.stephens.vocabulary import ANY, WOODEN
from engine.wording import count


@dataclass(frozen=True)
class Column:
    """What activating one investment column costs and gives."""

    index: int
    cards: tuple[int, ...]
    forest: int
    dune: int
    vp: int
    cubes: tuple[int, int, int]  # orange, pink, black


def investment_rows(cat: Catalogue, card: int) -> list[int]:
    """The rows (indices into the board's investment rows) ``card`` may go in."""
    colour = cat.investments[card].colour
    rows = cat.board.investment_rows
    return list(range(len(rows))) if colour == ANY else [rows.index(colour)]


def investment_columns(state: Position, seat: int) -> list[Column]:
    """``seat``'s investment columns, nearest the board first."""
    cat = state.catalogue
    rows = state.players[seat].investments
    out = []
    for k in range(max((len(r) for r in rows), default=0)):
        cards = tuple(r[k] for r in rows if k < len(r))
        cubes = [0, 0, 0]
        for c in cards:
            inv = cat.investments[c]
            if inv.colour != ANY:
                cubes[WOODEN.index(inv.colour)] += inv.cubes
        out.append(Column(k, cards, sum(cat.investments[c].forest for c in cards),
                          sum(cat.investments[c].dune for c in cards),
                          sum(cat.investments[c].vp for c in cards),
                          (cubes[0], cubes[1], cubes[2])))
    return out


def columns_reason(state: Position, seat: int, columns: Sequence[int]) -> str | None:
    """Why ``seat`` may not activate ``columns`` in this reset, or None."""
    available = investment_columns(state, seat)
    if len(set(columns)) != len(columns):
        return "a column is activated at most once"
    for k in columns:
        if not 0 <= k < len(available):
            return f"there is no investment column {k + 1}"
    player = state.players[seat]
    for track, have in (("forest", player.forest), ("dune", player.dune)):
        need = sum(getattr(available[k], track) for k in columns)
        if need > have:
            return (f"the chosen columns need {count(need, track.capitalize() + ' space')} to "
                    f"go down; "
                    f"your marker is {have} above the bottom")
    return None


def activate_columns(state: Position, seat: int, columns: Sequence[int]) -> None:
    """Activate ``columns``: pay the tracks, score the VP, reserve the cubes."""
    reason = columns_reason(state, seat, columns)
    if reason is not None:
        raise IllegalMoveError(reason)
    player = state.players[seat]
    available = investment_columns(state, seat)
    for k in columns:
        column = available[k]
        player.forest -= column.forest
        player.dune -= column.dune
        player.vp += column.vp
        for i in range(3):
            player.reserved[i] += column.cubes[i]


def column_sets(state: Position, seat: int) -> list[tuple[int, ...]]:
    """Every set of columns ``seat`` may activate, as sorted index tuples, in
    canonical order (the empty set first)."""
    available = investment_columns(state, seat)
    player = state.players[seat]
    out = []
    # columns_reason's rule (the tracks pay for all the columns), with the columns
    # worked out once: a row of 14 investments has 16,384 sets to try
    for mask in range(1 << len(available)):
        chosen = tuple(k for k in range(len(available)) if mask >> k & 1)
        if sum(available[k].forest for k in chosen) <= player.forest and \
                sum(available[k].dune for k in chosen) <= player.dune:
            out.append(chosen)
    return sorted(out, key=lambda c: (len(c), c))

