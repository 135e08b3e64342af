"""``furnace check-games``: seeded random games, checked after every move.

Every registered game promises the protocol: each position survives a JSON round
trip and a clone unchanged, has legal moves unless the game is over (and then a
seat to move), lists each legal move once, accepts every legal move
(``why_illegal`` is None) and refuses others in words, spells every legal move in a
text that parses back to it, keeps what the mover sees through ``determinize``;
a finished game has finite scores, a ranking of every seat once and win shares
adding up to 1.  A game may check more of its own: when its states have an
``audit()`` method returning a list of problems (sentences), those are reported
too.

:func:`check_games` plays ``games`` random games (moves drawn from a generator
seeded by the game's seed) and reports a JSON-ready summary: plies per game,
problems found (with the first few described), games that did not end, mean
scores and win shares by seat, and the speed.

>>> report = check_games("samara", players=2, games=1, seed=3)
>>> report["games"], report["problems"], report["unfinished"]
(1, 0, 0)
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from engine import registry
from engine.batch import batched, open_batch
from engine.game import IllegalMoveError, State

#: A game longer than this is reported as unfinished.
MAX_PLIES = 100_000
#: Moves seen earlier in the game probed as illegal moves at each position.
PROBES = 6
#: ``determinize`` is checked this often (in plies).
DETERMINIZE_EVERY = 10
#: Problems described in the report (the count covers all of them).
MAX_EXAMPLES = 10

Progress = Callable[[int, int], None]


def _check_position(game: Any, state: State, seen: list[int], rng: random.Random,
                    ply: int) -> list[str]:
    problems = []
    data = state.to_json()
    text = json.dumps(data)
    again = game.state_from_json(json.loads(text))
    if again.to_json() != data:
        problems.append("the JSON round trip changes the state")
    if state.clone().to_json() != data:
        problems.append("a clone differs from the state")
    legal = state.legal_moves()
    terminal = state.is_terminal()
    if again.legal_moves() != legal:
        problems.append("the state read back from JSON has other legal moves")
    if len(set(legal)) != len(legal):
        problems.append("a legal move is listed twice")
    if terminal != (not legal):
        problems.append("legal moves but terminal" if terminal else
                        "no legal move in a game that is not over")
    if not terminal and state.current_player() < 0:
        problems.append("nobody to move in a game that is not over")
    for move in legal:
        reason = state.why_illegal(move)
        if reason is not None:
            problems.append(f"legal move {move} refused: {reason}")
            continue
        words = state.move_to_text(move)
        if state.parse_move(words) != move:
            problems.append(f"{words!r} does not parse back to move {move}")
    legal_set = set(legal)
    probes = [m for m in seen if m not in legal_set][-PROBES:]
    for k, move in enumerate(probes):
        reason = state.why_illegal(move)
        if not isinstance(reason, str) or not reason:
            problems.append(f"illegal move {move} is not refused in words")
        elif k == 0:
            try:
                state.clone().apply(move)
                problems.append(f"illegal move {move} was applied")
            except IllegalMoveError:
                pass
    if not terminal and ply % DETERMINIZE_EVERY == 0:
        seat = state.current_player()
        view = state.observation(seat)
        if state.determinize(seat, rng).observation(seat) != view:
            problems.append("determinize changes what the mover sees")
    audit = getattr(state, "audit", None)
    if callable(audit):
        problems += [str(p) for p in audit()]
    return problems


def _check_end(state: State) -> list[str]:
    problems = []
    scores = state.scores()
    if not all(isinstance(s, int | float) and math.isfinite(s) for s in scores):
        problems.append(f"scores are not finite numbers: {scores}")
    ranking = state.ranking()
    if sorted(s for group in ranking for s in group) != list(range(state.num_players)):
        problems.append(f"the ranking does not name every seat once: {ranking}")
    outcome = state.outcome()
    if abs(sum(outcome.rewards) - 1) > 1e-9:
        problems.append(f"win shares add up to {sum(outcome.rewards)}")
    return problems


def check_one_game(name: str, players: int, seed: int,
                   options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play and check one random game; a JSON-ready result."""
    game = registry.get_game(name)
    state = game.new_game(seed, players, options or {})
    rng = random.Random(seed)
    problems: list[str] = []
    seen: list[int] = []
    ply = 0
    while True:
        try:
            found = _check_position(game, state, seen, rng, ply)
        except Exception as exc:  # a check that crashes is a problem, not the end of the run
            problems.append(f"seed {seed} ply {ply}: checking raised {type(exc).__name__}: "
                            f"{exc}")
            break
        problems += [f"seed {seed} ply {ply}: {problem}" for problem in found]
        if state.is_terminal() or ply >= MAX_PLIES:
            break
        legal = state.legal_moves()
        if not legal:
            break
        move = legal[rng.randrange(len(legal))]
        if move not in seen:
            seen.append(move)
            del seen[:-64]
        try:
            state.apply(move)
        except Exception as exc:
            problems.append(f"seed {seed} ply {ply}: legal move {move} raised "
                            f"{type(exc).__name__}: {exc}")
            break
        ply += 1
    finished = state.is_terminal()
    if finished:
        problems += [f"seed {seed} end: {p}" for p in _check_end(state)]
    outcome = state.outcome() if finished else None
    return {"seed": seed, "plies": ply, "finished": finished, "problems": problems,
            "scores": list(outcome.scores) if outcome else None,
            "rewards": list(outcome.rewards) if outcome else None}


def _chunk(name: str, players: int, seeds: list[int],
           options: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [check_one_game(name, players, s, options) for s in seeds]


def check_games(name: str, players: int, games: int, seed: int = 1,
                options: dict[str, Any] | None = None, workers: int = 1,
                progress: Progress | None = None, cluster: str | None = None) -> dict[str, Any]:
    """Play ``games`` checked random games of ``name`` (seeds ``seed``, ``seed + 1``, ...),
    in ``workers`` processes or on the Ray ``cluster`` in batches."""
    game = registry.get_game(name)
    game.info.check_players(players)
    game.info.resolve_options(options)
    started = time.perf_counter()
    seeds = list(range(seed, seed + games))
    results: list[dict[str, Any]] = []

    def record(batch: list[dict[str, Any]]) -> None:
        results.extend(batch)
        if progress:
            progress(len(results), games)

    if not batched(cluster, workers):
        for s in seeds:
            record([check_one_game(game.info.name, players, s, options)])
    else:
        size = max(1, min(25, games // (max(2, workers) * 4) or 1))
        jobs = [(game.info.name, players, seeds[i:i + size], options)
                for i in range(0, games, size)]
        with open_batch(workers, cluster) as batch:
            for _, checked in batch.run(_chunk, jobs):
                record(checked)
    results.sort(key=lambda r: r["seed"])
    elapsed = time.perf_counter() - started
    return _summary(game.info.name, players, seed, results, elapsed)


def _summary(name: str, players: int, seed: int, results: list[dict[str, Any]],
             elapsed: float) -> dict[str, Any]:
    plies = [r["plies"] for r in results]
    finished = [r for r in results if r["finished"]]
    problems = [p for r in results for p in r["problems"]]
    positions = sum(plies) + len(results)

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 2) if values else 0.0

    return {
        "game": name,
        "players": players,
        "games": len(results),
        "seed": seed,
        "plies": {"mean": mean([float(p) for p in plies]), "min": min(plies, default=0),
                  "max": max(plies, default=0)},
        "positions_checked": positions,
        "problems": len(problems),
        "examples": problems[:MAX_EXAMPLES],
        "unfinished": len(results) - len(finished),
        "mean_scores": [mean([r["scores"][s] for r in finished]) for s in range(players)],
        "win_shares": [mean([r["rewards"][s] for r in finished]) for s in range(players)],
        "elapsed_s": round(elapsed, 1),
        "positions_per_s": round(positions / elapsed) if elapsed else None,
    }
