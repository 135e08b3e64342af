"""Activating a row of professions: each player's plans (§2.3.1 of the analysis).

When a row is activated, every player with a master or an apprentice there may
collect the benefit of each of their workers, each optional, in any order, taking
any option of a choice (L689-L712); an apprentice acts like a master (L633-L634).
Order matters: a gain can pay a later trade (André gains 1 influence, then pays it
for 1 Dune, L746-L749), and a gain beyond a cap is lost.  Trades need their full
payment (L1812-L1813).

A plan is the sequence of ``(worker, option)`` steps one player takes, ``worker``
indexing :func:`row_workers` (the player's workers in the row, by card and space)
and ``option`` indexing that card's :func:`concrete_options`.  Benefits only move
the player's own resources, so a plan's effect is the player's resource vector
afterwards, its *outcome*.

The colour of a cube gained as "any cube" (and the type of an "any accessory")
changes nothing inside the activation, because trades only ever ask for *any*
cube or accessory: such gains are kept uncoloured in the outcome (``ANY_CUBE``,
:func:`any_accessory`) and their colours are chosen once, after the plan
(:func:`apply_activation`).  That keeps the plans few: the colours of four "any"
cubes would otherwise multiply them by 126.  A trade paying "any cube" is spelled
out, one option per colour, plus one paying an uncoloured cube gained earlier.

:func:`activation_plans` keeps one plan per distinct outcome (the
lexicographically smallest sequence reaching it) and, by default, drops dominated
outcomes: another plan leaves at least as much of everything (an uncoloured cube
being as good as any coloured one).  Victory points are the exception, since
scoring them may trigger the end of the game: a plan with fewer VP is dominated
only when the plan with more would not reach the French army, or when the end is
triggered anyway.

>>> from engine.stephens.setup import new_state
>>> from engine.stephens.vocabulary import FN_UR
>>> state = new_state(seed=0, num_players=2)
>>> seat = state.master[state.places[FN_UR][0]]
>>> plans = activation_plans(state, seat, FN_UR)
>>> [describe_plan(state, seat, FN_UR, p.steps) for p in plans]
['annealer: 1 coin + 1 influence']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, product

import numpy as np

from engine.game import IllegalMoveError
from engine.stephens.abilities import influence_cap
from engine.stephens.components import Atom, Benefit, Catalogue
from engine.stephens.state import Player, StephensState
from engine.stephens.vocabulary import ANY, COLOURS

#: The resource vector of one player: these scalars, the cubes by colour, the cubes
#: gained as "any cube" whose colour is not chosen yet, the accessories by type,
#: then the uncoloured accessories (:func:`any_accessory`).
COIN, INFLUENCE, VP, FOREST, DUNE = range(5)
CUBE = 5
ANY_CUBE = CUBE + len(COLOURS)
ACCESSORY = ANY_CUBE + 1
_SCALARS = {"coin": COIN, "influence": INFLUENCE, "vp": VP, "forest": FOREST, "dune": DUNE}

Resources = tuple[int, ...]
Step = tuple[int, int]


def any_accessory(accessory_types: int) -> int:
    """The index of the uncoloured accessories in a resource vector."""
    return ACCESSORY + accessory_types


@dataclass(frozen=True)
class Worker:
    """A worker of one player in the activated row."""

    card: int
    space: int  # 0 master, 1 apprentice


@dataclass(frozen=True)
class Choice:
    """One concrete way to collect a benefit, as resource vectors."""

    pay: Resources
    gain: Resources


@dataclass(frozen=True)
class ActivationPlan:
    steps: tuple[Step, ...]
    outcome: Resources  # the player's resources after the plan, "any" gains uncoloured


def resources(cat: Catalogue, player: Player) -> Resources:
    return (player.coins, player.influence, player.vp, player.forest, player.dune,
            *player.cubes, 0, *player.accessories, 0)


def _caps(cat: Catalogue, player: Player) -> dict[int, int]:
    return {INFLUENCE: influence_cap(cat, player), FOREST: cat.forest.top, DUNE: cat.dune.top}


def _atom_vectors(atom: Atom, accessory_types: int, paying: bool) -> list[list[int]]:
    """The resource vectors an icon stands for: a gain of "any" is one uncoloured
    vector; a payment of "any" is one vector per way to pay it."""
    size = any_accessory(accessory_types) + 1
    if atom.kind in _SCALARS:
        vector = [0] * size
        vector[_SCALARS[atom.kind]] = atom.n
        return [vector]
    base, kinds = (CUBE, len(COLOURS)) if atom.kind == "cube" else (ACCESSORY, accessory_types)
    uncoloured = base + kinds  # ANY_CUBE or any_accessory()
    if atom.of != ANY:
        picks: Sequence[tuple[int, ...]] = [(base + atom.of,) * atom.n]
    elif paying:
        picks = list(combinations_with_replacement(range(base, uncoloured + 1), atom.n))
    else:
        picks = [(uncoloured,) * atom.n]
    out = []
    for pick in picks:
        vector = [0] * size
        for k in pick:
            vector[k] += 1
        out.append(vector)
    return out


def _sum_vectors(atoms: Sequence[Atom], accessory_types: int, paying: bool) -> list[Resources]:
    size = any_accessory(accessory_types) + 1
    if not atoms:
        return [tuple([0] * size)]
    return [tuple(sum(column) for column in zip(*parts, strict=True))
            for parts in product(*(_atom_vectors(a, accessory_types, paying) for a in atoms))]


@cache
def concrete_options(benefit: Benefit, accessory_types: int) -> tuple[Choice, ...]:
    """The benefit's options as resource vectors, without repeats, in catalogue order:
    "any" gains uncoloured, "any" payments spelled out (each colour, then an
    uncoloured cube gained earlier in the plan)."""
    out: list[Choice] = []
    for option in benefit.options:
        for pay in _sum_vectors(option.pay, accessory_types, True):
            for gain in _sum_vectors(option.gain, accessory_types, False):
                choice = Choice(pay, gain)
                if choice not in out:
                    out.append(choice)
    return tuple(out)


def row_workers(state: StephensState, seat: int, place: int) -> list[Worker]:
    """``seat``'s masters and apprentices in the row of ``place``, by card and space."""
    out = []
    for card in sorted(state.places[place]):
        if state.master[card] == seat:
            out.append(Worker(card, 0))
        if state.apprentice[card] == seat:
            out.append(Worker(card, 1))
    return out


def _options_of(state: StephensState, worker: Worker) -> tuple[Choice, ...]:
    cat = state.catalogue
    return concrete_options(cat.professions[worker.card].benefit, len(cat.accessories))


def _take(have: Resources, choice: Choice, caps: dict[int, int]) -> Resources | None:
    """``have`` after paying and collecting ``choice``; None if it cannot be paid."""
    if any(p > h for p, h in zip(choice.pay, have, strict=True)):
        return None
    out = [h - p + g for h, p, g in zip(have, choice.pay, choice.gain, strict=True)]
    for index, cap in caps.items():
        if choice.gain[index] and out[index] > cap:
            out[index] = max(cap, have[index] - choice.pay[index])
    return tuple(out)


def activation_reason(state: StephensState, seat: int, place: int,
                      steps: Sequence[Step]) -> str | None:
    """Why ``seat`` cannot play ``steps`` in this activation, or None."""
    return _run(state, seat, place, steps)[1]


def plan_outcome(state: StephensState, seat: int, place: int,
                 steps: Sequence[Step]) -> Resources | None:
    """``seat``'s resources after ``steps``, or None when they cannot be played."""
    return _run(state, seat, place, steps)[0]


def _run(state: StephensState, seat: int, place: int,
         steps: Sequence[Step]) -> tuple[Resources | None, str | None]:
    cat = state.catalogue
    player = state.players[seat]
    workers = row_workers(state, seat, place)
    have: Resources | None = resources(cat, player)
    caps = _caps(cat, player)
    used: set[int] = set()
    for w, o in steps:
        if not 0 <= w < len(workers):
            return None, f"you have no worker {w + 1} in this row"
        if w in used:
            return None, "each worker collects its benefit at most once"
        options = _options_of(state, workers[w])
        if not 0 <= o < len(options):
            return None, f"{cat.professions[workers[w].card].id} has no option {o + 1}"
        assert have is not None
        have = _take(have, options[o], caps)
        if have is None:
            return None, (f"you cannot pay for {cat.professions[workers[w].card].id}'s "
                          f"option {o + 1} at that point")
        used.add(w)
    return have, None


def activation_plans(state: StephensState, seat: int, place: int, *,
                     prune: bool = True) -> list[ActivationPlan]:
    """One plan per distinct outcome for ``seat`` in this activation (doing nothing
    included), minus dominated outcomes when ``prune``; sorted by steps."""
    cat = state.catalogue
    player = state.players[seat]
    options = [_options_of(state, w) for w in row_workers(state, seat, place)]
    caps = _caps(cat, player)
    first: dict[Resources, tuple[Step, ...]] = {}
    visited: set[tuple[int, Resources]] = set()

    # Depth first with children in (worker, option) order visits sequences in
    # lexicographic order, so the first sequence reaching an outcome is the smallest.
    # A (workers used, resources) node seen before leads only to larger sequences.
    def visit(used: int, have: Resources, steps: tuple[Step, ...]) -> None:
        if (used, have) in visited:
            return
        visited.add((used, have))
        first.setdefault(have, steps)
        for w, choices in enumerate(options):
            if used >> w & 1:
                continue
            for o, choice in enumerate(choices):
                after = _take(have, choice, caps)
                if after is not None:
                    visit(used | 1 << w, after, steps + ((w, o),))

    visit(0, resources(cat, player), ())
    outcomes = list(first)
    if prune:
        at_stake = max(p.vp for p in state.players) < state.army
        outcomes = _undominated(outcomes, len(cat.accessories), at_stake, state.army)
    return sorted((ActivationPlan(first[o], o) for o in outcomes), key=lambda p: p.steps)


def _undominated(outcomes: list[Resources], accessory_types: int, at_stake: bool,
                 army: int) -> list[Resources]:
    """The outcomes no other outcome dominates.  ``b`` dominates ``a`` when it has at
    least as much of each scalar, enough uncoloured cubes to make up every colour it
    lacks and still match ``a``'s uncoloured ones (the same for accessories), and at
    least as many VP, unless those extra VP reach the army (ending the game) while
    ``a``'s do not and the end is not triggered yet.  Compared in blocks with numpy:
    plans can number thousands."""
    table = np.array(outcomes, dtype=np.int64)
    scalars = table[:, [COIN, INFLUENCE, FOREST, DUNE]]
    vp = table[:, VP]
    groups = [(table[:, CUBE:ANY_CUBE], table[:, ANY_CUBE]),
              (table[:, ACCESSORY:any_accessory(accessory_types)],
               table[:, any_accessory(accessory_types)])]
    keep: list[int] = []
    for start in range(0, len(outcomes), _BLOCK):
        block = slice(start, start + _BLOCK)
        covers = (scalars[:, None, :] >= scalars[None, block, :]).all(axis=2)  # [b, a]
        for coloured, uncoloured in groups:
            lacking = np.maximum(coloured[None, block, :] - coloured[:, None, :], 0).sum(axis=2)
            covers &= uncoloured[:, None] - uncoloured[None, block] >= lacking
        vb, va = vp[:, None], vp[None, block]
        ends = (vb >= army) & (va < army) if at_stake else np.zeros_like(covers)
        dominated = covers & ((vb == va) | ((vb > va) & ~ends))
        size = dominated.shape[1]
        dominated[np.arange(start, start + size), np.arange(size)] = False  # not itself
        keep.extend(int(i) + start for i in np.flatnonzero(~dominated.any(axis=0)))
    return [outcomes[i] for i in keep]


#: Outcomes compared at once when pruning (bounds the comparison table's memory).
_BLOCK = 256


def apply_activation(state: StephensState, seat: int, place: int, steps: Sequence[Step],
                     cube_colours: Sequence[int] = (), accessory_types: Sequence[int] = ()
                     ) -> None:
    """Play ``steps`` for ``seat``, giving the cubes gained as "any cube" the colours
    ``cube_colours`` and the "any accessory" gains the types ``accessory_types``."""
    cat = state.catalogue
    outcome, reason = _run(state, seat, place, steps)
    if outcome is None:
        raise IllegalMoveError(reason or "impossible activation")
    loose = any_accessory(len(cat.accessories))
    if len(cube_colours) != outcome[ANY_CUBE] or len(accessory_types) != outcome[loose]:
        raise IllegalMoveError(f"choose the colours of {outcome[ANY_CUBE]} cube(s) and the "
                               f"types of {outcome[loose]} accessory(ies) gained as 'any'")
    if any(not 0 <= c < len(COLOURS) for c in cube_colours) or any(
            not 0 <= t < len(cat.accessories) for t in accessory_types):
        raise IllegalMoveError("unknown cube colour or accessory type")
    player = state.players[seat]
    player.coins, player.influence, player.vp, player.forest, player.dune = outcome[:CUBE]
    player.cubes = list(outcome[CUBE:ANY_CUBE])
    player.accessories = list(outcome[ACCESSORY:loose])
    for c in cube_colours:
        player.cubes[c] += 1
    for t in accessory_types:
        player.accessories[t] += 1


def describe_plan(state: StephensState, seat: int, place: int, steps: Sequence[Step]) -> str:
    """The steps in words: ``card: option; card: option``, or ``nothing``."""
    cat = state.catalogue
    workers = row_workers(state, seat, place)
    parts = []
    for w, o in steps:
        card = cat.professions[workers[w].card]
        choice = _options_of(state, workers[w])[o]
        parts.append(f"{card.id}: {_describe_choice(cat, choice)}")
    return "; ".join(parts) or "nothing"


def _describe_choice(cat: Catalogue, choice: Choice) -> str:
    names = ["coin", "influence", "vp", "forest", "dune", *(f"{c} cube" for c in COLOURS),
             "any cube", *cat.accessories, "any accessory"]

    def words(vector: Resources) -> str:
        return " + ".join(f"{n} {names[i]}" for i, n in enumerate(vector) if n)

    return f"pay {words(choice.pay)}: {words(choice.gain)}" if any(choice.pay) \
        else words(choice.gain)
