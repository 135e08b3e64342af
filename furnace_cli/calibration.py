"""``furnace calibration``: measure (and with ``--fit``, fit) a game's forecasts."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.game import FurnaceError

ProgressBar = Callable[[str], Callable[[int, int], None]]


def _records(args: argparse.Namespace, options: dict[str, Any], progress_bar: ProgressBar,
             games: int, seed: int, label: str, path: str | None) -> list[Any]:
    from engine import registry
    from tournaments.calibration import GameRecord, record_games

    kept: list[Any] = []
    if path and Path(path).is_file():
        # Games already recorded with the same key are read, not played again; those
        # missing (a longer run than the file's) are played and added.
        wanted = (args.game, args.players, args.level, seed, args.every, options)
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        head = json.loads(lines[0])
        if tuple(head["key"]) != tuple(json.loads(json.dumps(wanted))):
            raise FurnaceError(f"{path} holds other games ({head['key']}, {head['games']} "
                             f"games); remove it or name another file")
        kept = [GameRecord.from_json(json.loads(line)) for line in lines[1:games + 1]]
        if len(kept) >= games:
            return kept
    game = registry.get_game(args.game)
    progress = None if args.quiet else progress_bar(
        f"{game.info.name} {label}" + (f" {len(kept) + 1}-{games}" if kept else ""))
    save = None
    if path:
        # Saved as they end, the games played in order so far: a run stopped keeps them,
        # and the same command goes on from there.
        head = {"key": [args.game, args.players, args.level, seed, args.every, options]}
        ended: dict[int, Any] = {}
        saved = list(kept)

        def save(g: int, record: Any) -> None:
            ended[g] = record
            grew = False
            while len(saved) in ended:
                saved.append(ended.pop(len(saved)))
                grew = True
            if grew:
                lines = [json.dumps({**head, "games": len(saved)}),
                         *(json.dumps(r.to_json()) for r in saved)]
                partial = Path(f"{path}.part")
                partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
                partial.replace(path)

    records = kept + record_games(game, args.players, args.level, games, seed,
                                  options=options, every=args.every, workers=args.workers,
                                  cluster=args.cluster, progress=progress, first=len(kept),
                                  on_record=save)
    return records


def _fit_sets(args: argparse.Namespace) -> list[tuple[int, int, str | None]]:
    """The fitting games' ``(seed, games, records file)``, one per ``--fit-seed``.

    One ``--fit-games`` (or none: 200) counts for every seed, else one per seed, and
    likewise ``--save-fit-records``; a fitting seed is never the held-out one."""
    seeds = args.fit_seed or [1000]
    games = args.fit_games or [200]
    paths = args.save_fit_records or [None]
    if len(games) == 1:
        games = games * len(seeds)
    if len(paths) == 1 and paths[0] is None:
        paths = paths * len(seeds)
    if len(games) != len(seeds) or len(paths) != len(seeds):
        raise CalibrationUsageError(
            f"{len(seeds)} --fit-seed need one --fit-games or {len(seeds)}, and no "
            f"--save-fit-records or {len(seeds)} (got {len(games)} and "
            f"{len(args.save_fit_records or [])})")
    if len(set(seeds)) != len(seeds):
        raise CalibrationUsageError(f"--fit-seed names a seed twice: {seeds}")
    if args.fit and args.seed in seeds:
        raise CalibrationUsageError(
            f"the held-out games (--seed {args.seed}) would be fitting games too: "
            f"choose another --seed or --fit-seed")
    if min(games) < 1:
        raise CalibrationUsageError("--fit-games is at least 1")
    return list(zip(seeds, games, paths, strict=True))


class CalibrationUsageError(FurnaceError, ValueError):
    """Fitting options that do not go together."""


def run_calibration_command(args: argparse.Namespace, options: dict[str, Any],
                            progress_bar: ProgressBar) -> int:
    from engine import registry
    from engine.forecast import (
        INPUTS,
        ForecastModel,
        PlayerCountModel,
        model_file,
        shipped_model,
    )
    from engine.game import FurnaceError
    from tournaments.calibration import Constant, fit_source, measure

    game = registry.get_game(args.game)
    game.info.check_players(args.players)
    if args.with_playouts and not args.fit:
        print("--with-playouts says how to fit: it needs --fit", file=sys.stderr)
        return 2
    if args.plot:  # before the games, not after them
        try:
            import matplotlib  # noqa: F401
        except ImportError as exc:
            raise FurnaceError("matplotlib is not installed (it draws --plot): "
                               "pip install matplotlib, or 'furnace[dev]'") from exc
    fit_sets = _fit_sets(args)
    if args.fit:
        fitting = [record for seed, games, path in fit_sets
                   for record in _records(args, options, progress_bar, games, seed,
                                          "fitting games", path)]
        search_inputs = INPUTS["search"][1 if args.with_playouts else 0]
        sources = {"search": fit_source(fitting, "search", search_inputs),
                   "playouts": fit_source(fitting, "playouts")}
        constant = Constant.of(fitting)
    else:
        entry = shipped_model(game.info.name).counts.get(args.players)
        if entry is None:
            print(f"{game.info.name} ships no forecast model for {args.players} players: "
                  f"fit one with --fit", file=sys.stderr)
            return 2
        sources = dict(entry.sources)
        constant = Constant(**entry.provenance["constant"])
    held_out = _records(args, options, progress_bar, args.games, args.seed, "held-out games",
                        args.save_records)
    report = measure(held_out, sources, constant)
    report.update(game=game.info.name, players=args.players, level=args.level, seed=args.seed)
    if args.fit:
        command = shlex.join(
            ["furnace", "calibration", game.info.name, "--players", str(args.players),
             "--fit"]
            + [word for seed, games, _ in fit_sets
               for word in ("--fit-games", str(games), "--fit-seed", str(seed))]
            + ["--games", str(args.games), "--seed", str(args.seed), "--level", str(args.level),
             "--every", str(args.every)]
            + (["--with-playouts"] if args.with_playouts else [])
            + (["--options", args.options] if args.options else []))
        provenance = {"command": command,
                      "fit_sets": [{"seed": seed, "games": games}
                                   for seed, games, _ in fit_sets],
                      "held_out_seed": args.seed,
                      "held_out_games": args.games, "level": args.level,
                      "constant": {"score": constant.score, "win": constant.win},
                      "held_out": held_out_figures(report)}
        out = Path(args.out) if args.out else Path(str(model_file(game.info.name)))
        existing = ForecastModel.from_json(json.loads(out.read_text(encoding="utf-8"))) \
            if out.is_file() else ForecastModel(game.info.name, {})
        counts = dict(existing.counts)
        counts[args.players] = PlayerCountModel(args.players, sources, provenance)
        out.write_text(json.dumps(ForecastModel(game.info.name, counts).to_json(), indent=1)
                       + "\n", encoding="utf-8")
        shipped_model.cache_clear()
        report["model_file"] = str(out)
    if args.plot:
        plot(report, args.plot)
    if args.json:
        print(json.dumps(report))
        return 0
    print_report(report)
    return 0


def held_out_figures(report: dict[str, Any]) -> dict[str, Any]:
    """What a model file keeps of its held-out report (docs/forecasts.md's tables are
    made from it): every figure but the reliability tables."""
    kept = {k: report[k] for k in (
        "games", "positions", "ece", "slope", "slope_interval", "brier", "brier_constant",
        "score_mae", "score_bias", "score_mae_playouts", "score_mae_constant", "stages")}
    for name in ("estimate", "raw_search", "raw_playouts"):
        kept[name] = {k: report[name][k] for k in (
            "ece", "slope", "brier", "score_mae", "score_bias", "stages")}
    return kept


def print_report(report: dict[str, Any]) -> None:
    print(f"{report['game']}, {report['players']} player(s), level {report['level']}: "
          f"{report['games']} held-out games (seed {report['seed']}), "
          f"{report['positions']} positions")
    what = "P(reach target)" if report["players"] == 1 else "win probability"
    print(f"  {what:<16} {'ECE':>7} {'slope':>7} {'Brier':>7}")
    low, high = report["slope_interval"]
    print(f"  (BestMove's slope: 95% interval {low:.2f}-{high:.2f} by game bootstrap)")
    for name, f in (("BestMove", report), ("EstimateScores", report["estimate"]),
                    ("search, raw", report["raw_search"]),
                    ("playouts, raw", report["raw_playouts"])):
        print(f"  {name:<16} {f['ece']:7.3f} {f['slope']:7.2f} {f['brier']:7.3f}")
    print(f"  {'constant':<16} {'':>7} {'':>7} {report['brier_constant']:7.3f}")
    print("  expected final score, mean absolute error (bias) by stage:")
    print(f"  {'stage':<8} {'positions':>9} {'BestMove':>15} {'EstimateScores':>15} "
          f"{'playouts, raw':>15} {'constant':>9}")
    for s, e, r in zip(report["stages"], report["estimate"]["stages"],
                       report["raw_playouts"]["stages"], strict=True):
        print(f"  {s['stage']:<8} {s['positions']:>9} {s['mae']:6.1f} ({s['bias']:+5.1f}) "
              f"{e['mae']:6.1f} ({e['bias']:+5.1f}) {r['mae']:6.1f} ({r['bias']:+5.1f}) "
              f"{s['mae_constant']:9.1f}")
    print("  BestMove's win forecast by stage: " + ", ".join(
        f"{s['stage']} ECE {s['ece']:.3f} slope {s['slope']:.2f}" for s in report["stages"]))
    print("  reliability of BestMove's forecast:")
    print(f"  {'bin':<9} {'count':>6} {'forecast':>9} {'observed':>9}")
    for row in report["reliability"]:
        print(f"  {row['low']:.1f}-{row['high']:.1f}  {row['count']:>6} "
              f"{row['forecast']:9.3f} {row['observed']:9.3f}")
    if "model_file" in report:
        print(f"  model written to {report['model_file']}")


def plot(report: dict[str, Any], path: str) -> None:
    """A reliability diagram of BestMove's forecast and the raw search's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    for label, table in (("forecast", report["reliability"]),
                         ("search, raw", report["raw_search"]["reliability"])):
        ax.plot([r["forecast"] for r in table], [r["observed"] for r in table], marker="o",
                label=f"{label} (ECE {(report if label == 'forecast' else report['raw_search'])['ece']:.3f})")
    what = "reaching the target" if report["players"] == 1 else "winning"
    ax.set_xlabel(f"forecast chance of {what}")
    ax.set_ylabel("observed frequency")
    ax.set_title(f"{report['game']}, {report['players']} player(s): "
                 f"{report['games']} held-out games")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
