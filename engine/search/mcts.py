"""Monte Carlo tree search (UCT) for 1-5 players with reward vectors and chance nodes.

Every node accumulates the vector ``utilities + rewards + scores`` of the
playouts through it (``num_players`` utilities, win shares and final scores
each; see :func:`~engine.search._common.backup_values`), so a node's value is
known for every seat.  The utility is the win share unless the game's search
configuration (:mod:`engine.search.config`) sets a ``margin_scale``.  At a node
where seat ``p`` moves, selection maximises
``mean_utility[p] + c * sqrt(ln N / n)`` over the children; analyses report
the win shares and scores.
Chance nodes (``current_player() == CHANCE``) have one child per outcome of
``chance_outcomes()``; selection samples an outcome by its probability and
creates its child on first arrival (that does not count as the iteration's
expansion, so one iteration can add a chance child and one decision child).
Each iteration expands at most one decision child, taking the untried moves in
a random order drawn from the seeded generator, then values the new leaf with
the configuration's evaluator (:mod:`engine.search.evaluate`): by default a full
random playout, ``State.rollout(seed)``, called inline.

Determinism: all randomness comes from ``random.Random(seed)``, the tree is
made only of lists, and the clock is read only for a ``time_limit``,
``should_stop`` is the caller's business and ``on_progress`` does not influence
the search, so with a fixed ``iterations`` budget a seed always yields the same
tree and the same :class:`Analysis` (apart from ``elapsed``).

The search works on ``state.search_state()`` (a kernel twin when one exists)
and never modifies the state it is given.

>>> from engine.search.mcts import mcts_search
>>> analysis = mcts_search(state, iterations=2000, seed=1)   # doctest: +SKIP
>>> analysis.best_move_text                                   # doctest: +SKIP
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from math import log, sqrt
from operator import add

from engine.game import CHANCE, TERMINAL, State
from engine.search._common import Solo, backup_values, cumulative
from engine.search.analysis import Analysis, RootStats, best_key, build_analysis
from engine.search.budget import (
    DEFAULT_PROGRESS_INTERVAL,
    ProgressCallback,
    StopCallback,
)
from engine.search.compiled import compiled_tree_or_reason
from engine.search.config import SearchConfig, resolve_config
from engine.search.evaluate import Evaluator, RolloutEvaluator, prior_utility
from engine.search.move_prior import move_bias
from engine.search.tree import (
    RootStatistics,
    SearchTree,
    TreeSearch,
    TreeSettings,
    tree_settings,
)

#: Default UCT exploration constant (about sqrt(2), for rewards in [0, 1]).
DEFAULT_C = 1.4


class Node:
    """One tree node.  Plain slots and lists: attribute access is the hot path.

    * decision node (``player >= 0``): ``moves``/``children`` are parallel lists
      of the expanded moves, ``untried`` the legal moves not expanded yet;
    * chance node (``player == CHANCE``): ``moves`` are the outcomes, ``cum`` their
      cumulative probabilities and ``outcome_children`` has one slot (``None``
      until first reached) per outcome;
    * terminal node: ``value`` caches the final ``utilities + rewards + scores`` vector
      (:func:`~engine.search._common.backup_values`).

    ``n`` counts the iterations through the node and ``acc`` sums their
    ``utilities + rewards + scores`` vectors.
    """

    __slots__ = (
        "player",
        "n",
        "acc",
        "moves",
        "children",
        "untried",
        "cum",
        "outcome_children",
        "value",
        "prior",
        "bias",
    )

    def __init__(self, state: State, width: int, margin_scale: float | None,
                 solo: Solo | None = None) -> None:
        player = state.current_player()
        self.player = player
        self.n = 0
        self.acc: list[float] = [0.0] * width
        self.moves: list[int] = []
        self.children: list[Node] = []
        self.untried: list[int] = []
        self.cum: list[float] = []
        self.outcome_children: list[Node | None] = []
        self.value: tuple[float, ...] = ()
        #: The utility ``prior_utility`` gave the seat that moved here (progressive bias).
        self.prior = 0.0
        #: ``exp`` of the move prior's logit for the move that led here.
        self.bias = 0.0
        if player >= 0:
            self.untried = list(state.legal_moves())
            if not self.untried:
                raise ValueError(f"seat {player} is to move but has no legal moves")
        elif player == CHANCE:
            outcomes = state.chance_outcomes()
            if not outcomes:
                raise ValueError("chance node without outcomes")
            self.moves = [m for m, _ in outcomes]
            self.cum = cumulative([p for _, p in outcomes])
            self.outcome_children = [None] * len(outcomes)
        else:
            self.value = backup_values(state.outcome(), margin_scale, solo)

    def kids(self) -> list[Node | None]:
        """The children, parallel to ``moves`` (chance slots may be ``None``)."""
        if self.player == CHANCE:
            return self.outcome_children
        return list(self.children)

    def best_child_index(self) -> int:
        """Index of the best child by :func:`~engine.search.analysis.best_key` (the most
        visited; ties: the higher mean win share for the mover, then the lower move)."""
        best = -1
        best_so_far: tuple[int, float, int] = (0, 0.0, 0)
        p = self.player
        for i, child in enumerate(self.kids()):
            if child is None or child.n == 0:
                continue
            # acc holds utilities, then win shares, then scores (k each).
            share = child.acc[len(child.acc) // 3 + p] if p >= 0 else 0.0
            key = best_key(child.n, share, self.moves[i], p)
            if best < 0 or key < best_so_far:
                best_so_far = key
                best = i
        return best


class PythonMCTSTree:
    """The UCT tree in Python (the oracle of its compiled twin, :mod:`engine.search.compiled`),
    rooted at ``state`` (a position with a seat to move, kept and never changed), drawing
    from ``rng`` and built from ``settings``; it offers :class:`~engine.search.tree.SearchTree`.
    """

    def __init__(self, state: State, rng: random.Random, settings: TreeSettings) -> None:
        self.root_state = state
        self.rng = rng
        self.settings = settings
        self.root = Node(state, settings.width, settings.margin_scale, settings.solo)
        if settings.root_moves is not None:
            self.root.untried = list(settings.root_moves)
        #: One iteration: a closure over the tree, the hot path of every Python search.
        self.iterate: Callable[[], None] = self._iteration()

    def _iteration(self) -> Callable[[], None]:
        settings = self.settings
        rng = self.rng
        rand = rng.random
        getrandbits = rng.getrandbits
        root = self.root
        root_state = self.root_state
        c = settings.c
        width = settings.width
        scale = settings.margin_scale
        solo = settings.solo
        plain = scale is None and solo is None
        weight = settings.selection.prior_weight
        prior_scale = settings.selection.prior_scale
        move_weight = settings.selection.move_bias
        move_prior = settings.selection.move_prior
        # The default evaluator is the kernel's rollout, called inline (no extra call).
        evaluator = settings.evaluator
        evaluate = None if type(evaluator) is RolloutEvaluator else evaluator.evaluate
        new_node = Node
        chance = CHANCE
        terminal = TERMINAL

        def iterate() -> None:
            state = root_state.clone()
            node = root
            path = [node]
            while True:
                p = node.player
                if p >= 0:
                    untried = node.untried
                    if untried:
                        i = int(rand() * len(untried))
                        move = untried[i]
                        untried[i] = untried[-1]
                        untried.pop()
                        state.apply(move)
                        child = new_node(state, width, scale, solo)
                        if weight:
                            child.prior = prior_utility(state, p, prior_scale, solo)
                        if move_weight:
                            child.bias = move_bias(move_prior, state, p)
                        node.moves.append(move)
                        node.children.append(child)
                        node = child
                        path.append(node)
                        break
                    # UCT: maximise the mean reward of the player to move here.
                    explore = c * sqrt(log(node.n))
                    best = node
                    best_move = 0
                    best_value = -1e300
                    # Two loops, not one with weight 0: the plain one is the hot path of
                    # every search without a prior.
                    if move_weight:  # the move prior's bias, on either rule
                        total = 0.0
                        for kid in node.children:
                            total += kid.bias
                        for move, kid in zip(node.moves, node.children):  # noqa: B905
                            cn = kid.n
                            if weight:
                                value = ((kid.acc[p] + weight * kid.prior) / (cn + weight)
                                         + explore / sqrt(cn))
                            else:
                                value = kid.acc[p] / cn + explore / sqrt(cn)
                            value += move_weight * (kid.bias / total) / (cn + 1)
                            if value > best_value:
                                best_value = value
                                best = kid
                                best_move = move
                    elif weight:  # progressive bias: the prior counts as ``weight`` playouts
                        for move, kid in zip(node.moves, node.children):  # noqa: B905
                            cn = kid.n
                            value = ((kid.acc[p] + weight * kid.prior) / (cn + weight)
                                     + explore / sqrt(cn))
                            if value > best_value:
                                best_value = value
                                best = kid
                                best_move = move
                    else:
                        for move, kid in zip(node.moves, node.children):  # noqa: B905
                            cn = kid.n
                            value = kid.acc[p] / cn + explore / sqrt(cn)
                            if value > best_value:
                                best_value = value
                                best = kid
                                best_move = move
                    state.apply(best_move)
                    node = best
                    path.append(node)
                elif p == chance:
                    cum = node.cum
                    moves = node.moves
                    i = bisect_right(cum, rand() * cum[-1])
                    if i >= len(moves):
                        i = len(moves) - 1
                    state.apply(moves[i])
                    chance_kid = node.outcome_children[i]
                    if chance_kid is None:
                        chance_kid = new_node(state, width, scale, solo)
                        node.outcome_children[i] = chance_kid
                    node = chance_kid
                    path.append(node)
                else:
                    break
            if node.player == terminal:
                result = node.value
            else:
                if evaluate is None:
                    outcome = state.rollout(getrandbits(64))
                else:
                    outcome = evaluate(state, getrandbits(64))
                if plain:  # the common case, without a call
                    rewards = outcome.rewards
                    result = rewards + rewards + outcome.scores
                else:
                    result = backup_values(outcome, scale, solo)
            for nd in path:
                nd.n += 1
                nd.acc = list(map(add, nd.acc, result))

        return iterate

    def root_statistics(self) -> RootStatistics:
        """The root's statistics (:data:`~engine.search.tree.RootStatistics`)."""
        root = self.root
        skip = self.settings.num_players  # the utilities: statistics report shares, scores
        rows = [(move, child.n, child.acc[skip:])
                for move, child in zip(root.moves, root.children, strict=True) if child.n]
        return root.n, root.acc[skip:], rows

    def principal_variation(self, max_length: int = 64) -> list[int]:
        """Moves following the most visited children (chance outcomes included)."""
        pv: list[int] = []
        node: Node | None = self.root
        while node is not None and len(pv) < max_length:
            i = node.best_child_index()
            if i < 0:
                break
            pv.append(node.moves[i])
            node = node.kids()[i]
        return pv


class MCTS(TreeSearch):
    """A UCT search rooted at one position; :meth:`search` (budgets as in
    :class:`~engine.search.budget.BudgetedSearch`) may be called repeatedly to keep
    growing the same tree (statistics accumulate).

    Settings come from ``config`` (default: the game's entry,
    :func:`~engine.search.config.config_for`; a caller's own settings go in with
    :meth:`~engine.search.config.SearchConfig.overridden`): its exploration constant
    (else :data:`DEFAULT_C`), margin scale, leaf evaluator and prior.  ``evaluator``,
    when given, values the leaves instead of the configuration's (any
    :class:`~engine.search.evaluate.Evaluator`).  ``root_moves``, when given, are the
    only moves tried at the root (legal ones; see
    :func:`~engine.search._common.root_candidates`).  ``compiled``: ``None`` grows the
    tree in compiled code where it can (:mod:`engine.search.compiled`: a kernel position
    and an evaluator that describes itself to the core), ``True`` insists
    (``ValueError`` otherwise), ``False`` keeps it in Python; both grow the same tree
    from the same seed, behind one interface (:mod:`engine.search.tree`).
    """

    def __init__(self, state: State, config: SearchConfig | None = None, *,
                 seed: int | None = None, evaluator: Evaluator | None = None,
                 root_moves: Sequence[int] | None = None,
                 compiled: bool | None = None) -> None:
        player = state.current_player()
        if player < 0:
            kind = "a chance" if player == CHANCE else "a finished"
            raise ValueError(f"cannot search {kind} position: no player to move")
        if not state.legal_moves():
            raise ValueError("cannot search a position without legal moves")
        self.config = resolve_config(state, config)
        self.rng = random.Random(seed)
        self.state = state.clone()  # for move texts; the caller may keep playing theirs
        self.root_state = state.search_state()
        if self.root_state is state:
            self.root_state = self.state
        self.num_players = state.num_players
        self.settings = tree_settings(self.root_state, self.config, DEFAULT_C, evaluator,
                                      root_moves)
        core, self.python_reason = compiled_tree_or_reason(
            "MCTS", compiled, self.root_state, self.rng, self.settings)
        self.tree: SearchTree = core if core is not None else \
            PythonMCTSTree(self.root_state, self.rng, self.settings)
        self.iterations = 0
        self.elapsed = 0.0

    # -- results ---------------------------------------------------------------
    def root_stats(self) -> RootStats:
        """The raw statistics at the root (see :class:`RootStats`)."""
        return self._root_stats(self.root_state.current_player(), self.principal_variation())

    def principal_variation(self, max_length: int = 64) -> list[int]:
        """Moves following the most visited children (chance outcomes included)."""
        return list(self.tree.principal_variation(max_length))

    def analysis(self) -> Analysis:
        """The :class:`Analysis` of the tree so far."""
        return build_analysis(self.state, self.root_stats())


def mcts_search(
    state: State,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    c: float | None = None,
    seed: int | None = None,
    should_stop: StopCallback | None = None,
    on_progress: ProgressCallback | None = None,
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
    config: SearchConfig | None = None,
) -> Analysis:
    """Search ``state`` (not modified) with UCT and return the :class:`Analysis`.

    Stops after ``iterations`` or ``time_limit`` seconds, whichever comes first
    (give at least one), or when ``should_stop()`` turns true.  Settings come from
    ``config`` (default: the game's, :mod:`engine.search.config`); ``c=None`` takes
    its exploration constant.  Raises ``ValueError`` at a chance or terminal position.
    """
    tree = MCTS(state, resolve_config(state, config).overridden(c=c), seed=seed)
    return tree.search(
        iterations,
        time_limit,
        should_stop=should_stop,
        on_progress=on_progress,
        progress_interval=progress_interval,
    )
