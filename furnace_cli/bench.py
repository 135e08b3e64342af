"""``furnace bench``: engine, kernel and search speed, measured in one run.

Both engines count the moves their playouts make (``last_rollout_steps``, or the
plies a plain random game takes for a game whose states do not count them); the
playouts are the same games on both paths (same seeds, same random stream).

Every game gets the pure-Python figures of the protocol's operations on the
positions of random games: plies per game, ``legal_moves``, ``apply`` and
``clone`` calls per second.  A state that keeps its legal moves between calls has
them worked out afresh for the measure (it says how through ``touched()``).

What is compared is timed in turns, never one long phase after the other: on a
shared machine the load changes within seconds, and a phase that happened to run
while another process was busy made a ratio swing several times over.  Each side
of a comparison runs a short repetition (about ``seconds / rounds`` seconds, at most
:data:`SLICE_SECONDS`), then the next side, round after round (A B A B ..., or A B C
A B C ... for more sides), until each side has had about ``seconds`` in all.  A
figure ``..._per_s`` is the median of one side's per-repetition rates; a ratio is the
**median of the per-round ratios** (each round's sides ran back to back, so a slow
change in load cancels out of each ratio, and a round disturbed by a burst is
outvoted).  The comparisons:

* pure Python vs kernel playouts (``kernel_speedup``) and determinizations
  (``determinize_speedup``, hidden-information games);
* the default search vs the plain-UCT baseline (``search_speed_vs_baseline``), vs the
  same search with random playouts where the game's search uses MAST ones
  (``mast_speed_vs_random_playouts``), the compiled tree vs the Python tree
  (``search_tree_speedup``) when the search has both, and the default search vs its
  leaf evaluations (``search_to_leaf_ratio``), all in the same rounds.

A search repetition is a fresh tree of the opening, seed 0, running a fixed number of
iterations, so that every repetition of a side does the same work: the number that
side manages in one slice (measured once before the rounds, which also warms caches
up), at most ``mcts_iterations`` (``search_iterations_per_repetition``).  The compiled
and the Python tree share the smaller of their two numbers: with the same seed they
grow identical trees, so their ratio compares the same work.  A *leaf evaluation* is what the game's configured evaluator
(``config_for(state).evaluator()``) does for one search iteration:
``evaluate(twin.clone(), seed)`` on the search's root state (its kernel twin,
``search_state()``), or for ISMCTS on one of a fixed set of determinizations of it for
the seat to move (made before the timing: making them is the search's own work, like
walking its tree).  ``search_to_leaf_ratio`` is search iterations a second divided by
leaf evaluations a second: 1 would mean the tree costs nothing beside its leaves.

The load average (1, 5 and 15 minutes) at the start and the end and the CPU count
come with the figures, so that a run on a busy machine says so.
"""

from __future__ import annotations

import inspect
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from engine.game import FurnaceError, Game, State
from engine.playout_rng import PlayoutRng
from engine.search import SearchConfig, config_for, make_tree, search_kind
from engine.search.baseline import baseline_config

#: The longest repetition of one side of a comparison, in seconds.
SLICE_SECONDS = 0.25
#: The fewest rounds a comparison takes, however short ``seconds`` is.
MIN_ROUNDS = 5
#: Determinizations made for the leaf evaluations of an ISMCTS root.
LEAF_WORLDS = 16

#: One repetition of one side of a comparison: runs it once and returns its rate
#: (things done per second).
Repetition = Callable[[], float]


def alternate(sides: Sequence[Repetition], rounds: int) -> list[list[float]]:
    """Each side's rates over ``rounds`` rounds, the sides taking turns within a round
    (A B A B ... for two): ``rates[side][round]``."""
    rates: list[list[float]] = [[] for _ in sides]
    for _ in range(rounds):
        for rate, side in zip(rates, sides, strict=True):
            rate.append(side())
    return rates


def median_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The median of the per-round ratios ``numerators[i] / denominators[i]``."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def schedule(seconds: float) -> tuple[int, float]:
    """The rounds of a comparison and the length of one repetition, so that each side
    gets about ``seconds`` in all, in slices of at most :data:`SLICE_SECONDS`."""
    if not 0 < seconds < float("inf"):
        raise FurnaceError(f"--seconds must be a positive number, not {seconds!r}")
    slice_seconds = min(SLICE_SECONDS, seconds / MIN_ROUNDS)
    return max(MIN_ROUNDS, round(seconds / slice_seconds)), slice_seconds


def run_bench(game: Game, seconds: float = 2.0, players: int = 3,
              mcts_iterations: int = 3000,
              log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Pure-Python and kernel playout speed, their ratio, and search iterations per second
    against the baseline, random playouts, the Python tree and the leaf evaluations
    (see the module docstring for how each is timed).

    For a hidden-information game also the determinizations per second of both
    engines (ISMCTS makes one per iteration) and their ratio.
    """
    game.info.check_players(players)
    if isinstance(mcts_iterations, bool) or not isinstance(mcts_iterations, int) \
            or mcts_iterations < 1:
        raise FurnaceError(f"--mcts-iterations must be a positive integer, "
                           f"not {mcts_iterations!r}")
    rounds, slice_seconds = schedule(seconds)
    say = log or (lambda _text: None)
    report: dict[str, Any] = {
        "game": game.info.name,
        "players": players,
        "cpu_count": os.cpu_count(),
        "load_average_start": _load_average(),
        "rounds": rounds,
        "repetition_seconds": round(slice_seconds, 3),
    }

    def reference(i: int) -> State:
        return game.new_game(i, players)

    opening = game.new_game(0, players)
    # A kernel may leave some player counts or positions to the reference rules.
    kernel = game.kernel_available() and opening.search_state() is not opening
    python_playouts = _Playouts(reference, slice_seconds)
    if kernel:
        say(f"pure-Python and kernel playouts in turns, {rounds} rounds ...")
        kernel_playouts = _Playouts(lambda i: reference(i).search_state(), slice_seconds)
        python_rates, kernel_rates = alternate([python_playouts, kernel_playouts], rounds)
        report.update(python_steps_per_s=_median(python_rates),
                      python_games=python_playouts.games,
                      kernel_steps_per_s=_median(kernel_rates),
                      kernel_games=kernel_playouts.games,
                      kernel_speedup=round(median_ratio(kernel_rates, python_rates), 1))
    else:
        say(f"pure-Python playouts, {rounds} repetitions ...")
        (python_rates,) = alternate([python_playouts], rounds)
        note = (f"the kernel does not play {players}-player games "
                f"(search_state() returns the reference state)" if game.kernel_available()
                else "kernel not built or FURNACE_PURE_PYTHON set")
        report.update(python_steps_per_s=_median(python_rates),
                      python_games=python_playouts.games,
                      kernel_steps_per_s=None, kernel_speedup=None, kernel_note=note)
    say(f"pure-Python legal_moves, apply and clone for {seconds:g} s ...")
    report.update(_operations(reference, seconds))
    if not game.info.perfect_information and opening.current_player() >= 0:
        seat = opening.current_player()
        python_det = _Determinizations(opening, seat, slice_seconds)
        if kernel:
            say(f"pure-Python and kernel determinizations in turns, {rounds} rounds ...")
            kernel_det = _Determinizations(opening.search_state(), seat, slice_seconds)
            python_det_rates, kernel_det_rates = alternate([python_det, kernel_det], rounds)
            report.update(python_determinize_per_s=_median(python_det_rates),
                          kernel_determinize_per_s=_median(kernel_det_rates),
                          determinize_speedup=round(
                              median_ratio(kernel_det_rates, python_det_rates), 1))
        else:
            say(f"determinizations, {rounds} repetitions ...")
            (python_det_rates,) = alternate([python_det], rounds)
            report["python_determinize_per_s"] = _median(python_det_rates)
    report.update(_search_figures(opening, rounds, slice_seconds, mcts_iterations, say))
    report["search_path"] = "kernel" if kernel else "python"
    report["load_average_end"] = _load_average()
    return report


def _search_figures(opening: State, rounds: int, slice_seconds: float, iterations: int,
                    say: Callable[[str], None]) -> dict[str, Any]:
    """The search comparisons of the module docstring, in the same rounds."""
    kind = search_kind(opening)  # MCTS, or ISMCTS for hidden-information games
    config = config_for(opening)
    compiled_note = _compiled_tree_note(opening, config)
    # With a compiled tree the default search is that tree (make_tree's compiled=None).
    default = _tree_factory(opening, config, compiled=None if compiled_note else True)
    factories: dict[str, Callable[[], Any]] = {
        "default": default,
        "baseline": _tree_factory(opening, baseline_config(opening)),
    }
    if config.mast_epsilon is not None:
        # What the MAST playouts cost or save: the same search with random playouts.
        factories["random_playouts"] = _tree_factory(
            opening, replace(config, mast_epsilon=None))
    if compiled_note is None:
        factories["python_tree"] = _tree_factory(opening, config, compiled=False)
    say(f"{kind.upper()} iteration budgets: what each of {', '.join(factories)} "
        f"does in {slice_seconds:g} s ...")
    budgets = {name: _iterations_in(make(), iterations, slice_seconds)
               for name, make in factories.items()}
    if "python_tree" in budgets:
        # Both trees grow the same tree: the work of the slower in a slice.
        budgets["default"] = budgets["python_tree"] = min(budgets["default"],
                                                          budgets["python_tree"])
    sides: dict[str, Repetition] = {name: _Searches(make, budgets[name])
                                    for name, make in factories.items()}
    sides["leaf"] = _LeafEvaluations(opening, config, slice_seconds)
    say(f"{kind.upper()}, {budgets['default']} iterations a repetition, in turns with "
        f"{', '.join(name for name in sides if name != 'default')}, {rounds} rounds ...")
    rates = dict(zip(sides, alternate(list(sides.values()), rounds), strict=True))
    search = rates["default"]
    figures: dict[str, Any] = {
        "search_iterations_per_repetition": budgets,
        f"{kind}_iterations_per_s": _median(search),
        "baseline_iterations_per_s": _median(rates["baseline"]),
        "search_speed_vs_baseline": round(median_ratio(search, rates["baseline"]), 2),
    }
    if "random_playouts" in rates:
        figures.update(
            random_playout_iterations_per_s=_median(rates["random_playouts"]),
            mast_speed_vs_random_playouts=round(median_ratio(search,
                                                             rates["random_playouts"]), 2))
    if compiled_note is None:
        figures.update(python_tree_iterations_per_s=_median(rates["python_tree"]),
                       search_tree_speedup=round(median_ratio(search,
                                                              rates["python_tree"]), 2))
    else:
        figures.update(search_tree_speedup=None, search_tree_note=compiled_note)
    figures.update(leaf_evaluations_per_s=_median(rates["leaf"]),
                   search_to_leaf_ratio=round(median_ratio(search, rates["leaf"]), 2))
    return figures


def _compiled_tree_note(state: State, config: SearchConfig) -> str | None:
    """``None`` when the search has a compiled tree for ``state`` beside the Python one,
    else why not (``make_tree`` takes no ``compiled`` switch, or refuses it here)."""
    build: Callable[..., Any] = make_tree  # called loosely: its compiled switch is looked for
    if "compiled" not in inspect.signature(build).parameters:
        return "the search has no compiled tree (make_tree takes no compiled switch)"
    try:
        build(state, config=config, seed=0, compiled=True)
    except ValueError as error:
        return f"no compiled tree for this position: {error}"
    return None


def _tree_factory(state: State, config: SearchConfig,
                  compiled: bool | None = None) -> Callable[[], Any]:
    """A function that builds a fresh tree of ``state`` (seed 0) with ``config``;
    ``compiled`` is passed to ``make_tree`` only when set."""
    build: Callable[..., Any] = make_tree
    switch = {} if compiled is None else {"compiled": compiled}
    return lambda: build(state, config=config, seed=0, **switch)


def _iterations_in(tree: Any, iterations: int, seconds: float) -> int:
    """How many iterations ``tree`` runs in ``seconds`` (at most ``iterations``)."""
    return max(1, tree.search(iterations, seconds).iterations)


class _Searches:
    """Repetitions of a search: a fresh tree each time, ``iterations`` iterations;
    the rate is iterations per second of its ``search`` call (the tree is built before
    the clock starts)."""

    def __init__(self, make: Callable[[], Any], iterations: int) -> None:
        self.make = make
        self.iterations = iterations

    def __call__(self) -> float:
        tree = self.make()
        start = time.perf_counter()
        done = tree.search(self.iterations).iterations
        return done / (time.perf_counter() - start)


class _LeafEvaluations:
    """Repetitions of the leaf evaluation of the module docstring, for about
    ``seconds`` each; one evaluator throughout (a MAST one keeps learning, as in a
    search)."""

    def __init__(self, opening: State, config: SearchConfig, seconds: float) -> None:
        twin = opening.search_state()
        if search_kind(opening) == "mcts":
            self.positions = [twin]
        else:
            rng = random.Random(0)
            seat = opening.current_player()
            self.positions = [twin.determinize(seat, rng).search_state()
                              for _ in range(LEAF_WORLDS)]
        self.evaluate = config.evaluator(opening.num_players).evaluate
        self.seeds = random.Random(0)
        self.seconds = seconds
        self.done = 0

    def __call__(self) -> float:
        positions, evaluate, seeds = self.positions, self.evaluate, self.seeds
        count = 0
        elapsed = 0.0
        start = time.perf_counter()
        while elapsed < self.seconds:
            for _ in range(8):
                position = positions[self.done % len(positions)]
                evaluate(position.clone(), seeds.getrandbits(64))
                self.done += 1
            count += 8
            elapsed = time.perf_counter() - start
        return count / elapsed


class _Playouts:
    """Repetitions of playouts of fresh games, game after game across repetitions
    (game ``i`` is ``make_state(i)`` played with seed ``i``): the playout moves per
    second of the games a repetition of about ``seconds`` holds (the playouts only are
    timed, not making the games)."""

    def __init__(self, make_state: Callable[[int], State], seconds: float) -> None:
        self.make_state = make_state
        self.seconds = seconds
        self.games = 0

    def __call__(self) -> float:
        steps = 0
        elapsed = 0.0
        while elapsed < self.seconds:
            state = self.make_state(self.games)
            start = time.perf_counter()
            if hasattr(state, "last_rollout_steps"):
                state.rollout(self.games)
                steps += state.last_rollout_steps
            else:
                steps += _random_game(state, self.games)
            elapsed += time.perf_counter() - start
            self.games += 1
        return steps / elapsed


class _Determinizations:
    """Repetitions of ``state.determinize(seat, rng)`` for about ``seconds`` each,
    one random stream throughout."""

    def __init__(self, state: State, seat: int, seconds: float) -> None:
        self.state = state
        self.seat = seat
        self.seconds = seconds
        self.rng = random.Random(0)

    def __call__(self) -> float:
        state, seat, rng = self.state, self.seat, self.rng
        count = 0
        elapsed = 0.0
        start = time.perf_counter()
        while elapsed < self.seconds:
            for _ in range(20):
                state.determinize(seat, rng)
            count += 20
            elapsed = time.perf_counter() - start
        return count / elapsed


def _median(rates: Sequence[float]) -> int:
    return round(statistics.median(rates))


def _load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (``None`` where the system has none)."""
    try:
        return [round(load, 2) for load in os.getloadavg()]
    except OSError:
        return None


def _random_game(state: State, seed: int) -> int:
    """Play random moves to the end (the playout stream); returns the plies."""
    rng = PlayoutRng(seed)
    plies = 0
    while not state.is_terminal():
        moves = state.legal_moves()
        state.apply(moves[rng.below(len(moves))])
        plies += 1
    return plies


def _operations(make_state: Callable[[int], State], seconds: float) -> dict[str, Any]:
    """Plies per random game and pure-Python calls per second of ``legal_moves``,
    ``apply`` and ``clone``, over the positions of random games."""
    timing = {"legal_moves": 0.0, "apply": 0.0, "clone": 0.0}
    calls = 0
    plies: list[int] = []
    while sum(timing.values()) < seconds or len(plies) < 3:
        state = make_state(len(plies))
        rng = PlayoutRng(len(plies))
        count = 0
        while not state.is_terminal():
            start = time.perf_counter()
            twin = state.clone()
            timing["clone"] += time.perf_counter() - start
            forget = getattr(twin, "touched", None)
            if callable(forget):
                forget()
            start = time.perf_counter()
            moves = twin.legal_moves()
            timing["legal_moves"] += time.perf_counter() - start
            move = moves[rng.below(len(moves))]
            start = time.perf_counter()
            state.apply(move)
            timing["apply"] += time.perf_counter() - start
            count += 1
        calls += count
        plies.append(count)
    return {"python_plies_per_game": round(sum(plies) / len(plies), 1),
            "python_legal_moves_per_s": round(calls / timing["legal_moves"]),
            "python_apply_per_s": round(calls / timing["apply"]),
            "python_clone_per_s": round(calls / timing["clone"])}
