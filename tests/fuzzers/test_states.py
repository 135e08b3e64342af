"""Mutated states: the loader rejects them, or the engine plays them safely.

States reach ``Game.state_from_json`` from untrusted clients (the gRPC server, saved
games).  For every registered game (:func:`engine.registry.game_names`), valid states
of seeded random games of every player count and option combination are mutated
one field at a time (boundary, out-of-range, wrong-type and inconsistent values,
entries removed, repeated, moved or swapped between places) by :mod:`fuzzers.states`,
and each mutated state must be

* rejected with :class:`~engine.game.InvalidStateError` raised by a check of the
  loader (not a ``KeyError``/``TypeError`` it tripped over), or
* accepted, and then play safely: it reloads from its own JSON, ``determinize``
  works for every seat and the host, and the reference state and its kernel twin
  (``search_state()``, when the kernel is built) agree on legal moves, JSON, scores,
  determinizations, playouts and illegal moves, move for move through a random game
  to the end, without raising anything.

CI runs a fixed budget on both engine paths; ``furnace fuzz-states GAME --states N``
runs long ones.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal

import pytest

from engine import registry
from engine.game import InvalidStateError
from engine.samara import GAME as SAMARA
from engine.samara.rules import SamaraGame
from engine.samara.state import Decision
from fuzzers import states as fuzz

#: Mutated states per game and test case, and test cases per game (xdist spreads them):
#: 400 a game in the suite; ``furnace fuzz-states GAME --states N`` runs long ones.
STATES = 100
PARTS = 4
SEED = 20261122


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("name", registry.game_names())
def test_mutated_states_are_rejected_or_played_safely(name: str, part: int) -> None:
    report = fuzz.fuzz(name, STATES, SEED, workers=0, first=part * STATES)
    assert report["problems"] == 0, json.dumps(report, indent=1)
    assert report["rejected"] + report["accepted"] == STATES
    # the budget is spent on both sides of the loader
    assert report["accepted"] >= STATES // 20, report
    assert report["rejected"] >= STATES // 4, report


# -- the mutation engine ---------------------------------------------------------------

def test_paths_and_fields() -> None:
    data = {"a": [{"b": 1}, {"b": [2, 3]}], "c": None}
    paths = [path for path, _ in fuzz.walk(data)]
    assert ("a", 1, "b", 0) in paths and ("c",) in paths and () not in paths
    assert fuzz.path_text(("a", 1, "b", 0)) == "a[1].b[0]"
    assert fuzz.pattern(("a", 1, "b", 0)) == "a[].b[]"


@pytest.mark.parametrize("name", registry.game_names())
def test_mutations_are_reproducible(name: str) -> None:
    """State ``index`` of a run is the same mutation wherever and whenever it is made."""
    made = [fuzz.mutated_state(name, SEED, index)[1] for index in range(30)]
    random.seed(0)
    assert [fuzz.mutated_state(name, SEED, index)[1] for index in reversed(range(30))] \
        == made[::-1]
    for mutation in made:
        field, _, what = mutation.partition(": ")
        assert field and what
    source = fuzz.corpus(name, SEED)
    assert len(source.states) > 20 and source.moves
    # every player count of the game has states to mutate
    assert {doc["num_players"] for doc in source.states} \
        == set(registry.get_game(name).info.player_counts)


class _UncheckedSamara(SamaraGame):
    """Samara with a loader that takes pending decisions as they come and trips over a
    missing field, as the loader once did."""

    def state_from_json(self, data):  # type: ignore[no-untyped-def]
        if "month" not in data:
            raise KeyError("month")
        state = SAMARA.state_from_json({**data, "pending": []})
        labels = [s.label for s in state.catalogue.spots]
        state.pending = [Decision(**{**d, "spot": labels.index(d["spot"])})
                         for d in data.get("pending") or []]
        return state


def test_the_check_finds_what_a_loader_lets_through() -> None:
    """An accepted state without a legal move, or a loader raising anything but
    InvalidStateError, is a problem; the real loader rejects both, naming the field."""
    game = _UncheckedSamara()
    data = SAMARA.new_game(3, 2).to_json()
    assert fuzz.check(game, data, 1) == (fuzz.ACCEPTED, "")
    # P1 must give up a saw, and holds none: the game cannot go on
    stuck = {**data, "pending": [{"kind": "give", "player": 0, "target": 0, "spot": "r1c1",
                                  "count": 1, "only": "saw"}]}
    verdict, message = fuzz.check(game, stuck, 1)
    assert verdict in (fuzz.EXCEPTION, fuzz.DISAGREEMENT), message
    no_month = {k: v for k, v in data.items() if k != "month"}
    verdict, message = fuzz.check(game, no_month, 1)
    assert verdict == fuzz.EXCEPTION and "KeyError" in message
    verdict, message = fuzz.check(SAMARA, stuck, 1)
    assert verdict == fuzz.REJECTED and message.startswith("pending[0].spot"), message
    with pytest.raises(InvalidStateError, match="^month: missing"):
        SAMARA.state_from_json(no_month)


def test_a_rejection_the_loader_tripped_into_is_reported() -> None:
    class Tripping(SamaraGame):
        def state_from_json(self, data):  # type: ignore[no-untyped-def]
            try:
                return data["nothing"]
            except KeyError as exc:
                raise InvalidStateError("corrupt") from exc

    verdict, _ = fuzz.check(Tripping(), SAMARA.new_game(1, 2).to_json(), 1)
    assert verdict == fuzz.UNEXPLAINED


def _dies_on_state_3(game, data, seed, moves=()):  # type: ignore[no-untyped-def]
    if seed == SEED + 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as a segmentation fault would
    return fuzz.ACCEPTED, ""


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the patched check reaches worker processes by fork")
def test_a_crashing_state_is_pinned_down_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes turn a hard crash into a finding that names the state."""
    monkeypatch.setattr(fuzz, "check", _dies_on_state_3)
    monkeypatch.setattr(fuzz, "CHUNK", 4)
    report = fuzz.fuzz("samara", 10, SEED, workers=2)
    assert report["crashes"] == 1 and report["accepted"] == 9, report
    assert report["examples"][0].startswith("state 3 (") and "died" in report["examples"][0]


def test_a_cluster_is_joined_once_however_many_workers_die(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster outlives a dead worker (only its task fails): the run keeps it, where a
    pool of processes, broken by the death, is opened again for the states left.  Each
    round used to join (with ``--cluster local``: start) a Ray of its own."""
    opened: list[str | None] = []

    class Batch:
        """Runs jobs here; a chunk holding state 3 is lost, as a task whose worker died."""

        def __init__(self, cluster: str | None) -> None:
            opened.append(cluster)

        def __enter__(self) -> Batch:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def run(self, fn, jobs, on_lost=None):  # type: ignore[no-untyped-def]
            for i, job in enumerate(jobs):
                if 3 in job[2]:
                    on_lost(i)
                else:
                    yield i, fn(*job)

    monkeypatch.setattr(fuzz, "check", lambda *args, **kwargs: (fuzz.ACCEPTED, ""))
    monkeypatch.setattr(fuzz, "CHUNK", 4)
    monkeypatch.setattr(fuzz, "open_batch",
                        lambda workers, cluster, start_method=None: Batch(cluster))
    report = fuzz.fuzz("samara", 10, SEED, workers=2, cluster="local")
    assert report["crashes"] == 1 and report["accepted"] == 9, report
    assert opened == ["local"]
    opened.clear()
    report = fuzz.fuzz("samara", 10, SEED, workers=2)
    assert report["crashes"] == 1 and report["accepted"] == 9, report
    # The first round, the halves of the lost chunk, then each half of the half that
    # held state 3, the last one alone.
    assert opened == [None] * 4


def test_the_report_orders_ties_by_name_not_by_finishing_order() -> None:
    """With workers, fields that refused as many states came out in the order the
    workers finished, and the cut at 15 kept different ones from run to run."""
    from fuzzers.states import top_fields

    counts = {f"field{i}": 1 for i in range(20)} | {"z": 3, "a": 3}
    shuffled = dict(reversed(list(counts.items())))
    assert top_fields(counts) == top_fields(shuffled)
    assert list(top_fields(counts))[:3] == ["a", "z", "field0"]
