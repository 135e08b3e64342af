"""The compiled Oh My Goods! kernel (ext/oh_my_goods_kernel.pyx) against the reference rules.

Only what is Oh My Goods!'s own is here; the checks every kernel must pass are
in tests/test_kernel_protocol.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from checks.kernel import check_kernel
from engine.oh_my_goods import GAME, fast
from engine.oh_my_goods.state import OhMyGoodsState
from engine.oh_my_goods.vocabulary import MAX_ROUNDS
from tests.kernel_twins import assert_same, game_setups, kernel_state_or_skip, random_positions
from tests.oh_my_goods.helpers import blank

KernelState = kernel_state_or_skip(fast, "Oh My Goods!")


def twin(state: OhMyGoodsState) -> Any:
    return KernelState.from_reference(state)


def test_check_kernel_finds_no_mismatch() -> None:
    """checks.kernel finds no difference over 8 seeded games (as Stephens'; CI's
    ``furnace check-kernel oh-my-goods --games 30`` plays more)."""
    report = check_kernel(GAME, 8, 11)
    assert report["mismatches"] == 0, report["examples"]
    assert report["steps"] > 8 * 50


# -- determinization ----------------------------------------------------------------------------

def test_determinize_matches_reference() -> None:
    """The C determinization deals exactly the reference's cards from the same generator."""
    hidden_choices = 0
    for seed, players, options in game_setups(GAME, 12):
        for i, state in enumerate(random_positions(GAME, seed, players, options)):
            if i % 5:
                continue
            k = twin(state)
            for observer in [*range(players), None]:
                hidden_choices += state.phase == "choose" and observer is not None and any(
                    p.chosen for s, p in enumerate(state.players) if s != observer)
                ref_rng, k_rng = random.Random(i), random.Random(i)
                ref_det = state.determinize(observer, ref_rng)
                k_det = k.determinize(observer, k_rng)
                assert isinstance(k_det, KernelState)
                assert_same(ref_det, k_det)
                # ... and leaves the generator where the reference leaves it
                assert ref_rng.getrandbits(64) == k_rng.getrandbits(64)
    assert hidden_choices > 20  # opponents' pending phase II choices were redrawn


def test_determinize_with_another_generator_class_uses_the_reference() -> None:
    """A random.Random subclass may override the draws, so the kernel leaves it to the reference."""
    class Counting(random.Random):
        draws = 0

        def getrandbits(self, k: int) -> int:
            type(self).draws += 1
            return super().getrandbits(k)

    positions = random_positions(GAME, 7, 3, {"second_edition": False})
    state = next(s for i, s in enumerate(positions) if i == 40)
    ref_det = state.determinize(1, random.Random(3))
    k_det = twin(state).determinize(1, Counting(3))
    assert Counting.draws > 0
    assert_same(ref_det, k_det)


def test_determinize_rejects_a_bad_observer() -> None:
    """An observer who is neither a seat of the game nor None (the host) is refused."""
    k = twin(GAME.new_game(1, 2))
    for bad in (2, -1, "0", 0.0):
        with pytest.raises(ValueError, match="observer"):
            k.determinize(bad, random.Random(1))
    assert isinstance(k.determinize(None, random.Random(1)), KernelState)


def _shown_after_reshuffle() -> OhMyGoodsState:
    """A seeded random position after a reshuffle, with goods a chain showed, a draw
    pile, and a face-down good that was not in the reshuffled pile (so it must never
    be dealt into the draw pile)."""
    for seed, players, options in game_setups(GAME, 60):
        for state in random_positions(GAME, seed, players, options):
            if state.is_terminal() or not (state.reshuffled and state.shown and state.deck):
                continue
            pile = set(state.reshuffled)
            if any(c not in pile and c not in state.shown
                   for p in state.players for g in p.goods for c in g):
                return state.clone()
    raise AssertionError("no seeded game reached such a position")


def test_determinize_keeps_shown_goods_and_the_reshuffled_draw_pile() -> None:
    """Goods a chain showed stay in place and the draw pile is dealt only from the
    cards of the last reshuffle, for every seat and for the host, as in the reference."""
    state = _shown_after_reshuffle()
    k = twin(state)
    assert_same(state, k)
    pile = set(state.reshuffled)
    shown_ids = sorted(state.catalogue.cards[c].id for c in state.shown)
    for observer in [*range(state.num_players), None]:
        decks = set()
        for seed in range(12):
            ref_rng, k_rng = random.Random(seed), random.Random(seed)
            ref_det = state.determinize(observer, ref_rng)
            det = k.determinize(observer, k_rng)
            assert_same(ref_det, det)
            assert ref_rng.getrandbits(64) == k_rng.getrandbits(64)
            dealt = det.to_reference()
            assert det.to_json()["shown_goods"] == shown_ids
            assert dealt.shown == state.shown and dealt.reshuffled == state.reshuffled
            for player, before in zip(dealt.players, state.players, strict=True):
                assert [len(g) for g in player.goods] == [len(g) for g in before.goods]
                for goods, old in zip(player.goods, before.goods, strict=True):
                    assert all(c == o for c, o in zip(goods, old, strict=True)
                               if o in state.shown)
                    assert not any(c in state.shown for c, o in zip(goods, old, strict=True)
                                   if o not in state.shown)
            assert len(dealt.deck) == len(state.deck) and set(dealt.deck) <= pile
            decks.add(tuple(dealt.deck))
            for p, (player, before) in enumerate(zip(dealt.players, state.players,
                                                     strict=True)):
                if observer is None or p == observer:
                    assert player.hand == before.hand and player.plan == before.plan
        assert len(decks) > 1  # the draw pile's order is resampled


def test_states_that_do_not_fit_fall_back_to_the_reference() -> None:
    """A state the kernel cannot hold is refused, and search then runs on the reference."""
    state = GAME.new_game(1, 2)
    state._starting_sizes = []
    with pytest.raises(ValueError, match="starting hand"):
        twin(state)
    assert state.search_state() is state


def test_round_limit_and_heuristic_agree_with_the_reference() -> None:
    """The last-round safeguard and the heuristic's promises, move for move."""
    state = GAME.new_game(5, 3)
    state.round = MAX_ROUNDS - 1
    k = twin(state)
    rng = random.Random(5)
    while not state.is_terminal():
        assert k.heuristic() == pytest.approx(state.heuristic(), abs=1e-12)
        move = rng.choice(state.legal_moves())
        state.apply(move)
        k.apply(move)
        assert_same(state, k)
    assert state.round == MAX_ROUNDS and k.to_json()["final_round"] == MAX_ROUNDS


# -- a deal that empties both piles ---------------------------------------------------------------

def test_a_deal_that_empties_both_piles_matches_the_reference() -> None:
    """Issue (found by furnace fuzz-states): the kernel put each dealt card into the hand
    as it drew it, the reference adds a seat's cards once all are drawn; when both piles
    ran out during the deal, everyone discarded half a hand that differed by that card."""
    state = blank(2, seed=3)
    state.players[0].hand, state.players[1].hand = state.deck[3:40], state.deck[40:]
    state.deck = state.deck[:3]  # two cards for the active seat, one for the other
    k = twin(state)
    assert state.legal_moves_text() == ["done"]
    events = state.apply(state.legal_moves()[0])
    k.apply(k.legal_moves()[0])
    assert any("discards half" in e.text for e in events)
    assert_same(state, k)


# -- entry checks: nothing out of bounds reaches the struct ------------------------------

def _position(step: str) -> OhMyGoodsState:
    for seed, players, options in game_setups(GAME, 30):
        for state in random_positions(GAME, seed, players, options):
            if state.phase == "act" and state.step == step and state.pay is None:
                return state.clone()
    raise AssertionError(f"no position in step {step}")


def _first_card_elsewhere(state: OhMyGoodsState) -> int:
    return state.deck[0] if state.deck else state.discard[0]


@pytest.mark.parametrize(
    ("step", "change", "message"),
    [
        ("supply", lambda s: setattr(s, "running", 40), "act.running"),
        ("supply", lambda s: setattr(s, "running", -1), "act.running"),
        ("chain", lambda s: setattr(s, "chain_slot", 63), "act.chain_slot"),
        ("run", lambda s: s.display.append(_first_card_elsewhere(s)), "in two places"),
        ("run", lambda s: s.players[0].hand.append(200), "hand"),
        ("run", lambda s: s.pool.__setitem__(0, [s.pool[0][0], 2]), "pool face"),
        ("run", lambda s: s.pool.__setitem__(0, [20, 0]), "pool assistant"),
        ("run", lambda s: s.pool.append(list(s.pool[0])), "listed twice"),
        ("run", lambda s: setattr(s.players[0], "charburner", 30), "charburner"),
        ("run", lambda s: setattr(s.players[0], "plan", 500), "plan"),
        ("run", lambda s: setattr(s.players[0], "work", (9, 0)), "work slot"),
        ("run", lambda s: setattr(s.players[0], "work", (0, 2)), "work mode"),
        ("run", lambda s: s.players[0].assistants.append([0, 0, 9]), "assistant slot"),
        ("run", lambda s: setattr(s, "active", 7), "active"),
        ("run", lambda s: setattr(s, "turn", -1), "turn"),
        ("run", lambda s: setattr(s, "hired", 40), "act.hired"),
        ("run", lambda s: s.handled.extend([70]), "act.handled"),
        ("run", lambda s: s.need.__setitem__(2, -5), "act.need"),
        ("run", lambda s: setattr(s, "produce_count", 400), "act.produce_count"),
        ("run", lambda s: setattr(s, "step", "build") or setattr(s.players[s.seat()], "plan",
                                                                 None), "planned card"),
        ("place", lambda s: setattr(s, "hired", next(
            a for a in range(8) if all(a != x for x, _ in s.pool))), "act.hired"),
        ("run", lambda s: setattr(s, "pay", {"due": 3, "paid": 0, "last": 0,
                                             "purpose": "build", "arg": 99}), "planned card"),
        ("run", lambda s: setattr(s, "pay", {"due": 3, "paid": 0, "last": 0,
                                             "purpose": "hire", "arg": 15}), "pool to hire"),
        ("run", lambda s: setattr(s, "pay", {"due": 3, "paid": 0, "last": 30,
                                             "purpose": "shift", "arg": 0}), "act.pay.last"),
    ],
)
def test_values_beyond_the_struct_are_refused(step: str, change: Any, message: str) -> None:
    """Issue: the kernel is compiled without bounds checks, and from_reference let
    building slots (the one being run or chained), cards in two places, pool faces and
    assistants, charburners, plans, seats and payment arguments through: play then read
    and wrote outside the struct's arrays (a search worker died of SIGSEGV)."""
    state = _position(step)
    twin(state)  # fits before the change
    change(state)
    with pytest.raises(ValueError, match=message):
        twin(state)


def test_seat_arguments_are_checked() -> None:
    k = twin(GAME.new_game(1, 2))
    assert k.coins(1) == GAME.new_game(1, 2).coins(1)
    for bad in (2, -1, 10**6):
        with pytest.raises(ValueError, match="seat"):
            k.coins(bad)
        with pytest.raises(ValueError, match="seat"):
            k.vp(bad)
    with pytest.raises(TypeError, match="seed"):
        k.clone().rollout("1")
