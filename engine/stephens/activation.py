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
the player's own resources, so a plan's effect is the player's resources
afterwards, its *outcome*.

Cubes and accessories are counted, not coloured, inside a plan: the iconography
only gives and takes *any* cube and *any* accessory (L1817-L1822, L1832; the
catalogue loader insists), so the colours change nothing until the plan ends.  An
outcome holds how many cubes the player has and how many were gained (and the same
for accessories); the colours paid and gained are chosen once, after the plan, as
one exchange (:func:`exchanges`): that keeps the plans few (a trade paying "any
cube" would otherwise be one option per colour, and the colours of four "any"
cubes gained 126 more).

:func:`activation_plans` keeps one plan per distinct outcome (the lexicographically
smallest sequence reaching it) and, by default, drops dominated outcomes: another
plan leaves at least as much of everything, as many cubes gained and accessories
gained (which leave more freedom in the exchange).  Victory points are the
exception, since scoring them may trigger the end of the game: a plan with fewer VP
is dominated only when the plan with more would not reach the French army, or when
the end is triggered anyway.

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
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations_with_replacement
from operator import ge

from engine.game import IllegalMoveError
from engine.stephens.abilities import influence_cap
from engine.stephens.components import Benefit, Catalogue
from engine.stephens.position import Player, Position

#: The resource vector of one player during a plan: these scalars, then the cubes
#: held and the cubes gained so far, the accessories held and gained.
COIN, INFLUENCE, VP, FOREST, DUNE, CUBES, CUBES_GAINED, ACCESSORIES, ACCESSORIES_GAINED = \
    range(9)
SIZE = 9
_SCALARS = {"coin": COIN, "influence": INFLUENCE, "vp": VP, "forest": FOREST, "dune": DUNE}
_POOLS = {"cube": CUBES, "accessory": ACCESSORIES}

Resources = tuple[int, ...]
Step = tuple[int, int]


@dataclass(frozen=True)
class Worker:
    """A worker of one player in the activated row."""

    card: int
    space: int  # 0 master, 1 apprentice


@dataclass(frozen=True)
class Choice:
    """One way to collect a benefit, as resource vectors (``pay`` must be held)."""

    pay: Resources
    gain: Resources
    # the resources each names, as (index, amount) pairs: all a step looks at
    paid: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    gained: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "paid", tuple((k, n) for k, n in enumerate(self.pay) if n))
        object.__setattr__(self, "gained", tuple((k, n) for k, n in enumerate(self.gain) if n))


@dataclass(frozen=True)
class ActivationPlan:
    steps: tuple[Step, ...]
    outcome: Resources  # the player's resources after the plan


@dataclass(frozen=True)
class Exchange:
    """Cubes (or accessories) paid and gained in a plan, to be given colours (types)."""

    paid: int
    gained: int


def resources(cat: Catalogue, player: Player) -> Resources:
    return (player.coins, player.influence, player.vp, player.forest, player.dune,
            sum(player.cubes), 0, sum(player.accessories), 0)


def _caps(cat: Catalogue, player: Player) -> dict[int, int]:
    return {INFLUENCE: influence_cap(cat, player), FOREST: cat.forest.top, DUNE: cat.dune.top}


@cache
def concrete_options(benefit: Benefit) -> tuple[Choice, ...]:
    """The benefit's options as resource vectors, one per option of the card."""
    out: list[Choice] = []
    for option in benefit.options:
        pay, gain = [0] * SIZE, [0] * SIZE
        for atom in option.pay:
            pay[_SCALARS[atom.kind] if atom.kind in _SCALARS else _POOLS[atom.kind]] += atom.n
        for atom in option.gain:
            if atom.kind in _POOLS:
                gain[_POOLS[atom.kind]] += atom.n
                gain[_POOLS[atom.kind] + 1] += atom.n
            else:
                gain[_SCALARS[atom.kind]] += atom.n
        out.append(Choice(tuple(pay), tuple(gain)))
    return tuple(out)


def most_any_cubes(cat: Catalogue) -> tuple[int, int]:
    """The most "any" cubes one plan can pay and gain: a seat has one worker a card at
    most, and a row holds the professions of one side."""
    paid = gained = 0
    for side in (0, 1):
        options = [concrete_options(p.benefit) for p in cat.professions if p.side == side]
        paid = max(paid, sum(max((c.pay[CUBES] for c in o), default=0) for o in options))
        gained = max(gained, sum(max((c.gain[CUBES_GAINED] for c in o), default=0)
                                 for o in options))
    return paid, gained


def row_workers(state: Position, seat: int, place: int) -> list[Worker]:
    """``seat``'s masters and apprentices in the row of ``place``, by card and space."""
    out = []
    for card in sorted(state.places[place]):
        if state.master[card] == seat:
            out.append(Worker(card, 0))
        if state.apprentice[card] == seat:
            out.append(Worker(card, 1))
    return out


def _options_of(state: Position, worker: Worker) -> tuple[Choice, ...]:
    return concrete_options(state.catalogue.professions[worker.card].benefit)


def _take(have: Resources, choice: Choice, caps: dict[int, int]) -> Resources | None:
    """``have`` after paying and collecting ``choice``; None if it cannot be paid."""
    out = list(have)
    for k, n in choice.paid:
        if n > out[k]:
            return None
        out[k] -= n
    for k, n in choice.gained:
        out[k] += n
        cap = caps.get(k)
        if cap is not None and out[k] > cap:
            out[k] = max(cap, have[k] - choice.pay[k])
    return tuple(out)


def activation_reason(state: Position, seat: int, place: int,
                      steps: Sequence[Step], exclude: int = 0) -> str | None:
    """Why ``seat`` cannot play ``steps`` in this activation, or None.  ``exclude`` is a
    bitmask of workers (indices of :func:`row_workers`) that already collected."""
    return _run(state, seat, place, steps, exclude)[1]


def plan_outcome(state: Position, seat: int, place: int,
                 steps: Sequence[Step], exclude: int = 0) -> Resources | None:
    """``seat``'s resources after ``steps``, or None when they cannot be played."""
    return _run(state, seat, place, steps, exclude)[0]


def _run(state: Position, seat: int, place: int,
         steps: Sequence[Step], exclude: int = 0) -> tuple[Resources | None, str | None]:
    cat = state.catalogue
    player = state.players[seat]
    workers = row_workers(state, seat, place)
    have: Resources | None = resources(cat, player)
    caps = _caps(cat, player)
    used: set[int] = {w for w in range(len(workers)) if exclude >> w & 1}
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


def _covers(b: Resources, a: Resources, at_stake: bool, army: int) -> bool:
    """Whether outcome ``b`` leaves at least as much of everything as ``a``, counting VP
    as the end of the game makes them count (see the module docstring)."""
    for k in range(SIZE):
        if k != VP and b[k] < a[k]:
            return False
    if b[VP] == a[VP]:
        return True
    return b[VP] > a[VP] and not (at_stake and b[VP] >= army > a[VP])


def _undominated(outcomes: list[Resources], at_stake: bool, army: int) -> list[Resources]:
    """The distinct ``outcomes`` no other covers (:func:`_covers`).

    When the end is at stake, outcomes on either side of the army's space never cover
    one another, and on one side covering is plain "at least as much of everything",
    VP included: a partial order.  So an outcome covered by another is covered by one
    no other covers, whose coordinates sum to more: taken by decreasing sums, each
    outcome need only be compared with those kept so far on its side (a skyline; all
    pairs took minutes on 17 workers)."""
    kept: dict[bool, list[Resources]] = {False: [], True: []}
    for a in sorted(outcomes, key=sum, reverse=True):
        side = kept[at_stake and a[VP] >= army]
        if not any(all(map(ge, b, a)) for b in side):
            side.append(a)
    return kept[False] + kept[True]


def _commute(a: Choice, b: Choice) -> bool:
    """Whether taking ``a`` then ``b`` ends where taking ``b`` then ``a`` does, and one
    order can be paid whenever the other can: no resource is paid by one and gained by
    either (gains alone add up, caps too, in either order; payments alone as well)."""
    return not any((a.pay[k] or b.pay[k]) and (a.gain[k] or b.gain[k]) for k in range(SIZE))


def activation_plans(state: Position, seat: int, place: int, *,
                     prune: bool = True, exclude: int = 0) -> list[ActivationPlan]:
    """One plan per distinct outcome for ``seat`` in this activation (doing nothing
    included), minus dominated outcomes when ``prune``; sorted by steps.  Workers in
    the bitmask ``exclude`` already collected and take no step."""
    cat = state.catalogue
    player = state.players[seat]
    options = [() if exclude >> w & 1 else _options_of(state, worker)
               for w, worker in enumerate(row_workers(state, seat, place))]
    caps = _caps(cat, player)
    at_stake = max(p.vp for p in state.players) < state.army
    # Workers with the same options are interchangeable: the smallest sequence uses
    # them in index order, so a worker waits for its identical predecessor.
    before = [-1] * len(options)
    for w, choices in enumerate(options):
        if choices:
            before[w] = max((v for v in range(w) if options[v] == choices), default=-1)
    # The steps (worker, option) numbered in order, per worker, and the steps each
    # commutes with (a bitmask of their numbers).
    numbered: list[list[tuple[int, int, Choice]]] = []
    every: list[Choice] = []
    for worker_options in options:
        numbered.append([(len(every) + o, o, choice)
                         for o, choice in enumerate(worker_options)])
        every += worker_options
    commutes = [sum(1 << j for j, other in enumerate(every) if _commute(choice, other))
                for choice in every]
    first: dict[Resources, tuple[Step, ...]] = {}
    path: list[Step] = []
    # (workers used, resources) nodes met: one met before leads only to larger sequences.
    visited: set[tuple[int, Resources]] = set()
    # Resource vectors kept at each set of used workers.  A node that another with the
    # same workers dominates (more of everything, the same VP when VP may end the
    # game) leads only to outcomes dominated by, or reached with a smaller sequence
    # from, the other one (gains and payments are monotone): it is cut when pruning.
    seen_at: dict[int, list[Resources]] = {}

    def dominated(used: int, have: Resources) -> bool:
        kept = seen_at.setdefault(used, [])
        for other in kept:
            if (not at_stake or other[VP] == have[VP]) and all(map(ge, other, have)):
                return True
        kept.append(have)
        return False

    # Depth first with children in step order visits sequences in lexicographic order,
    # so the first sequence reaching an outcome is the smallest.  A step t tried at a
    # node is not taken after a later sibling s while the steps taken since s commute
    # with it (``asleep``): t there could come before s, a smaller sequence reaching
    # the same node.
    def visit(used: int, have: Resources, asleep: int) -> None:
        if have not in first:
            first[have] = tuple(path)
        for w, steps in enumerate(numbered):
            if used >> w & 1 or (before[w] >= 0 and not used >> before[w] & 1):
                continue
            for i, o, choice in steps:
                if asleep >> i & 1:
                    continue
                asleep |= 1 << i
                after = _take(have, choice, caps)
                if after is None or (used | 1 << w, after) in visited:
                    continue
                visited.add((used | 1 << w, after))
                if prune and dominated(used | 1 << w, after):
                    continue
                path.append((w, o))
                visit(used | 1 << w, after, asleep & commutes[i])
                path.pop()

    start = resources(cat, player)
    visited.add((0, start))
    if prune:
        dominated(0, start)
    visit(0, start, 0)
    outcomes = _undominated(list(first), at_stake, state.army) if prune else list(first)
    return sorted((ActivationPlan(first[o], o) for o in outcomes), key=lambda p: p.steps)


def apply_plan(state: Position, seat: int, place: int, steps: Sequence[Step],
               exclude: int = 0) -> tuple[Exchange, Exchange]:
    """Play ``steps`` for ``seat``: coins, influence, VP and the tracks change now; the
    returned exchanges of cubes and of accessories still need their colours and types
    (:func:`exchanges`, :func:`apply_exchange`)."""
    cat = state.catalogue
    player = state.players[seat]
    before = resources(cat, player)
    outcome, reason = _run(state, seat, place, steps, exclude)
    if outcome is None:
        raise IllegalMoveError(reason or "impossible activation")
    player.coins, player.influence, player.vp, player.forest, player.dune = outcome[:CUBES]
    out = []
    for pool in (CUBES, ACCESSORIES):
        gained = outcome[pool + 1]
        out.append(Exchange(paid=before[pool] + gained - outcome[pool], gained=gained))
    return out[0], out[1]


# -- the colours of an exchange -------------------------------------------------------------
def exchanges(held: Sequence[int], exchange: Exchange) -> list[tuple[int, ...]]:
    """Every distinct change of ``held`` (cubes by colour, or accessories by type) an
    exchange can make, as a delta per colour: ``paid`` items given up (from ``held``,
    or from the items gained when ``held`` runs out) and ``gained`` items of any
    colour.  A colour both given and gained is the same as neither, so each result is
    listed once, paying and gaining disjoint colours, in a fixed order."""
    kinds = len(held)
    paid_held = min(exchange.paid, sum(held))
    gained = exchange.gained - (exchange.paid - paid_held)
    out: list[tuple[int, ...]] = []
    for given in range(paid_held + 1):
        taken = gained - paid_held + given
        if taken < 0:
            continue
        for pay in combinations_with_replacement(range(kinds), given):
            pay_counts = [pay.count(c) for c in range(kinds)]
            if any(p > h for p, h in zip(pay_counts, held, strict=True)):
                continue
            free = [c for c in range(kinds) if not pay_counts[c]]
            for gain in combinations_with_replacement(free, taken):
                out.append(tuple(gain.count(c) - pay_counts[c] for c in range(kinds)))
    return out


def apply_exchange(held: list[int], delta: Sequence[int]) -> None:
    for c, d in enumerate(delta):
        held[c] += d


# -- words ----------------------------------------------------------------------------------
def describe_plan(state: Position, seat: int, place: int, steps: Sequence[Step]) -> str:
    """The steps in words: ``card: option; card: option``, or ``nothing``."""
    cat = state.catalogue
    workers = row_workers(state, seat, place)
    parts = []
    for w, o in steps:
        card = cat.professions[workers[w].card]
        parts.append(f"{card.id}: {card.benefit.options[o].describe(cat)}")
    return "; ".join(parts) or "nothing"
