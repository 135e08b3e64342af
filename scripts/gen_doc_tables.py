"""Write the tables the docs quote from the code and from the results the repository
keeps, so they never drift.

A table made here sits in a document between two comments::

    <!-- generated: NAME (scripts/gen_doc_tables.py): do not edit; run the script -->
    | ... |
    <!-- end generated -->

and NAME is one of :data:`TABLES`: the strength levels of every game (docs/api.md),
one game's levels beside the default table (docs/strength.md), the review settings
(docs/review.md); and from kept results: the load test's latencies and capacity
(docs/load/README.md), read from the reports ``furnace loadtest --report-dir`` wrote
(docs/load/report.json, docs/load/sweep/report.json), and each shipped value model's
held-out figures (docs/learned-values.md), read from the report ``furnace fit-value``
stored in the model file (``made_by``), and each shipped forecast model's held-out
figures (docs/forecasts.md), read from what ``furnace calibration --fit`` kept in its
model file (``provenance``).  A new run rewrites its results, then this
script the tables::

    python scripts/gen_doc_tables.py          # (re)write the tables in place
    python scripts/gen_doc_tables.py --check  # exit 1 naming a stale or unknown table

``tests/test_doc_defaults.py`` runs ``--check``, and checks the defaults quoted in
prose against the code too; ``tests/test_doc_figures.py`` checks that every other table
of measured figures says when it was measured and with which command.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import registry  # noqa: E402
from engine.search.config import config_for  # noqa: E402
from engine.search.levels import LEVELS, Level  # noqa: E402
from engine.search.review_settings import (  # noqa: E402
    DEFAULT_REVIEW,
    REVIEW_SETTINGS,
    ReviewSettings,
)

REGION = re.compile(
    r"(?P<open><!-- generated: (?P<name>[\w-]+) \(scripts/gen_doc_tables\.py\): do not "
    r"edit; run the script -->\n)(?P<body>.*?)(?P<close><!-- end generated -->)",
    re.DOTALL)
DOCUMENTS = ("docs/api.md", "docs/strength.md", "docs/review.md", "docs/load/README.md",
             "docs/learned-values.md", "docs/forecasts.md")
LOAD_REPORT = ROOT / "docs" / "load" / "report.json"
LOAD_SWEEP = ROOT / "docs" / "load" / "sweep" / "report.json"
#: The RPCs a load report's tables list, in its order; the cheap ones (no search).
LOAD_RPCS = ("NewGame", "LegalMoves", "CheckMove", "ApplyMove", "BestMove", "Analyze",
             "EstimateScores")
CHEAP_RPCS = LOAD_RPCS[:4]


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def level_text(level: Level, sampled: str = "") -> str:
    """``300 iterations, temperature 0.1`` or ``6,000 iterations, the most visited move``."""
    if level.temperature:
        return f"{_number(level.iterations)} iterations, {sampled}temperature {level.temperature:g}"
    return f"{_number(level.iterations)} iterations, the most visited move"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]],
           align: Sequence[str] | None = None, spaced: bool = False) -> str:
    rule = align or ["---"] * len(header)
    lines = ["| " + " | ".join(header) + " |",
             ("| " + " | ".join(rule) + " |") if spaced else ("|" + "|".join(rule) + "|")]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _games() -> list[tuple[str, str]]:
    """(name, title) of every registered game, in the registry's order."""
    return [(name, registry.get_game(name).info.title) for name in registry.game_names()]


def levels_of_every_game() -> str:
    games = _games()
    tables = [config_for(name).levels for name, _ in games]
    rows = [[str(n + 1), *(level_text(levels[n], "sampled at ") for levels in tables)]
            for n in range(len(LEVELS))]
    return _table(["level", *(title for _, title in games)], rows)


def levels_beside_default(name: str) -> Callable[[], str]:
    def table() -> str:
        title = registry.get_game(name).info.title
        own = config_for(name).levels
        rows = [[str(n + 1), level_text(own[n]), level_text(LEVELS[n])]
                for n in range(len(LEVELS))]
        return _table(["level", title, "the default table (`engine.search.levels.LEVELS`)"],
                      rows)
    return table


def _threshold(settings: ReviewSettings, k: int) -> str:
    points = settings.points[k]
    return (f"{settings.probability[k]:.2f} or {_number(points)} "
            f"point{'' if points == 1 else 's'}")


def _searched_with(settings: ReviewSettings) -> str:
    if settings.random_playouts:
        return "full random playouts"
    if settings.leaf_value:
        return f"the game's search, with the {settings.leaf_value} leaf"
    return "the game's search"


def review_settings() -> str:
    rows = []
    games = [(title, REVIEW_SETTINGS[name]) for name, title in _games()
             if name in REVIEW_SETTINGS]
    for title, settings in [*games, ("any other game", DEFAULT_REVIEW)]:
        rows.append([title, _number(settings.budget),
                     *(_threshold(settings, k) for k in range(3)),
                     str(settings.measurements),
                     f"{settings.confirm:g}x" if settings.confirm > 1 else "none",
                     _searched_with(settings)])
    return _table(["game", "budget (iterations a search)", "inaccuracy", "mistake", "blunder",
                   "measurements", "deeper look", "searched with"], rows,
                  ["---", "---:", "---", "---", "---", "---:", "---:", "---"])


def _report(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def load_latency() -> str:
    """The one-step load test's latencies by RPC, and what the step served."""
    report = _report(LOAD_REPORT)
    (step,) = report["steps"]
    budget = report["setup"]["budget_ms"]
    label = {"BestMove": f"BestMove ({budget} ms)",
             "Analyze": f"Analyze ({3 * budget} ms, streamed)",
             "EstimateScores": "EstimateScores (200 playouts)"}
    rows = [[label.get(rpc, rpc), *(_ms(step["rpcs"][rpc][q]) for q in
                                     ("p50_ms", "p95_ms", "p99_ms"))]
            for rpc in LOAD_RPCS]
    failures = "**no failures**" if not step["failures"] else f"failures {step['failures']}"
    cpu = step["cpu"]
    served = (f"{step['requests']:,} calls, {step['requests_per_s']:g} requests/s, "
              f"{failures}, {step['searches_per_s']:g} searches/s. The server used "
              f"{cpu['server_total_pct_of_machine']:.0f}% of the machine (front process "
              f"{cpu['server_front_pct_of_core']:.0f}% of a core).")
    return _table(["RPC", "p50 ms", "p95 ms", "p99 ms"], rows, spaced=True) + f"\n{served}\n"


def load_capacity() -> str:
    """The capacity sweep, a row a step."""
    rows = []
    for step in _report(LOAD_SWEEP)["steps"]:
        cheap = [step["rpcs"][rpc]["p99_ms"] for rpc in CHEAP_RPCS
                 if step["rpcs"][rpc]["p99_ms"] is not None]
        rows.append([str(step["users"]), f"{step['searches_per_s']:.2f}",
                     f"{step['searches_per_s_per_core']:.2f}",
                     _ms(step["rpcs"]["BestMove"]["p99_ms"]), _ms(max(cheap, default=None)),
                     f"{100 * step['search_refused_share']:.1f}%",
                     "yes" if step["holds"] else "no"])
    header = ["players", "searches/s", "per core", "BestMove p99 ms", "worst cheap p99 ms",
              "searches refused", "holds"]
    return _table(header, rows, spaced=True)


def _fit_report(name: str) -> dict[str, Any]:
    """The held-out report ``furnace fit-value`` kept in a game's shipped value model."""
    package = name.replace("-", "_")
    model = _report(ROOT / "engine" / package / "value-model.json")
    report: dict[str, Any] = model["made_by"]["report"]
    return report


STAGES = ("opening", "middle", "late", "all")


def move_prior_stages(name: str) -> Callable[[], str]:
    """The held-out report ``furnace fit-prior`` kept in a game's shipped move prior."""
    def table() -> str:
        package = name.replace("-", "_")
        report = _report(ROOT / "engine" / package / "move-prior.json")["made_by"]["report"]
        held_out = report["held_out"]
        rows = [[stage, f"{held_out[stage]['decisions']:,}", f"{held_out[stage]['top1']:.3f}",
                 f"{held_out[stage]['top3']:.3f}", f"{held_out[stage]['cross_entropy']:.3f}",
                 f"{held_out[stage]['uniform_top1']:.3f}",
                 f"{held_out[stage]['uniform_cross_entropy']:.3f}"]
                for stage in STAGES]
        return _table(["stage", "decisions", "top-1", "top-3", "cross-entropy (nats)",
                       "uniform choice: top-1", "cross-entropy"], rows)
    return table


def value_model_stages(name: str) -> Callable[[], str]:
    def table() -> str:
        held_out = _fit_report(name)["held_out"]
        rows = [[stage, f"{held_out[stage]['positions']:,}",
                 *(f"{held_out[stage][source]['correlation']:.2f} / "
                   f"{held_out[stage][source]['winner']:.2f}"
                   for source in ("model", "heuristic", "scores", "playout"))]
                for stage in STAGES]
        return _table(["stage", "positions", "model corr / winner", "heuristic", "scores",
                       "one random playout"], rows)
    return table


def value_model_level(name: str) -> Callable[[], str]:
    def table() -> str:
        held_out = _fit_report(name)["held_out"]
        rows = [[label, *(f"{held_out[stage]['level'][key]:.2f}" for stage in STAGES)]
                for label, key in (("model's level, mean absolute error (points)",
                                    "model_error"),
                                   ("heuristic's mean", "heuristic_error"))]
        return _table(["the scores' level, held out", *STAGES], rows)
    return table


def _forecast_entries() -> list[tuple[str, int, dict[str, Any]]]:
    """(title, players, provenance) of every shipped forecast model, game by game in the
    registry's order, then by player count."""
    entries = []
    for name, title in _games():
        path = ROOT / "engine" / name.replace("-", "_") / "forecast-model.json"
        if path.exists():
            for players, entry in sorted(_report(path)["players"].items(),
                                         key=lambda item: int(item[0])):
                entries.append((title, int(players), entry["provenance"]))
    return entries


def _count(title: str, players: int) -> str:
    return f"{title}, {'solo' if players == 1 else players}"


def _mae(figures: dict[str, Any]) -> str:
    return f"{figures['mae']:.2f} ({figures['bias']:+.1f})"


def forecast_figures() -> str:
    rows = []
    for title, players, made in _forecast_entries():
        held = made["held_out"]
        low, high = held["slope_interval"]
        raw, playouts = held["raw_search"], held["raw_playouts"]
        rows.append([
            _count(title, players), f"{held['games']} / {held['positions']}",
            f"{held['ece']:.3f} / {held['slope']:.2f} ({low:.2f}-{high:.2f}) / "
            f"{held['brier']:.3f} ({held['brier_constant']:.3f})",
            f"{raw['ece']:.3f} / {raw['slope']:.2f}",
            f"{held['score_mae']:.2f} ({held['score_bias']:+.2f})",
            f"{playouts['score_mae']:.2f} ({playouts['score_bias']:+.2f})",
            f"{held['score_mae_constant']:.2f}"])
    return _table(["game, players", "games / positions",
                   "win: ECE / slope (95% interval) / Brier (constant's Brier)",
                   "raw search: ECE / slope", "score MAE (bias)", "today's EstimateScores",
                   "constant"], rows)


def forecast_score_stages() -> str:
    rows = []
    for title, players, made in _forecast_entries():
        held = made["held_out"]
        rows.append([_count(title, players),
                     " / ".join(_mae(s) for s in held["stages"]),
                     " / ".join(_mae(s) for s in held["raw_playouts"]["stages"]),
                     " / ".join(f"{s['mae_constant']:.2f}" for s in held["stages"])])
    return _table(["game, players", "forecast", "today's EstimateScores", "constant"], rows)


def forecast_win_stages() -> str:
    rows = []
    for title, players, made in _forecast_entries():
        held = made["held_out"]
        rows.append([_count(title, players),
                     *(f"{s['ece']:.3f} / {s['slope']:.2f}" for s in held["stages"]),
                     " / ".join(f"{s['slope']:.2f}" for s in held["raw_search"]["stages"])])
    return _table(["game, players", "first third: ECE / slope", "middle third",
                   "last third", "raw search's slopes"], rows)


#: Every table, by the name its region gives.
TABLES: dict[str, Callable[[], str]] = {
    "levels": levels_of_every_game,
    "levels-oh-my-goods": levels_beside_default("oh-my-goods"),
    "levels-stephens": levels_beside_default("stephens"),
    "review-settings": review_settings,
    "load-latency": load_latency,
    "load-capacity": load_capacity,
    "value-model-stephens": value_model_stages("stephens"),
    "value-model-samara": value_model_stages("samara"),
    "value-level-samara": value_model_level("samara"),
    "value-model-oh-my-goods": value_model_stages("oh-my-goods"),
    "move-prior-samara": move_prior_stages("samara"),
    "move-prior-oh-my-goods": move_prior_stages("oh-my-goods"),
    "move-prior-stephens": move_prior_stages("stephens"),
    "forecast-figures": forecast_figures,
    "forecast-score-stages": forecast_score_stages,
    "forecast-win-stages": forecast_win_stages,
}


def regenerate(text: str, where: str) -> tuple[str, list[str]]:
    """``text`` with every region's table made anew, and what was stale or unknown."""
    problems: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in TABLES:
            problems.append(f"{where}: unknown table {name!r} (known: {', '.join(TABLES)})")
            return match.group(0)
        table = TABLES[name]()
        if match.group("body") != table:
            problems.append(f"{where}: table {name!r} differs from the code")
        return match.group("open") + table + match.group("close")

    return REGION.sub(fill, text), problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a table is stale or unknown")
    args = parser.parse_args(argv)
    stale = []
    for document in DOCUMENTS:
        path = ROOT / document
        text, problems = regenerate(path.read_text(encoding="utf-8"), document)
        stale += problems
        if not args.check and text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
            print(f"wrote {document}")
    if args.check:
        for problem in stale:
            print(problem, file=sys.stderr)
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
