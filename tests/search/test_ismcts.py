"""Single-observer ISMCTS on a hidden-information toy game (and the perfect-information toys)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from engine.game import Outcome, State
from engine.search import search_for, search_kind
from engine.search.analysis import Analysis
from engine.search.bots import (
    DEFAULT_ISMCTS_ITERATIONS,
    BotSpecError,
    IsmctsBot,
    make_bot,
)
from engine.search.compiled import core_module
from engine.search.config import SearchConfig
from engine.search.ismcts import (
    DEFAULT_ISMCTS_C,
    ISMCTS,
    DeterminizationError,
    ismcts_search,
)
from engine.search.mcts import mcts_search
from tournaments.arena import run_arena

from .hidden_toy_games import TricksGame, TricksState, deal
from .toy_games import LotteryState, race

# Cards of a 2-suit, 5-rank deck: A1..A5 are 0..4, B1..B5 are 5..9.
A1, A2, A3, A4, A5, B1, B2, B3, B4, B5 = range(10)


def _stable(analysis: Analysis) -> dict[str, Any]:
    data = analysis.to_json()
    del data["elapsed"]
    return data


def _endgame(opponent: list[int], deck: list[int]) -> TricksState:
    """Seat 0 leads holding A1 B1; A2 A3 A4 B2 are gone; seat 1 holds two of A5 B3 B4 B5."""
    return TricksState(
        2,
        2,
        5,
        [[A1, B1], opponent],
        deck,
        leader=0,
        played=[A2, A3, A4, B2],
        points=[5.0, 5.0],
    )


class _Guarded(TricksState):
    """A root that fails on anything but what ISMCTS is allowed to use.

    ``determinize`` builds a plain :class:`TricksState` from ``observation``, so the
    determinizations themselves are unrestricted.  ``search_state`` (the kernel
    twin ISMCTS determinizes from) is the guarded state itself.
    """

    def _forbidden(self, *args: object, **kwargs: object) -> Any:
        raise AssertionError("the search peeked at the root state")

    apply = clone = rollout = outcome = scores = ranking = to_json = _forbidden
    chance_outcomes = heuristic = why_illegal = render = _forbidden

    def search_state(self) -> State:
        return self


# -- the toy game ---------------------------------------------------------------


def test_toy_game_plays_to_the_end_and_determinizes_consistently() -> None:
    state = deal(3, seed=4)
    rng = random.Random(0)
    while not state.is_terminal():
        seat = state.current_player()
        det = state.determinize(seat, rng)
        assert det.observation(seat) == state.observation(seat)
        cards = sorted([c for h in det.hands for c in h] + det.deck + det.trick + det.played)
        assert cards == list(range(18))
        state.apply(state.legal_moves()[rng.randrange(len(state.legal_moves()))])
    assert sum(state.outcome().rewards) == pytest.approx(1.0)
    assert sum(state.scores()) == sum(c % 6 + 1 for c in range(18) if c in state.played)
    game = TricksGame()
    assert game.state_from_json(state.to_json()).to_json() == state.to_json()


def test_determinizations_resample_the_hidden_cards() -> None:
    state = deal(2, seed=1)
    rng = random.Random(3)
    hands = {tuple(state.determinize(0, rng).hands[1]) for _ in range(50)}
    assert len(hands) > 10
    assert all(tuple(state.determinize(0, rng).hands[0]) == tuple(state.hands[0]) for _ in range(5))


# -- determinism and never peeking ------------------------------------------------


def test_fixed_seed_and_iterations_is_bit_identical() -> None:
    state = deal(3, seed=5)
    first = ismcts_search(state, iterations=1500, seed=42)
    second = ismcts_search(state, iterations=1500, seed=42)
    assert json.dumps(_stable(first)) == json.dumps(_stable(second))
    assert _stable(ismcts_search(state, iterations=1500, seed=43)) != _stable(first)


def test_never_peeks_at_hidden_cards() -> None:
    # Same public information and own hand, different opponent hand and deck order.
    one = _endgame([A5, B3], [B4, B5])
    two = _endgame([B4, B5], [B3, A5])
    assert one.observation(0) == two.observation(0)
    assert one.to_json() != two.to_json()
    a = ismcts_search(one, iterations=800, seed=7)
    b = ismcts_search(two, iterations=800, seed=7)
    assert json.dumps(_stable(a)) == json.dumps(_stable(b))
    # A full game position too, seat 1 to move.
    game = deal(2, seed=9, hand=4)
    game.apply(game.legal_moves()[0])
    other = game.clone()
    pool = other.hands[0] + other.deck
    random.Random(1).shuffle(pool)
    other.hands[0] = sorted(pool[: len(other.hands[0])])
    other.deck = pool[len(other.hands[0]) :]
    assert other.observation(1) == game.observation(1) and other.to_json() != game.to_json()
    assert _stable(ismcts_search(game, iterations=600, seed=3)) == _stable(
        ismcts_search(other, iterations=600, seed=3)
    )


def test_touches_the_root_only_through_the_allowed_calls() -> None:
    root = _Guarded(2, 3, 6, [[0, 7, 13], [2, 9, 16]], [1, 3, 4, 5, 6, 8, 10, 11, 12, 14])
    analysis = ismcts_search(root, iterations=300, seed=0)
    assert analysis.iterations == 300
    assert len(analysis.principal_variation) > 2  # texts recorded in the tree
    assert analysis.best_move_text == root.move_to_text(analysis.best_move)


def test_search_does_not_modify_the_state() -> None:
    state = deal(2, seed=2)
    before = state.to_json()
    ismcts_search(state, iterations=300, seed=0)
    assert state.to_json() == before


# -- availability -------------------------------------------------------------------


def test_availability_counts_and_good_moves_only_sometimes_available() -> None:
    state = _endgame([A5, B3], [B4, B5])
    tree = ISMCTS(state, seed=1)
    tree.search(4000)
    # Root moves are the observer's own: available in every iteration since their creation.
    for move in (A1, B1):
        n, avail, parent_n = tree.availability(move)
        assert n <= avail and parent_n - 2 <= avail <= parent_n
    # After A1 the opponent holds A5 in about half of the determinizations ...
    n, avail, parent_n = tree.availability(A1, A5)
    assert avail < parent_n
    assert 0.4 < avail / parent_n < 0.6
    # ... and, when it can, wins the trick with it (6 points) almost every time.
    assert n / avail > 0.95
    # The losing replies are each available about half of the time too, and share
    # the iterations in which A5 was not in the opponent's hand.
    replies = 0
    for reply in (B3, B4, B5):
        rn, ravail, rparent = tree.availability(A1, reply)
        assert rn <= ravail < rparent and 0.4 < ravail / rparent < 0.6
        replies += rn
    assert replies + n == parent_n - 1  # one iteration expanded A1 itself
    # Invariant everywhere: n <= avail <= parent visits.
    stack = [tree.tree.root]
    while stack:
        node = stack.pop()
        for kid in node.children.values():
            assert 1 <= kid.n <= kid.avail <= node.n
            stack.append(kid)


def test_exploration_is_measured_against_availability() -> None:
    # With a large c every reply is explored a fair share of the iterations in which
    # it was available (about half of its parent's), not of all its parent's visits.
    state = _endgame([A5, B3], [B4, B5])
    wide = ISMCTS(state, config=SearchConfig(c=5.0), seed=2)
    wide.search(3000)
    for reply in (B3, B4, B5):
        n, avail, _ = wide.availability(A1, reply)
        assert n / avail > 0.15


# -- strength, players, chance ----------------------------------------------------------


def test_beats_random_players_at_toy_tricks() -> None:
    result = run_arena(TricksGame(), 2, ["ismcts:150", "random"], 20, seed=11)
    assert result["results"]["ismcts:150"]["win_rate"] >= 0.7


def test_takes_the_trick_worth_taking() -> None:
    # Seat 1 follows A1 (seat 0 led it): A5 wins 6 points, B3 gives seat 0 four.
    state = _endgame([A5, B3], [B4, B5])
    state.apply(A1)
    analysis = ismcts_search(state, iterations=1000, seed=0)
    assert analysis.player == 1
    assert analysis.best_move_text == "A5"


def test_three_players_reward_vectors() -> None:
    analysis = ismcts_search(deal(3, seed=3), iterations=1500, seed=4)
    assert len(analysis.win_probability) == 3
    assert sum(analysis.win_probability) == pytest.approx(1.0)
    assert sum(m.visits for m in analysis.moves) == 1500
    for move in analysis.moves:
        assert len(move.expected_scores) == 3
        assert 0.0 <= move.win_probability <= 1.0
    # On a perfect-information game ISMCTS is plain UCT with availability counts:
    # at 3/7 seat 1 can always reach 7 after seat 0, and takes it (its own component).
    race_analysis = ismcts_search(race(3, 7, 3, total=3), iterations=3000, seed=5)
    assert race_analysis.win_probability[1] > 0.95
    pv = race_analysis.principal_variation_moves
    assert len(pv) == 2 and 3 + pv[0] + pv[1] == 7


def test_four_players() -> None:
    analysis = ismcts_search(deal(4, seed=1), iterations=500, seed=1)
    assert len(analysis.expected_scores) == 4
    assert sum(analysis.win_probability) == pytest.approx(1.0)


def test_chance_outcomes_are_sampled_by_probability_and_tracked() -> None:
    tree = ISMCTS(LotteryState(), seed=11)
    analysis = tree.search(4000)
    assert analysis.best_move_text == "lottery-B"
    by_text = {m.text: m for m in analysis.moves}
    assert by_text["lottery-B"].win_probability == pytest.approx(0.7, abs=0.03)
    assert analysis.principal_variation == ["lottery-B", "ball-2"]
    chance_node = tree.tree.root.children[1]
    counts = [chance_node.outcomes[b].n for b in sorted(chance_node.outcomes)]
    assert sum(counts) == chance_node.n - 1  # the expanding iteration rolled out
    for count, p in zip(counts, (0.1, 0.2, 0.7), strict=True):
        assert count / sum(counts) == pytest.approx(p, abs=0.04)


def test_root_must_be_the_observers_turn() -> None:
    state = _endgame([A5, B3], [B4, B5])
    with pytest.raises(ValueError, match="observer"):
        ismcts_search(state, 1, iterations=10, seed=0)
    with pytest.raises(ValueError, match="observer"):
        ismcts_search(state, 5, iterations=10, seed=0)
    assert ismcts_search(state, 0, iterations=10, seed=0).player == 0
    with pytest.raises(ValueError, match="chance"):
        ismcts_search(LotteryState(lottery=0), iterations=10, seed=0)
    done = race(2, 2, 3)
    done.apply(2)
    with pytest.raises(ValueError, match="finished"):
        ismcts_search(done, iterations=10, seed=0)


# -- budgets ------------------------------------------------------------------------


def test_requires_a_budget() -> None:
    for kwargs in ({}, {"iterations": 0}, {"iterations": True}, {"time_limit": -1.0}):
        with pytest.raises(ValueError):
            ismcts_search(deal(), seed=0, **kwargs)  # type: ignore[arg-type]


def test_time_limit_and_whichever_budget_first() -> None:
    state = deal(2, seed=3)
    start = time.perf_counter()
    analysis = ismcts_search(state, time_limit=0.2, seed=0)
    assert analysis.stop_reason == "time_limit"
    assert analysis.elapsed >= 0.2 and analysis.iterations >= 1
    assert time.perf_counter() - start < 0.2 + 30.0  # only a search ignoring its limit fails
    quick = ismcts_search(state, iterations=100, time_limit=600.0, seed=0)
    assert quick.iterations == 100 and quick.stop_reason == "iterations"


def test_should_stop_cancels() -> None:
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls >= 37

    analysis = ismcts_search(deal(), iterations=10**6, seed=0, should_stop=stop)
    assert analysis.iterations == 37


def test_on_progress_streams_and_does_not_change_the_result() -> None:
    seen: list[Analysis] = []
    final = ismcts_search(
        deal(2, seed=1), time_limit=0.35, seed=0, on_progress=seen.append, progress_interval=0.1
    )
    assert 2 <= len(seen) <= 5
    counts = [a.iterations for a in seen] + [final.iterations]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert all(sum(m.visits for m in a.moves) == a.iterations for a in seen)
    state = deal(2, seed=6)
    plain = ismcts_search(state, iterations=1500, seed=9)
    streamed = ismcts_search(
        state, iterations=1500, seed=9, on_progress=lambda a: None, progress_interval=0.001
    )
    assert _stable(plain) == _stable(streamed)


def test_search_can_be_resumed() -> None:
    tree = ISMCTS(deal(2, seed=2), seed=0)
    tree.search(200)
    analysis = tree.search(300)
    assert analysis.iterations == 500 and tree.tree.root.n == 500


def test_search_runs_on_the_search_state_twin() -> None:
    rollouts: list[int] = []

    class Twin(TricksState):
        def rollout(self, seed: int) -> Outcome:
            rollouts.append(seed)
            return super().rollout(seed)

    class Root(TricksState):
        def determinize(self, observer: int, rng: random.Random) -> TricksState:
            det = super().determinize(observer, rng)
            twin = Twin.__new__(Twin)
            twin.__dict__.update(det.__dict__)
            det.search_state = lambda: twin  # type: ignore[method-assign]
            return det

    root = Root(2, 3, 6, [[0, 7, 13], [2, 9, 16]], [1, 3, 4, 5, 6, 8, 10, 11, 12, 14])
    ismcts_search(root, iterations=100, seed=0)
    assert 90 <= len(rollouts) <= 100


def test_debug_mode_catches_a_determinization_that_changes_the_view() -> None:
    class Leaky(TricksState):
        def determinize(self, observer: int, rng: random.Random) -> TricksState:
            det = super().determinize(observer, rng)
            mine, theirs = det.hands[observer], det.hands[1 - observer]
            mine[0], theirs[0] = theirs[0], mine[0]  # the observer's own hand changed
            return det

    fine = deal(2, seed=5)
    root = Leaky.__new__(Leaky)
    root.__dict__.update(fine.clone().__dict__)
    ismcts_search(root, iterations=20, seed=0)  # unnoticed without the check
    with pytest.raises(DeterminizationError, match="seat 0"):
        ISMCTS(root, seed=0, check_determinizations=True).search(20)
    ISMCTS(fine, seed=0, check_determinizations=True).search(50)


# -- bots and the search picker ---------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "iterations", "time_limit", "c"),
    [
        ("ismcts", DEFAULT_ISMCTS_ITERATIONS, None, None),
        ("ismcts:500", 500, None, None),
        ("ISMCTS:t=0.5:c=1", None, 0.5, 1.0),
        ("ismcts:i=300:t=2", 300, 2.0, None),
    ],
)
def test_ismcts_specs(
    spec: str, iterations: int | None, time_limit: float | None, c: float | None
) -> None:
    bot = make_bot(spec, seed=1)
    assert isinstance(bot, IsmctsBot)
    assert bot.name == spec
    assert (bot.iterations, bot.time_limit, bot.overrides.c) == (iterations, time_limit, c)
    # Without a c the tree takes the game's, else ISMCTS's own default.
    tree = bot._tree(deal(2, seed=1), 0)  # type: ignore[attr-defined]
    assert tree.settings.c == (DEFAULT_ISMCTS_C if c is None else c)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("ismcts:0", "at least 1"), ("ismcts:q=3", "unknown ismcts option"), ("ismcts:c=-1", "neg")],
)
def test_bad_ismcts_specs(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec)


def test_ismcts_bot_plays_reproducibly_and_keeps_its_analysis() -> None:
    state = deal(2, seed=8)
    before = state.to_json()
    a = [make_bot("ismcts:100").choose(state, random.Random(s)) for s in range(4)]
    b = [make_bot("ismcts:100").choose(state, random.Random(s)) for s in range(4)]
    assert a == b and set(a) <= set(state.legal_moves())
    assert state.to_json() == before
    bot = IsmctsBot(iterations=50, seed=2)
    bot.choose(state, random.Random(0))
    assert bot.last_analysis is not None and bot.last_analysis.iterations == 50
    assert bot.name == "ismcts:50"
    with pytest.raises(ValueError, match="chance"):
        bot.choose(LotteryState(lottery=0), random.Random(0))


def test_search_for_picks_by_perfect_information() -> None:
    perfect = race(2, 20, 3)
    hidden = deal(2, seed=4)
    assert search_kind(perfect) == "mcts" and search_kind(hidden) == "ismcts"
    assert _stable(search_for(perfect, iterations=400, seed=1)) == _stable(
        mcts_search(perfect, iterations=400, seed=1)
    )
    assert _stable(search_for(hidden, iterations=400, seed=1)) == _stable(
        ismcts_search(hidden, iterations=400, seed=1)
    )
    assert _stable(search_for(hidden, 0, iterations=400, seed=1, c=2.0)) == _stable(
        ismcts_search(hidden, iterations=400, seed=1, c=2.0)
    )
    with pytest.raises(TypeError):
        search_for(hidden, iterations=10, workers=2)
    # Perfect information: every seat knows the mover's options and may search for it.
    assert _stable(search_for(perfect, 1, iterations=400, seed=1)) == _stable(
        mcts_search(perfect, iterations=400, seed=1)
    )
    # Hidden information: another seat cannot know them.
    with pytest.raises(ValueError, match="cannot search"):
        search_for(hidden, 1, iterations=10)


@pytest.mark.parametrize("compiled", [
    False, pytest.param(True, marks=pytest.mark.skipif(
        core_module() is None, reason="the compiled search is not built (or pure Python)"))])
def test_a_line_marks_other_seats_secret_choices_as_guesses(compiled: bool) -> None:
    """Issue 37: an Oh My Goods! line showed the other seat's secret phase II plan as if
    known.  Its secret choices (State.move_is_secret) are the search's guesses, marked
    so; the observer's own moves and public ones are not."""
    from engine import registry
    from engine.game import CHANCE
    from engine.search.analysis import GUESS
    from engine.search.ismcts import ISMCTS

    state = registry.new_game("oh-my-goods", seed=4, num_players=2)
    rng = random.Random(1)
    while state.phase != "choose" or state.current_player() != 0:
        moves = state.legal_moves() if state.current_player() >= 0 else \
            [m for m, _ in state.chance_outcomes()]
        state.apply(rng.choice(moves))
    guesses = 0
    for seed in range(4):
        search = ISMCTS(state, 0, seed=seed, compiled=compiled)
        search.search(iterations=400)
        assert (not search.python_reason) == compiled, search.python_reason
        texts = search.analysis().principal_variation
        steps = search.tree.principal_variation()
        assert len(texts) == len(steps) > 2
        for text, (move, _context, mover) in zip(texts[1:], steps[1:], strict=True):
            secret = mover not in (0, CHANCE) and state.move_is_secret(move)
            assert text.endswith(f" {GUESS}") == secret, (text, mover)
            guesses += secret
        assert not texts[0].endswith(GUESS)
    assert guesses, "no line guessed the other seat's plan: the test shows nothing"
