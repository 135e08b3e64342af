"""Game-agnostic search: MCTS (UCT) with reward vectors, bots, the arena, root parallelism.

Everything here talks only to the protocol of :mod:`engine.game`; no module
knows any particular game.
"""

from engine.search.analysis import Analysis, MoveStats, RootStats, build_analysis, merge_root_stats
from engine.search.arena import play_game, run_arena, wilson_interval
from engine.search.bots import (
    Bot,
    BotSpecError,
    GreedyBot,
    MctsBot,
    RandomBot,
    make_bot,
)
from engine.search.mcts import DEFAULT_C, MCTS, mcts_search
from engine.search.parallel import parallel_search

__all__ = [
    "DEFAULT_C",
    "MCTS",
    "Analysis",
    "Bot",
    "BotSpecError",
    "GreedyBot",
    "MctsBot",
    "MoveStats",
    "RandomBot",
    "RootStats",
    "build_analysis",
    "make_bot",
    "mcts_search",
    "merge_root_stats",
    "parallel_search",
    "play_game",
    "run_arena",
    "wilson_interval",
]
