"""``furnace bench``: engine, kernel and search speed, measured in one run.

Both engines count the moves their playouts make (``last_rollout_steps``, or the
plies a plain random game takes for a game whose states do not count them); the
playouts are the same games on both paths (same seeds, same random stream).

Every game gets the pure-Python figures of the protocol's operations on the
positions of random games: plies per game, ``legal_moves``, ``apply`` and
``clone`` calls per second.  A state that keeps its legal moves between calls has
them worked out afresh for the measure (it says how through ``touched()``).

Ratios (kernel vs pure Python, the default search vs the plain-UCT baseline) are the
figures to compare across machines: both sides are measured back to back on the same
machine.  Without a kernel the search
measure stops at ``seconds`` too, whatever the iteration budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.game import Game, State
from engine.playout_rng import PlayoutRng
from engine.search import SearchConfig, config_for, make_tree, search_for, search_kind
from engine.search.baseline import baseline_config


def run_bench(game: Game, seconds: float = 2.0, players: int = 3,
              mcts_iterations: int = 3000,
              log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Pure-Python and kernel playout speed, their ratio, and MCTS iterations per second.

    For a hidden-information game also the determinizations per second of both
    engines (ISMCTS makes one per iteration) and their ratio.
    """
    game.info.check_players(players)
    say = log or (lambda _text: None)
    def reference(i: int) -> State:
        return game.new_game(i, players)

    def counted_rate(make_state: Callable[[int], State]) -> tuple[float, int]:
        """Playout moves per second over fresh games until ``seconds`` have passed."""
        steps = 0
        games = 0
        elapsed = 0.0
        while elapsed < seconds or games < 3:
            state = make_state(games)
            start = time.perf_counter()
            if hasattr(state, "last_rollout_steps"):
                state.rollout(games)
                steps += state.last_rollout_steps
            else:
                steps += _random_game(state, games)
            elapsed += time.perf_counter() - start
            games += 1
        return steps / elapsed, games

    say(f"pure-Python playouts for {seconds:g} s ...")
    python_rate, python_games = counted_rate(reference)
    report: dict[str, Any] = {
        "game": game.info.name,
        "players": players,
        "python_steps_per_s": round(python_rate),
        "python_games": python_games,
    }
    say(f"pure-Python legal_moves, apply and clone for {seconds:g} s ...")
    report.update(_operations(reference, seconds))
    opening = game.new_game(0, players)
    # A kernel may leave some player counts to the reference rules (Stephens' solo game).
    kernel = game.kernel_available() and opening.search_state() is not opening
    if kernel:
        say(f"kernel playouts for {seconds:g} s ...")
        kernel_rate, kernel_games = counted_rate(lambda i: reference(i).search_state())
        report.update(kernel_steps_per_s=round(kernel_rate), kernel_games=kernel_games,
                      kernel_speedup=round(kernel_rate / python_rate, 1))
    else:
        note = (f"the kernel does not play {players}-player games" if game.kernel_available()
                else "kernel not built or FURNACE_PURE_PYTHON set")
        report.update(kernel_steps_per_s=None, kernel_speedup=None, kernel_note=note)
    if not game.info.perfect_information and opening.current_player() >= 0:
        seat = opening.current_player()

        def determinize_rate(state: State) -> float:
            rng = random.Random(0)
            count = 0
            start = time.perf_counter()
            while True:
                for _ in range(100):
                    state.determinize(seat, rng)
                count += 100
                elapsed = time.perf_counter() - start
                if elapsed >= seconds / 2:
                    return count / elapsed

        say(f"determinizations for {seconds:g} s ...")
        python_det = determinize_rate(opening)
        report["python_determinize_per_s"] = round(python_det)
        if kernel:
            kernel_det = determinize_rate(opening.search_state())
            report.update(kernel_determinize_per_s=round(kernel_det),
                          determinize_speedup=round(kernel_det / python_det, 1))
    kind = search_kind(opening)  # MCTS, or ISMCTS for hidden-information games
    say(f"{kind.upper()}, {mcts_iterations} iterations from a {players}-player opening ...")
    budget: dict[str, Any] = {"iterations": mcts_iterations, "seed": 0}
    if not kernel:
        budget["time_limit"] = max(seconds, 1.0)
    search_for(opening, iterations=10, seed=0)  # imports and tables out of the timing
    start = time.perf_counter()
    analysis = search_for(opening, **budget)
    elapsed = time.perf_counter() - start
    rate = analysis.iterations / elapsed
    report[f"{kind}_iterations_per_s"] = round(rate)
    # The plain-UCT baseline (uct:N specs) right after, on the same position: the ratio
    # is what the default search's improvements cost or save per second.
    say(f"the plain-UCT baseline, {mcts_iterations} iterations ...")
    baseline_rate = _iterations_per_s(opening, baseline_config(opening), budget)
    report.update(baseline_iterations_per_s=round(baseline_rate),
                  search_speed_vs_baseline=round(rate / baseline_rate, 2))
    config = config_for(opening)
    if config.mast_epsilon is not None:
        # What the MAST playouts cost or save: the same search with random playouts.
        say(f"the same search with random playouts, {mcts_iterations} iterations ...")
        uniform_rate = _iterations_per_s(opening, replace(config, mast_epsilon=None), budget)
        report.update(random_playout_iterations_per_s=round(uniform_rate),
                      mast_speed_vs_random_playouts=round(rate / uniform_rate, 2))
    report["search_path"] = "kernel" if kernel else "python"
    return report


def _iterations_per_s(state: State, config: SearchConfig, budget: dict[str, Any]) -> float:
    """Iterations per second of a search of ``state`` with ``config`` under ``budget``."""
    tree = make_tree(state, None, 0, config=config)
    start = time.perf_counter()
    done = tree.search(budget["iterations"], budget.get("time_limit"))
    return done.iterations / (time.perf_counter() - start)


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
