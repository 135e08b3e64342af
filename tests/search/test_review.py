"""Game reviews (:mod:`engine.search.review`): labels on constructed positions, the same
review for the same seed, the played move forced into the root, and no hindsight: a
seat's review reads only what that seat could see."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from engine import registry
from engine.forecast import forecast_analysis, playouts_for, position_playouts
from engine.game import State
from engine.records import GameRecord, RecordError, resolve_move, start_state
from engine.search import make_bot, make_tree
from engine.search._common import derive_seed
from engine.search.review import (
    Decision,
    Interlude,
    MoveFigures,
    dealt,
    decisions_of,
    interludes,
    key_moments,
    margin,
    review_decision,
    review_game,
    with_swings,
)
from engine.search.review_settings import (
    LABELS,
    REVIEW_SETTINGS,
    ReviewSettings,
    review_settings_for,
)
from tournaments import play_game

# A Samara game between two level-4 bots (seed 18), up to seat 1's 75th move: "build
# r4c9 1+2+3" wins it (a 20,000-iteration search: 100%, ending 74.5 to 67.5), while
# "build r4c6 1+2+3" builds the other corner and hands the game over (22%).
SAMARA_SEED = 18
SAMARA_MOVES = [
    "tool saw r2c1 1+2", "tool saw r1c2 1", "tool square r1c4 1", "tool saw r3c1 1+2",
    "recruit woman", "tool compass r1c3 1", "tool glass-a r2c2 1", "build r2c2 1",
    "build r1c5 1 train 1", "build r1c7 1", "build r1c3 1", "tool saw r3c3 1+3",
    "recruit man", "build r3c1 1", "build r3c3 1", "recruit woman", "tool compass r1c1 1",
    "tool glass-a r2c3 1", "build r2c3 1", "give saw", "build r1c1 1", "tool saw r1c3 1",
    "tool glass-b r3c2 1+2", "tool saw r2c3 1", "tool square r2c4 1", "build r2c4 1+3",
    "build r1c6 1", "build r2c1 1", "build r2c7 1", "build r2c6 1", "vacation",
    "build r1c2 1", "build r3c6 1+2", "vacation", "vacation", "build r4c5 1+3", "weaken 1",
    "vacation", "build r3c2 1+2", "give saw", "give saw", "recruit man", "vacation",
    "vacation", "vacation", "build r3c4 1", "build r1c4 1", "vacation", "build r3c7 1",
    "give compass", "build r2c5 1+2", "tool saw r3c2 1+3", "build r3c8 1+2", "vacation",
    "vacation", "vacation", "tool saw r3c2 1+3", "vacation", "build r4c4 1+3", "vacation",
    "build r3c9 1+2", "vacation", "vacation", "build r3c5 1+2", "tool glass-b r4c4 1+3",
    "vacation", "build r4c7 1+2", "imprison 3", "vacation", "build r2c8 1+2", "vacation",
    "vacation", "build r4c8 1+3", "vacation",
]
WINNING_BUILD = "build r4c9 1+2+3"
LOSING_BUILD = "build r4c6 1+2+3"


def samara_position() -> State:
    state = registry.get_game("samara").new_game(SAMARA_SEED, 2, {})
    for text in SAMARA_MOVES:
        state.apply(state.parse_move(text))
    return state


def judge(state: State, text: str, budget: int = 200, seed: int = 0) -> Any:
    return review_decision(state, state.parse_move(text), len(SAMARA_MOVES), budget=budget,
                           seed=seed, settings=review_settings_for(state))


def test_throwing_away_a_winning_build_is_a_blunder_and_the_build_is_best() -> None:
    state = samara_position()
    assert state.current_player() == 1
    thrown = judge(state, LOSING_BUILD)
    assert thrown.label in ("mistake", "blunder")
    assert thrown.best.text == WINNING_BUILD and thrown.played.text == LOSING_BUILD
    assert thrown.win_probability_loss >= 0.5 and thrown.score_loss > 0
    assert thrown.accuracy < 50
    assert thrown.principal_variation[0] == WINNING_BUILD
    # each move was searched alone with the whole budget, here the deeper look's (a
    # blunder stands only if a look `confirm` times deeper agrees)
    assert thrown.played.visits == thrown.best.visits == 200 * review_settings_for(state).confirm
    kept = judge(state, WINNING_BUILD)
    assert kept.label == "best" and kept.played == kept.best
    assert kept.win_probability_loss == 0 and kept.score_loss == 0 and kept.accuracy == 100


@pytest.mark.parametrize(("probability", "points", "label"), [
    (0.0, 0.0, "best"), (-0.03, -1.0, "best"), (0.01, 0.5, "good"), (-0.01, 0.5, "good"),
    (0.05, 0.0, "inaccuracy"), (0.0, 3.0, "inaccuracy"), (0.10, 1.0, "mistake"),
    (0.02, 6.5, "mistake"), (0.25, 0.0, "blunder"), (0.0, 12.0, "blunder"),
])
def test_labels_follow_the_worse_of_the_two_losses(probability: float, points: float,
                                                   label: str) -> None:
    settings = ReviewSettings(budget=10, probability=(0.05, 0.10, 0.20), points=(3, 6, 12))
    assert settings.label(probability, points) == label
    assert settings.label(0.0, 0.0, best=True) == "best"


def test_accuracy_falls_from_100_to_0_at_a_blunders_loss() -> None:
    settings = ReviewSettings(budget=10, probability=(0.05, 0.10, 0.20), points=(3, 6, 12))
    assert settings.accuracy(0.0, 0.0) == 100 and settings.accuracy(-0.1, -3) == 100
    assert settings.accuracy(0.10, 0.0) == pytest.approx(50)
    assert settings.accuracy(0.0, 9.0) == pytest.approx(25)
    assert settings.accuracy(0.3, 0.0) == 0


def test_every_game_has_review_settings_and_bad_ones_are_refused() -> None:
    for name in registry.game_names():
        assert name in REVIEW_SETTINGS
    with pytest.raises(ValueError, match="increasing"):
        ReviewSettings(budget=10, probability=(0.1, 0.05, 0.2), points=(1, 2, 3))
    with pytest.raises(ValueError, match="at least 2"):
        ReviewSettings(budget=1, probability=(0.05, 0.1, 0.2), points=(1, 2, 3))
    for measurements in (0, 6, 1.5, True):
        with pytest.raises(ValueError, match="measurements"):
            ReviewSettings(budget=10, probability=(0.05, 0.1, 0.2), points=(1, 2, 3),
                           measurements=measurements)  # type: ignore[arg-type]


def test_margin_is_over_the_best_other_seat_or_the_target() -> None:
    assert margin((10.0, 14.0, 12.0), 0) == -4.0
    assert margin((10.0, 14.0, 12.0), 1) == 2.0
    assert margin((150.0,), 0, 160.0) == -10.0


def samara_record(seed: int = 3, plies: int = 24) -> GameRecord:
    game = registry.get_game("samara")
    state = game.new_game(seed, 2, {})
    _, moves = play_game(state, [make_bot("random"), make_bot("random")], random.Random(seed))
    return GameRecord("samara", 2, seed=seed, moves=list(moves[:plies]))


def test_the_same_seed_and_budget_give_the_same_review() -> None:
    record = samara_record()
    seen: list[tuple[int, int]] = []
    first = review_game(record, None, budget=20, seed=5,
                        on_progress=lambda done, total, _: seen.append((done, total)))
    again = review_game(record, None, budget=20, seed=5)
    assert first.to_json() == again.to_json()
    assert seen == [(k + 1, len(first.decisions)) for k in range(len(first.decisions))]
    # a seat's decisions are judged alike when reviewed alone
    alone = review_game(record, 1, budget=20, seed=5)
    assert [d.to_json() for d in alone.decisions] == \
        [d.to_json() for d in first.decisions if d.seat == 1]
    assert review_game(record, None, budget=20, seed=6).to_json() != first.to_json()


def test_a_review_stops_between_decisions_when_asked() -> None:
    record = samara_record()
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    partial = review_game(record, None, budget=20, seed=5, should_stop=stop)
    whole = review_game(record, None, budget=20, seed=5)
    assert not partial.complete and whole.complete
    assert [d.to_json() for d in partial.decisions] == \
        [d.to_json() for d in whole.decisions[:3]]
    assert sum(s.decisions for s in partial.summaries) == 3


def test_a_decision_stopped_by_its_caller_still_measures_both_moves() -> None:
    """A service stops a decision (a cancel, a deadline): every search ends after its
    first iteration, and the decision says so; the same decision unstopped runs its
    budget in every search, the played move and the best move alike."""
    state = samara_position()
    played = state.parse_move(LOSING_BUILD)
    # Without a deeper look, whose own test is below: how many searches ran is then
    # known from the decision alone.
    settings = replace(review_settings_for(state), confirm=1)
    stopped = review_decision(state, played, len(SAMARA_MOVES), budget=500, seed=0,
                              settings=settings, should_stop=lambda: True)
    whole = review_decision(state, played, len(SAMARA_MOVES), budget=40, seed=0,
                            settings=settings)
    assert stopped.stop_reason == "stopped"
    assert stopped.iterations == searches_of(stopped, played, settings)
    assert stopped.played.move == played and stopped.played.visits == 1
    assert whole.stop_reason == "iterations"
    assert whole.iterations == 40 * searches_of(whole, played, settings)
    assert whole.principal_variation_moves[0] == whole.best.move
    assert len(whole.principal_variation_moves) == len(whole.principal_variation)
    assert whole.principal_variation[0] == whole.best.text


def searches_of(decision: Any, played: int, settings: ReviewSettings) -> int:
    """How many searches judged ``decision``: the open one, and one pair a measurement
    (more than one only for a loss that reaches a label above good)."""
    if decision.best.move == played:
        return 1
    flagged = decision.label not in ("best", "good")
    return 1 + 2 * (settings.measurements if flagged else 1)


def test_a_flagged_loss_is_measured_again_and_the_smallest_stands() -> None:
    """With ``measurements=3`` a blunder's pair of searches is run three times, with three
    seeds, and the decision keeps the measurement whose loss is the least severe; a
    loss below every label is measured once."""
    state = samara_position()
    played = state.parse_move(LOSING_BUILD)
    turn = len(SAMARA_MOVES)
    strict = ReviewSettings(budget=60, probability=(0.05, 0.10, 0.20), points=(3, 6, 12),
                            measurements=3)
    decision = review_decision(state, played, turn, budget=60, seed=4, settings=strict)
    assert decision.label == "blunder" and decision.iterations == 60 * 7
    best = decision.best.move
    severities = []
    for again in range(3):
        seed = derive_seed("review played", 4, turn, *((again,) if again else ()))
        # The review's figures are forecasts of the searches' (docs/forecasts.md).
        figures = [forecast_analysis(state, make_tree(state, seed=seed, observer=1,
                                                      root_moves=(move,)).search(60),
                                     1, strict.forecast_source, seed=4).moves[0]
                   for move in (best, played)]
        probability = figures[0].win_probability - figures[1].win_probability
        points = (margin(figures[0].expected_scores, 1) - margin(figures[1].expected_scores, 1))
        severities.append(strict.severity(probability, points))
    assert len(set(severities)) > 1, "fresh seeds, other measurements"
    assert strict.severity(decision.win_probability_loss, decision.score_loss) \
        == pytest.approx(min(severities))
    lenient = ReviewSettings(budget=60, probability=(2.0, 3.0, 4.0),
                             points=(500, 600, 700), measurements=3)
    once = review_decision(state, played, turn, budget=60, seed=4, settings=lenient)
    assert once.label == "good" and once.iterations == 60 * 3


def test_a_mistake_stands_only_if_a_deeper_look_agrees() -> None:
    """With ``confirm=4`` a blunder's pair of searches is run again with 4 times the
    budget and a fresh seed, and the decision is that look's, label and losses; a move
    below a mistake is not looked at again."""
    state = samara_position()
    played = state.parse_move(LOSING_BUILD)
    turn = len(SAMARA_MOVES)
    strict = ReviewSettings(budget=60, probability=(0.05, 0.10, 0.20), points=(3, 6, 12),
                            confirm=4)
    decision = review_decision(state, played, turn, budget=60, seed=4, settings=strict)
    assert decision.iterations == 60 * 3 + 60 * 4 * 2
    best = decision.best.move
    seed = derive_seed("review deeper", 4, turn)
    # The position's playouts: the review's, as many as its budget of 60 pays for.
    playouts = position_playouts(state, 1, 4, count=playouts_for(60))
    figures = [forecast_analysis(state, make_tree(state, seed=seed, observer=1,
                                                  root_moves=(move,)).search(240),
                                 1, strict.forecast_source, playouts=playouts).moves[0]
               for move in (best, played)]
    assert decision.win_probability_loss == pytest.approx(
        figures[0].win_probability - figures[1].win_probability)
    assert decision.label == strict.label(decision.win_probability_loss,
                                          decision.score_loss)
    lenient = ReviewSettings(budget=60, probability=(0.05, 3.0, 4.0),
                             points=(3, 600, 700), confirm=4)
    once = review_decision(state, played, turn, budget=60, seed=4, settings=lenient)
    assert once.label == "inaccuracy" and once.iterations == 60 * 3
    with pytest.raises(ValueError, match="confirm"):
        ReviewSettings(budget=60, probability=(0.05, 0.1, 0.2), points=(3, 6, 12), confirm=0)


def test_a_decision_with_a_time_budget_gives_each_search_a_share() -> None:
    state = samara_position()
    decision = review_decision(state, state.parse_move(LOSING_BUILD), len(SAMARA_MOVES),
                               budget=None, time_limit=0.3, seed=0,
                               settings=review_settings_for(state))
    assert decision.stop_reason == "time_limit" and decision.iterations > 0
    assert decision.label in LABELS


def test_a_review_skips_forced_moves_and_sums_up_each_seat() -> None:
    record = samara_record()
    review = review_game(record, [0, 1], budget=20, seed=1)
    state = start_state(record)
    expected = []
    for turn, entry in enumerate(record.moves):
        move = resolve_move(state, turn, entry)
        if state.current_player() >= 0 and len(state.legal_moves()) > 1:
            expected.append(turn)
        state.apply(move)
    assert [d.turn for d in review.decisions] == expected
    for summary in review.summaries:
        own = [d for d in review.decisions if d.seat == summary.seat]
        assert summary.decisions == len(own) and set(summary.counts) == set(LABELS)
        assert sum(summary.counts.values()) == len(own)
        assert summary.accuracy == pytest.approx(sum(d.accuracy for d in own) / len(own))
    data = review.to_json()
    assert all(turn["label"] in LABELS for turn in data["turns"])
    with pytest.raises(ValueError, match="not a seat"):
        review_game(record, 2, budget=20)
    with pytest.raises(ValueError, match="budget"):
        review_game(record, 0, budget=1)


def test_root_moves_limit_the_roots_candidates() -> None:
    state = samara_position()
    moves = [state.parse_move(WINNING_BUILD), state.parse_move(LOSING_BUILD)]
    analysis = make_tree(state, seed=1, root_moves=moves).search(iterations=50)
    assert sorted(m.move for m in analysis.moves) == sorted(moves)
    with pytest.raises(ValueError, match="not legal"):
        make_tree(state, seed=1, root_moves=[moves[0], 12345])
    hidden = registry.get_game("oh-my-goods").new_game(3, 2, {})
    legal = hidden.legal_moves()
    analysis = make_tree(hidden, seed=1, root_moves=legal[:2]).search(iterations=30)
    assert sorted(m.move for m in analysis.moves) == sorted(legal[:2])


# -- no hindsight -------------------------------------------------------------------------
def views(record: GameRecord, seat: int) -> list[tuple[int, Any, list[int]]]:
    """What ``seat`` saw at each of its moves: turn, observation and legal moves."""
    state = start_state(record)
    seen = []
    for turn, entry in enumerate(record.moves):
        move = resolve_move(state, turn, entry)
        if state.current_player() == seat:
            seen.append((turn, state.observation(seat), state.legal_moves()))
        state.apply(move)
    return seen


def hidden_twin(record: GameRecord, seat: int) -> GameRecord:
    """The same game dealt otherwise where ``seat`` never looked: a card of another
    seat's hand swapped with one of the draw pile, the same moves played, and ``seat``
    shown the same things at each of its moves (the first such swap, from the bottom
    of the pile up)."""
    data = start_state(record).to_json()
    seen = views(record, seat)
    holder = (seat + 1) % record.num_players
    for low in reversed(data["deck"]):
        for card in data["players"][holder]["hand"]:
            twin = copy.deepcopy(data)
            hand = twin["players"][holder]["hand"]
            hand[hand.index(card)] = low
            twin["deck"][twin["deck"].index(low)] = card
            other = GameRecord(record.game, record.num_players, initial=twin,
                               moves=list(record.moves))
            try:
                if views(other, seat) == seen:
                    return other
            except RecordError:  # the other seat played the card it no longer holds
                continue
    raise AssertionError("no hidden twin of this game")


def test_a_seat_is_judged_only_on_what_it_could_see() -> None:
    game = registry.get_game("oh-my-goods")
    state = game.new_game(5, 2, {})
    initial = state.to_json()
    _, moves = play_game(state, [make_bot("random"), make_bot("random")], random.Random(5))
    record = GameRecord("oh-my-goods", 2, initial=initial, moves=list(moves[:90]))
    twin = hidden_twin(record, 0)
    # the games differ at the seat's decisions, only where the seat cannot look
    ours, theirs = decisions_of(record, [0]), decisions_of(twin, [0])
    assert [(t, m) for t, _, m in ours] == [(t, m) for t, _, m in theirs]
    differ = [a.to_json() != b.to_json() for (_, a, _), (_, b, _) in zip(ours, theirs,
                                                                         strict=True)]
    assert sum(differ) >= 10 and differ[0]
    review = review_game(record, 0, budget=30, seed=2)
    # the swings between the seat's decisions too (the draws of its own moves are chance)
    assert any(d.swing is not None and d.swing.chance for d in review.decisions)
    assert review.to_json() == review_game(twin, 0, budget=30, seed=2).to_json()
    # the other seat saw the difference in its own hand: its review may change, and does
    assert review_game(record, 1, budget=30, seed=2).to_json() != \
        review_game(twin, 1, budget=30, seed=2).to_json()


def test_a_solo_game_is_judged_against_its_target() -> None:
    state = registry.get_game("stephens").new_game(2, 1, {})
    target = state.solo_target()
    assert target is not None
    moves = []
    while len(moves) < 8:
        move = state.legal_moves()[len(moves) % len(state.legal_moves())]
        moves.append(move)
        state.apply(move)
    review = review_game(GameRecord("stephens", 1, seed=2, moves=moves), budget=10, seed=1)
    assert review.decisions
    for decision in review.decisions:
        assert decision.target == target
        for figures in (decision.best, decision.played):
            assert figures.margin == pytest.approx(figures.expected_scores[0] - target)
            assert 0 < figures.win_probability < 1  # a soft chance of reaching the target


def test_a_games_review_may_search_with_its_own_leaf_value() -> None:
    """A review may search with a leaf of its own (``ReviewSettings.leaf_value``, as
    Samara's does): the setting reaches the review's searches.  Stephens is reviewed with
    the leaf its play uses, the one its forecast map was fitted to."""
    from dataclasses import replace

    from engine.game import play_random_moves

    state = registry.get_game("stephens").new_game(5, 2, {})
    play_random_moves(state, 2, 30)
    played = state.legal_moves()[-1]
    settings = review_settings_for(state)
    assert settings.leaf_value is None and settings.forecast_source == "search"
    assert review_settings_for("samara").forecast_source == "playouts"

    def judged(leaf: str | None) -> Any:
        return review_decision(state, played, 30, budget=40, seed=1,
                               settings=replace(settings, leaf_value=leaf)).best
    # None: the leaf its play uses, the learned one since it became Stephens' default.
    assert judged(None) == judged("learned") != judged("heuristic")
    with pytest.raises(ValueError, match="leaf_value"):
        ReviewSettings(budget=10, probability=(0.05, 0.1, 0.2), points=(1, 2, 3),
                       leaf_value="neural")


# -- swings and key moments -----------------------------------------------------------------
def figures(move: int, probability: float, margin_: float) -> MoveFigures:
    return MoveFigures(move=move, text=f"m{move}", visits=10, win_probability=probability,
                       expected_scores=(margin_, 0.0), margin=margin_)


def decision(turn: int, best: tuple[float, float], played: tuple[float, float],
             settings: ReviewSettings, seat: int = 0) -> Decision:
    p_loss, s_loss = best[0] - played[0], best[1] - played[1]
    return Decision(turn=turn, seat=seat, choices=3, played=figures(1, *played),
                    best=figures(0 if played != best else 1, *best),
                    win_probability_loss=p_loss, score_loss=s_loss,
                    label=settings.label(p_loss, s_loss, best=played == best),
                    accuracy=settings.accuracy(p_loss, s_loss), principal_variation=())


def test_a_swing_is_the_forecast_moved_between_a_seats_decisions() -> None:
    settings = ReviewSettings(budget=10, probability=(0.05, 0.10, 0.20),
                              points=(3.0, 6.0, 12.0))
    first = decision(0, (0.6, 2.0), (0.55, 1.0), settings)
    second = decision(4, (0.30, -5.0), (0.30, -5.0), settings)
    third = decision(6, (0.32, -4.0), (0.32, -4.0), settings)
    gaps = [None, Interlude(0, opponents=True, chance=False),
            Interlude(4, opponents=False, chance=True)]
    swung = with_swings([first, second, third], gaps, settings)
    assert swung[0].swing is None
    before = swung[1].swing
    assert before is not None and before.since_turn == 0
    # from after the move played at 0 (0.55, 1 point) to the position at 4 (0.30, -5)
    assert before.win_probability == pytest.approx(-0.25)
    assert before.margin == pytest.approx(-6.0)
    assert before.opponents and not before.chance and before.notable and before.drop
    assert before.cause() == "the opponents' moves"
    small = swung[2].swing
    assert small is not None and small.cause() == "chance" and not small.notable
    assert not small.drop  # +0.02 and +1 point: a rise
    # a decision's own loss is not the swing's: the swing is measured from what it played
    assert swung[1].win_probability_loss == 0.0


def test_key_moments_are_the_mistakes_and_the_largest_swings() -> None:
    settings = ReviewSettings(budget=10, probability=(0.05, 0.10, 0.20),
                              points=(3.0, 6.0, 12.0))
    level = (0.5, 0.0)
    played = [decision(0, level, level, settings),
              decision(2, (0.52, 0.0), (0.27, 0.0), settings),  # a blunder (0.25)
              decision(4, (0.33, 0.0), (0.33, 0.0), settings),  # swung +0.06: noted
              decision(6, (0.21, 0.0), (0.21, 0.0), settings),  # swung -0.12: a drop
              decision(8, (0.23, 0.0), (0.16, 0.0), settings),  # an inaccuracy (0.07)
              decision(10, (0.16, 8.0), (0.16, 8.0), settings),  # swung +8 points: a rise
              decision(12, (0.19, 8.0), (0.19, 8.0), settings),  # swung +0.03: small
              decision(3, level, level, settings, seat=1)]
    gaps = [None] + [Interlude(t, True, False) for t in (0, 2, 4, 6, 8, 10)] + [None]
    swung = with_swings(played, gaps, settings)
    moments = key_moments(0, swung, settings)
    assert [(k.turn, k.reasons) for k in moments] == [
        (2, ("blunder",)), (6, ("drop",)), (10, ("rise",))]
    # turn 4's swing is worth a word, under a mistake's size; turn 12's is not
    assert swung[2].swing is not None and swung[2].swing.notable
    assert swung[6].swing is not None and not swung[6].swing.notable
    # at most the largest ``swings``, by their share of the blunder thresholds
    assert [k.turn for k in key_moments(0, swung, settings, swings=1)] == [2, 10]
    assert key_moments(1, swung, settings) == []


def test_a_move_that_draws_deals_chance_to_its_seat() -> None:
    """``dealt``: the seat's own move showed it what it could not foresee.  Samara deals
    nothing after its setup; Stephens' solo moves sometimes draw (a card, a display)."""
    state = registry.get_game("samara").new_game(3, 2, {})
    for turn in range(30):
        move = state.legal_moves()[turn % len(state.legal_moves())]
        assert not dealt(state, move, turn)
        state.apply(move)
    state = registry.get_game("stephens").new_game(2, 1, {})
    seen = []
    for turn in range(60):
        if state.is_terminal():
            break
        move = state.legal_moves()[turn % len(state.legal_moves())]
        seen.append(dealt(state, move, turn))
        state.apply(move)
    assert any(seen) and not all(seen)


def test_interludes_name_the_opponents_and_chance_between_a_seats_decisions() -> None:
    state = registry.get_game("samara").new_game(3, 2, {})
    moves = []
    for turn in range(20):
        moves.append(state.legal_moves()[turn % len(state.legal_moves())])
        state.apply(moves[-1])
    record = GameRecord("samara", 2, seed=3, moves=moves)
    ours = [(turn, state.current_player()) for turn, state, _ in decisions_of(record, [0])]
    gaps = interludes(record, ours)
    assert gaps[0] is None and len(gaps) == len(ours) and any(gaps)
    for (turn, _), (since, _), gap in zip(ours[1:], ours[:-1], gaps[1:], strict=True):
        movers = {p for p, _ in _steps(record)[since + 1:turn]}
        if movers - {0}:
            assert gap == Interlude(since, opponents=True, chance=False)
        else:
            assert gap is None  # only its own moves between: no chance in Samara


def _steps(record: GameRecord) -> list[tuple[int, int]]:
    from engine.records import replay_steps
    return replay_steps(record)
