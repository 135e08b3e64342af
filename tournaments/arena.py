"""Play bots against each other: one game, or a reproducible series (the arena).

Seating: with ``k`` bot specs and ``n`` seats, game ``g`` puts spec
``(seat + g) % k`` in each seat.  The specs are repeated cyclically to fill the
seats (two specs in a three-player game: ``A B A`` then ``B A B``), and the
assignment rotates by one each game, so over every ``k`` consecutive games each
spec sits in every seat equally often.  Those ``k`` games form a *deal*: they
share the setup seed and the chance generator's seed, so each deal is replayed
with the seats rotated (duplicate format), which removes most of the luck from
the comparison.  Use a multiple of ``k`` games for perfectly balanced seating.

A spec that fills several seats of one game counts once per seat: its
``games`` is the number of seat-occurrences, ``wins`` the sum of its seats' win
shares (ties give fractions, see :class:`~engine.game.Outcome`), and ``ci95``
the Wilson score interval of ``wins / games``.

A one-seat game (a solo mode) has no win rate: its lone seat always "wins".  Each
bot plays every deal alone, and the report gives per bot the mean score with its
95% interval (normal approximation, :func:`mean_interval`) and the distribution of
the game's solo results (``State.solo_rank()``: a rank, or whether a target was
reached) instead of wins.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.batch import batched, open_batch
from engine.game import CHANCE, TERMINAL, Game, Outcome, State
from engine.search._common import derive_seed, sample_chance
from engine.search.bots import Bot, make_bot

#: ``progress(games_done, games_total)``, called after every game.
ArenaProgress = Callable[[int, int], None]

_Z95 = 1.959963984540054


def wilson_interval(wins: float, games: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (``(0, 1)`` when no game was played).

    >>> [round(x, 3) for x in wilson_interval(50, 100)]
    [0.404, 0.596]
    """
    if games <= 0:
        return (0.0, 1.0)
    p = min(max(wins / games, 0.0), 1.0)
    z2 = z * z
    denom = 1.0 + z2 / games
    centre = (p + z2 / (2 * games)) / denom
    half = z * math.sqrt(p * (1.0 - p) / games + z2 / (4 * games * games)) / denom
    lo = 0.0 if p <= 0.0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return (lo, hi)


def mean_interval(values: Sequence[float], z: float = _Z95) -> tuple[float, float]:
    """The 95% interval of the mean of ``values`` (mean +- z * sd / sqrt(n), with the
    sample standard deviation); ``(mean, mean)`` for fewer than two values.

    >>> [round(x, 2) for x in mean_interval([100.0, 110.0, 120.0])]
    [98.68, 121.32]
    """
    n = len(values)
    if n == 0:
        return (0.0, 0.0)
    mean = sum(values) / n
    if n < 2:
        return (mean, mean)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return (mean - half, mean + half)


def play_game(
    state: State,
    bots_by_seat: Sequence[Bot],
    rng: random.Random,
    *,
    chance_rng: random.Random | None = None,
    max_moves: int | None = None,
) -> tuple[Outcome, list[int]]:
    """Play ``state`` to the end in place; returns the outcome and every move applied.

    Seat ``p`` is played by ``bots_by_seat[p]``, which gets ``rng``.  Chance moves
    are drawn by probability from ``chance_rng`` (``rng`` when not given) and are
    part of the returned move list, so the list replays the game.  Raises
    ``RuntimeError`` when ``max_moves`` moves did not finish the game.
    """
    if len(bots_by_seat) != state.num_players:
        raise ValueError(f"{len(bots_by_seat)} bots for a game of {state.num_players} players")
    dice = chance_rng if chance_rng is not None else rng
    moves: list[int] = []
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return state.outcome(), moves
        if max_moves is not None and len(moves) >= max_moves:
            raise RuntimeError(f"game not finished after {max_moves} moves")
        if player == CHANCE:
            move = sample_chance(state.chance_outcomes(), dice)
        else:
            move = bots_by_seat[player].choose(state, rng)
        state.apply(move)
        moves.append(move)


def seat_assignment(num_specs: int, num_players: int, game_index: int) -> list[int]:
    """Spec index per seat for game ``game_index`` (see the module docstring)."""
    return [(seat + game_index) % num_specs for seat in range(num_players)]


def result_keys(bot_specs: Sequence[str]) -> list[str]:
    """Unique result keys: a repeated spec gets ``#2``, ``#3``... (``mcts:100#2``)."""
    keys: list[str] = []
    counts: dict[str, int] = {}
    for spec in bot_specs:
        counts[spec] = counts.get(spec, 0) + 1
        keys.append(spec if counts[spec] == 1 else f"{spec}#{counts[spec]}")
    return keys


def run_arena(
    game: Game,
    num_players: int,
    bot_specs: Sequence[str],
    games: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    progress: ArenaProgress | None = None,
    workers: int = 1,
    cluster: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` games between ``bot_specs`` and summarise them as JSON-ready data.

    Every game is reproducible from ``seed``: deal ``d = g // len(bot_specs)``
    uses ``game.new_game(derive_seed(seed, "deal", d), num_players, options)``
    and a chance generator seeded from the deal, the bots draw from a generator
    seeded from the game index.  ``progress(done, total)`` is called after each
    game.  Returns ``{"game", "players", "games", "seed", "results"}`` where
    ``results[key] = {"games", "wins", "win_rate", "ci95": [lo, hi],
    "mean_score", "by_seat"}``; keys are the specs, made unique by
    :func:`result_keys`, in the order given.  ``by_seat[s]`` is
    ``{"games", "wins"}`` of that spec in seat ``s``.  Raises ``ValueError`` for
    a bad spec, player count or option before any game is played.

    With ``workers > 1`` games run in that many processes (the game is rebuilt
    there from the registry by name); with ``cluster`` they run on that Ray cluster
    (:func:`engine.batch.open_batch`).  The results are the same as with one.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ValueError(f"games must be a non-negative integer, not {games!r}")
    specs = [str(s).strip() for s in bot_specs]
    if not specs:
        raise ValueError("the arena needs at least one bot spec")
    game.info.check_players(num_players)
    game.info.resolve_options(options)
    bots = [make_bot(spec) for spec in specs]  # validates every spec up front
    keys = result_keys(specs)
    k = len(specs)

    seat_games = [[0] * num_players for _ in range(k)]
    seat_wins = [[0.0] * num_players for _ in range(k)]
    score_sum = [0.0] * k
    solo_scores: list[list[float]] = [[] for _ in range(k)]
    solo_ranks: list[dict[str, int]] = [{} for _ in range(k)]

    def record(g: int, result: tuple[Outcome, str | None]) -> None:
        outcome, rank = result
        for seat, index in enumerate(seat_assignment(k, num_players, g)):
            seat_games[index][seat] += 1
            seat_wins[index][seat] += float(outcome.rewards[seat])
            score_sum[index] += float(outcome.scores[seat])
            if num_players == 1:
                solo_scores[index].append(float(outcome.scores[seat]))
                name = "-" if rank is None else rank
                solo_ranks[index][name] = solo_ranks[index].get(name, 0) + 1

    if not batched(cluster, workers) or games <= 1:
        for g in range(games):
            record(g, play_arena_game(game, num_players, specs, seed, g, options, bots))
            if progress is not None:
                progress(g + 1, games)
    else:
        # Each game depends only on (seed, g), so workers give the same results as one
        # loop; they are added up in game order (a float sum depends on its order), a game
        # that finishes before those ahead of it waiting for them.
        jobs = [(game.info.name, num_players, specs, seed, g, dict(options or {}))
                for g in range(games)]
        waiting: dict[int, tuple[Outcome, str | None]] = {}
        next_game = 0
        with open_batch(workers, cluster) as batch:
            for done, (g, result) in enumerate(batch.run(play_arena_game_by_name, jobs), 1):
                waiting[g] = result
                while next_game in waiting:
                    record(next_game, waiting.pop(next_game))
                    next_game += 1
                if progress is not None:
                    progress(done, games)

    results: dict[str, Any] = {}
    for index, key in enumerate(keys):
        played = sum(seat_games[index])
        if num_players == 1:
            lo, hi = mean_interval(solo_scores[index])
            results[key] = {
                "games": played,
                "mean_score": score_sum[index] / played if played else 0.0,
                "score_ci95": [lo, hi],
                "ranks": dict(sorted(solo_ranks[index].items())),
            }
            continue
        wins = sum(seat_wins[index])
        lo, hi = wilson_interval(wins, played)
        results[key] = {
            "games": played,
            "wins": wins,
            "win_rate": wins / played if played else 0.0,
            "ci95": [lo, hi],
            "mean_score": score_sum[index] / played if played else 0.0,
            "by_seat": [
                {"games": n, "wins": w}
                for n, w in zip(seat_games[index], seat_wins[index], strict=True)
            ],
        }
    return {
        "game": game.info.name,
        "players": num_players,
        "games": games,
        "seed": seed,
        "results": results,
    }


def play_arena_game(
    game: Game,
    num_players: int,
    specs: Sequence[str],
    seed: int,
    g: int,
    options: Mapping[str, Any] | None,
    bots: Sequence[Bot] | None = None,
) -> tuple[Outcome, str | None]:
    """Play arena game ``g`` of ``specs`` (``bots``: those specs' bots, made here when not
    given): everything random in it flows from ``(seed, g)``, so the same game with the
    same bots is played alike whatever their names.  Returns the outcome and, in a
    one-seat game, its solo result (``State.solo_rank()``); the ladder plays its games
    through it too."""
    k = len(specs)
    deal = g // k
    if bots is None:
        bots = [make_bot(spec) for spec in specs]
    state = game.new_game(derive_seed(seed, "deal", deal), num_players, options)
    seats = seat_assignment(k, num_players, g)
    rng = random.Random(derive_seed(seed, "game", g))
    chance_rng = random.Random(derive_seed(seed, "chance", deal))
    outcome, _ = play_game(state, [bots[i] for i in seats], rng, chance_rng=chance_rng)
    return outcome, state.solo_rank() if num_players == 1 else None


def play_arena_game_by_name(
    name: str, num_players: int, specs: Sequence[str], seed: int, g: int,
    options: Mapping[str, Any],
) -> tuple[Outcome, str | None]:
    """:func:`play_arena_game` of the game named ``name``: what a worker process is sent
    (a name pickles small; the game is looked up in the worker)."""
    from engine import registry

    return play_arena_game(registry.get_game(name), num_players, specs, seed, g, options)
