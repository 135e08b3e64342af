"""Single-observer information set MCTS (SO-ISMCTS; Cowling, Powley, Whitehouse 2012).

One tree is grown for one *observer* (the seat to move at the root).  Every
iteration starts from a fresh determinization ``d = root.determinize(observer, rng)``
(``root`` being the kernel twin ``search_state()`` when one exists, whose
``determinize`` must draw the same numbers as the reference's): a full state
consistent with what the observer can see, the hidden parts (opponents' cards,
deck order...) resampled.  The iteration then walks the single tree with ``d``:

* at a decision node every child whose move is legal in ``d`` is *available*
  and gets its ``avail`` count incremented (whether or not the node goes on to
  expand); if some legal move of ``d`` has no child yet, one of them, drawn
  from the seeded generator, is expanded and the walk stops there; otherwise
  the available child maximising ``utility[p] + c * sqrt(ln(avail) / n)`` is
  followed, ``p`` being the seat to move in ``d``.  Using the child's own
  availability instead of the parent's visits means a move that is legal only
  in some determinizations (a card the opponent may or may not hold) is not
  over-explored for the iterations in which it could not be played;
* at a chance node (``CHANCE``) an outcome of ``d.chance_outcomes()`` is drawn
  by probability and followed.  Outcomes *are* tracked as tree nodes (keyed by
  the outcome move, kept apart from decision children), so the tree below a
  die roll is conditioned on it, as in :mod:`engine.search.mcts`; creating an
  outcome child does not count as the iteration's expansion;
* at a terminal node the game's outcome, after the expansion the configuration's
  evaluator (:mod:`engine.search.evaluate`; by default a full random playout,
  ``d.rollout(seed)``, seed drawn from the search generator) values the leaf;
  with a ``prior_weight`` the new child is also valued once by the heuristic in
  ``d``, and selection counts that as ``prior_weight`` playouts (progressive bias,
  :mod:`engine.search.config`).

Every node on the path then adds the vector ``utilities + rewards + scores``
(``num_players`` each, as in :mod:`engine.search.mcts`) to its sums, so each
node's value is known for every seat and selection reads the utility of the
seat that moves there: statistics are from the point of view of the player
who moved into the node.  Children are keyed by move only: the tree assumes
that the same move sequence gives the move to the same seat in every
determinization (true of turn-based card games).

It is *single-observer*: opponents' moves are chosen from the same tree, so
they are modelled as if they knew no more than the observer (the usual
SO-ISMCTS simplification; it also means no strategy fusion worries for the
observer's own moves, which the information set fixes).

**Never peeking.**  The search touches the root state only through
``search_state()`` (its kernel twin, itself only determinized),
``determinize(observer, rng)``, ``current_player()``, ``legal_moves()`` (the
observer's own moves), ``move_to_text`` of root moves, ``num_players`` and
``info`` (whose name picks the search settings).  Texts
of deeper moves in the principal variation are recorded from the determinization
in which the node was created.  So two positions that differ only in what the
observer cannot see give the same analysis for the same seed and budget.

**Debug mode.**  With ``check_determinizations`` (default: the environment
variable ``FURNACE_DEBUG=1``) every determinization is compared with the root:
one that shows the observer a different ``observation(observer)`` raises
:class:`DeterminizationError`.  It is slow (an observation per iteration); the
conformance suite turns it on for every game.

Determinism: all randomness comes from ``random.Random(seed)`` (through the
game's ``determinize`` and the rollout seeds), children live in insertion-ordered
dicts, and the clock is read only for ``time_limit`` and ``on_progress``; with
a fixed ``iterations`` budget a seed always gives the same :class:`Analysis`
(apart from ``elapsed``), provided the game's ``determinize`` draws only from the
generator it is given.

>>> from engine.search.ismcts import ismcts_search
>>> analysis = ismcts_search(state, iterations=2000, seed=1)   # doctest: +SKIP
"""

from __future__ import annotations

import os
import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from math import log, sqrt
from operator import add

from engine.game import CHANCE, TERMINAL, State
from engine.search._common import backup_values, cumulative
from engine.search.analysis import GUESS, Analysis, RootStats, analysis_from_stats, best_key
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
    InformationSetTree,
    RootStatistics,
    TreeSearch,
    TreeSettings,
    tree_settings,
)

#: Default exploration constant of ISMCTS (the value of Cowling et al., rewards in [0, 1]).
DEFAULT_ISMCTS_C = 0.7
#: Whether ISMCTS checks every determinization by default (``FURNACE_DEBUG=1``).
DEBUG = os.environ.get("FURNACE_DEBUG", "") == "1"


class DeterminizationError(AssertionError):
    """A game's ``determinize`` changed what the observer sees (a bug in the game)."""


class InfoNode:
    """One node of the information set tree: the move that led here and its statistics.

    ``n`` counts the iterations through the node, ``avail`` the visits of the
    parent in which ``move`` was legal (so ``n <= avail <= parent.n``), ``acc``
    sums the ``utilities + rewards + scores`` vectors
    (:func:`~engine.search._common.backup_values`).  ``mover`` is the seat that played
    ``move`` (:data:`CHANCE` for an outcome), ``text`` its notation in the
    determinization where the node was created.  ``children`` are decision
    children and ``outcomes`` chance children, both keyed by move in creation order.
    """

    __slots__ = ("move", "text", "mover", "n", "avail", "acc", "children", "outcomes",
                 "prior", "bias")

    def __init__(self, move: int, text: str, mover: int, width: int) -> None:
        self.move = move
        self.text = text
        self.mover = mover
        self.n = 0
        self.avail = 0
        self.acc: list[float] = [0.0] * width
        self.children: dict[int, InfoNode] = {}
        self.outcomes: dict[int, InfoNode] = {}
        #: The mover's utility by ``prior_utility`` where the node was created.
        self.prior = 0.0
        #: ``exp`` of the move prior's logit, taken where the node was created.
        self.bias = 0.0

    def best_child(self) -> InfoNode | None:
        """The best child, decision or outcome, by :func:`~engine.search.analysis.best_key`
        (the most visited; ties: the higher mean win share for its mover, then the
        lower move)."""
        best: InfoNode | None = None
        best_so_far: tuple[int, float, int] = (0, 0.0, 0)
        for kid in (*self.children.values(), *self.outcomes.values()):
            if kid.n == 0:
                continue
            # acc holds utilities, then win shares, then scores (k each).
            share = kid.acc[len(kid.acc) // 3 + kid.mover] if kid.mover >= 0 else 0.0
            key = best_key(kid.n, share, kid.move, kid.mover)
            if best is None or key < best_so_far:
                best = kid
                best_so_far = key
        return best


class PythonISMCTSTree:
    """The information set tree in Python (the oracle of its compiled twin,
    :mod:`engine.search.compiled`) for ``settings.observer``, rooted at ``state`` (kept
    by reference and only determinized), drawing from ``rng``; it offers
    :class:`~engine.search.tree.InformationSetTree`, a node's context being its move's
    text in the determinization that made it.  With ``root_view`` (the observer's
    observation of the root) every determinization is checked against it
    (:class:`DeterminizationError`).
    """

    def __init__(self, state: State, rng: random.Random, settings: TreeSettings,
                 root_view: object = None) -> None:
        self.root_state = state
        self.rng = rng
        self.settings = settings
        self.root = InfoNode(-1, "", -1, settings.width)
        self._root_view = root_view
        self._root_only = None if settings.root_moves is None else \
            frozenset(settings.root_moves)
        #: One iteration: a closure over the tree, the hot path of every Python search.
        self.iterate: Callable[[], None] = self._iteration()

    def _iteration(self) -> Callable[[], None]:
        settings = self.settings
        rng = self.rng
        rand = rng.random
        getrandbits = rng.getrandbits
        root = self.root
        root_state = self.root_state
        observer = settings.observer
        c = settings.c
        width = settings.width
        scale = settings.margin_scale
        solo = settings.solo
        weight = settings.selection.prior_weight
        prior_scale = settings.selection.prior_scale
        move_weight = settings.selection.move_bias
        move_prior = settings.selection.move_prior
        # The default evaluator is the kernel's rollout, called inline (no extra call).
        evaluator = settings.evaluator
        evaluate = None if type(evaluator) is RolloutEvaluator else evaluator.evaluate
        new_node = InfoNode
        chance = CHANCE
        terminal = TERMINAL
        root_view = self._root_view
        root_only = self._root_only

        def iterate() -> None:
            world = root_state.determinize(observer, rng)
            if root_view is not None and world.observation(observer) != root_view:
                raise DeterminizationError(
                    f"a determinization shows seat {observer} something else than the root "
                    f"position: {type(world).__name__}.determinize is wrong")
            state = world.search_state()
            node = root
            path = [node]
            while True:
                p = state.current_player()
                if p >= 0:
                    kids = node.children
                    legal = state.legal_moves()
                    if root_only is not None and node is root:
                        legal = [m for m in legal if m in root_only]
                    untried: list[int] = []
                    for move in legal:
                        kid = kids.get(move)
                        if kid is None:
                            untried.append(move)
                        else:
                            kid.avail += 1
                    if untried:
                        move = untried[int(rand() * len(untried))]
                        child = new_node(move, state.move_to_text(move), p, width)
                        child.avail = 1
                        kids[move] = child
                        state.apply(move)
                        if weight:
                            child.prior = prior_utility(state, p, prior_scale, solo)
                        if move_weight:
                            child.bias = move_bias(move_prior, state, p)
                        path.append(child)
                        break
                    # Availability-aware UCB for the seat to move in this determinization.
                    best = node
                    best_value = -1e300
                    total = 0.0
                    if move_weight:  # the move prior over the moves legal here
                        for move in legal:
                            total += kids[move].bias
                    for move in legal:
                        kid = kids[move]
                        cn = kid.n
                        if weight:  # progressive bias: the prior counts as ``weight`` playouts
                            value = ((kid.acc[p] + weight * kid.prior) / (cn + weight)
                                     + c * sqrt(log(kid.avail) / cn))
                        else:
                            value = kid.acc[p] / cn + c * sqrt(log(kid.avail) / cn)
                        if move_weight:
                            value += move_weight * (kid.bias / total) / (cn + 1)
                        if value > best_value:
                            best_value = value
                            best = kid
                    state.apply(best.move)
                    node = best
                    path.append(node)
                elif p == chance:
                    outcomes = state.chance_outcomes()
                    if not outcomes:
                        raise ValueError("chance node without outcomes")
                    cum = cumulative([q for _, q in outcomes])
                    i = bisect_right(cum, rand() * cum[-1])
                    if i >= len(outcomes):
                        i = len(outcomes) - 1
                    move = outcomes[i][0]
                    chance_kid = node.outcomes.get(move)
                    if chance_kid is None:
                        chance_kid = new_node(move, state.move_to_text(move), chance, width)
                        node.outcomes[move] = chance_kid
                    chance_kid.avail += 1
                    state.apply(move)
                    node = chance_kid
                    path.append(node)
                else:
                    break
            if state.current_player() == terminal:
                outcome = state.outcome()
            elif evaluate is None:
                outcome = state.rollout(getrandbits(64))
            else:
                outcome = evaluate(state, getrandbits(64))
            result = backup_values(outcome, scale, solo)
            for nd in path:
                nd.n += 1
                nd.acc = list(map(add, nd.acc, result))

        return iterate

    def root_statistics(self) -> RootStatistics:
        """The root's statistics (:data:`~engine.search.tree.RootStatistics`)."""
        skip = self.settings.num_players  # the utilities: statistics report shares, scores
        rows = [(move, child.n, child.acc[skip:])
                for move, child in self.root.children.items() if child.n]
        return self.root.n, self.root.acc[skip:], rows

    def principal_variation(self, max_length: int = 64) -> list[tuple[int, object, int]]:
        """``(move, text, mover)`` along the best children (chance outcomes included)."""
        steps: list[tuple[int, object, int]] = []
        node = self.root.best_child()
        while node is not None and len(steps) < max_length:
            steps.append((node.move, node.text, node.mover))
            node = node.best_child()
        return steps

    def child_context(self, move: int) -> object:
        """The text of the root's child for ``move`` where it was made (``KeyError``)."""
        return self.root.children[move].text

    def text_in_context(self, move: int, context: object) -> str:
        """A node's context is its text already."""
        assert isinstance(context, str)
        return context

    def availability(self, *moves: int) -> tuple[int, int, int]:
        """``(n, avail, parent_n)`` of the node reached by ``moves`` from the root;
        ``KeyError`` for a path not in the tree.  Chance outcomes are looked up when no
        decision child matches."""
        node = self.root
        parent = node
        for move in moves:
            parent = node
            node = node.children[move] if move in node.children else node.outcomes[move]
        return node.n, node.avail, parent.n


class ISMCTS(TreeSearch):
    """An SO-ISMCTS search for ``observer`` at one position; :meth:`search` may be called
    repeatedly to keep growing its tree.

    ``observer`` defaults to the seat to move.  Another seat may be the observer
    when it can know the mover's moves (:meth:`~engine.game.State.moves_known_to`:
    every determinization then offers the same root moves): the tree searches for
    the seat to move as ``observer`` would, from ``observer``'s information only
    (a hint about another seat's options that peeks at nothing).  The root
    state is kept by reference and only read as described in the module
    docstring, so it must not change while the tree is in use (a bot builds a
    new tree for every move); root move texts are taken when the tree is built.

    ``config``, ``evaluator``, ``root_moves`` and ``compiled`` work as in
    :class:`~engine.search.mcts.MCTS` (every determinization offers the root's moves,
    see above); the exploration constant falls back to :data:`DEFAULT_ISMCTS_C` when
    the configuration sets none.  A tree that checks its determinizations
    (``check_determinizations``) stays in Python.
    """

    def __init__(
        self,
        state: State,
        observer: int | None = None,
        config: SearchConfig | None = None,
        *,
        seed: int | None = None,
        check_determinizations: bool | None = None,
        evaluator: Evaluator | None = None,
        root_moves: Sequence[int] | None = None,
        compiled: bool | None = None,
    ) -> None:
        player = state.current_player()
        if player < 0:
            kind = "a chance" if player == CHANCE else "a finished"
            raise ValueError(f"cannot search {kind} position: no player to move")
        if observer is None:
            observer = player
        if not isinstance(observer, int) or not 0 <= observer < state.num_players:
            raise ValueError(f"observer must be a seat of 0-{state.num_players - 1}")
        if observer != player and not state.moves_known_to(observer):
            raise ValueError(
                f"seat {player} is to move: the observer, seat {observer}, cannot search "
                f"for it, its moves depend on what seat {observer} cannot see"
            )
        moves = state.legal_moves()
        if not moves:
            raise ValueError("cannot search a position without legal moves")
        self.config = resolve_config(state, config)
        self.rng = random.Random(seed)
        self.observer = observer
        self.player = player
        self.num_players = state.num_players
        self.settings = tree_settings(state, self.config, DEFAULT_ISMCTS_C, evaluator,
                                      root_moves, observer)
        # The kernel twin determinizes without a round trip through the reference rules.
        self._state = state.search_state()
        self._secrets = state  # the rules' own state answers move_is_secret
        self._texts: dict[int, str] = {m: state.move_to_text(m) for m in moves}
        if check_determinizations is None:
            check_determinizations = DEBUG
        if check_determinizations:
            if compiled:
                raise ValueError("no compiled ISMCTS here: the determinizations are checked")
            core, self.python_reason = None, "the determinizations are checked"
        else:
            core, self.python_reason = compiled_tree_or_reason(
                "ISMCTS", compiled, self._state, self.rng, self.settings)
        self.tree: InformationSetTree = core if core is not None else PythonISMCTSTree(
            self._state, self.rng, self.settings,
            state.observation(observer) if check_determinizations else None)
        self.iterations = 0
        self.elapsed = 0.0

    # -- results ---------------------------------------------------------------
    def root_stats(self) -> RootStats:
        """The raw statistics at the root (see :class:`RootStats`)."""
        steps = self.tree.principal_variation()
        pv = [move for move, _context, _mover in steps]
        pv_texts = [self._move_text(pv[0])] + [
            self._seen_text(move, context, mover) for move, context, mover in steps[1:]
        ] if steps else []
        return self._root_stats(self.player, pv, pv_texts)

    def _seen_text(self, move: int, context: object, mover: int) -> str:
        """A line's move as the observer may read it: another seat's secret choice
        (:meth:`~engine.game.State.move_is_secret`) is the search's guess of it, in one
        determinization, never what that seat chose, and says so."""
        text = self.tree.text_in_context(move, context)
        if mover >= 0 and mover != self.observer and self._secrets.move_is_secret(move):
            return f"{text} {GUESS}"
        return text

    def principal_variation(self, max_length: int = 64) -> list[int]:
        """Moves following the most visited children (chance outcomes included)."""
        return [step[0] for step in self.tree.principal_variation(max_length)]

    def availability(self, *moves: int) -> tuple[int, int, int]:
        """``(n, avail, parent_n)`` of the node reached by ``moves`` from the root.

        For tests and diagnostics; raises ``KeyError`` for a path not in the tree.
        Chance outcomes are looked up when no decision child matches.
        """
        return self.tree.availability(*moves)

    def _move_text(self, move: int) -> str:
        """Text of a root move: from the root state when legal there, else its node's."""
        if move in self._texts:
            return self._texts[move]
        return self.tree.text_in_context(move, self.tree.child_context(move))

    def analysis(self) -> Analysis:
        """The :class:`Analysis` of the tree so far."""
        stats = self.root_stats()
        assert stats.pv_texts is not None
        solo = self.settings.solo
        return analysis_from_stats(stats, self._move_text, stats.pv, stats.pv_texts,
                                   target=solo[0] if solo else None)


def ismcts_search(
    state: State,
    observer: int | None = None,
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
    """Search ``state`` for the seat to move, from ``observer``'s information, with SO-ISMCTS.

    Budgets, ``should_stop``, ``on_progress``, ``c`` and ``config`` behave as in
    :func:`engine.search.mcts.mcts_search`.  Raises ``ValueError`` at a chance or
    terminal position or when ``observer`` cannot know the moves of the seat to move.
    """
    tree = ISMCTS(state, observer, resolve_config(state, config).overridden(c=c), seed=seed)
    return tree.search(
        iterations,
        time_limit,
        should_stop=should_stop,
        on_progress=on_progress,
        progress_interval=progress_interval,
    )
