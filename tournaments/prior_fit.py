"""Fit a learned move prior from self-play searches (``furnace fit-prior``).

Seeded self-play games between search bot specs (played as the arena plays them, one deal
per game).  At every ``every``-th decision with two legal moves or more, a sample: the
root visit counts of the mover's own search (the move the bot then plays), or of a
*teacher*'s (a stronger search of the same position, for the mover: the games are played
at the players' cost and only the sampled decisions pay for the teacher), and for each
legal move the features the tree reads when it makes that move's child
(:func:`engine.search.move_prior.move_rows`): the mover's features after the move, minus
the mean of the other seats', in one determinization for the mover (what the mover could
see, as the tree's determinizations are).

The fit is a softmax regression (a linear logit per move, shared weights, no intercept:
a constant cancels over the moves) of the visit distribution on those rows, by Newton's
method with a ridge penalty on unit-spread columns.  Games are split by game, a fifth held
out (chosen from the seed); the report gives on the held-out samples, by stage (the
first, middle and last third of each game's decisions): how often the model's first move
is the search's most visited (``top1``), how often the search's is among the model's
first three (``top3``), and the cross-entropy of the visit distribution under the model
and under a uniform choice (whose top-1 is ``uniform_top1``).

Everything flows from the seed: the same command writes the same model file.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.game import CHANCE, TERMINAL, Game
from engine.search._common import derive_seed, sample_chance
from engine.search.bots import MctsBot, make_bot
from engine.search.move_prior import PriorModel, move_rows
from tournaments.value_fit import declared_features, split_games

#: The stages of the report: positions by the fraction of the game's decisions made.
STAGES = ("opening", "middle", "late")


@dataclass(frozen=True)
class Decision:
    """One sampled decision: ``stage`` (0, 1, 2), the root visits of each legal move and
    each legal move's row (in the order of the legal moves)."""

    stage: int
    visits: tuple[int, ...]
    rows: tuple[tuple[float, ...], ...]

    def to_json(self) -> list[Any]:
        return [self.stage, list(self.visits), [list(r) for r in self.rows]]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Decision:
        return cls(int(data[0]), tuple(int(v) for v in data[1]),
                   tuple(tuple(float(x) for x in r) for r in data[2]))


def record_game(game: Game, num_players: int, specs: Sequence[str], seed: int, g: int,
                options: Mapping[str, Any] | None, every: int,
                teacher: str | None = None) -> list[Decision]:
    """Play self-play game ``g`` (seats rotated over ``specs`` as in the arena) and sample
    every ``every``-th decision; all randomness flows from ``(seed, g)``.  With a
    ``teacher`` (a search bot's spec) the visit counts sampled are that search's of the
    same position, not the player's: the games are played at the players' cost and only
    the sampled decisions pay for the teacher's search."""
    bots = [make_bot(spec, seed=derive_seed(seed, "bot", g, i)) for i, spec in enumerate(specs)]
    tutor = None if teacher is None else make_bot(teacher, seed=derive_seed(seed, "teacher", g))
    state = game.new_game(derive_seed(seed, "deal", g), num_players, options)
    rng = random.Random(derive_seed(seed, "game", g))
    seats = [(seat + g) % len(specs) for seat in range(num_players)]
    raw: list[tuple[int, tuple[int, ...], tuple[tuple[float, ...], ...]]] = []
    decisions = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.apply(sample_chance(state.chance_outcomes(), rng))
            continue
        bot = bots[seats[player]]
        legal = state.legal_moves()
        sampled = decisions % every == 0 and len(legal) > 1
        if sampled and tutor is not None:
            # The teacher's own generator (seeded above) draws its search; rng is the game's.
            tutor.choose(state, rng)
        move = bot.choose(state, rng)
        analysis = getattr(bot if tutor is None else tutor, "last_analysis", None)
        if sampled and analysis is not None:
            visits = {stats.move: stats.visits for stats in analysis.moves}
            world = state.determinize(player, random.Random(derive_seed(seed, "world", g,
                                                                        decisions)))
            rows = move_rows(world.search_state(), player, legal)
            raw.append((decisions, tuple(visits.get(m, 0) for m in legal),
                        tuple(tuple(r) for r in rows)))
        state.apply(move)
        decisions += 1
    return [Decision(min(len(STAGES) - 1, len(STAGES) * at // max(1, decisions)), v, r)
            for at, v, r in raw]


def record_game_by_name(name: str, num_players: int, specs: Sequence[str], seed: int, g: int,
                        options: Mapping[str, Any], every: int,
                        teacher: str | None = None) -> list[Decision]:
    """:func:`record_game` of the game named ``name`` (what a worker process is sent)."""
    from engine import registry

    return record_game(registry.get_game(name), num_players, specs, seed, g, options, every,
                       teacher)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max())
    return shifted / shifted.sum()


def fit_softmax(decisions: Sequence[Decision], alpha: float, steps: int = 30) -> np.ndarray:
    """Weights of a linear logit per move maximising the visit distributions' likelihood
    (cross-entropy), with ridge ``alpha`` on unit-spread columns; Newton's method."""
    blocks = [(np.asarray(d.rows, dtype=float), np.asarray(d.visits, dtype=float))
              for d in decisions if sum(d.visits) > 0]
    if not blocks:
        raise ValueError("no sampled decision has a visited move: nothing to fit")
    width = blocks[0][0].shape[1]
    stacked = np.concatenate([rows - rows.mean(axis=0) for rows, _ in blocks])
    spread = np.sqrt((stacked ** 2).mean(axis=0))
    spread[spread == 0] = 1.0
    scaled = [(rows / spread, visits / visits.sum()) for rows, visits in blocks]
    weights = np.zeros(width)
    count = len(scaled)
    for _ in range(steps):
        grad = alpha * weights
        hess = alpha * np.eye(width)
        for rows, target in scaled:
            p = _softmax(rows @ weights)
            mean = p @ rows
            grad += (p - target) @ rows / count
            hess += ((rows * p[:, None]).T @ rows - np.outer(mean, mean)) / count
        step = np.linalg.solve(hess, grad)
        weights -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return weights / spread


def evaluate(weights: np.ndarray, games: Sequence[Sequence[Decision]]) -> dict[str, Any]:
    """Per stage (and ``all``): decisions, ``top1``, ``top3`` and the cross-entropy of
    the visit distribution under the model (``cross_entropy``) and a uniform choice
    (``uniform_cross_entropy``), in nats (see the module docstring)."""
    buckets: dict[str, dict[str, list[float]]] = {
        name: {"top1": [], "top3": [], "ce": [], "uniform": [], "uniform_top1": []}
        for name in (*STAGES, "all")}
    for decisions in games:
        for d in decisions:
            visits = np.asarray(d.visits, dtype=float)
            if visits.sum() <= 0:
                continue
            target = visits / visits.sum()
            logits = np.asarray(d.rows, dtype=float) @ weights
            p = _softmax(logits)
            best = int(np.argmax(visits))
            order = sorted(range(len(logits)), key=lambda i: -logits[i])
            for name in (STAGES[d.stage], "all"):
                bucket = buckets[name]
                bucket["top1"].append(1.0 if order[0] == best else 0.0)
                bucket["top3"].append(1.0 if best in order[:3] else 0.0)
                bucket["ce"].append(float(-(target * np.log(np.maximum(p, 1e-300))).sum()))
                bucket["uniform"].append(math.log(len(visits)))
                bucket["uniform_top1"].append(1.0 / len(visits))
    report: dict[str, Any] = {}
    for name, bucket in buckets.items():
        n = len(bucket["top1"])
        report[name] = {"decisions": n, **({
            "top1": float(np.mean(bucket["top1"])), "top3": float(np.mean(bucket["top3"])),
            "cross_entropy": float(np.mean(bucket["ce"])),
            "uniform_cross_entropy": float(np.mean(bucket["uniform"])),
            "uniform_top1": float(np.mean(bucket["uniform_top1"]))} if n else {})}
    return report


def play_games(game: Game, num_players: int, specs: Sequence[str], games: int, seed: int,
               options: Mapping[str, Any] | None, every: int, workers: int,
               cluster: str | None,
               progress: Callable[[int, int], None] | None,
               teacher: str | None = None) -> list[list[Decision]]:
    """The sampled decisions of ``games`` self-play games, in game order, played in
    ``workers`` processes or on the Ray ``cluster`` (:func:`engine.batch.open_batch`);
    ``teacher`` as in :func:`record_game`."""
    from engine.batch import run_in_order

    jobs = [(game.info.name, num_players, list(specs), seed, g, dict(options or {}), every,
             teacher) for g in range(games)]
    records: list[list[Decision]] = run_in_order(
        record_game_by_name, jobs, workers, cluster, progress,
        in_process=lambda _name, *rest: record_game(game, *rest))
    return records


def save_records(path: str | Path, games: Iterable[Sequence[Decision]]) -> None:
    """One JSON line per game: its sampled decisions."""
    with Path(path).open("w", encoding="utf-8") as out:
        for decisions in games:
            out.write(json.dumps([d.to_json() for d in decisions]) + "\n")


def load_records(path: str | Path) -> list[list[Decision]]:
    """The games :func:`save_records` wrote."""
    with Path(path).open(encoding="utf-8") as source:
        return [[Decision.from_json(d) for d in json.loads(line)]
                for line in source if line.strip()]


def fit_prior(
    game: Game,
    num_players: int,
    bot_specs: Sequence[str],
    games: int,
    seed: int,
    *,
    options: Mapping[str, Any] | None = None,
    every: int = 2,
    alpha: float = 0.01,
    workers: int = 1,
    cluster: str | None = None,
    command: str = "",
    records: Sequence[Sequence[Decision]] | None = None,
    split: tuple[int, int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    teacher: str | None = None,
) -> tuple[PriorModel, dict[str, Any], list[list[Decision]]]:
    """Play ``games`` self-play games (or read ``records`` of them), fit the prior on four
    fifths of them and report on the rest (see the module docstring).  Returns the model
    (its ``meta`` holds the command, the seed and the report), the report and the games'
    sampled decisions.  ``split=(fit, held)``: the first ``fit`` games are fitted and the
    ``held`` after them held out, instead of the seed's choice.  ``teacher``: the search
    whose visit counts are fitted, at the sampled decisions of games the ``bot_specs``
    play (:func:`record_game`)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise ValueError(f"fit-prior needs at least 2 games, not {games!r}")
    if every < 1:
        raise ValueError(f"every must be at least 1, not {every!r}")
    if not alpha >= 0:
        raise ValueError(f"alpha must not be negative, not {alpha!r}")
    specs = [s.strip() for s in bot_specs if s.strip()]
    if not specs:
        raise ValueError("fit-prior needs at least one bot spec")
    for spec in specs + ([] if teacher is None else [teacher]):
        if not isinstance(make_bot(spec), MctsBot):
            raise ValueError(f"fit-prior learns from a search's visit counts: {spec!r} is "
                             f"no search bot (mcts, ismcts, level or classic)")
    game.info.check_players(num_players)
    if records is None:
        played = play_games(game, num_players, specs, games, seed, options, every, workers,
                            cluster, progress, teacher)
    else:
        if len(records) != games:
            raise ValueError(f"{len(records)} recorded games, not {games}")
        played = [list(r) for r in records]
    if split is None:
        train_index, test_index = split_games(len(played), seed)
    else:
        if split[0] < 1 or split[1] < 1 or sum(split) != len(played):
            raise ValueError(f"a split of {split} for {len(played)} games")
        train_index = list(range(split[0]))
        test_index = list(range(split[0], len(played)))
    train = [d for g in train_index for d in played[g]]
    test = [played[g] for g in test_index]
    weights = fit_softmax(train, alpha)
    names = _feature_names(game)
    if len(names) != len(weights):
        raise ValueError(f"{game.info.name} declares {len(names)} features, its states give "
                         f"{len(weights)}")
    report = {
        "game": game.info.name, "players": num_players, "bots": specs, "games": games,
        "seed": seed, "every": every, "alpha": alpha, "teacher": teacher,
        "train_games": len(train_index), "held_out_games": len(test_index),
        "train_decisions": len(train),
        "held_out": evaluate(weights, test),
    }
    model = PriorModel(game.info.name, names, [round(float(w), 9) for w in weights],
                       {"command": command, "seed": seed, "report": report})
    return model, report, played


def _feature_names(game: Game) -> tuple[str, ...]:
    names = declared_features(game)
    if not names:
        raise ValueError(f"{game.info.name} declares no feature vector: nothing to fit")
    return names
