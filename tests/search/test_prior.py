"""Progressive bias from the game's heuristic (``SearchConfig.prior_weight``): the prior's
utility, its effect on MCTS and ISMCTS, its settings and the bot option ``p=``."""

from __future__ import annotations

import json

import pytest

from engine.search import SEARCH_CONFIGS, SearchConfig, make_bot
from engine.search.analysis import Analysis
from engine.search.evaluate import prior_utility
from engine.search.ismcts import ISMCTS
from engine.search.mcts import MCTS

from .hidden_toy_games import deal
from .toy_games import RaceState, race


class OracleRaceState(RaceState):
    """Race to N whose heuristic knows the winning strategy: the seat that just moved
    holds the win when the distance left is a multiple of ``max_step + 1``."""

    def heuristic(self) -> list[float]:
        just_moved = (self.to_move - 1) % self.num_players
        winning = (self.target - self.total) % (self.max_step + 1) == 0
        return [1.0 if (seat == just_moved) == winning else 0.0
                for seat in range(self.num_players)]

    def clone(self) -> OracleRaceState:
        return OracleRaceState(self.num_players, self.target, self.max_step, self.total,
                               self.to_move, self.added, self.winner)


def _share(analysis: Analysis, text: str) -> float:
    visits = {m.text: m.visits for m in analysis.moves}
    return visits.get(text, 0) / sum(visits.values())


def _stable(analysis: Analysis) -> str:
    data = analysis.to_json()
    del data["elapsed"]
    return json.dumps(data)


# -- the prior's utility -----------------------------------------------------------------------
def test_prior_utility_reads_the_heuristic_margin_or_the_outcome() -> None:
    state = race(2, 21, 3, total=5)  # heuristic: the scores, seat 0 added 0, seat 1 0
    state.added = [4.0, 1.0]  # type: ignore[list-item]
    assert prior_utility(state, 0, 3.0) == pytest.approx(1 / (1 + 2.718281828 ** -1.0))
    assert prior_utility(state, 1, 3.0) == pytest.approx(1 / (1 + 2.718281828 ** 1.0))
    assert (prior_utility(state, 0, None), prior_utility(state, 1, None)) == (1.0, 0.0)
    over = race(2, 4, 3)
    over.apply(3)
    over.apply(1)  # seat 1 reaches 4 and wins, although seat 0 added more
    # the real outcome, valued as the search values it: the win, or the score margin
    assert (prior_utility(over, 0, None), prior_utility(over, 1, None)) == (0.0, 1.0)
    assert prior_utility(over, 0, 3.0) == pytest.approx(1 / (1 + 2.718281828 ** (-2 / 3)))


# -- settings ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prior_weight": -1.0}, "prior_weight"),
        ({"prior_weight": float("nan")}, "prior_weight"),
        ({"prior_weight": True}, "prior_weight"),
        ({"prior_scale": 0.0}, "prior_scale"),
        ({"prior_scale": "5"}, "prior_scale"),
    ],
)
def test_bad_prior_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig(**kwargs)  # type: ignore[arg-type]


def test_prior_settings_and_overrides() -> None:
    config = SearchConfig(prior_weight=4, prior_scale=2)
    assert (config.prior_weight, config.prior_scale) == (4.0, 2.0)
    assert config.overridden(prior_weight=0).prior_weight == 0.0
    assert config.overridden() is config
    assert SearchConfig().prior_weight == 0.0  # off unless a game's entry turns it on


@pytest.mark.parametrize(
    ("spec", "weight"),
    [("mcts:50:p=8", 8.0), ("mcts:50:p=0", 0.0), ("ismcts:50:p=2.5", 2.5), ("mcts:50", None)],
)
def test_bot_option_p(spec: str, weight: float | None) -> None:
    bot = make_bot(spec)
    assert bot.overrides.prior_weight == weight  # type: ignore[attr-defined]
    tree = bot._tree(race(2, 21, 3), 0)  # type: ignore[attr-defined]
    assert tree.config.prior_weight == (0.0 if weight is None else weight)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("mcts:50:p=-1", "p must not be negative"), ("mcts:p=x", "needs a number"),
     ("uct:50:p=3", "baseline has no prior"), ("mcts:50:p=1:p=2", "twice")],
)
def test_bad_bot_option_p(spec: str, message: str) -> None:
    from engine.search.bots import BotSpecError

    with pytest.raises(BotSpecError, match=message):
        make_bot(spec)


# -- what it does to the search -------------------------------------------------------------------
def test_mcts_prior_steers_visits_to_what_the_heuristic_likes() -> None:
    """From 0 of 21 (steps 1-3) only +1 wins.  With the oracle heuristic as a strong prior
    a short search puts most of its visits there; without it, it does not."""
    state = OracleRaceState(2, 21, 3)
    plain = MCTS(state, seed=4, config=SearchConfig()).search(60)
    biased = MCTS(state, seed=4, config=SearchConfig(prior_weight=50.0)).search(60)
    assert _share(biased, "+1") > 0.7  # exploration still tries the others
    assert _share(plain, "+1") < 0.5
    assert biased.best_move_text == "+1"


def test_ismcts_prior_steers_visits_too() -> None:
    """ISMCTS values each new child in its own determinization; the oracle heuristic of
    the race (a perfect-information game searched by ISMCTS) steers it the same way."""
    state = OracleRaceState(2, 21, 3)
    plain = ISMCTS(state, seed=4, config=SearchConfig()).search(60)
    biased = ISMCTS(state, seed=4, config=SearchConfig(prior_weight=50.0)).search(60)
    assert _share(biased, "+1") > 0.85
    assert _share(plain, "+1") < 0.5


def test_prior_searches_are_reproducible_and_weight_zero_is_plain_uct() -> None:
    state = race(2, 30, 3)
    on = SearchConfig(prior_weight=3.0, prior_scale=2.0)
    assert _stable(MCTS(state, seed=7, config=on).search(300)) == \
        _stable(MCTS(state, seed=7, config=on).search(300))
    assert _stable(MCTS(state, seed=7, config=on).search(300)) != \
        _stable(MCTS(state, seed=7, config=SearchConfig()).search(300))
    hidden = deal(2, seed=3)
    assert _stable(ISMCTS(hidden, seed=7, config=on).search(200)) == \
        _stable(ISMCTS(hidden, seed=7, config=on).search(200))
    # weight 0 is exactly the search without a prior, whatever the scale
    assert _stable(MCTS(state, seed=7, config=SearchConfig(prior_scale=9.0)).search(300)) == \
        _stable(MCTS(state, seed=7, config=SearchConfig()).search(300))


def test_the_game_entry_turns_the_prior_on(monkeypatch: pytest.MonkeyPatch) -> None:
    state = OracleRaceState(2, 21, 3)
    monkeypatch.setitem(SEARCH_CONFIGS, "toy-race", SearchConfig(prior_weight=50.0))
    bot = make_bot("mcts:60", seed=1)
    assert bot._tree(state, 0).config.prior_weight == 50.0  # type: ignore[attr-defined]
    assert make_bot("mcts:60:p=0")._tree(state, 0).config.prior_weight == 0.0  # type: ignore[attr-defined]
    assert make_bot("uct:60")._tree(state, 0).config.prior_weight == 0.0  # type: ignore[attr-defined]
