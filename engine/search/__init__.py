"""Game-agnostic search: MCTS (UCT) with reward vectors, ISMCTS for hidden information,
bots, root parallelism.  (Tournaments between bots, the arena and the rating ladder,
are a tool above the product: :mod:`tournaments`.)

Everything here talks only to the protocol of :mod:`engine.game`; no module
knows any particular game.  What suits one game (its score-margin scale, its leaf
evaluator, its exploration constant) is data, in :mod:`engine.search.config`; how a
leaf is valued is the :class:`Evaluator` seam of :mod:`engine.search.evaluate`; the
trees themselves, Python or compiled, sit behind the one interface of
:mod:`engine.search.tree`.
"""

from engine.search.analysis import (
    Analysis,
    MoveStats,
    RootStats,
    analysis_from_stats,
    build_analysis,
    merge_root_stats,
)
from engine.search.bots import (
    Bot,
    BotSpecError,
    GreedyBot,
    IsmctsBot,
    MctsBot,
    RandomBot,
    make_bot,
)
from engine.search.config import (
    DEFAULT_CONFIG,
    GAME_MARGIN,
    SEARCH_CONFIGS,
    SearchConfig,
    SearchOverrides,
    config_for,
)
from engine.search.dispatch import make_tree, search_for, search_kind
from engine.search.estimate import Estimate, SeatEstimate, estimate_scores
from engine.search.evaluate import (
    FULL_PLAYOUT,
    Evaluator,
    RolloutEvaluator,
    TruncatedPlayoutEvaluator,
    heuristic_outcome,
)
from engine.search.ismcts import DEFAULT_ISMCTS_C, ISMCTS, DeterminizationError, ismcts_search
from engine.search.mcts import DEFAULT_C, MCTS, mcts_search
from engine.search.parallel import parallel_search, warm_up

__all__ = [
    "DEFAULT_C",
    "DEFAULT_CONFIG",
    "DEFAULT_ISMCTS_C",
    "FULL_PLAYOUT",
    "GAME_MARGIN",
    "ISMCTS",
    "MCTS",
    "SEARCH_CONFIGS",
    "Analysis",
    "Bot",
    "BotSpecError",
    "DeterminizationError",
    "Estimate",
    "Evaluator",
    "GreedyBot",
    "IsmctsBot",
    "MctsBot",
    "MoveStats",
    "RandomBot",
    "RolloutEvaluator",
    "RootStats",
    "SearchConfig",
    "SearchOverrides",
    "SeatEstimate",
    "TruncatedPlayoutEvaluator",
    "analysis_from_stats",
    "build_analysis",
    "config_for",
    "estimate_scores",
    "heuristic_outcome",
    "ismcts_search",
    "make_bot",
    "make_tree",
    "mcts_search",
    "merge_root_stats",
    "parallel_search",
    "search_for",
    "search_kind",
    "warm_up",
]
