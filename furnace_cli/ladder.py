"""``furnace ladder``: a rating ladder between bot specs, with its table and plot.

The round robin and the ratings are :mod:`tournaments.ladder` and
:mod:`tournaments.ratings`; this module turns the report into what a person
reads.  Everything goes to one directory (``--out``, default ``ladder-<game>`` in the user's data directory, see
:func:`default_out`):

* ``games.jsonl`` - every finished game, one JSON line each; ``--resume`` reads it
  back and plays only the games it lacks;
* ``ladder.json`` - the report;
* ``ladder.md`` - the command, the rating table and the pairwise scores, in
  Markdown, to paste into ``docs/strength.md``;
* ``ladder.png`` - the ratings with their 95% intervals (matplotlib, needed up
  front: it is checked before the first game, not after hours of them).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.game import FurnaceError

RESULTS_FILE = "games.jsonl"



def default_out(game: str) -> Path:
    """Where a ladder goes without ``--out``: the user's data directory
    (``$XDG_DATA_HOME/furnace``, else ``~/.local/share/furnace``), not whatever directory
    the command runs in (often a checkout)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "furnace" / f"ladder-{game}"

def run_ladder_command(args: argparse.Namespace, options: Mapping[str, Any],
                       progress_bar: Callable[[str], Callable[[int, int], None]]) -> int:
    """Run ``furnace ladder`` from parsed arguments and the parsed ``--options``;
    ``progress_bar(label)`` makes the progress callback.  Bad input raises
    :class:`FurnaceError` (exit status 2) before any game is played."""
    from engine import registry
    from tournaments.ladder import run_ladder

    game = registry.get_game(args.game)
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    if args.workers < 1:
        raise FurnaceError(f"--workers must be at least 1, not {args.workers}")
    _require_matplotlib()
    out = Path(args.out) if args.out else default_out(game.info.name)
    results = out / RESULTS_FILE
    if not args.resume and results.exists() and results.stat().st_size > 0:
        raise FurnaceError(f"{results} holds the games of an earlier ladder: add --resume to "
                           "continue it, or choose another --out")
    if out.exists() and not out.is_dir():
        raise FurnaceError(f"--out {out} is a file, not a directory")

    progress = None if args.quiet else progress_bar(f"{game.info.name} ladder")
    report = run_ladder(game, args.players, specs, args.games, args.seed, options,
                        progress=progress, workers=args.workers, cluster=args.cluster,
                        results_path=results,
                        resume=args.resume, anchor=args.anchor)

    command = ladder_command(report, args.options, args.anchor)
    (out / "ladder.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / "ladder.md").write_text(markdown(report, command), encoding="utf-8")
    plot(report, out / "ladder.png")
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['game']}, {report['players']} players, {report['games_per_pair']} games "
          f"per pair ({report['games']} games), seed {report['seed']}; Elo relative to "
          f"{report['anchor']} (= 0)")
    for line in table_lines(report):
        print(line)
    print()
    print("score of the row against the column:")
    for line in matrix_lines(report):
        print(line)
    print(f"\nwrote {out}/: ladder.json, ladder.md, ladder.png, {RESULTS_FILE}")
    return 0


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise FurnaceError("matplotlib is not installed (it draws ladder.png): "
                           "pip install matplotlib, or 'furnace[dev]'") from exc


def _elo(value: float) -> str:
    return f"{value:+.0f}" if round(value) else "0"


def _ci(rating: Mapping[str, Any], anchor: bool) -> str:
    # The anchor is 0 by definition, so its "interval" would only confuse.
    if anchor:
        return "(anchor)"
    lo, hi = rating["ci95"]
    return f"{_elo(lo)} to {_elo(hi)}"


def _percent(points: float, games: float) -> str:
    return f"{100 * points / games:.1f}%" if games else "-"


def table_lines(report: Mapping[str, Any]) -> list[str]:
    """The ratings, best first: rank, spec, Elo, 95% CI, games, score share."""
    ratings = report["ratings"]
    width = max(4, *(len(spec) for spec in ratings))
    lines = [f"{'rank':>4}  {'spec':<{width}}  {'Elo':>6}  {'95% CI':>17}  {'games':>6}  "
             f"{'score':>6}"]
    for spec, r in ratings.items():
        ci = _ci(r, spec == report["anchor"])
        lines.append(f"{r['rank']:>4}  {spec:<{width}}  {_elo(r['elo']):>6}  {ci:>17}  "
                     f"{r['games']:>6}  {_percent(r['score'], r['games']):>6}")
    return lines


def matrix_lines(report: Mapping[str, Any]) -> list[str]:
    """Each spec's score against each other, rows and columns best first."""
    order = list(report["ratings"])
    pairwise = report["pairwise"]
    width = max(len(spec) for spec in order)
    cell = max(7, width)
    lines = [" " * width + "".join(f"  {spec:>{cell}}" for spec in order)]
    for a in order:
        cells = ["-" if a == b else _percent(pairwise[a][b]["score"], pairwise[a][b]["games"])
                 for b in order]
        lines.append(f"{a:<{width}}" + "".join(f"  {c:>{cell}}" for c in cells))
    return lines


def ladder_command(report: Mapping[str, Any], options: str | None = None,
                   anchor: str | None = None) -> str:
    """The command that reproduces ``report`` (the worker count changes nothing)."""
    parts = ["furnace", "ladder", report["game"], "--players", str(report["players"]),
             "--games", str(report["games_per_pair"]), "--bots", ",".join(report["specs"]),
             "--seed", str(report["seed"])]
    if options:
        parts += ["--options", options]
    if anchor:
        parts += ["--anchor", anchor]
    return " ".join(shlex.quote(p) for p in parts)


def markdown(report: Mapping[str, Any], command: str) -> str:
    """The table and the pairwise scores in Markdown, ready for ``docs/strength.md``."""
    ratings = report["ratings"]
    lines = [
        f"`{command}`",
        "",
        f"{report['games_per_pair']} games per pair, {report['games']} games; Elo relative "
        f"to `{report['anchor']}` (= 0) with 95% intervals; score: points per game "
        "(a draw is half a point).",
        "",
        "| rank | spec | Elo | 95% CI | games | score |",
        "|---:|---|---:|---|---:|---:|",
    ]
    for spec, r in ratings.items():
        ci = _ci(r, spec == report["anchor"])
        lines.append(f"| {r['rank']} | `{spec}` | {_elo(r['elo'])} | {ci} | {r['games']} "
                     f"| {_percent(r['score'], r['games'])} |")
    order = list(ratings)
    pairwise = report["pairwise"]
    lines += ["", "Score of the row against the column:", "",
              "| | " + " | ".join(f"`{s}`" for s in order) + " |",
              "|---|" + "---:|" * len(order)]
    for a in order:
        cells = ["-" if a == b else _percent(pairwise[a][b]["score"], pairwise[a][b]["games"])
                 for b in order]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(report: Mapping[str, Any], path: Path) -> None:
    """The ratings as points with their 95% intervals as error bars, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = list(report["ratings"].items())[::-1]  # matplotlib draws bottom-up
    names = [spec for spec, _ in ratings]
    elos = [r["elo"] for _, r in ratings]
    below = [r["elo"] - r["ci95"][0] for _, r in ratings]
    above = [r["ci95"][1] - r["elo"] for _, r in ratings]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * len(names)))
    ax.errorbar(elos, range(len(names)), xerr=[below, above], fmt="o", capsize=4)
    for y, elo in enumerate(elos):
        ax.annotate(_elo(elo), (elo, y), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.axvline(0.0, color="gray", linewidth=0.8, alpha=0.6)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_xlabel(f"Elo relative to {report['anchor']} (= 0), 95% intervals")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{report['game']} ladder: {report['games_per_pair']} games per pair, "
                 f"seed {report['seed']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

