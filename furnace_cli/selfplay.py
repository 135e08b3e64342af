"""``furnace selfplay``: bots play each other; every game printed, and saved as a record.

Game ``g`` (numbered from 1) deals with seed ``--seed + g - 1`` and its bots draw from a
generator of that seed, so a game depends on nothing but the seed and its number.  Each
game is a job (:func:`play_selfplay_game`) for the executor of :mod:`engine.batch`: with
``--workers`` or ``--cluster`` the games run in parallel and come back in any order,
and are written in game order all the same, so the output is byte for byte the one
of a run in this process.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from typing import IO, Any, NamedTuple

from engine.game import FurnaceError

ProgressBar = Callable[[str], Callable[[int, int], None]]


class SelfplayGame(NamedTuple):
    """One finished game as the command writes it."""

    #: What is printed: the game's lines (``--json``: its one JSON line), no final newline.
    text: str
    #: Its game record, one JSON line without the newline (what ``--save`` writes).
    record: str


def play_selfplay_game(name: str, players: int, options: Mapping[str, Any],
                       specs: Sequence[str], seed: int, number: int,
                       as_json: bool) -> SelfplayGame:
    """Play self-play game ``number`` of the game named ``name``, dealt and played from
    ``seed``, spec ``specs[seat % len(specs)]`` in each seat; its text (``as_json``: one
    JSON line) and its record.  A worker's job: module-level, its arguments small."""
    import random

    from engine import records, registry
    from engine.search import make_bot
    from tournaments import play_game

    game = registry.get_game(name)
    bots = [make_bot(specs[seat % len(specs)]) for seat in range(players)]
    state = game.new_game(seed, players, options)
    replay = state.clone()
    outcome, moves = play_game(state, bots, random.Random(seed))
    plain = []
    texts = []
    for move in moves:
        plain.append(replay.move_to_text(move))
        texts.append(f"P{replay.current_player() + 1} {plain[-1]}")
        replay.apply(move)
    # The record holds the deal (its seed) and every move.
    record = records.GameRecord(game.info.name, players, dict(options), seed=seed,
                                moves=list(moves))
    record_line = json.dumps(records.record_to_json(record, plain))
    if as_json:
        return SelfplayGame(json.dumps({"game": game.info.name, "seed": seed,
                                        "bots": [b.name for b in bots], "moves": texts,
                                        "scores": list(outcome.scores),
                                        "rewards": list(outcome.rewards)}), record_line)
    lines = [f"game {number} (seed {seed}): "
             + ", ".join(f"P{s + 1}={b.name}" for s, b in enumerate(bots))]
    lines += [f"  {ply:3d}. {text}" for ply, text in enumerate(texts, 1)]
    lines.append("  scores: " + ", ".join(f"P{s + 1} {v:g}"
                                          for s, v in enumerate(outcome.scores))
                 + "; winner(s): "
                 + ", ".join(f"P{s + 1}" for s, r in enumerate(outcome.rewards) if r > 0))
    return SelfplayGame("\n".join(lines), record_line)


def run_selfplay_command(args: argparse.Namespace, options: dict[str, Any],
                         progress_bar: ProgressBar) -> int:
    """Run ``furnace selfplay`` from parsed arguments and the parsed ``--options``;
    ``progress_bar(label)`` makes the progress callback.  Bad input raises
    :class:`FurnaceError` (exit status 2) before any game is played."""
    from engine import registry
    from engine.batch import batched, open_batch
    from engine.search import make_bot

    game = registry.get_game(args.game)
    name = game.info.name
    specs = [s.strip() for s in args.bots.split(",") if s.strip()] or ["mcts:500"]
    for spec in specs:
        make_bot(spec)
    game.info.check_players(args.players)
    game.info.resolve_options(options)
    if args.workers < 1:
        raise FurnaceError(f"--workers must be at least 1, not {args.workers}")
    jobs = [(name, args.players, options, specs, args.seed + g, g + 1, args.json)
            for g in range(args.games)]
    # On a terminal the games scrolling by are the progress; a bar redrawn in place would
    # be torn by them.
    progress = None if args.quiet or args.games <= 1 or sys.stdout.isatty() else \
        progress_bar(f"selfplay {name}")
    try:
        save = open(args.save, "w", encoding="utf-8") if args.save else None  # noqa: SIM115
    except OSError as exc:
        raise FurnaceError(f"cannot write --save {args.save}: {exc.strerror}") from None
    try:
        if not batched(args.cluster, args.workers) or args.games <= 1:
            _write_in_order(((index, play_selfplay_game(*job))
                             for index, job in enumerate(jobs)), len(jobs), save, progress)
        else:
            # Closed first on the way out (Ctrl-C, an error): the games not finished are
            # cancelled before the workers are let go.
            with open_batch(args.workers, args.cluster) as batch, \
                    closing(batch.run(play_selfplay_game, jobs)) as finished:
                _write_in_order(finished, len(jobs), save, progress)
    finally:
        if save is not None:
            save.close()
    return 0


def _write_in_order(finished: Iterator[tuple[int, SelfplayGame]], total: int,
                    save: IO[str] | None,
                    progress: Callable[[int, int], None] | None) -> None:
    """Print (and save) the games ``finished`` yields as ``(index, game)`` in any order,
    in index order: a game that finishes early waits for those before it."""
    waiting: dict[int, SelfplayGame] = {}
    written = 0
    for done, (index, result) in enumerate(finished, 1):
        waiting[index] = result
        while written in waiting:
            game = waiting.pop(written)
            if save is not None:
                save.write(game.record + "\n")
                save.flush()
            print(game.text, flush=True)
            written += 1
        if progress is not None:
            progress(done, total)
