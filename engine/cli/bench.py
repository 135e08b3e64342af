"""``furnace bench``: engine, kernel and search speed, measured in one run.

Both engines count the moves their playouts make (``last_rollout_steps``); the
playouts are the same games on both paths (same seeds, same random stream).

Ratios (kernel vs pure Python) are the figures to compare across machines: both
sides are measured back to back on the same machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from engine.game import Game, State
from engine.search import search_for, search_kind


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
            state.rollout(games)
            elapsed += time.perf_counter() - start
            steps += state.last_rollout_steps  # type: ignore[attr-defined]
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
    kernel = game.kernel_available()
    if kernel:
        say(f"kernel playouts for {seconds:g} s ...")
        kernel_rate, kernel_games = counted_rate(lambda i: reference(i).search_state())
        report.update(kernel_steps_per_s=round(kernel_rate), kernel_games=kernel_games,
                      kernel_speedup=round(kernel_rate / python_rate, 1))
    else:
        report.update(kernel_steps_per_s=None, kernel_speedup=None,
                      kernel_note="kernel not built or FURNACE_PURE_PYTHON set")
    opening = game.new_game(0, players)
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
    start = time.perf_counter()
    analysis = search_for(opening, iterations=mcts_iterations, seed=0)
    elapsed = time.perf_counter() - start
    report[f"{kind}_iterations_per_s"] = round(analysis.iterations / elapsed)
    report["search_path"] = "kernel" if kernel else "python"
    return report
