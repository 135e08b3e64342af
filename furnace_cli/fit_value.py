"""``furnace fit-value``: fit a learned leaf value and print its held-out report."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

ProgressBar = Callable[[str], Callable[[int, int], None]]


def run_fit_value_command(args: argparse.Namespace, options: dict[str, Any],
                          progress_bar: ProgressBar) -> int:
    from engine import registry
    from tournaments.value_fit import BASELINES, STAGES, fit_value

    game = registry.get_game(args.game)
    specs = [s for s in args.bots.split(",") if s.strip()]
    command = shlex.join(["furnace", "fit-value", game.info.name, "--players",
                          str(args.players), "--bots", args.bots, "--games", str(args.games),
                          "--seed", str(args.seed), "--every", str(args.every),
                          "--alpha", repr(args.alpha)]
                         + (["--options", args.options] if args.options else []))
    progress = None if args.quiet else progress_bar(f"{game.info.name} self-play")
    model, report = fit_value(game, args.players, specs, args.games, args.seed,
                              options=options, every=args.every, alpha=args.alpha,
                              workers=args.workers, cluster=args.cluster, command=command,
                              progress=progress)
    Path(args.out).write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['game']}, {report['players']} players, {report['games']} games of "
          f"{', '.join(report['bots'])} (seed {report['seed']}): fitted on "
          f"{report['train_games']} games ({report['train_positions']} positions), "
          f"{report['held_out_games']} held out; model written to {args.out}")
    print(f"  {'stage':<8} {'positions':>9}  " + "  ".join(
        f"{name:>16}" for name in ("model", *BASELINES)))
    print(f"  {'':<8} {'':>9}  " + "  ".join(f"{'corr  winner':>16}" for _ in range(4)))
    for stage in (*STAGES, "all"):
        entry = report["held_out"][stage]
        cells = []
        for name in ("model", *BASELINES):
            corr, winner = entry[name]["correlation"], entry[name]["winner"]
            cells.append(f"{'-' if corr is None else f'{corr:.2f}':>6}  "
                         f"{'-' if winner is None else f'{winner:.2f}':>8}")
        print(f"  {stage:<8} {entry['positions']:>9}  " + "  ".join(cells))
    print("  the scores' level (the seats' mean final score), mean absolute error:")
    for stage in (*STAGES, "all"):
        level = report["held_out"][stage].get("level")
        if level is not None:
            print(f"  {stage:<8} model {level['model_error']:7.2f}   heuristic's mean "
                  f"{level['heuristic_error']:7.2f}")
    return 0
