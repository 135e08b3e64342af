"""Strength levels (``level:N``, :mod:`engine.search.levels`) and the plain-UCT baseline
(``uct:N``, :mod:`engine.search.baseline`)."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from dataclasses import dataclass

import pytest

from engine import registry
from engine.game import State
from engine.search.analysis import Analysis, MoveStats
from engine.search.baseline import BASELINE_ENTRIES, baseline_config, is_baseline
from engine.search.bots import (
    DEFAULT_MCTS_ITERATIONS,
    Bot,
    BotSpecError,
    IsmctsBot,
    LevelBot,
    MctsBot,
    UctBot,
    make_bot,
)
from engine.search.config import SEARCH_CONFIGS, SearchConfig, config_for, resolve_config
from engine.search.ismcts import DEFAULT_ISMCTS_C
from engine.search.levels import (
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    check_levels,
    choice_rng,
    choose_by_visits,
    get_level,
)
from engine.search.mcts import DEFAULT_C

from .hidden_toy_games import TricksGame
from .toy_games import race


def _analysis(visits: list[int]) -> Analysis:
    """An analysis whose root moves are 10, 11, ... with these visits (in this order)."""
    moves = [MoveStats(move=10 + i, text=f"m{10 + i}", visits=n, win_probability=0.5,
                       expected_scores=(0.0, 0.0), win_probabilities=(0.5, 0.5)) for i, n in enumerate(visits)]
    return Analysis(player=0, best_move=10, best_move_text="m10", iterations=sum(visits),
                    elapsed=0.0, win_probability=(0.5, 0.5), expected_scores=(0.0, 0.0),
                    moves=moves)


def _bot(spec: str, seed: int | None = None) -> MctsBot:
    """A search bot (they keep ``last_analysis``) from ``spec``."""
    bot = make_bot(spec, seed=seed)
    assert isinstance(bot, MctsBot)
    return bot


def _without_elapsed(analysis: Analysis | None) -> dict[str, object]:
    assert analysis is not None
    data = analysis.to_json()
    data.pop("elapsed")
    return data


def _position(game: str, players: int, deal: int, plies: int) -> State:
    """Deal ``deal``, then ``plies`` seeded random moves (chance: first outcome)."""
    state = registry.new_game(game, deal, players)
    rng = random.Random(deal)
    for _ in range(plies):
        if state.current_player() >= 0:
            moves = state.legal_moves()
        else:
            moves = [m for m, _ in state.chance_outcomes()]
        state.apply(moves[rng.randrange(len(moves))])
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    return state


# -- the table -----------------------------------------------------------------------------
def test_the_table_runs_from_weak_to_strong() -> None:
    assert [level.number for level in LEVELS] == list(range(MIN_LEVEL, MAX_LEVEL + 1))
    assert (MIN_LEVEL, MAX_LEVEL) == (1, 5)
    budgets = [level.iterations for level in LEVELS]
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)
    temperatures = [level.temperature for level in LEVELS]
    assert temperatures == sorted(temperatures, reverse=True)
    assert LEVELS[0].temperature > 0  # the weakest level errs...
    assert LEVELS[-1].temperature == 0  # ...the strongest plays the most visited move
    assert all(get_level(level.number) is level for level in LEVELS)
    assert get_level(3).name == "level:3"


def test_every_games_table_runs_from_weak_to_strong() -> None:
    tables = {name: config.levels for name, config in SEARCH_CONFIGS.items()}
    assert tables["oh-my-goods"] != LEVELS  # where more search soon stops paying
    assert tables["stephens"] != LEVELS  # where 50 iterations were barely better than random
    # Samara's levels 4 and 5 search four times the default's: a learned leaf is cheap.
    assert tables["samara"][:3] == LEVELS[:3] and tables["samara"][3:] != LEVELS[3:]
    for name, table in tables.items():
        check_levels(table)
        assert table[0].temperature > 0 and table[-1].temperature == 0, name
        assert config_for(name).level(2) is table[1]


def test_a_level_bot_searches_its_games_budget() -> None:
    state = _position("oh-my-goods", 2, 1, 0)
    own = config_for(state).level(1)
    assert own != get_level(1)
    bot = _bot("level:1", seed=3)
    bot.choose(state, random.Random(0))
    assert bot.last_analysis is not None and bot.last_analysis.iterations == own.iterations


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t[:4], r"levels 1, 2, 3, 4, 5 \(1 weakest\) in order"),
        (lambda t: (t[1], t[0]) + t[2:], "in order"),
        (lambda t: t[:1] + (dataclasses.replace(t[1], iterations=t[0].iterations),) + t[2:],
         "level:2 must search more than level:1"),
        (lambda t: t[:4] + (dataclasses.replace(t[4], temperature=0.3),),
         "level:5 must search more than level:4 and choose no more loosely"),
        (lambda t: (dataclasses.replace(t[0], iterations=0),) + t[1:],
         "level:1 needs a positive integer iteration budget"),
        (lambda t: (dataclasses.replace(t[0], temperature=math.nan),) + t[1:],
         "level:1 needs a finite temperature"),
        (lambda t: list(t), "a level table is a tuple of Level"),
    ],
)
def test_a_bad_level_table_is_refused(change: object, message: str) -> None:
    assert callable(change)
    with pytest.raises(ValueError, match=message):
        SearchConfig(levels=change(LEVELS))


@pytest.mark.parametrize("number", [0, 6, -1, True, 2.0, "3"])
def test_get_level_refuses_anything_else(number: object) -> None:
    with pytest.raises(ValueError, match=r"1, 2, 3, 4, 5 \(1 weakest\)"):
        get_level(number)  # type: ignore[arg-type]


# -- specs -------------------------------------------------------------------------------------
@pytest.mark.parametrize("number", range(1, 6))
def test_level_specs(number: int) -> None:
    bot = make_bot(f"level:{number}", seed=1)
    assert isinstance(bot, LevelBot) and isinstance(bot, Bot)
    assert bot.name == f"level:{number}"
    assert bot.number == number
    assert bot.level_for(race(2, 21, 3)) is get_level(number)  # a game on the default table
    assert bot.iterations is None  # the game's table says, move by move
    assert bot.time_limit is None  # iterations only: the same player on every machine
    assert make_bot(f" Level: {number} ").name == f"Level: {number}"


@pytest.mark.parametrize(
    ("spec", "iterations", "time_limit", "c", "margin", "depth"),
    [
        ("uct", DEFAULT_MCTS_ITERATIONS, None, None, "game", None),
        ("uct:2000", 2000, None, None, "game", None),
        ("uct:i=300:t=0.5:c=1.0", 300, 0.5, 1.0, "game", None),
        ("uct:t=2", None, 2.0, None, "game", None),
        ("UCT:500:m=3:d=7", 500, None, None, 3.0, 7),
        ("uct:50:m=0", 50, None, None, None, None),
    ],
)
def test_uct_specs_take_the_mcts_options(spec: str, iterations: int | None,
                                         time_limit: float | None, c: float | None,
                                         margin: object, depth: int | None) -> None:
    bot = make_bot(spec, seed=2)
    assert type(bot) is UctBot
    assert bot.name == spec
    assert (bot.iterations, bot.time_limit, bot.overrides.c) == (iterations, time_limit, c)
    assert (bot.overrides.margin_scale, bot.overrides.playout_depth) == (margin, depth)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("level", "level:N with N one of 1, 2, 3, 4, 5"),
        ("level:", "level:N with N one of 1, 2, 3, 4, 5"),
        ("level:0", "level must be one of 1, 2, 3, 4, 5 \\(1 weakest\\), got '0'"),
        ("level:6", "level must be one of 1, 2, 3, 4, 5"),
        ("level:-1", "level must be one of"),
        ("level:2.5", "level must be one of"),
        ("level:three", "level must be one of"),
        ("level:3:c=1", "level:N with N one of"),
        ("level:3:100", "level:N with N one of"),
        ("level:3:v=neural", "v= needs a leaf value"),
        ("level:3:v=learned:v=learned", "level:N with N one of"),
        ("uct:0", "at least 1"),
        ("uct:abc", "integer"),
        ("uct:q=3", "unknown uct option"),
        ("uct:c=-1", "negative"),
        ("levels:3", "unknown bot"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec)


def test_a_level_may_name_its_leaf_value() -> None:
    """level:N:v=LEAF plays the level with that leaf (the games a model was fitted on
    before its game's default leaf changed replay with it)."""
    state = _position("stephens", 2, 4, 10)
    heuristic = _bot("level:1:v=heuristic", seed=3)
    assert isinstance(heuristic, LevelBot) and heuristic.name == "level:1:v=heuristic"
    assert heuristic._config(state).leaf_value == "heuristic"  # type: ignore[attr-defined]
    plain = _bot("level:1", seed=3)._config(state)  # type: ignore[attr-defined]
    assert plain == resolve_config(state)  # the game's own settings
    moves = [bot.choose(state.clone(), random.Random(1)) for bot in
             (heuristic, _bot("level:1:v=learned", seed=3), _bot("level:1", seed=3))]
    assert moves[1] == moves[2]  # Stephens' default leaf is the learned one
    assert heuristic.last_analysis is not None
    assert heuristic.last_analysis.iterations == config_for(state).level(1).iterations


def test_the_spec_help_names_the_new_specs() -> None:
    with pytest.raises(BotSpecError) as info:
        make_bot("minimax")
    assert "level:N[:v=LEAF] (N 1-5, 1 weakest)" in str(info.value)
    assert "uct[:ITERATIONS]" in str(info.value)


# -- the choice over visit counts ---------------------------------------------------------------
def test_temperature_zero_is_the_most_visited_move_and_draws_nothing() -> None:
    rng = random.Random(5)
    before = rng.getstate()
    analysis = _analysis([50, 30, 20])
    assert choose_by_visits(analysis, 0.0, rng) == analysis.best_move
    assert rng.getstate() == before


def test_the_choice_follows_visits_to_the_power_of_one_over_t() -> None:
    analysis = _analysis([60, 30, 10, 0])
    for temperature in (1.0, 0.5):
        weights = [n ** (1 / temperature) for n in (60, 30, 10)]
        expected = [w / sum(weights) for w in weights]
        rng = random.Random(temperature)
        draws = 20_000
        counts = Counter(choose_by_visits(analysis, temperature, rng) for _ in range(draws))
        assert 13 not in counts  # never a move the search did not visit
        for move, p in zip((10, 11, 12), expected, strict=True):
            sd = math.sqrt(p * (1 - p) / draws)
            assert abs(counts[move] / draws - p) < 5 * sd, (temperature, move, counts)


def test_the_choice_is_seeded_and_copes_with_a_low_temperature() -> None:
    analysis = _analysis([10**6, 10**6 - 1, 3])
    picks = [choose_by_visits(analysis, 0.001, random.Random(s)) for s in range(50)]
    assert picks == [choose_by_visits(analysis, 0.001, random.Random(s)) for s in range(50)]
    assert set(picks) <= {10, 11}
    assert choice_rng(7).random() == choice_rng(7).random() != choice_rng(8).random()
    assert choice_rng(7).random() != random.Random(7).random()


@pytest.mark.parametrize("temperature", [-0.5, math.inf, math.nan])
def test_bad_temperatures(temperature: float) -> None:
    with pytest.raises(ValueError, match="temperature"):
        choose_by_visits(_analysis([3, 2]), temperature, random.Random(0))


# -- level bots -------------------------------------------------------------------------------
def test_same_seed_same_move() -> None:
    state = race(2, 21, 3)
    for spec in ("level:1", "level:2"):
        first = [make_bot(spec, seed=s).choose(state, random.Random(0)) for s in range(12)]
        again = [make_bot(spec, seed=s).choose(state, random.Random(0)) for s in range(12)]
        assert first == again
        # Without a seed of its own the bot draws from the rng it is given.
        unseeded = [make_bot(spec).choose(state, random.Random(s)) for s in range(12)]
        assert unseeded == [make_bot(spec).choose(state, random.Random(s)) for s in range(12)]
        assert len(set(first)) > 1  # a weak level does vary with the seed


def test_a_weak_level_errs_by_the_visit_counts() -> None:
    """Over many seeds, level 1 plays the most visited move most often, yet not always;
    each move it plays was visited, and how often it plays the most visited one matches
    the probabilities the visit counts give."""
    state = race(2, 21, 3)
    level = get_level(1)
    by_rank: Counter[int] = Counter()
    expected_best = 0.0
    games = 300
    for seed in range(games):
        bot = _bot("level:1", seed=seed)
        move = bot.choose(state, random.Random(0))
        analysis = bot.last_analysis
        assert analysis is not None and analysis.iterations == level.iterations
        ranked = [m.move for m in analysis.moves if m.visits > 0]
        assert move in ranked
        by_rank[ranked.index(move)] += 1
        weights = [m.visits ** (1 / level.temperature) for m in analysis.moves]
        expected_best += weights[0] / sum(weights)
    assert by_rank[0] == max(by_rank.values()) and by_rank[0] < games
    assert by_rank[0] > by_rank[1] > by_rank[2] > 0
    sd = math.sqrt(expected_best * (1 - expected_best / games))
    assert abs(by_rank[0] - expected_best) < 5 * sd, (by_rank, expected_best)


@pytest.mark.parametrize("number", [4, 5])
def test_strong_levels_play_the_most_visited_move(number: int) -> None:
    state = race(2, 25, 4)
    for seed in range(3):
        bot = _bot(f"level:{number}", seed=seed)
        move = bot.choose(state, random.Random(0))
        assert bot.last_analysis is not None
        assert move == bot.last_analysis.best_move
        # The default search with the level's budget: a plain mcts bot of that budget.
        plain = _bot(f"mcts:{get_level(number).iterations}", seed=seed)
        assert plain.choose(state, random.Random(0)) == move
        assert _without_elapsed(plain.last_analysis) == _without_elapsed(bot.last_analysis)


def test_levels_run_ismcts_in_a_hidden_information_game() -> None:
    state = TricksGame().new_game(3, 3)
    legal = set(state.legal_moves())
    level = get_level(2)
    for seed in range(4):
        bot = _bot("level:2", seed=seed)
        move = bot.choose(state, random.Random(0))
        assert move in legal
        assert bot.last_analysis is not None
        assert move in {m.move for m in bot.last_analysis.moves if m.visits > 0}
        # The same search as an ISMCTS bot's with the level's budget and seed.
        ismcts = IsmctsBot(iterations=level.iterations, seed=seed)
        ismcts.choose(state, random.Random(0))
        assert _without_elapsed(ismcts.last_analysis) == _without_elapsed(bot.last_analysis)


def test_level_bots_do_not_modify_the_state() -> None:
    state = TricksGame().new_game(5, 2)
    before = state.to_json()
    make_bot("level:1", seed=0).choose(state, random.Random(0))
    assert state.to_json() == before


# -- the uct baseline --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "players", "deal", "plies", "options"),
    [
        ("samara", 2, 7, 0, "150"),
        ("samara", 3, 11, 4, "100:c=1.0:m=2"),
        ("oh-my-goods", 2, 3, 6, "60"),  # ISMCTS, the game's margin scale
        ("oh-my-goods", 3, 5, 3, "40:d=3:m=0"),
        ("stephens", 2, 4, 10, "30"),  # the game's truncated playouts and margin
    ],
)
def test_uct_is_mcts_with_the_improvements_off(game: str, players: int, deal: int,
                                              plies: int, options: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``uct`` searches as ``mcts`` does once the game's entry is cut down to the
    baseline's settings: the baseline is the default search minus the improvements."""
    state = _position(game, players, deal, plies)
    uct = _bot(f"uct:{options}", seed=3)
    monkeypatch.setitem(SEARCH_CONFIGS, game, SearchConfig(**BASELINE_ENTRIES.get(game, {})))
    mcts = _bot(f"mcts:{options}", seed=3)
    assert uct.choose(state, random.Random(1)) == mcts.choose(state, random.Random(1))
    assert isinstance(uct, UctBot) and isinstance(mcts, MctsBot)
    assert _without_elapsed(uct.last_analysis) == _without_elapsed(mcts.last_analysis)


def test_uct_builds_its_tree_with_the_baseline_configuration() -> None:
    for state in (_position("samara", 2, 1, 0), _position("oh-my-goods", 2, 1, 0),
                  TricksGame().new_game(1, 2)):
        uct = make_bot("uct:10:m=4")
        assert isinstance(uct, UctBot)
        tree = uct._tree(state, 0)
        config = tree.config  # type: ignore[attr-defined]
        assert is_baseline(config)
        assert config.margin_scale == 4.0  # the spec's overrides still apply
        mcts = make_bot("mcts:10")
        assert isinstance(mcts, MctsBot)
        assert not is_baseline(mcts._tree(state, 0).config)  # type: ignore[attr-defined]


def test_the_baseline_ignores_the_improvements_of_the_games_entry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tuned ``c`` and a heuristic prior in the entry change ``mcts``, never ``uct``."""
    state = race(2, 21, 3)
    monkeypatch.setitem(SEARCH_CONFIGS, "toy-race",
                        SearchConfig(c=0.3, prior_weight=5.0, prior_scale=2.0))
    uct = make_bot("uct:10")._tree(state, 0)  # type: ignore[attr-defined]
    mcts = make_bot("mcts:10")._tree(state, 0)  # type: ignore[attr-defined]
    assert (uct.settings.c, uct.config.prior_weight) == (DEFAULT_C, 0.0)
    assert (mcts.settings.c, mcts.config.prior_weight) == (0.3, 5.0)
    hidden = TricksGame().new_game(1, 2)
    monkeypatch.setitem(SEARCH_CONFIGS, hidden.info.name, SearchConfig(c=0.2, prior_weight=5.0))
    uct = make_bot("uct:10")._tree(hidden, 0)  # type: ignore[attr-defined]
    assert (uct.settings.c, uct.config.prior_weight) == (DEFAULT_ISMCTS_C, 0.0)


@pytest.mark.parametrize("game", ["samara", "oh-my-goods", "stephens", "toy-unknown"])
def test_the_baseline_configuration(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The frozen settings of the game, every other setting at its default, whatever the
    game's entry says now."""
    config = baseline_config(game)
    frozen = BASELINE_ENTRIES.get(game, {})
    default = SearchConfig()
    for field in dataclasses.fields(SearchConfig):
        expected = frozen.get(field.name, getattr(default, field.name))
        assert getattr(config, field.name) == expected, field.name
    assert is_baseline(config) and not is_baseline(config_for(game))
    assert is_baseline(dataclasses.replace(config, playout_depth=3))
    monkeypatch.setitem(SEARCH_CONFIGS, game, SearchConfig(margin_scale=9.0, playout_depth=7))
    assert baseline_config(game) == config  # the entry moved, the baseline did not
    assert BASELINE_ENTRIES == {"oh-my-goods": {"margin_scale": 3.0},
                                "stephens": {"margin_scale": 20.0, "playout_depth": 20}}


@dataclass(frozen=True)
class PinnedUct:
    game: str
    players: int
    deal: int
    plies: int
    spec: str
    move: str
    visits: list[tuple[str, int]]
    win_probability: tuple[float, ...]
    pv: list[int]


#: ``uct`` analyses computed when the spec was introduced, with the margin, playout depth
#: and c given in the spec so that retuning a game's settings does not move them: if one
#: of these changes, the baseline search changed, which it must not.
PINNED_UCT = [
    PinnedUct(
        "samara", 2, deal=7, plies=0, spec="uct:200:c=1.5:m=0:d=0", move="tool saw r1c3 1",
        visits=[
            ("tool saw r1c3 1", 23), ("tool saw r3c2 1+2", 21), ("recruit man", 20),
            ("build r2c8 1+2", 19), ("tool saw r1c1 1", 18), ("tool glass-a r1c2 1", 16),
            ("tool compass r1c4 1", 16), ("tool square r3c3 1+2", 16), ("recruit woman", 15),
            ("tool saw r2c2 1+2", 14), ("tool compass r2c4 1+2", 11),
            ("tool glass-a r3c1 1+2", 11),
        ],
        win_probability=(0.535, 0.465), pv=[198657, 204803, 65536],
    ),
    PinnedUct(
        "oh-my-goods", 2, deal=3, plies=6, spec="uct:60:c=0.8:m=3:d=0",
        move="supply market-office-4",
        visits=[("supply market-office-4", 33), ("supply market-office-3", 27)],
        win_probability=(0.508333333, 0.491666667),
        pv=[9296, 10312, 10292, 15360, 8192, 10308],
    ),
]


@pytest.mark.parametrize("engine_path", ["kernel", "python"])
@pytest.mark.parametrize("case", PINNED_UCT, ids=lambda c: f"{c.game}-{c.players}p")
def test_the_baseline_search_is_pinned(case: PinnedUct, engine_path: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if engine_path == "python":
        monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    elif not registry.get_game(case.game).kernel_available():
        pytest.skip("kernel not built (or FURNACE_PURE_PYTHON set)")
    state = _position(case.game, case.players, case.deal, case.plies)
    bot = _bot(case.spec, seed=9)
    assert state.move_to_text(bot.choose(state, random.Random(0))) == case.move
    analysis = bot.last_analysis
    assert analysis is not None
    assert [(m.text, m.visits) for m in analysis.moves] == case.visits
    assert analysis.win_probability == pytest.approx(case.win_probability, abs=1e-9)
    assert analysis.principal_variation_moves[:6] == case.pv
