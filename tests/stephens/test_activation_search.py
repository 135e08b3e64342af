"""The activation's plan search on rows of many workers, and what the loader asks of it.

The plans of a row are pinned (any change in the search's output is caught), checked
against a brute-force oracle on small rows, and compared with the kernel's; the
loader must not run the search (issue 22: a row of 13 or 17 workers stalled every
request carrying the position).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.game import InvalidStateError, play_random_moves
from engine.stephens import GAME, activation, fast, turn
from engine.stephens.activation import (
    ActivationPlan,
    Resources,
    Step,
    _covers,
    activation_plans,
    plan_outcome,
    resources,
    row_workers,
)
from engine.stephens.codec import state_from_json
from engine.stephens.frames import Frame
from engine.stephens.state import StephensState
from engine.stephens.vocabulary import PLACES
from tests.kernel_twins import assert_same
from tests.stephens.helpers import attach, blank, round_trip, settle_disks

POSITIONS = Path(__file__).parent / "positions"
FN_UL = PLACES.index("FN-UL")


def position(workers: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (POSITIONS / f"activation_of_{workers}_workers.json").read_text())
    return data


def top_plans(state: StephensState, **kwargs: Any) -> list[ActivationPlan]:
    frame = state.decisions[-1]
    assert frame.kind == "activation"
    return activation_plans(state, frame.seat, frame.num("place"), exclude=frame.num("used"),
                            **kwargs)


def digest(plans: list[ActivationPlan]) -> str:
    text = "\n".join(f"{p.steps} {p.outcome}" for p in plans)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def twin_or_none(state: StephensState) -> Any:
    module = fast.kernel_module()
    return None if module is None else module.KernelState.from_reference(state)


# -- pinned plans -------------------------------------------------------------------------
#: The 13-worker activation (P2 at FN-UR), each plan as its steps (worker:option, from
#: 0) and its outcome (coin, influence, VP, Forest, Dune, cubes, cubes gained,
#: accessories, accessories gained).
THIRTEEN = """\
0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:1 11:0 12:0 -> 15 9 2 6 12 21 5 4 1
0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 13 11 2 6 12 21 5 4 1
0:0 1:0 2:0 3:0 4:0 5:0 6:0 8:0 9:0 10:1 11:0 12:0 -> 17 9 2 6 12 21 5 3 0
0:0 1:0 2:0 3:0 4:0 5:0 6:0 8:0 9:1 10:1 11:0 12:0 -> 15 11 2 6 12 21 5 3 0
0:0 1:0 2:0 3:0 4:0 5:1 6:0 7:0 8:0 9:0 10:0 11:0 12:0 -> 15 9 2 6 12 18 2 6 3
0:0 1:0 2:0 3:0 4:0 5:1 6:0 7:0 8:0 9:0 10:1 11:0 12:0 -> 15 9 2 6 12 20 4 5 2
0:0 1:0 2:0 3:0 4:0 5:1 6:0 7:0 8:0 9:1 10:0 11:0 12:0 -> 13 11 2 6 12 18 2 6 3
0:0 1:0 2:0 3:0 4:0 5:1 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 13 11 2 6 12 20 4 5 2
0:0 1:0 2:0 3:0 4:0 5:1 6:0 8:0 9:0 10:0 11:0 12:0 -> 17 9 2 6 12 18 2 5 2
0:0 1:0 2:0 3:0 4:0 5:1 6:0 8:0 9:0 10:1 11:0 12:0 -> 17 9 2 6 12 20 4 4 1
0:0 1:0 2:0 3:0 4:0 5:1 6:0 8:0 9:1 10:0 11:0 12:0 -> 15 11 2 6 12 18 2 5 2
0:0 1:0 2:0 3:0 4:0 5:1 6:0 8:0 9:1 10:1 11:0 12:0 -> 15 11 2 6 12 20 4 4 1
0:0 1:0 2:0 3:0 4:1 5:0 6:0 7:0 8:0 9:0 10:1 11:0 12:0 -> 14 10 2 6 12 21 5 4 1
0:0 1:0 2:0 3:0 4:1 5:0 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 12 12 2 6 12 21 5 4 1
0:0 1:0 2:0 3:0 4:1 5:0 6:0 8:0 9:0 10:1 11:0 12:0 -> 16 10 2 6 12 21 5 3 0
0:0 1:0 2:0 3:0 4:1 5:0 6:0 8:0 9:1 10:1 11:0 12:0 -> 14 12 2 6 12 21 5 3 0
0:0 1:0 2:0 3:0 4:1 5:1 6:0 7:0 8:0 9:0 10:0 11:0 12:0 -> 14 10 2 6 12 18 2 6 3
0:0 1:0 2:0 3:0 4:1 5:1 6:0 7:0 8:0 9:0 10:1 11:0 12:0 -> 14 10 2 6 12 20 4 5 2
0:0 1:0 2:0 3:0 4:1 5:1 6:0 7:0 8:0 9:1 10:0 11:0 12:0 -> 12 12 2 6 12 18 2 6 3
0:0 1:0 2:0 3:0 4:1 5:1 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 12 12 2 6 12 20 4 5 2
0:0 1:0 2:0 3:0 4:1 5:1 6:0 8:0 9:0 10:0 11:0 12:0 -> 16 10 2 6 12 18 2 5 2
0:0 1:0 2:0 3:0 4:1 5:1 6:0 8:0 9:0 10:1 11:0 12:0 -> 16 10 2 6 12 20 4 4 1
0:0 1:0 2:0 3:0 4:1 5:1 6:0 8:0 9:1 10:0 11:0 12:0 -> 14 12 2 6 12 18 2 5 2
0:0 1:0 2:0 3:0 4:1 5:1 6:0 8:0 9:1 10:1 11:0 12:0 -> 14 12 2 6 12 20 4 4 1
0:0 1:0 3:0 4:1 5:0 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 10 13 2 6 12 21 5 4 1
0:0 1:0 3:0 4:1 5:0 6:0 8:0 9:1 10:1 11:0 12:0 -> 12 13 2 6 12 21 5 3 0
0:0 1:0 3:0 4:1 5:1 6:0 7:0 8:0 9:1 10:0 11:0 12:0 -> 10 13 2 6 12 18 2 6 3
0:0 1:0 3:0 4:1 5:1 6:0 7:0 8:0 9:1 10:1 11:0 12:0 -> 10 13 2 6 12 20 4 5 2
0:0 1:0 3:0 4:1 5:1 6:0 8:0 9:1 10:0 11:0 12:0 -> 12 13 2 6 12 18 2 5 2
0:0 1:0 3:0 4:1 5:1 6:0 8:0 9:1 10:1 11:0 12:0 -> 12 13 2 6 12 20 4 4 1
"""


def describe(plan: ActivationPlan) -> str:
    steps = " ".join(f"{w}:{o}" for w, o in plan.steps)
    return f"{steps} -> {' '.join(map(str, plan.outcome))}"


def test_the_plans_of_thirteen_workers_are_pinned() -> None:
    state = GAME.state_from_json(position("thirteen"))
    plans = top_plans(state)
    assert [describe(p) for p in plans] == THIRTEEN.splitlines()
    assert len(state.legal_moves()) == 8  # 30 plans, 8 first seven steps (activate-part)
    twin = twin_or_none(state)
    if twin is not None:
        assert twin.legal_moves() == state.legal_moves()


def twelve_workers() -> StephensState:
    """Twelve of P1's workers at FN-UL with trades of every kind and P1 three VP below
    the army: the end is at stake, so VP split the outcomes (1,380 plans)."""
    state = blank(2, seed=4)
    for card in ("glass-cutter", "fishwife", "doctor", "sand-digger", "mould-maker",
                 "resin-tapper", "charcoal-burner", "cooper", "baker", "teacher",
                 "innkeeper", "engraver"):
        attach(state, card, "FN-UL", 0)
    attach(state, "stoker", "FN-UL", 1)
    settle_disks(state)
    player = state.players[0]
    player.coins, player.influence, player.vp = 3, 2, state.army - 3
    player.forest, player.dune = 10, 3
    player.cubes = [1, 0, 0, 0, 0, 0]
    player.accessories = [0, 1, 0]
    state.decisions = [Frame.make("turn", 0, stage=1),
                       Frame.make("activation", 1, place=FN_UL, used=0),
                       Frame.make("activation", 0, place=FN_UL, used=0)]
    state.touched()
    return round_trip(state)


def test_the_plans_of_a_row_of_twelve_workers_are_pinned() -> None:
    state = twelve_workers()
    plans = top_plans(state)
    assert (len(plans), digest(plans)) == (1380, "9ab783192cc6f907")
    assert len(top_plans(state, prune=False)) == 15008
    twin = twin_or_none(state)
    if twin is not None:
        assert twin.legal_moves() == state.legal_moves()


# -- a brute-force oracle ------------------------------------------------------------------
def brute_force(state: StephensState, seat: int, place: int, exclude: int,
                prune: bool) -> list[ActivationPlan]:
    """Every sequence of steps in lexicographic order, the first reaching each outcome
    kept, then every outcome another covers dropped (all pairs): the module docstring
    of engine.stephens.activation, without its search's shortcuts."""
    workers = row_workers(state, seat, place)
    options = [activation._options_of(state, worker) for worker in workers]
    caps = activation._caps(state.catalogue, state.players[seat])
    first: dict[Resources, tuple[Step, ...]] = {}

    def extend(steps: tuple[Step, ...], used: int, have: Resources) -> None:
        first.setdefault(have, steps)
        for w, choices in enumerate(options):
            if not (used | exclude) >> w & 1:
                for o, choice in enumerate(choices):
                    after = activation._take(have, choice, caps)
                    if after is not None:
                        extend(steps + ((w, o),), used | 1 << w, after)

    extend((), 0, resources(state.catalogue, state.players[seat]))
    outcomes = list(first)
    if prune:
        at_stake = max(p.vp for p in state.players) < state.army
        outcomes = [a for a in outcomes
                    if not any(b != a and _covers(b, a, at_stake, state.army)
                               for b in outcomes)]
    return sorted((ActivationPlan(first[o], o) for o in outcomes), key=lambda p: p.steps)


def random_row(rng: random.Random) -> tuple[StephensState, int]:
    """Up to six workers of P1 at the upper furnace of a random side (on the right the
    annealer and the notary have the same options), random resources, P1's VP near
    the army; and the place."""
    state = blank(2, seed=rng.randrange(100))
    cat = state.catalogue
    side = rng.randrange(2)
    place = PLACES.index(("FN-UL", "FN-UR")[side])
    cards = [p.id for p in cat.professions if p.side == side]
    if rng.random() < 0.5:
        cards = ["annealer", "notary"] if side else ["furnace-keeper", "fishwife"]
    else:
        cards = rng.sample(cards, rng.randint(1, 6))
    for card in cards:
        attach(state, card, PLACES[place], 0)
    settle_disks(state)
    player = state.players[0]
    player.coins = rng.randint(0, 4)
    player.influence = rng.randint(0, 4)
    player.vp = state.army - rng.randint(-1, 4)
    player.forest = rng.randint(0, cat.forest.top)
    player.dune = rng.randint(cat.dune.top - 2, cat.dune.top)
    player.cubes = [rng.randint(0, 1) for _ in player.cubes]
    player.accessories = [rng.randint(0, 1) for _ in player.accessories]
    return state, place


@pytest.mark.parametrize("seed", range(40))
def test_the_search_finds_what_a_brute_force_finds(seed: int) -> None:
    rng = random.Random(seed)
    state, place = random_row(rng)
    workers = len(row_workers(state, 0, place))
    exclude = rng.randrange(1 << workers) if rng.random() < 0.3 else 0
    for prune in (True, False):
        plans = activation_plans(state, 0, place, prune=prune, exclude=exclude)
        assert plans == brute_force(state, 0, place, exclude, prune)
        for plan in plans:
            assert plan_outcome(state, 0, place, plan.steps, exclude) == plan.outcome


# -- the loader ----------------------------------------------------------------------------
@pytest.mark.parametrize("workers", ["thirteen", "seventeen", "eighteen"])
def test_the_loader_does_not_search_an_activations_plans(
        workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating a position at an activation decision must not enumerate its plans:
    17 workers took the reference rules minutes (docs/rules/stephens.md)."""
    def refused(*args: Any, **kwargs: Any) -> list[ActivationPlan]:
        raise AssertionError("the loader searched the activation's plans")

    monkeypatch.setattr(activation, "activation_plans", refused)
    monkeypatch.setattr(turn, "activation_plans", refused)
    state = GAME.state_from_json(position(workers))
    assert state.decisions[-1].kind == "activation"
    twin_or_none(state)  # nor does the kernel twin


def single_plan() -> StephensState:
    """P1's stoker (1 influence) at FN-UL: collecting leaves more than doing nothing,
    so there is one plan.  Play collects it at once; a position may still hold it."""
    state = blank(2, seed=2)
    attach(state, "stoker", "FN-UL", 0)
    attach(state, "woodcutter", "FN-UL", 1)
    settle_disks(state)
    state.decisions = [Frame.make("turn", 0, stage=1),
                       Frame.make("activation", 1, place=FN_UL, used=0),
                       Frame.make("activation", 0, place=FN_UL, used=0)]
    state.touched()
    return state


def test_an_activation_of_a_single_plan_is_loaded_and_offered_as_it_is() -> None:
    """Doing nothing is always a plan, so an activation always has a legal move; the
    loader does not count them (docs/rules/stephens.md, the reading of issue 22)."""
    state = state_from_json(single_plan().to_json())
    assert state.legal_moves_text() == ["activate stoker:1"]
    twin = twin_or_none(state)
    if twin is not None:
        assert_same(state, twin)
        ref = state.clone()
        assert twin.random_playout(3, 30) == play_random_moves(ref, 3, 30)
        assert_same(ref, twin)
    before = single_plan()
    state.apply(state.legal_moves()[0])
    assert state.players[0].influence == before.players[0].influence + 1
    # the woodcutter's player has a single plan too, played at once as in play
    assert state.players[1].forest == before.players[1].forest + 1


def frame_data(used: int, seat: int = 0) -> dict[str, Any]:
    state = single_plan()
    attach(state, "carter", "FN-UL", 0)
    settle_disks(state)
    state.decisions[-1] = Frame.make("activation", seat, place=FN_UL, used=used)
    return state.to_json()


def test_an_activation_is_a_decision_of_a_seat_with_a_worker_left_in_the_row() -> None:
    """What the count of legal moves used to refuse, the loader refuses by itself."""
    state_from_json(frame_data(used=0b01))  # P1 collected with the stoker, the carter left
    with pytest.raises(InvalidStateError,
                       match=r"decisions\[2\]: seat 0 has no worker left to collect"):
        state_from_json(frame_data(used=0b11))
    with pytest.raises(InvalidStateError,
                       match=r"decisions\[2\]: context.used names a worker seat 0 does not"):
        state_from_json(frame_data(used=0b100))  # P1 has two workers in the row
    data = frame_data(used=0)
    for frame in data["decisions"][1:]:
        frame["context"]["place"] = PLACES.index("FN-UR")
    with pytest.raises(InvalidStateError,
                       match=r"decisions\[1\]: seat 1 has no worker left to collect"):
        state_from_json(data)


# -- the colours of the cubes a plan exchanges ---------------------------------------------
def cubes_frame(paid: int, gained: int) -> dict[str, Any]:
    """P1 names the colours of the "any" cubes of a plan, holding 12 of each colour."""
    state = blank(2)
    state.players[0].cubes = [12] * len(state.players[0].cubes)
    state.decisions = [Frame.make("turn", 0, stage=1),
                       Frame.make("cubes", 0, paid=paid, gained=gained)]
    return state.to_json()


def test_a_plan_exchanges_no_more_cubes_than_a_row_can() -> None:
    """One plan pays at most 1 "any" cube and gains at most 5 (a seat has one worker a
    card, a row the cards of one side: the doctor or the glassblower pays one; the
    mould-maker, potter, carter and engraver gain 5, as do the lamplighter, seamstress,
    polisher and painter).  The loader took up to 12 and 12: 648,855 exchanges, 1.5 s to
    list on the reference rules and more than the kernel holds."""
    for paid, gained in ((2, 5), (1, 6), (12, 12)):
        with pytest.raises(InvalidStateError, match=r"decisions\[1\]: context\.(paid|gained) "
                                                    r"of the 'cubes' frame must be"):
            state_from_json(cubes_frame(paid, gained))
    state = state_from_json(cubes_frame(1, 5))
    twin = twin_or_none(state)
    if twin is not None:
        assert twin.legal_moves() == state.legal_moves()
    assert activation.most_any_cubes(GAME.catalogue) == (1, 5)
