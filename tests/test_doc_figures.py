"""Every measured figure the docs quote says where it comes from.

A figure a command measured (an arena's wins, a ladder's Elo, a forecast's calibration,
a load test's latencies, a benchmark's ratio) is true of the code and the machine of
its day.  So each is one of:

* **generated** from the results the repository keeps: a table between
  ``<!-- generated: NAME (scripts/gen_doc_tables.py) ... -->`` and
  ``<!-- end generated -->`` (``--check`` fails when it differs from its source), or a
  whole document a command writes from the results file beside it
  (:data:`GENERATED_DOCUMENTS`, compared here);
* or **marked**: a comment ``<!-- measured: DATE · COMMAND -->`` (optionally
  ``· WHAT`` after the command: which rows or figures, or how the run differed) on the
  lines right before or after the table, or beside the paragraph; a table whose rows
  came from several runs carries one marker a run, one after the other.

DATE is the ISO date of the measurement (``2026-11-23``), not in the future.  COMMAND
is what was run: a ``furnace`` command line that furnace's own argument parser accepts
today, with bots that ``make_bot`` makes (the parser of tests/test_doc_blocks.py), or
``python scripts/NAME.py ...`` for a script of the repository.  A figure measured by a
command since changed or gone keeps its date and a command as close as today's
furnace allows, and says in the text what differed.

A table holds measured figures (:func:`is_measured`) when at least half of its body
rows hold a win count (``130/200``, ``48 of 60``), a percentage, a decimal number or a
time in ``ms`` or ``s``, unless a column is headed ``default``: a table of defaults
lists settings, which tests/test_doc_defaults.py and the commands' own help check.
Every marker in README.md and docs/, beside a table or a paragraph, must be well formed.
Tables written from results the repository keeps (docs/forecasts.md's, from each shipped
forecast model's ``provenance``) are generated regions, checked by
``scripts/gen_doc_tables.py --check``.
"""

from __future__ import annotations

import datetime
import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.doc_helpers import (
    DOCUMENTS,
    ROOT,
    Refused,
    bot_problem,
    load_script,
    parse_furnace,
)

#: Documents a command writes whole from the results file beside them, and that file.
GENERATED_DOCUMENTS = {
    "docs/load/report.md": "docs/load/report.json",
    "docs/load/sweep/report.md": "docs/load/sweep/report.json",
}
#: A region scripts/gen_doc_tables.py writes: its own pattern, so a table under a
#: malformed opening comment (which that script would neither fill nor check) is checked
#: here as any table is.
GENERATED_REGION = load_script("gen_doc_tables").REGION
#: A marker: the comment whose text starts with ``measured``, however malformed.
ANY_MARKER = re.compile(r"<!--\s*measured\b(?P<text>.*?)-->", re.DOTALL)
MARKER_LINE = re.compile(r"^\s*<!--\s*measured\b.*-->\s*$")
MEASURED_TOKEN = re.compile(
    r"\b\d+(?:\.\d+)?/\d+\b"            # a win count, 130/200 or 106.5/200
    r"|\b\d+(?:\.\d+)? of \d+\b"         # 48 of 60
    r"|\d%|\d %"                         # a percentage
    r"|(?<![\w.])\d+\.\d+(?![\w.])"      # a decimal (not an address or a version)
    r"|\b\d+(?:\.\d+)? ?(?:ms|s)\b")     # a time
SEPARATOR = " · "


@dataclass(frozen=True)
class Table:
    where: str  # document:line of its header
    header: list[str]
    rows: list[str]  # the body rows
    markers: list[str]  # the marker lines right before or after it


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def is_measured(table: Table) -> bool:
    if any(cell.lower() == "default" for cell in table.header):
        return False
    holding = sum(1 for row in table.rows if MEASURED_TOKEN.search(row))
    return bool(table.rows) and 2 * holding >= len(table.rows)


def tables(text: str, name: str) -> Iterator[Table]:
    """The Markdown tables of a document outside code blocks and generated regions,
    with the markers beside each."""
    text = GENERATED_REGION.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    fenced = False
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            fenced = not fenced
        if fenced or not lines[i].startswith("|"):
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        yield Table(f"{name}:{i + 1}", _cells(lines[i]), lines[i + 2:end],
                    _beside(lines, i - 1, -1) + _beside(lines, end, 1))
        i = end


def _beside(lines: list[str], start: int, step: int) -> list[str]:
    """The marker lines next to a table, blank lines skipped, going up or down."""
    found = []
    i = start
    while 0 <= i < len(lines) and not lines[i].strip():
        i += step
    while 0 <= i < len(lines) and MARKER_LINE.match(lines[i]):
        found.append(lines[i].strip())
        i += step
    return found


def marker_problems(marker: str, today: datetime.date) -> list[str]:
    """What is wrong with one marker comment (none: it is well formed)."""
    found = re.fullmatch(r"<!--\s*measured:\s*(?P<text>.+?)\s*-->", " ".join(marker.split()))
    if found is None:
        return [f"not `<!-- measured: DATE{SEPARATOR}COMMAND -->`: {marker}"]
    parts = found.group("text").split(SEPARATOR)
    if len(parts) < 2:
        return [f"a date and a command, separated by {SEPARATOR.strip()!r}: {marker}"]
    problems = []
    date, command = parts[0].strip(), parts[1].strip()
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
            raise ValueError(date)
        when = datetime.date.fromisoformat(date)
    except ValueError:
        problems.append(f"not an ISO date (YYYY-MM-DD): {date!r}")
    else:
        if when > today:
            problems.append(f"a date in the future: {date}")
    problems += command_problems(command)
    return problems


def command_problems(command: str) -> list[str]:
    """Why a marker's command is not one that can be run again here (none: it is)."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return [f"`{command}`: {exc}"]
    if words[:1] == ["python"] and len(words) > 1 and words[1].startswith("scripts/"):
        script = ROOT / words[1]
        return [] if script.is_file() else [f"`{command}`: no script {words[1]}"]
    if words[:1] != ["furnace"]:
        return [f"`{command}`: neither a furnace command nor python scripts/..."]
    try:
        parse_furnace(words[1:])
    except Refused as exc:
        return [f"`{command}` is refused: {exc}"]
    problems = []
    if "--bots" in words[:-1]:
        for spec in words[words.index("--bots") + 1].split(","):
            problem = bot_problem(spec)
            if problem is not None:
                problems.append(f"`{command}`: {problem}")
    return problems


def document_problems(text: str, name: str, today: datetime.date) -> list[str]:
    """Measured tables without a marker, and malformed markers, of one document."""
    problems = []
    for table in tables(text, name):
        if is_measured(table) and not table.markers:
            problems.append(f"{table.where}: a table of measured figures with neither a "
                            "generated region nor a `<!-- measured: DATE · COMMAND -->`")
    for found in ANY_MARKER.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        problems += [f"{name}:{line}: {p}" for p in marker_problems(found.group(0), today)]
    return problems


def _documents() -> list[Path]:
    return [d for d in DOCUMENTS if str(d.relative_to(ROOT)) not in GENERATED_DOCUMENTS]


# -- the docs --------------------------------------------------------------------------------

def test_every_measured_figure_says_where_it_comes_from() -> None:
    today = datetime.datetime.now(datetime.UTC).date()
    problems = []
    for document in _documents():
        problems += document_problems(document.read_text(encoding="utf-8"),
                                      str(document.relative_to(ROOT)), today)
    assert not problems, "\n".join(problems)


def test_the_detector_finds_the_measured_tables() -> None:
    """The rule above has tables to hold (a detector that matched nothing would pass)."""
    found = [t for d in _documents()
             for t in tables(d.read_text(encoding="utf-8"), str(d.relative_to(ROOT)))
             if is_measured(t)]
    assert len(found) >= 30, [t.where for t in found]
    markers = sum(len(ANY_MARKER.findall(d.read_text(encoding="utf-8"))) for d in _documents())
    assert markers >= len(found)


@pytest.mark.parametrize("document, source", GENERATED_DOCUMENTS.items())
def test_load_reports_are_written_from_their_results(document: str, source: str) -> None:
    from load.report import markdown

    report = json.loads((ROOT / source).read_text(encoding="utf-8"))
    assert markdown(report) == (ROOT / document).read_text(encoding="utf-8"), (
        f"{document} is not what `furnace loadtest` writes from {source}")


# -- the rule itself -------------------------------------------------------------------------

TODAY = datetime.date(2026, 11, 30)
TABLE = "| bot | won |\n|---|---|\n| `mcts:300` | 130/200 |\n| `greedy` | 70/200 |\n"
MARKER = ("<!-- measured: 2026-11-23 · furnace arena samara --players 2 --games 200 "
          "--bots mcts:300,greedy --seed 1 -->\n")


def test_a_measured_table_without_a_marker_fails() -> None:
    problems = document_problems("Text.\n\n" + TABLE, "doc.md", TODAY)
    assert problems == ["doc.md:3: a table of measured figures with neither a generated "
                        "region nor a `<!-- measured: DATE · COMMAND -->`"]
    # a region whose opening comment the generator would not recognise hides nothing
    loose = ("Text.\n\n<!-- generated: x (by hand) -->\n" + TABLE + "<!-- end generated -->\n")
    assert document_problems(loose, "doc.md", TODAY) == [
        "doc.md:4: a table of measured figures with neither a generated region nor a "
        "`<!-- measured: DATE · COMMAND -->`"]


@pytest.mark.parametrize("text", [
    "Text.\n\n" + MARKER + TABLE,
    "Text.\n\n" + MARKER + "\n" + TABLE,
    "Text.\n\n" + TABLE + "\n" + MARKER,
    "Text.\n\n" + MARKER + MARKER.replace("--seed 1", "--seed 2") + TABLE,
    "<!-- generated: x (scripts/gen_doc_tables.py): do not edit; run the script -->\n"
    + TABLE + "<!-- end generated -->\n",
    "| flag | default |\n|---|---|\n| `--deadline` | 0.5 s |\n| `--games` | 1.5 |\n",
    "| question | choice |\n|---|---|\n| a | b |\n| c | d |\n| e | 0.5 s |\n",
    "```\n" + TABLE + "```\n",
])
def test_a_marked_generated_or_unmeasured_table_passes(text: str) -> None:
    assert document_problems(text, "doc.md", TODAY) == []


def test_a_marker_further_away_is_not_the_table_s() -> None:
    text = MARKER + "\nA paragraph between.\n\n" + TABLE
    assert len(document_problems(text, "doc.md", TODAY)) == 1


@pytest.mark.parametrize("marker, problem", [
    ("<!-- measured: 2026-12-01 · furnace games -->", "a date in the future: 2026-12-01"),
    ("<!-- measured: 2026-13-01 · furnace games -->", "not an ISO date"),
    ("<!-- measured: 23 Nov 2026 · furnace games -->", "not an ISO date"),
    ("<!-- measured: 2026-11-23 -->", "a date and a command"),
    ("<!-- measured 2026-11-23 · furnace games -->", "not `<!-- measured: DATE"),
    ("<!-- measured: 2026-11-23 · a one-off script -->", "neither a furnace command"),
    ("<!-- measured: 2026-11-23 · furnace arena samara --no-such-flag -->", "is refused"),
    ("<!-- measured: 2026-11-23 · furnace arena samara --bots mcts:300,nobody -->",
     "bot 'nobody'"),
    ("<!-- measured: 2026-11-23 · python scripts/no_such_script.py -->", "no script"),
])
def test_a_malformed_marker_fails(marker: str, problem: str) -> None:
    problems = document_problems(f"A paragraph, 48 of 60.\n{marker}\n", "doc.md", TODAY)
    assert len(problems) == 1 and problem in problems[0], problems
    assert problems[0].startswith("doc.md:2: ")


def test_a_well_formed_marker_passes() -> None:
    for marker in (MARKER, "<!-- measured: 2026-11-30 · python scripts/gen_doc_tables.py "
                           "--check · what differed -->"):
        assert marker_problems(marker.strip(), TODAY) == []
