"""MAST playouts (``engine.search.mast``): the table update and its C twin, what the
evaluator learns, the setting ``SearchConfig.mast_epsilon`` and the bot option ``mast=``."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from engine.fastpath import load_kernel
from engine.game import TERMINAL, Event, IllegalMoveError
from engine.guided_playout import MOVE_SLOTS, move_slot
from engine.search import SearchConfig, make_bot
from engine.search.bots import BotSpecError
from engine.search.config import config_for
from engine.search.evaluate import RolloutEvaluator, TruncatedPlayoutEvaluator
from engine.search.mast import INITIAL_VALUE, MastEvaluator, record_playout_python
from engine.search.mcts import MCTS

from .toy_games import RaceState


class SevensState(RaceState):
    """Two seats take turns naming a number 1-9, ``rounds`` times each; every 7 named
    scores a point, and the higher score wins.  Good play is "always 7", whatever the
    position: the kind of move MAST learns."""

    def __init__(self, rounds: int = 6, named: list[int] | None = None) -> None:
        super().__init__(2, 0, 9)
        self.rounds = rounds
        self.named = list(named or [])

    def current_player(self) -> int:
        return TERMINAL if len(self.named) == 2 * self.rounds else len(self.named) % 2

    def legal_moves(self) -> list[int]:
        return [] if self.current_player() == TERMINAL else list(range(1, 10))

    def why_illegal(self, move: int) -> str | None:
        return None if move in self.legal_moves() else "name a number from 1 to 9"

    def apply(self, move: int) -> list[Event]:
        if self.why_illegal(move):
            raise IllegalMoveError("name a number from 1 to 9")
        self.named.append(move)
        return []

    def clone(self) -> SevensState:
        return SevensState(self.rounds, self.named)

    def scores(self) -> list[float]:
        return [float(sum(1 for m in self.named[seat::2] if m == 7)) for seat in (0, 1)]

    def ranking(self) -> list[list[int]]:
        a, b = self.scores()
        return [[0, 1]] if a == b else ([[0], [1]] if a > b else [[1], [0]])

    def heuristic(self) -> list[float]:
        return self.scores()


def _value(evaluator: MastEvaluator, seat: int, move: int) -> float:
    assert evaluator.values is not None
    return float(evaluator.values[seat * MOVE_SLOTS + move_slot(move)])


# -- the table update ------------------------------------------------------------------
def test_record_keeps_running_means_per_seat() -> None:
    values = np.full(2 * MOVE_SLOTS, INITIAL_VALUE)
    counts = np.zeros(2 * MOVE_SLOTS)
    a, b = move_slot(4), MOVE_SLOTS + move_slot(4)
    trace = np.array([a, b, a], dtype=np.int32)
    record_playout_python(values, counts, trace, 3, np.array([1.0, 0.0]))
    record_playout_python(values, counts, trace, 1, np.array([0.0, 1.0]))
    # seat 0 played 4 three times (utilities 1, 1, 0), seat 1 once (0)
    assert values[a] == pytest.approx(2 / 3) and counts[a] == 3
    assert values[b] == 0.0 and counts[b] == 1
    assert values[move_slot(5)] == INITIAL_VALUE


def test_the_compiled_update_matches_the_python_one() -> None:
    module = load_kernel("ext.move_values")
    if module is None:
        pytest.skip("ext.move_values not built (or FURNACE_PURE_PYTHON set)")
    rng = np.random.default_rng(1)
    trace = rng.integers(0, 3 * MOVE_SLOTS, 500).astype(np.int32)
    trace[:50] = trace[50:100]  # repeated entries
    tables = [(np.full(3 * MOVE_SLOTS, INITIAL_VALUE), np.zeros(3 * MOVE_SLOTS))
              for _ in range(2)]
    for _ in range(3):
        utilities = rng.random(3)
        record_playout_python(*tables[0], trace, 400, utilities)
        module.record_playout(*tables[1], trace, 400, utilities)
    assert np.array_equal(tables[0][0], tables[1][0])
    assert np.array_equal(tables[0][1], tables[1][1])
    with pytest.raises(ValueError, match="outside"):
        module.record_playout(*tables[1], np.array([3 * MOVE_SLOTS], dtype=np.int32), 1,
                              utilities)
    with pytest.raises(ValueError, match="recorded"):
        module.record_playout(*tables[1], trace, 501, utilities)


# -- the evaluator -----------------------------------------------------------------------
def test_the_evaluator_learns_the_good_move() -> None:
    # With the bare win share a seat that falls behind learns nothing (every move
    # loses); the margin utility tells its better moves apart.
    evaluator = MastEvaluator(0.2, margin_scale=2.0)
    for seed in range(300):
        outcome = evaluator.evaluate(SevensState(), seed)
        assert sum(outcome.rewards) == pytest.approx(1.0)
    for seat in (0, 1):
        others = [_value(evaluator, seat, m) for m in range(1, 10) if m != 7]
        assert _value(evaluator, seat, 7) > max(others) + 0.05


def test_learned_playouts_name_more_sevens_than_random_ones() -> None:
    evaluator = MastEvaluator(0.2, margin_scale=2.0)
    for seed in range(200):
        evaluator.evaluate(SevensState(), seed)
    learned = SevensState()
    evaluator.evaluate(learned, 999)
    assert sum(learned.scores()) >= 9  # 12 decisions, about 80% of them greedy
    uniform = SevensState()
    RolloutEvaluator().evaluate(uniform, 999)
    assert sum(uniform.scores()) < 9


def test_a_truncated_evaluator_values_by_the_heuristic() -> None:
    state = SevensState()
    outcome = MastEvaluator(0.0, depth=3).evaluate(state, 1)
    assert len(state.named) == 3
    assert outcome.scores == tuple(state.heuristic())


def test_evaluator_settings_are_checked() -> None:
    for bad in (-0.1, 1.5, float("nan"), True, "0.1"):
        with pytest.raises(ValueError, match="epsilon"):
            MastEvaluator(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="depth"):
        MastEvaluator(0.1, depth=-1)


# -- configuration and bots --------------------------------------------------------------
def test_the_configuration_picks_the_evaluator() -> None:
    assert isinstance(SearchConfig().evaluator(), RolloutEvaluator)
    assert isinstance(SearchConfig(playout_depth=5).evaluator(), TruncatedPlayoutEvaluator)
    mast = SearchConfig(mast_epsilon=0.25, playout_depth=5, margin_scale=3).evaluator()
    assert isinstance(mast, MastEvaluator)
    assert (mast.epsilon, mast.depth, mast.margin_scale) == (0.25, 5, 3.0)
    config = SearchConfig(mast_epsilon=0.5)
    assert config.evaluator() is not config.evaluator()  # a fresh table per search
    for bad in (-1, 1.01, float("inf"), "0.2", True):
        with pytest.raises(ValueError, match="mast_epsilon"):
            SearchConfig(mast_epsilon=bad)  # type: ignore[arg-type]


def test_bot_specs_take_mast() -> None:
    bot = make_bot("mcts:100:mast=0.2")
    assert bot.overrides.mast_epsilon == 0.2  # type: ignore[attr-defined]
    assert make_bot("ismcts:100:mast=1").overrides.mast_epsilon == 1.0  # type: ignore[attr-defined]
    for spec, message in (("mcts:100:mast=2", "epsilon from 0 to 1"),
                          ("mcts:100:mast=x", "epsilon from 0 to 1"),
                          ("mcts:100:mast=nan", "epsilon from 0 to 1"),
                          ("uct:100:mast=0.1", "uct baseline"),
                          ("mcts:100:mast=0.1:mast=0.2", "twice")):
        with pytest.raises(BotSpecError, match=message):
            make_bot(spec)


def _stable(bot_spec: str, state: RaceState) -> str:
    import random

    bot = make_bot(bot_spec, seed=5)
    bot.choose(state, random.Random(0))
    data = bot.last_analysis.to_json()  # type: ignore[attr-defined]
    del data["elapsed"]
    return json.dumps(data)


def test_a_mast_search_is_reproducible_and_off_is_uniform() -> None:
    state = SevensState()
    assert _stable("mcts:300:mast=0.2", state) == _stable("mcts:300:mast=0.2", state)
    assert _stable("mcts:300:mast=0.2", state) != _stable("mcts:300", state)
    assert _stable("mcts:300:mast=off", state) == _stable("mcts:300", state)


def test_mast_off_overrides_a_game_that_turns_it_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.search import config as config_module

    monkeypatch.setitem(config_module.SEARCH_CONFIGS, "toy-race",
                        replace(config_for("toy-race"), mast_epsilon=0.2))
    state = SevensState()
    assert isinstance(MCTS(state, seed=1).settings.evaluator, MastEvaluator)
    assert _stable("mcts:300:mast=off", state) != _stable("mcts:300", state)
    assert _stable("mcts:300:mast=0.2", state) == _stable("mcts:300", state)


# -- MAST playouts before a learned leaf (``learned_playouts``, bot option ``lp=``) ---------
@pytest.mark.skipif(load_kernel("ext.search_core") is None,
                    reason="the compiled search is not built (or pure Python)")
@pytest.mark.parametrize(("game", "players"), [("oh-my-goods", 2), ("samara", 3),
                                               ("stephens", 2)])
def test_mast_playouts_then_the_model_run_compiled_as_the_python_tree(game, players) -> None:
    from engine.search import config_for, make_tree
    from engine.search.evaluate import ValueModel

    from .test_move_prior import _position

    config = replace(config_for(game), leaf_value="learned", learned_playouts="mast",
                     learned_depth=12,
                     value_model=f"engine.{game.replace('-', '_')}:value-model.json")
    state = _position(game, players, 3, 25)
    tree = make_tree(state, config, seed=4)
    python = make_tree(state, config, seed=4, compiled=False)
    evaluator = python.settings.evaluator
    assert isinstance(evaluator, MastEvaluator) and isinstance(evaluator.model, ValueModel)
    assert tree.compiled, tree.python_reason
    first, second = tree.search(iterations=150), python.search(iterations=150)
    assert [(m.move, m.visits, m.expected_scores) for m in first.moves] == \
        [(m.move, m.visits, m.expected_scores) for m in second.moves]


def test_a_mast_playout_ends_with_the_models_values() -> None:
    from engine.search.evaluate import ValueModel, learned_scores, values_outcome

    from .test_move_prior import _names, _position

    names = _names("oh-my-goods")
    model = ValueModel("oh-my-goods", names, [0.3] * len(names))
    state = _position("oh-my-goods", 2, 2, 10)
    with_model = MastEvaluator(0.3, 8, 3.0, model=model)
    plain = MastEvaluator(0.3, 8, 3.0)
    one, two = state.clone(), state.clone()
    outcome = with_model.evaluate(one, 5)
    plain.evaluate(two, 5)
    assert one.to_json() == two.to_json()  # the same moves (a fresh table each)
    assert outcome == values_outcome(learned_scores(model, one))


def test_the_bot_option_lp() -> None:
    from .test_move_prior import _position

    state = _position("samara", 2, 1, 3)
    evaluator = make_bot("mcts:20:lp=mast")._config(state).evaluator(2)  # type: ignore[attr-defined]
    assert isinstance(evaluator, MastEvaluator) and evaluator.model is not None
    assert evaluator.epsilon == 0.3 and evaluator.depth == 10  # Samara's own settings
    with pytest.raises(BotSpecError, match="lp= needs"):
        make_bot("mcts:20:lp=greedy")
    with pytest.raises(BotSpecError, match="uct baseline"):
        make_bot("uct:20:lp=mast")
