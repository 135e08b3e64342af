"""Write the tables of defaults that the docs quote from the code, so they never drift.

A table made here sits in a document between two comments::

    <!-- generated: NAME (scripts/gen_doc_tables.py): do not edit; run the script -->
    | ... |
    <!-- end generated -->

and NAME is one of :data:`TABLES`: the strength levels of every game (docs/api.md),
one game's levels beside the default table (docs/strength.md), the review settings
(docs/review.md)::

    python scripts/gen_doc_tables.py          # (re)write the tables in place
    python scripts/gen_doc_tables.py --check  # exit 1 naming a stale or unknown table

``tests/test_doc_defaults.py`` runs ``--check``, and checks the defaults quoted in
prose against the code too.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

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
DOCUMENTS = ("docs/api.md", "docs/strength.md", "docs/review.md")


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def level_text(level: Level, sampled: str = "") -> str:
    """``300 iterations, temperature 0.1`` or ``6,000 iterations, the most visited move``."""
    if level.temperature:
        return f"{_number(level.iterations)} iterations, {sampled}temperature {level.temperature:g}"
    return f"{_number(level.iterations)} iterations, the most visited move"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]],
           align: Sequence[str] | None = None) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(align or ["---"] * len(header)) + "|"]
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


#: Every table, by the name its region gives.
TABLES: dict[str, Callable[[], str]] = {
    "levels": levels_of_every_game,
    "levels-oh-my-goods": levels_beside_default("oh-my-goods"),
    "levels-stephens": levels_beside_default("stephens"),
    "review-settings": review_settings,
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
