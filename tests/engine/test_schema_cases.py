"""Generated cases: the JSON Schema against the loader, one mutated field at a time.

For seeded positions of every game and player count (the states of a seeded random
game, :func:`tests.engine.test_state_schemas._states`), :data:`CASES` mutants each
change one field (``fuzzers.states.mutate``: a number within and beyond the bounds
met there, another word or id, another type, a field left out, list entries removed,
repeated, added, moved or swapped, two values swapped).  Then

(a) the schema never refuses a position the loader accepts;
(b) every refusal of the loader names a real field (one of the position, or a
    field of the description the position leaves out; or none: the state as a whole)
    and has a kind (``InvalidStateError.kind``, one of
    ``engine.refusals.REFUSAL_KINDS``), and every position the schema accepts and the
    loader refuses is refused for a kind a JSON Schema cannot say
    (``engine.refusals.BEYOND_SCHEMA``, listed in docs/states/README.md): a ``shape``
    refusal the schema accepts is something the schema should say.

The share of each kind among the cases the schema accepts and the loader refuses is
printed (``pytest -s``).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import registry
from engine.game import InvalidStateError
from engine.refusals import BEYOND_SCHEMA, REFUSAL_KINDS
from engine.state_schema import Object
from fuzzers.states import corpus_of, mutate
from tests.engine.test_state_schemas import _node_at, _states, _validator

ROOT = Path(__file__).resolve().parents[2]
#: Mutants per game and player count, and the positions of the seeded game they start
#: from (every ``STRIDE``-th).
CASES = 120
STRIDE = 3
SEED = 20261129


def _real_field(path: str | None, doc: Any, root: Object) -> bool:
    """Whether ``path`` names a field of ``doc``, or a field of the description there
    that ``doc`` leaves out (None: the state as a whole)."""
    if path is None:
        return True
    keys: list[str | int] = [int(k[1:-1]) if k.startswith("[") else k
                             for k in re.findall(r"\[\d+\]|[^.\[\]]+", path)]
    node = doc
    for depth, key in enumerate(keys):
        if isinstance(node, dict) and key in node or (
                isinstance(node, list) and isinstance(key, int) and key < len(node)):
            node = node[key]  # type: ignore[index]
            continue
        described = _node_at(root, tuple(keys[:depth]))
        return (depth == len(keys) - 1 and isinstance(described, Object)
                and any(p.name == key for p in described.fields))
    return True


def _load(name: str, doc: Any) -> InvalidStateError | None:
    try:
        registry.get_game(name).state_from_json(doc)
    except InvalidStateError as exc:
        return exc
    return None


@pytest.mark.parametrize("name", registry.game_names())
def test_schema_and_loader_agree_on_generated_cases(name: str) -> None:
    game = registry.get_game(name)
    validator = _validator(name)
    root = game.state_description().root
    outcomes: Counter[str] = Counter()
    beyond: Counter[str] = Counter()
    problems: list[str] = []
    for players in game.info.player_counts:
        states = _states(name, players)[::STRIDE]
        source = corpus_of(name, states)
        for index in range(CASES):
            rng = random.Random(f"{SEED}:{name}:{players}:{index}")
            doc, what = mutate(rng.choice(states), source, rng, deep=False)
            refusal = _load(name, doc)
            valid = validator.is_valid(doc)
            case = f"{name} {players}p: {what}"
            if refusal is None:
                outcomes["accepted"] += 1
                if not valid:  # (a)
                    error = next(validator.iter_errors(doc))
                    problems.append(f"{case}: the loader accepts it, the schema refuses "
                                    f"{list(error.absolute_path)}: {error.message[:160]}")
                continue
            if refusal.kind not in REFUSAL_KINDS:
                problems.append(f"{case}: a refusal without a kind: {refusal}")
            if not _real_field(refusal.path, doc, root):
                problems.append(f"{case}: the refusal names no field of the state "
                                f"({refusal.path!r}): {refusal}")
            if not valid:
                outcomes["refused by both"] += 1
                continue
            outcomes["schema accepts, loader refuses"] += 1
            beyond[str(refusal.kind)] += 1
            if refusal.kind not in BEYOND_SCHEMA:  # (b)
                problems.append(f"{case}: the schema accepts it, the loader refuses it for "
                                f"kind {refusal.kind!r}: {refusal}")
    total = sum(beyond.values())
    print(f"\n{name}: {dict(outcomes)}; schema-accepted, loader-refused by kind: "
          + ", ".join(f"{kind} {count} ({count / total:.0%})"
                      for kind, count in beyond.most_common()))
    assert not problems, "\n".join(problems[:12])
    # The cases reach both sides: enough are accepted, refused by both, and refused
    # by the loader alone for the test to be able to fail.
    cases = CASES * len(game.info.player_counts)
    assert outcomes["accepted"] >= cases // 10, outcomes
    assert outcomes["refused by both"] >= cases // 5, outcomes
    assert total >= cases // 10, outcomes


def test_the_kinds_beyond_a_schema_are_listed_in_the_reference() -> None:
    page = (ROOT / "docs" / "states" / "README.md").read_text(encoding="utf-8")
    for kind in REFUSAL_KINDS.values():
        assert f"| `{kind.name}` | {kind.text} |" in page, kind.name
