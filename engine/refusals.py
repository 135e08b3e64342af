"""The kinds of fact a state loader refuses a position for (``InvalidStateError.kind``).

Every refusal of a game's loader (``Game.state_from_json``) names the field at fault
and the kind of fact the position breaks: :data:`SHAPE`, what the game's JSON Schema
says too (``engine.state_schema``: a JSON type, a field, a static bound, a list size,
a seat beyond the player count, a card of the wrong deck), or one of the kinds a JSON
Schema cannot say, which only the loader checks.  This table is the one list: the
reference (``docs/states/README.md``, written by ``scripts/gen_state_docs.py``) prints
it, and ``tests/engine/test_schema_cases.py`` proves that every position the schema
accepts and the loader refuses is refused for a kind of :data:`BEYOND_SCHEMA`.

>>> REFUSAL_KINDS[SHAPE].beyond_schema, REFUSAL_KINDS[ONE_PLACE].beyond_schema
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RefusalKind:
    """A kind of refusal: its name (``InvalidStateError.kind``), what it covers, whether
    a JSON Schema cannot say it (only the loader checks it)."""

    name: str
    text: str
    beyond_schema: bool


SHAPE = "shape"
ONE_PLACE = "one-place"
TOTALS = "totals"
PLACEMENT = "placement"
BOUND = "bound"
ORDER = "order"
PHASE = "phase"
DECISIONS = "decisions"
HISTORY = "history"

#: Every kind, by name, in the order the reference lists them.
REFUSAL_KINDS: dict[str, RefusalKind] = {k.name: k for k in (
    RefusalKind(SHAPE, "a JSON type, a required or unknown field, a number outside its "
                       "bounds, a word or catalogue id outside its vocabulary, a list of the "
                       "wrong size, a seat beyond the player count: what the JSON Schema "
                       "says too", False),
    RefusalKind(ONE_PLACE, "a component (card, tile, assistant, Automa card, a seat's "
                           "Charburner or Worker) listed in two places, or in none: every "
                           "component of the game is in exactly one place, which no schema "
                           "of one field can see", True),
    RefusalKind(TOTALS, "pieces counted across the position do not add up: pawns and tools "
                        "of the game, assistants in play, workers on cards against the disks "
                        "off a player board", True),
    RefusalKind(PLACEMENT, "a component where the rules cannot put it, given what else is "
                           "there: goods on a building that makes none, a worker or assistant "
                           "in a building that is not a free production building (an idle "
                           "worker while one is free), tools given "
                           "to a spot that still holds its tile, an apprentice on a card "
                           "without the space or of the master's colour, the placement rule "
                           "of the board", True),
    RefusalKind(BOUND, "a number or a list size bounded by other fields: a building "
                       "number past the seat's buildings, the goods lists one per building, "
                       "influence above the cap the disks left on the board give, a month "
                       "outside the time track, the hand sizes a round began with, the "
                       "buildings a seat may hold before the last round, a worker's pawns "
                       "of its gender, a glass of the second kind without one of the first",
              True),
    RefusalKind(ORDER, "an order among a list's entries the rules fix: the months of the "
                       "time track increasing, shown goods in catalogue order, abilities "
                       "unlocked after those they require", True),
    RefusalKind(PHASE, "fields that must agree with the phase, the step or whose turn it "
                       "is: each seat's phase II choices, phase IV's step and the fields it "
                       "uses, a payment's purpose and amount, the market in each phase, the "
                       "announced last round, the end of the game", True),
    RefusalKind(DECISIONS, "pending decisions the rules could not have queued: Samara's "
                           "decisions of one power just used, Stephens' decision stack (its "
                           "frames, their order, seats and contexts) against the position", True),
    RefusalKind(HISTORY, "other facts of how play reached the position: a lasting power "
                         "without its building (or missing, or in a game without powers), a "
                         "seat without a woman worker, a draw pile after a reshuffle holding "
                         "other cards, an ability the solo opponent card took away", True),
)}

#: The kinds only the loader checks.
BEYOND_SCHEMA = tuple(name for name, kind in REFUSAL_KINDS.items() if kind.beyond_schema)


def kinds_table() -> str:
    """The markdown table of the kinds, for the reference."""
    lines = ["| kind | what the position breaks | in the JSON Schema |", "| --- | --- | --- |"]
    for kind in REFUSAL_KINDS.values():
        lines.append(f"| `{kind.name}` | {kind.text} | "
                     f"{'no: the loader alone' if kind.beyond_schema else 'yes'} |")
    return "\n".join(lines)
