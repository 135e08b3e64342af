"""``furnace fit-prior``: fit a learned move prior and print its held-out report."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

ProgressBar = Callable[[str], Callable[[int, int], None]]


def run_fit_prior_command(args: argparse.Namespace, options: dict[str, Any],
                          progress_bar: ProgressBar) -> int:
    from engine import registry
    from tournaments.prior_fit import STAGES, fit_prior, load_records, save_records

    game = registry.get_game(args.game)
    specs = [s for s in args.bots.split(",") if s.strip()]
    command = shlex.join(["furnace", "fit-prior", game.info.name, "--players",
                          str(args.players), "--bots", args.bots, "--games", str(args.games),
                          "--seed", str(args.seed), "--every", str(args.every),
                          "--alpha", repr(args.alpha), "--out", str(args.out)]
                         + (["--teacher", args.teacher] if args.teacher else [])
                         + (["--options", args.options] if args.options else []))
    records = None
    if args.records:
        try:
            records = load_records(args.records)
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            print(f"furnace fit-prior: cannot read the records {args.records}: {exc}")
            return 2
    progress = None if args.quiet or records is not None else \
        progress_bar(f"{game.info.name} self-play")
    try:
        model, report, played = fit_prior(
            game, args.players, specs, args.games, args.seed, options=options,
            every=args.every, alpha=args.alpha, workers=args.workers, cluster=args.cluster,
            command=command, records=records, progress=progress, teacher=args.teacher)
    except ValueError as exc:
        print(f"furnace fit-prior: {exc}")
        return 2
    Path(args.out).write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    if args.save_records:
        save_records(args.save_records, played)
    if args.json:
        print(json.dumps(report))
        return 0
    taught = f", the visits of {report['teacher']}" if report["teacher"] else ""
    print(f"{report['game']}, {report['players']} players, {report['games']} games of "
          f"{', '.join(report['bots'])}{taught} (seed {report['seed']}): fitted on "
          f"{report['train_games']} games ({report['train_decisions']} decisions), "
          f"{report['held_out_games']} held out; move prior written to {args.out}")
    print(f"  {'stage':<8} {'decisions':>9}  {'top-1':>6}  {'top-3':>6}  "
          f"{'cross-entropy':>13}  {'uniform: top-1':>14}  {'cross-entropy':>13}")
    for stage in (*STAGES, "all"):
        entry = report["held_out"][stage]
        if not entry["decisions"]:
            print(f"  {stage:<8} {0:>9}")
            continue
        print(f"  {stage:<8} {entry['decisions']:>9}  {entry['top1']:>6.3f}  "
              f"{entry['top3']:>6.3f}  {entry['cross_entropy']:>13.3f}  "
              f"{entry['uniform_top1']:>14.3f}  {entry['uniform_cross_entropy']:>13.3f}")
    return 0


def run_prior_loop_command(args: argparse.Namespace, options: dict[str, Any],
                          progress_bar: ProgressBar) -> int:
    from engine import registry
    from tournaments.prior_loop import BEST_FILE, LoopSettings, run_prior_loop

    game = registry.get_game(args.game)
    try:
        settings = LoopSettings(game.info.name, args.players, args.games, args.iterations,
                                args.arena_games, args.seconds, args.weight, args.keep_rate,
                                seed=args.seed, teacher_iterations=args.teacher_iterations)
        log = run_prior_loop(game, settings, args.rounds, args.out, options=options,
                            workers=args.workers, cluster=args.cluster,
                            report=lambda line: print(line, flush=True),
                            progress=None if args.quiet else progress_bar)
    except ValueError as exc:
        print(f"furnace prior-loop: {exc}")
        return 2
    kept = [entry["round"] for entry in log["rounds"] if entry["kept"]]
    print(f"{len(log['rounds'])} rounds in {args.out}; kept: "
          f"{', '.join(map(str, kept)) or 'none'}"
          + (f"; the best prior is {args.out}/{BEST_FILE}" if kept else ""))
    return 0
