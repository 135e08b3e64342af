"""Game-agnostic search: MCTS (UCT) with reward vectors, ISMCTS for hidden information,
bots, the arena, root parallelism.

Everything here talks only to the protocol of :mod:`engine.game`; no module
knows any particular game.
"""

from engine.search.analysis import (
    Analysis,
    MoveStats,
    RootStats,
    analysis_from_stats,
    build_analysis,
    merge_root_stats,
)
from engine.search.arena import play_game, run_arena, wilson_interval
from engine.search.bots import (
    Bot,
    BotSpecError,
    GreedyBot,
    IsmctsBot,
    MctsBot,
    RandomBot,
    make_bot,
)
from engine.search.dispatch import make_tree, search_for, search_kind
from engine.search.estimate import Estimate, SeatEstimate, estimate_scores
from engine.search.ismcts import DEFAULT_ISMCTS_C, ISMCTS, DeterminizationError, ismcts_search
from engine.search.mcts import DEFAULT_C, MCTS, mcts_search
from engine.search.parallel import parallel_search

__all__ = [
    "DEFAULT_C",
    "DEFAULT_ISMCTS_C",
    "ISMCTS",
    "MCTS",
    "Analysis",
    "Bot",
    "BotSpecError",
    "DeterminizationError",
    "Estimate",
    "GreedyBot",
    "IsmctsBot",
    "MctsBot",
    "MoveStats",
    "RandomBot",
    "RootStats",
    "SeatEstimate",
    "analysis_from_stats",
    "build_analysis",
    "estimate_scores",
    "ismcts_search",
    "make_bot",
    "make_tree",
    "mcts_search",
    "merge_root_stats",
    "parallel_search",
    "play_game",
    "run_arena",
    "search_for",
    "search_kind",
    "wilson_interval",
]
