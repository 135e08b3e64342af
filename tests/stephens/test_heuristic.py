"""The heuristic's terms (engine/stephens/heuristic.py) and the greedy bot playing on it."""

from __future__ import annotations

import random

import pytest

from engine.search.bots import GreedyBot
from engine.stephens import heuristic as h
from engine.stephens.contracts import Payment, fulfilment_payments
from engine.stephens.frames import Frame
from engine.stephens.rules import StephensGame
from engine.stephens.vocabulary import FN_UR
from tests.stephens.helpers import attach, blank, contract, cubes
from tournaments.arena import play_game

# The annealer's benefit: 1 coin and 1 influence, no payment.
ANNEALER = h.COIN + h.INFLUENCE


def test_a_worker_is_an_income_for_its_owner_once_per_reset_to_come() -> None:
    state = blank(2)
    card = attach(state, "annealer", "FN-UR", master=0, apprentice=1)
    assert h.benefit_value(state, card) == pytest.approx(ANNEALER)
    income = h.worker_income(state, resets=3.0)
    assert income == pytest.approx([3 * ANNEALER * h.ROW_ACTIVATIONS] * 2)
    assert h.worker_income(state, resets=0.0) == [0.0, 0.0]


def test_a_new_worker_raises_the_estimate_by_more_than_its_final_vp() -> None:
    state = blank(2)
    before = h.heuristic(state)
    attach(state, "annealer", "FN-UR", master=0)
    after = h.heuristic(state)
    master_vp = state.catalogue.master_vp[FN_UR]
    assert after[1] == pytest.approx(before[1])
    assert after[0] - before[0] == pytest.approx(
        master_vp + h.resets_left(state) * ANNEALER * h.ROW_ACTIVATIONS)


def test_an_activation_under_way_is_worth_its_best_plan() -> None:
    state = blank(2)
    attach(state, "annealer", "FN-UR", master=1)
    assert h.pending_activations(state) == [0.0, 0.0]
    state.decisions.append(Frame.make("activation", 1, place=FN_UR, used=0))
    assert h.pending_activations(state) == pytest.approx([0.0, ANNEALER])
    # Once the worker has collected (bit 0 of ``used``), nothing is left to come.
    state.decisions[-1] = Frame.make("activation", 1, place=FN_UR, used=1)
    assert h.pending_activations(state) == [0.0, 0.0]


@pytest.mark.parametrize(("position", "credit"), [
    (0, 0.0), (2, h.TRACK_PROGRESS * 7 * 2 / 4), (4, 0.0),
    (6, h.TRACK_PROGRESS * 8 * 2 / 4), (8, 0.0), (12, 0.0),
])
def test_track_progress_credits_the_climb_towards_the_next_sector(position: int,
                                                                   credit: float) -> None:
    forest = blank(2).catalogue.forest  # sectors from 0, 4, 8 worth 0, 7, 15
    assert h.track_progress(forest, position) == pytest.approx(credit)


def test_two_greedy_bots_build_rather_than_hoard_furnace_cubes() -> None:
    # On the first heuristic both bots took a furnace cube turn after turn (each worth
    # 0.3, a new profession worth nothing they could see) and this game ended after 89
    # moves at 79 and 92 VP.
    state = StephensGame().new_game(5, 2)
    outcome, moves = play_game(state, [GreedyBot(), GreedyBot()], random.Random(5))
    assert len(moves) > 100
    assert min(outcome.scores) > 100


def test_remembered_payments_follow_the_supply() -> None:
    state = blank(2)
    player = state.players[0]
    crown = contract(state, "crown-01")
    player.contracts = [crown]
    player.cubes = cubes(pink=1)
    assert fulfilment_payments(state, 0, crown) == [
        Payment(tuple(cubes(pink=1)), (0, 0, 0), (0, 0, 0))]
    player.cubes = cubes(white=1)
    assert fulfilment_payments(state, 0, crown) == []
    player.cubes = cubes(pink=1)
    assert len(fulfilment_payments(state, 0, crown)) == 1
