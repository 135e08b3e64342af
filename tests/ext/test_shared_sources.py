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
    """Places where ``run`` lines in a row (stripped; at least ``run - 1`` of them code,
    not blank or comment) appear again: (file, line, other file, other line), the first
    line of each overlapping stretch only."""
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, text in sources.items():
        lines = [line.strip() for line in text.splitlines()]
        for i in range(len(lines) - run + 1):
            window = tuple(lines[i:i + run])
            if sum(1 for line in window if line and not line.startswith("#")) >= run - 1:
                seen[window].append((name, i + 1))
    found = set()
    for places in seen.values():
        for k, (a, i) in enumerate(places):
            for b, j in places[k + 1:]:
                found.add((a, i, b, j))
    # Keep the start of each stretch: a repeat one line on is the same repeat.
    return sorted(p for p in found if (p[0], p[1] - 1, p[2], p[3] - 1) not in found)


def test_repeated_runs_are_found() -> None:
    body = "\n".join(f"x{i} = {i}" for i in range(7))
    runs = repeated_runs({"a.pyx": body, "b.pyx": "y = 0\n" + body})
    assert runs == [("a.pyx", 1, "b.pyx", 2)]
    assert repeated_runs({"a.pyx": body, "b.pyx": body.replace("x3", "z3")}) == []


def test_no_kernel_code_written_twice() -> None:
    sources = {p.name: p.read_text() for p in sorted(EXT.glob("*.pyx")) + sorted(EXT.glob("*.pxi"))}
    assert len(sources) > 5
    assert repeated_runs(sources) == []
