"""The kernels' shared code is written once (issue 26): what two kernels do alike lives in
an include (``ext/*.pxi``) or in the struct-level base classes those includes define, so
no run of six lines appears twice across ``ext/``."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

EXT = Path(__file__).resolve().parents[2] / "ext"
#: Lines in a row that make a repeat.
RUN = 6


def repeated_runs(sources: dict[str, str], run: int = RUN) -> list[tuple[str, int, str, int]]:
    """Places where ``run`` lines of code in a row (stripped; blank and comment lines
    are skipped, not counted) appear again: (file, line, other file, other line), the
    first line of each overlapping stretch only."""
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    starts: dict[tuple[str, int], tuple[str, int]] = {}  # a window's start -> the previous
    for name, text in sources.items():
        code = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)
                if line.strip() and not line.strip().startswith("#")]
        for i in range(len(code) - run + 1):
            seen[tuple(line for _, line in code[i:i + run])].append((name, code[i][0]))
            if i:
                starts[(name, code[i][0])] = (name, code[i - 1][0])
    found = set()
    for places in seen.values():
        for k, (a, i) in enumerate(places):
            for b, j in places[k + 1:]:
                found.add((a, i, b, j))
    # Keep the start of each stretch: a repeat one code line on is the same repeat.
    return sorted(p for p in found
                  if (*starts.get((p[0], p[1]), ("", 0)), *starts.get((p[2], p[3]), ("", 0)))
                  not in found)


def test_repeated_runs_are_found() -> None:
    body = "\n".join(f"x{i} = {i}" for i in range(7))
    runs = repeated_runs({"a.pyx": body, "b.pyx": "y = 0\n" + body})
    assert runs == [("a.pyx", 1, "b.pyx", 2)]
    assert repeated_runs({"a.pyx": body, "b.pyx": body.replace("x3", "z3")}) == []


def test_blank_and_comment_lines_neither_count_nor_hide_a_repeat() -> None:
    """Six lines of code repeated with blank lines and comments between them are a
    repeat; six lines of which two are blank are not."""
    code = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "f = 6"]
    spaced = "\n\n".join(code)
    commented = "\n# why\n".join(code)
    assert repeated_runs({"a.pyx": spaced, "b.pyx": commented}) == [("a.pyx", 1, "b.pyx", 1)]
    thin = "\n".join(code[:4]) + "\n\n\n"
    assert repeated_runs({"a.pyx": thin, "b.pyx": thin}) == []


def test_no_kernel_code_written_twice() -> None:
    sources = {p.name: p.read_text() for p in sorted(EXT.glob("*.pyx")) + sorted(EXT.glob("*.pxi"))}
    assert len(sources) > 5
    assert repeated_runs(sources) == []
