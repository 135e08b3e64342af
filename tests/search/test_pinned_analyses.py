"""Samara and Oh My Goods! search exactly as before the evaluator seam and the search
configuration existed: analyses computed with the code before that change, pinned.

The positions are seeded random positions; each is searched with ``search_for`` (MCTS
for Samara, ISMCTS for Oh My Goods! with the margin scale of 5 its configuration had
then: the pins are about the search, not a game's settings) and by a baseline bot
whose spec overrides the margin (``uct:60:m=2``, ``uct:40:m=0``: ``mcts`` specs have
since taken the search improvements), on the kernel and on the pure-Python engine.

The pins were taken again once, when the best move and the principal variation came
under one tie rule (``engine.search.analysis.best_key``): every visit count and value
stayed as it was; equally visited moves changed places and variations went another
way past a tie.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from engine import registry
from engine.game import State
from engine.search import make_bot, search_for
from engine.search.config import SearchConfig


@dataclass(frozen=True)
class Pinned:
    game: str
    players: int
    deal: int
    plies: int
    iterations: int
    seed: int
    visits: list[tuple[str, int]]
    win_probability: tuple[float, ...]
    pv: list[int]
    bot_move: str
    bot_visits: list[tuple[str, int]]

    @property
    def bot_spec(self) -> str:
        return "uct:60:m=2" if self.game == "samara" else "uct:40:m=0"


PINNED = [
    Pinned(
        'samara', players=2, deal=7, plies=0, iterations=200, seed=1,
        visits=[
            ("recruit man", 32), ("tool square r3c3 1+2", 24), ("tool saw r1c3 1", 21),
            ("tool saw r3c2 1+2", 18), ("tool glass-a r3c1 1+2", 17),
            ("tool compass r1c4 1", 16), ("tool saw r2c2 1+2", 16), ("tool saw r1c1 1", 15),
            ("recruit woman", 14), ("build r2c8 1+2", 12), ("tool compass r2c4 1+2", 9),
            ("tool glass-a r1c2 1", 6),
        ],
        win_probability=(0.52, 0.48), pv=[131072, 199713, 65536],
        bot_move='recruit woman',
        bot_visits=[
            ("recruit woman", 7), ("tool compass r2c4 1+2", 6), ("tool square r3c3 1+2", 6),
            ("recruit man", 6), ("tool saw r1c1 1", 5), ("tool saw r2c2 1+2", 5),
            ("tool glass-a r3c1 1+2", 5), ("tool saw r3c2 1+2", 5), ("tool glass-a r1c2 1", 4),
            ("tool compass r1c4 1", 4), ("build r2c8 1+2", 4), ("tool saw r1c3 1", 3),
        ],
    ),
    Pinned(
        'samara', players=3, deal=11, plies=4, iterations=120, seed=2,
        visits=[
            ("tool square r1c1 1", 11), ("tool compass r3c3 1+2", 10),
            ("tool glass-a r1c3 1", 9), ("tool saw r2c2 1+2", 9), ("tool square r3c1 1+2", 9),
            ("recruit woman", 8), ("tool glass-a r1c1 1", 8), ("tool square r1c2 1", 8),
            ("tool saw r1c4 1", 8), ("tool compass r2c1 1+2", 8), ("recruit man", 7),
            ("tool saw r2c4 1+2", 7), ("tool glass-a r2c1 1+2", 6), ("tool saw r2c3 1+2", 6),
            ("tool saw r3c2 1+2", 6),
        ],
        win_probability=(0.241666667, 0.208333333, 0.55), pv=[196673, 196705],
        bot_move='tool square r1c1 1',
        bot_visits=[
            ("tool square r1c1 1", 7), ("recruit woman", 5), ("tool glass-a r2c1 1+2", 5),
            ("tool glass-a r1c1 1", 4), ("tool square r1c2 1", 4), ("tool glass-a r1c3 1", 4),
            ("tool saw r2c3 1+2", 4), ("tool saw r3c2 1+2", 4), ("tool compass r3c3 1+2", 4),
            ("recruit man", 4), ("tool saw r1c4 1", 3), ("tool compass r2c1 1+2", 3),
            ("tool saw r2c2 1+2", 3), ("tool saw r2c4 1+2", 3), ("tool square r3c1 1+2", 3),
        ],
    ),
    Pinned(
        'oh-my-goods', players=2, deal=3, plies=6, iterations=80, seed=1,
        visits=[
            ("supply market-office-4", 46), ("supply market-office-3", 34),
        ],
        win_probability=(0.3875, 0.6125), pv=[9296, 10312, 10292, 15360, 13312, 4096],
        bot_move='supply market-office-4',
        bot_visits=[
            ("supply market-office-4", 25), ("supply market-office-3", 15),
        ],
    ),
    Pinned(
        'oh-my-goods', players=3, deal=5, plies=3, iterations=60, seed=2,
        visits=[
            ("plan glassmaker-2", 10), ("plan tailors-shop-3", 9),
            ("plan window-manufacture-2", 9), ("plan butcher-3", 9), ("plan cattle-ranch-4", 7),
            ("plan none", 7), ("plan sawmill-4", 5), ("plan bakery-2", 4),
        ],
        win_probability=(0.266666667, 0.383333333, 0.35), pv=[6215, 3072, 6172],
        bot_move='plan bakery-2',
        bot_visits=[
            ("plan bakery-2", 9), ("plan butcher-3", 8), ("plan cattle-ranch-4", 5),
            ("plan glassmaker-2", 5), ("plan window-manufacture-2", 4),
            ("plan tailors-shop-3", 3), ("plan sawmill-4", 3), ("plan none", 3),
        ],
    ),
]


def _position(case: Pinned) -> State:
    """Deal ``case.deal``, then ``case.plies`` seeded random moves (chance: first outcome)."""
    state = registry.new_game(case.game, case.deal, case.players)
    rng = random.Random(case.deal)
    for _ in range(case.plies):
        if state.current_player() >= 0:
            moves = state.legal_moves()
        else:
            moves = [m for m, _ in state.chance_outcomes()]
        state.apply(moves[rng.randrange(len(moves))])
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("engine_path", ["kernel", "python"])
@pytest.mark.parametrize("case", PINNED, ids=lambda c: f"{c.game}-{c.players}p")
def test_default_settings_search_as_before(
        case: Pinned, engine_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if engine_path == "python":
        monkeypatch.setenv("FURNACE_PURE_PYTHON", "1")
    elif not registry.get_game(case.game).kernel_available():
        pytest.skip("kernel not built (or FURNACE_PURE_PYTHON set)")
    state = _position(case)
    then = SearchConfig(margin_scale=5.0 if case.game == "oh-my-goods" else None)
    analysis = search_for(state, iterations=case.iterations, seed=case.seed, config=then)
    assert [(m.text, m.visits) for m in analysis.moves] == case.visits
    assert analysis.best_move_text == case.visits[0][0]
    assert analysis.win_probability == pytest.approx(case.win_probability, abs=1e-9)
    assert analysis.principal_variation_moves[:6] == case.pv
    bot = make_bot(case.bot_spec, seed=9)
    assert state.move_to_text(bot.choose(state, random.Random(0))) == case.bot_move
    played = bot.last_analysis.moves  # type: ignore[attr-defined]
    assert [(m.text, m.visits) for m in played] == case.bot_visits
