"""The defaults the docs quote are the code's: tables generated, prose checked.

Tables of defaults (strength levels, review settings) are written by
``scripts/gen_doc_tables.py`` between ``<!-- generated: ... -->`` comments; defaults
quoted in sentences are read back here and compared with the settings they name.  A
changed default then fails here until the docs say it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from types import ModuleType

import pytest

from engine.search.config import config_for
from engine.search.review_settings import REVIEW_SETTINGS
from tests.doc_helpers import ROOT, load_script

SCRIPT = ROOT / "scripts" / "gen_doc_tables.py"


def _script() -> ModuleType:
    return load_script("gen_doc_tables")


def _text(document: str) -> str:
    return " ".join((ROOT / document).read_text(encoding="utf-8").split())


def _count(text: str) -> int:
    return int(text.replace(",", ""))


WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def test_generated_tables_are_up_to_date() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_stale_or_unknown_table_is_named() -> None:
    script = _script()
    opening = ("<!-- generated: {} (scripts/gen_doc_tables.py): do not edit; run the "
               "script -->\n")
    fresh = script.TABLES["review-settings"]()
    text = opening.format("review-settings") + fresh + "<!-- end generated -->"
    assert script.regenerate(text, "doc")[1] == []
    stale = text.replace("| 4,000 |", "| 3,000 |")
    assert stale != text
    rewritten, problems = script.regenerate(stale, "doc")
    assert problems == ["doc: table 'review-settings' differs from the code"]
    assert rewritten == text
    unknown = opening.format("no-such-table") + "<!-- end generated -->"
    assert "unknown table 'no-such-table'" in script.regenerate(unknown, "doc")[1][0]


def test_every_generated_table_is_in_a_document() -> None:
    script = _script()
    found = {m.group("name") for document in script.DOCUMENTS
             for m in script.REGION.finditer((ROOT / document).read_text(encoding="utf-8"))}
    assert found == set(script.TABLES)


def test_review_budgets_and_searches_quoted_in_api_md() -> None:
    text = _text("docs/api.md")
    budgets = re.search(r"Empty: the game's review budget in iterations \(Samara and Stephens "
                        r"(?P<ss>[\d,]+), Oh My Goods! (?P<omg>[\d,]+)\)", text)
    assert budgets is not None
    assert _count(budgets["ss"]) == REVIEW_SETTINGS["samara"].budget
    assert _count(budgets["ss"]) == REVIEW_SETTINGS["stephens"].budget
    assert _count(budgets["omg"]) == REVIEW_SETTINGS["oh-my-goods"].budget
    searches = re.search(r"a decision runs one search, or (?P<usual>\w+) when the seat did not "
                         r"play the search's best move; in Samara (?P<samara>\w+), and two "
                         r"more searches of (?P<confirm>\d+) times the budget", text)
    assert searches is not None
    # One open search, then the played move and the best alone, each measured
    # ``measurements`` times; a deeper look searches both again.
    for game, word in (("oh-my-goods", searches["usual"]), ("stephens", searches["usual"]),
                       ("samara", searches["samara"])):
        assert WORDS[word] == 1 + 2 * REVIEW_SETTINGS[game].measurements, game
    assert int(searches["confirm"]) == REVIEW_SETTINGS["samara"].confirm
    assert all(REVIEW_SETTINGS[g].confirm == 1 for g in ("oh-my-goods", "stephens"))


def test_leaves_quoted_in_api_md() -> None:
    text = _text("docs/api.md")
    leaves = re.search(r"a learned value (?P<samara>\d+) random moves ahead in Samara, a "
                       r"heuristic or learned value (?P<others>\d+) moves ahead in Oh My "
                       r"Goods! and Stephens", text)
    assert leaves is not None
    samara = config_for("samara")
    assert samara.leaf_value == "learned" and samara.learned_depth == int(leaves["samara"])
    for game in ("oh-my-goods", "stephens"):
        assert config_for(game).playout_depth == int(leaves["others"]), game


def test_samara_levels_quoted_in_strength_md() -> None:
    text = _text("docs/strength.md")
    quoted = re.search(r"the default table's levels 1-3, and (?P<four>[\d,]+) and "
                       r"(?P<five>[\d,]+) iterations at levels 4 and 5", text)
    assert quoted is not None
    levels = config_for("samara").levels
    default = config_for("no-such-game").levels
    assert levels[:3] == default[:3]
    assert (levels[3].iterations, levels[4].iterations) == (_count(quoted["four"]),
                                                            _count(quoted["five"]))


@pytest.mark.parametrize("number, expected", [("1,000", 1000), ("24,000", 24000)])
def test_counts_read_with_thousands_separators(number: str, expected: int) -> None:
    assert _count(number) == expected
