"""The self-play loop of learned move priors (``furnace prior-loop``).

Each round, without a person:

1. **generate**: ``games`` self-play games of the current best search (``mcts`` at
   ``iterations`` with the best move prior so far, none in round 1), each sampled
   decision's root visits and move rows recorded (:mod:`tournaments.prior_fit`); with
   ``teacher_iterations`` the visits recorded are those of the same search at that many
   iterations (a teacher stronger than the players, paid for at the sampled decisions
   only);
2. **fit**: a move prior on every round's records so far (a fifth of each round's games
   held out, the held-out report kept);
3. **gate**: an equal-time arena (``arena_games`` games, ``seconds`` a move, seats
   alternated) between the candidate and the current best;
4. **keep or discard**: the candidate becomes the best when it wins at least
   ``keep_rate`` of the arena's games.

Everything lands in ``out_dir``: ``records-N.jsonl`` (round N's decisions), ``prior-N.json``
(its candidate, with the fit's report), ``best.json`` (the best prior so far, its
``made_by`` holding the fit's report, the gate's arena and the round) and
``loop.json`` (every finished round: seeds, commands, games, held-out figures, the
arena and the verdict).  A round is written when it finishes, and a loop started again
on the same directory (same game and settings) goes on after the last finished round,
so a loop of many hours survives a restart.  Games and arenas run on the batch executor
(``workers`` processes or a Ray ``cluster``, :func:`engine.batch.open_batch`).

Everything flows from the seed: round N plays seed ``derive_seed(seed, "round", N)``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.game import Game
from engine.search._common import derive_seed
from engine.search.move_prior import PriorModel
from tournaments.arena import result_keys, run_arena
from tournaments.prior_fit import (
    Decision,
    fit_prior,
    load_records,
    play_games,
    save_records,
)
from tournaments.value_fit import split_games

#: The loop's log file and the best prior's, in its directory.
LOG_FILE = "loop.json"
BEST_FILE = "best.json"

Report = Callable[[str], None]


@dataclass(frozen=True)
class LoopSettings:
    """What a loop plays and how it decides (everything a restart must match)."""

    game: str
    players: int
    games: int = 100
    iterations: int = 2000
    arena_games: int = 100
    seconds: float = 0.1
    weight: float = 6.0
    keep_rate: float = 0.55
    every: int = 1
    alpha: float = 0.01
    seed: int = 0
    teacher_iterations: int | None = None

    def __post_init__(self) -> None:
        names = ["players", "games", "iterations", "arena_games", "every"]
        if self.teacher_iterations is not None:
            names.append("teacher_iterations")
        for name in names:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if self.games < 2:
            raise ValueError(f"a round needs at least 2 games to hold one out, not {self.games}")
        if not self.seconds > 0 or not self.weight > 0 or not 0 < self.keep_rate < 1:
            raise ValueError("seconds and weight must be positive, keep_rate between 0 and 1")


def searcher(settings: LoopSettings, prior: str | None, timed: bool,
             iterations: int | None = None) -> str:
    """The bot spec of a search with ``prior`` (None: none), by time or by iterations
    (``iterations``, else the settings')."""
    budget = f"t={settings.seconds:g}" if timed else str(iterations or settings.iterations)
    if prior is None:
        return f"mcts:{budget}:mp=off"
    return f"mcts:{budget}:mp={prior}:mpw={settings.weight:g}"


def run_prior_loop(game: Game, settings: LoopSettings, rounds: int, out_dir: str | Path, *,
                  options: Mapping[str, Any] | None = None, workers: int = 1,
                  cluster: str | None = None, report: Report | None = None,
                  progress: Callable[[str], Callable[[int, int], None]] | None = None,
                  ) -> dict[str, Any]:
    """Run ``rounds`` more rounds of the loop in ``out_dir`` (see the module docstring);
    returns the log.  ``report`` gets one line per step, ``progress(label)`` a progress
    callback per batch of games."""
    if game.info.name != settings.game:
        raise ValueError(f"settings for {settings.game}, not {game.info.name}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, not {rounds!r}")
    game.info.check_players(settings.players)
    if settings.players < 2:
        raise ValueError("the loop gates by win rates: 2 players or more")
    say = report or (lambda line: None)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / LOG_FILE
    log: dict[str, Any] = {"settings": asdict(settings), "rounds": []}
    if log_path.exists():
        log = json.loads(log_path.read_text(encoding="utf-8"))
        # A setting added since the log was written reads as its default there.
        written = {**asdict(LoopSettings(settings.game, settings.players)),
                   **log.get("settings", {})}
        if written != asdict(settings):
            raise ValueError(f"{log_path} was written by a loop with other settings: "
                             f"{log.get('settings')}")
    best_path = folder / BEST_FILE
    start = len(log["rounds"]) + 1
    for number in range(start, start + rounds):
        seed = derive_seed(settings.seed, "round", number)
        best = str(best_path) if best_path.exists() else None
        generator = searcher(settings, best, timed=False)
        teacher = None if settings.teacher_iterations is None else \
            searcher(settings, best, timed=False, iterations=settings.teacher_iterations)
        say(f"round {number}: {settings.games} games of {generator} (seed {seed})"
            + (f", the visits of {teacher}" if teacher else ""))
        played = play_games(game, settings.players, [generator], settings.games, seed, options,
                            settings.every, workers, cluster,
                            None if progress is None else progress(f"round {number} self-play"),
                            teacher)
        save_records(folder / f"records-{number}.jsonl", played)
        history = [load_records(folder / f"records-{n}.jsonl") for n in range(1, number + 1)]
        seeds = [entry["seed"] for entry in log["rounds"]] + [seed]
        # Each round's games are split by its own seed; the fit reads them all.
        fitted = _fit_rounds(game, settings, history, seeds, generator, teacher)
        candidate = folder / f"prior-{number}.json"
        candidate.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")
        held = fitted.meta["report"]["held_out"]["all"]
        say(f"round {number}: fitted on {fitted.meta['report']['train_decisions']} decisions; "
            f"held out top-1 {held['top1']:.3f}, cross-entropy {held['cross_entropy']:.3f} "
            f"(uniform {held['uniform_cross_entropy']:.3f})")
        specs = [searcher(settings, str(candidate), timed=True),
                 searcher(settings, best, timed=True)]
        arena_seed = derive_seed(seed, "gate")
        arena = run_arena(game, settings.players, specs, settings.arena_games, arena_seed,
                          options, None if progress is None else progress(f"round {number} gate"),
                          workers, cluster)
        rate = arena["results"][result_keys(specs)[0]]["win_rate"]
        kept = rate >= settings.keep_rate
        say(f"round {number}: the candidate won {rate:.3f} of {settings.arena_games} games "
            f"against {'the best so far' if best else 'no prior'}: "
            f"{'kept' if kept else 'discarded'}")
        entry = {
            "round": number, "seed": seed, "generator": generator, "teacher": teacher,
            "games": settings.games, "decisions": sum(len(g) for g in played),
            "fit": fitted.meta["report"], "candidate": candidate.name,
            "arena": {"bots": specs, "games": settings.arena_games, "seed": arena_seed,
                      "results": arena["results"]},
            "win_rate": rate, "kept": kept,
        }
        if kept:
            fitted.meta.update({"round": number, "gate": entry["arena"],
                                "loop": str(folder)})
            best_path.write_text(json.dumps(fitted.to_json(), indent=1) + "\n",
                                 encoding="utf-8")
        log["rounds"].append(entry)
        log_path.write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
    return log


def _fit_rounds(game: Game, settings: LoopSettings,
                history: Sequence[Sequence[Sequence[Decision]]], seeds: Sequence[int],
                generator: str, teacher: str | None) -> PriorModel:
    """A prior fitted on every round's records, each round split by its own seed."""
    train: list[list[Decision]] = []
    held: list[list[Decision]] = []
    for records, seed in zip(history, seeds, strict=True):
        fit_index, test_index = split_games(len(records), seed)
        train.extend(list(records[g]) for g in fit_index)
        held.extend(list(records[g]) for g in test_index)
    # The fitting games first and the held-out games last, split there (not by a seed).
    command = shlex.join(["furnace", "prior-loop", settings.game, "--players",
                          str(settings.players)])
    return fit_prior(game, settings.players, [generator], len(train) + len(held),
                     settings.seed, every=settings.every, alpha=settings.alpha,
                     command=command, records=[*train, *held],
                     split=(len(train), len(held)), teacher=teacher)[0]
