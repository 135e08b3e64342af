"""Mutation fuzzing of saved states: whatever a loader accepts, the engine can play.

States reach ``Game.state_from_json`` from untrusted clients.  The property checked
here holds for every registered game: a mutated state is either rejected with
:class:`~engine.game.InvalidStateError`, or it is accepted and then

* it serializes to JSON the loader accepts again, unchanged;
* ``determinize`` works for every seat and for the host (``None``), keeps that
  observer's view, and deals states the loader accepts;
* its kernel twin (``search_state()``, when the kernel is built) is the same
  position: the same legal moves, JSON, heuristic, scores, determinizations and
  playouts, and illegal moves are refused by both;
* a random game from it reaches the end move for move on both engines, every
  position on the way has a legal move, and the loader accepts them (one in
  :data:`RELOAD_EVERY` is reloaded).

The mutations start from valid states of seeded random games (every player count
and option combination).  One node of the JSON, found by walking it, is set to a
boundary, out-of-range, wrong-type or inconsistent value (-1, 0, the largest value
seen there plus one, huge integers, another type, a value from another place or
another game); a list loses, repeats or gains an entry (from another list, or moved
out of it); or two values swap places (cards between a hand and the deck).  Each
mutated state is reproducible from ``(seed, index)``.

:func:`fuzz` runs a budget of them, optionally in worker processes so that a hard
crash (a segmentation fault in a kernel) is caught and pinned to its state;
``furnace fuzz-states GAME --states N --seed S`` is its command line and
``tests/fuzzers/test_states.py`` runs a small fixed budget.

>>> report = fuzz("samara", states=3, seed=1, workers=0)
>>> report["states"], report["rejected"] + report["accepted"] + report["problems"]
(3, 3)
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from checks.kernel import (
    _compare,
    _compare_determinize,
    _compare_rollout,
    game_options,
    kernel_player_counts,
)
from engine import registry
from engine.batch import Batch, open_batch
from engine.game import CHANCE, FurnaceError, Game, IllegalMoveError, InvalidStateError, State
from engine.validation import short_repr as short

JsonPath = tuple[str | int, ...]
Progress = Callable[[int, int], None]

#: Seeded random games per setup (player count x option combination) of the corpus,
#: and positions kept from each at random, and as many of kinds not met before
#: (besides its first and its last).
CORPUS_GAMES = 3
CORPUS_POSITIONS = 10
#: A random game from an accepted state longer than this is reported.
MAX_STEPS = 20_000
#: During that game: the whole state (JSON, heuristic) is compared this often, and
#: a position is reloaded through the loader this often.
COMPARE_EVERY = 8
RELOAD_EVERY = 25
#: Move numbers probed with ``why_illegal``/``apply`` on each accepted state.
PROBES = 12
#: Problems described in a report (the counts cover all of them).
MAX_EXAMPLES = 8
#: States per task of a worker process.
CHUNK = 25

BOUNDARY_INTS = (-1, 0, 1, 2, 5, 12, 63, 64, 127, 128, 255, 256, 1023, 1024, 2**31 - 1, 2**31,
                 2**63, 2**64, -(2**63) - 1, 10**30)
WRONG_TYPES: tuple[Any, ...] = (None, True, False, 1.5, "", "x", [], {})
DEEP = 20_000  # nesting depth of the "deeply nested" value

# -- walking the JSON -------------------------------------------------------------------

def path_text(path: JsonPath) -> str:
    """``("players", 0, "goods")`` -> ``players[0].goods``."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text or "(root)"


def pattern(path: JsonPath) -> str:
    """The field a path names, list positions left out: ``players[].goods[]``."""
    text = ""
    for key in path:
        text += "[]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text or "(root)"


def walk(data: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, Any]]:
    """Every node below ``data`` (not ``data`` itself) with its path, parents first."""
    if isinstance(data, dict):
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        yield (*path, key), value
        yield from walk(value, (*path, key))


def _get(data: Any, path: JsonPath) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: JsonPath, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


# -- the corpus: valid states to mutate ------------------------------------------------------

@dataclass(frozen=True)
class Corpus:
    """Valid states of one game, and what was seen at each field across them."""

    game: str
    states: tuple[dict[str, Any], ...]
    moves: tuple[int, ...]  # every legal move met, for probing why_illegal
    values: dict[str, tuple[Any, ...]] = field(repr=False)  # per pattern, a sample
    largest: dict[str, int] = field(repr=False)  # per pattern, the largest integer


def _setups(game: Game) -> list[tuple[int, dict[str, Any]]]:
    counts = game.info.player_counts
    flags = sum(isinstance(o.default, bool) for o in game.info.options)
    return [(counts[i % len(counts)], game_options(game, i))
            for i in range(len(counts) << flags)]


def _flatten(doc: Any) -> list[tuple[JsonPath, Any]]:
    """The nodes below ``doc`` with their paths, in no particular order, but for the
    plain values inside lists (cards in a pile say nothing of the kind of position)."""
    out: list[tuple[JsonPath, Any]] = []
    stack: list[tuple[JsonPath, Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                out.append(((*path, key), value))
                if isinstance(value, (dict, list)):
                    stack.append(((*path, key), value))
        else:
            for i, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    out.append(((*path, i), value))
                    stack.append(((*path, i), value))
    return out


def _signature(nodes: list[tuple[JsonPath, Any]], enums: set[JsonPath]) -> frozenset[Any]:
    """What kind of position a state is (``nodes``: :func:`_flatten`'s): the fields
    present near the top (a pending payment, a decision...) and the values of
    enumeration-like fields (a phase, a step, a decision's kind...)."""
    found: set[Any] = set()
    for path, value in nodes:
        if path in enums:
            found.add((_pattern(path), value))
        elif (key := _near_top(path)) is not None:
            found.add(key)
    return frozenset(found)


@cache
def _near_top(path: JsonPath) -> str | None:
    """The field of ``path`` if it is a field (not a list entry) at most one list down."""
    if isinstance(path[-1], str) and sum(isinstance(k, int) for k in path) <= 1:
        return pattern(path)
    return None


def _enums(docs: list[list[tuple[JsonPath, Any]]]) -> set[JsonPath]:
    """Places whose value is a string that changes during the game, of a field with at
    most 6 values in all (a phase, not a card)."""
    values: dict[JsonPath, set[Any]] = {}
    fields: dict[str, set[Any]] = {}
    for nodes in docs:
        for path, value in nodes:
            if isinstance(value, str):
                values.setdefault(path, set()).add(value)
                fields.setdefault(_pattern(path), set()).add(value)
    return {path for path, seen in values.items()
            if len(seen) >= 2 and len(fields[_pattern(path)]) <= 6}


_pattern = cache(pattern)


@cache
def corpus(name: str, seed: int, players: int | None = None) -> Corpus:
    """Positions of seeded random games of every setup (of ``players`` only, if given):
    the first and the last of each game, :data:`CORPUS_POSITIONS` of kinds
    (:func:`_signature`, of every other ply) not met before, and as many more at
    random plies."""
    game = registry.get_game(name)
    states: list[dict[str, Any]] = []
    moves: set[int] = set()
    kinds: set[frozenset[Any]] = set()
    for index, (count, options) in enumerate(_setups(game)):
        if players is not None and count != players:
            continue
        for g in range(CORPUS_GAMES):
            game_seed = seed * 7919 + index * 101 + g
            rng = random.Random(game_seed)
            state = game.new_game(game_seed, count, options)
            history = [state.to_json()]
            while not state.is_terminal() and len(history) < MAX_STEPS:
                legal = state.legal_moves()
                moves.update(legal)
                state.apply(rng.choice(legal))
                history.append(state.to_json())
            flat = {i: _flatten(history[i]) for i in range(0, len(history), 2)}
            enums = _enums(list(flat.values()))
            new: list[int] = []
            for i, nodes in flat.items():
                kind = _signature(nodes, enums)
                if kind not in kinds:
                    kinds.add(kind)
                    new.append(i)
            keep = {0, len(history) - 1, *rng.sample(new, min(CORPUS_POSITIONS, len(new)))}
            keep.update(rng.sample(range(len(history)), min(CORPUS_POSITIONS, len(history))))
            states += [history[i] for i in sorted(keep)]
    if not states:
        raise FurnaceError(f"{game.info.title} has no setup with {players} players")
    return corpus_of(name, states, moves)


def corpus_of(name: str, states: Iterable[dict[str, Any]], moves: Iterable[int] = ()
              ) -> Corpus:
    """The corpus of the valid ``states`` of game ``name`` (and the legal ``moves`` met
    in them): a sample of the values and the largest integer seen at each field."""
    states = list(states)
    values: dict[str, list[Any]] = {}
    largest: dict[str, int] = {}
    for doc in states:
        for path, value in walk(doc):
            key = pattern(path)
            seen = values.setdefault(key, [])
            if len(seen) < 24 and value not in seen:
                seen.append(value)
            if isinstance(value, int) and not isinstance(value, bool):
                largest[key] = max(largest.get(key, value), value)
    return Corpus(name, tuple(states), tuple(sorted(set(moves))),
                  {k: tuple(v) for k, v in values.items()}, largest)


# -- mutations -------------------------------------------------------------------------------

@dataclass
class _Target:
    data: Any
    path: JsonPath
    value: Any
    corpus: Corpus
    rng: random.Random

    @property
    def key(self) -> str:
        return pattern(self.path)

    def others(self, kind: type, alike: bool = True) -> list[JsonPath]:
        """Paths of other nodes of type ``kind`` (not inside or around this one).

        With ``alike``, usually only those of the same field (or with the same last
        key: a saw on a spot and on a foreman board), when there are any: moving a
        card between hands keeps more states valid than moving it into a month.
        """
        n = len(self.path)
        found = [p for p, v in walk(self.data)
                 if type(v) is kind and p != self.path and p[:n] != self.path
                 and self.path[:len(p)] != p]
        if alike and self.rng.random() < 0.7:
            same = [p for p in found if pattern(p) == self.key or p[-1] == self.path[-1]]
            return same or found
        return found


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _op_int_boundary(t: _Target) -> str | None:
    if not _is_int(t.value):
        return None
    top = t.corpus.largest.get(t.key, t.value)
    new = t.rng.choice((*BOUNDARY_INTS, t.value - 1, t.value + 1, top + 1, top + 2, -t.value))
    _set(t.data, t.path, new)
    return f"set to {new}"


def _op_int_near(t: _Target) -> str | None:
    if not _is_int(t.value):
        return None
    top = max(t.corpus.largest.get(t.key, 0), t.value, 12)
    new = t.rng.randint(-2, top + 2)
    _set(t.data, t.path, new)
    return f"set to {new}"


def _op_wrong_type(t: _Target) -> str | None:
    choices = [v for v in WRONG_TYPES if type(v) is not type(t.value)]
    choices += [[t.value], {"value": t.value}, 0 if isinstance(t.value, str) else str(t.value)]
    new = t.rng.choice(choices)
    _set(t.data, t.path, new)
    return f"set to {short(new)}"


def _op_int_transfer(t: _Target) -> str | None:
    if not _is_int(t.value):
        return None
    others = [p for p in t.others(int, alike=False) if p[-1] == t.path[-1]]
    if not others:
        return None
    other = t.rng.choice(others)
    step = t.rng.choice((1, -1))
    _set(t.data, t.path, t.value - step)
    _set(t.data, other, _get(t.data, other) + step)
    return f"{-step:+d}, and {step:+d} at {path_text(other)}"


def _op_other_string(t: _Target) -> str | None:
    if not isinstance(t.value, str):
        return None
    seen = [v for v in t.corpus.values.get(t.key, ()) if isinstance(v, str)]
    seen += [v for _, v in walk(t.data) if isinstance(v, str)]
    new = t.rng.choice(seen + ["", "x" * 500, t.value + "-x", t.value.upper()])
    _set(t.data, t.path, new)
    return f"set to {short(new)}"


def _op_transplant(t: _Target) -> str | None:
    seen = [v for v in t.corpus.values.get(t.key, ()) if v != t.value]
    if not seen:
        return None
    new = copy.deepcopy(t.rng.choice(seen))
    _set(t.data, t.path, new)
    return f"set to {short(new)} (from another state)"


def _op_delete(t: _Target) -> str | None:
    if not isinstance(t.path[-1], str):
        return None
    del _get(t.data, t.path[:-1])[t.path[-1]]
    return "removed"


def _op_deep(t: _Target) -> str | None:
    if t.rng.random() > 0.2:  # rare: one kind of value, cheap to reject
        return None
    deep: list[Any] = []
    for _ in range(DEEP):
        deep = [deep]
    _set(t.data, t.path, deep)
    return f"set to a list nested {DEEP} deep"


def _op_list_remove(t: _Target) -> str | None:
    if not isinstance(t.value, list) or not t.value:
        return None
    i = t.rng.randrange(len(t.value))
    gone = t.value.pop(i)
    return f"entry {i} ({short(gone)}) removed"


def _op_list_duplicate(t: _Target) -> str | None:
    if not isinstance(t.value, list) or not t.value:
        return None
    item = copy.deepcopy(t.rng.choice(t.value))
    t.value.insert(t.rng.randrange(len(t.value) + 1), item)
    return f"{short(item)} repeated"


def _other_list(t: _Target) -> JsonPath | None:
    """A non-empty list elsewhere in the state, drawn with ``t.rng``, for a list target;
    None when the target is no list or there is no other."""
    if not isinstance(t.value, list):
        return None
    sources = [p for p in t.others(list) if _get(t.data, p)]
    return t.rng.choice(sources) if sources else None


def _op_list_foreign(t: _Target) -> str | None:
    source = _other_list(t)
    if source is None:
        return None
    item = copy.deepcopy(t.rng.choice(_get(t.data, source)))
    t.value.insert(t.rng.randrange(len(t.value) + 1), item)
    return f"gains {short(item)} copied from {path_text(source)}"


def _op_list_move_in(t: _Target) -> str | None:
    source = _other_list(t)
    if source is None:
        return None
    items = _get(t.data, source)
    item = items.pop(t.rng.randrange(len(items)))
    t.value.insert(t.rng.randrange(len(t.value) + 1), item)
    return f"gains {short(item)} moved from {path_text(source)}"


def _op_list_reorder(t: _Target) -> str | None:
    if not isinstance(t.value, list) or len(t.value) < 2:
        return None
    i, j = t.rng.sample(range(len(t.value)), 2)
    t.value[i], t.value[j] = t.value[j], t.value[i]
    return f"entries {i} and {j} swapped"


def _op_list_append_value(t: _Target) -> str | None:
    if not isinstance(t.value, list):
        return None
    top = t.corpus.largest.get(f"{t.key}[]", 0)
    new: Any = t.rng.choice((-1, 0, 1, top + 1, 2**64, None, "x", [], {}))
    t.value.append(new)
    return f"gains {short(new)}"


def _op_swap(t: _Target) -> str | None:
    if isinstance(t.value, (list, dict)):
        return None
    others = [p for p in t.others(type(t.value)) if _get(t.data, p) != t.value]
    if not others:
        return None
    other = t.rng.choice(others)
    mine, theirs = t.value, _get(t.data, other)
    _set(t.data, t.path, theirs)
    _set(t.data, other, mine)
    return f"swapped with {path_text(other)} ({short(mine)} <-> {short(theirs)})"


#: The operators and their weights: the plausible ones (a value from elsewhere, a
#: neighbouring number, an entry moved between lists) are drawn more often, so that
#: enough mutated states pass the loader for the checks after it to matter.
OPERATORS: tuple[tuple[Callable[[_Target], str | None], int], ...] = (
    (_op_int_boundary, 2), (_op_int_near, 3), (_op_int_transfer, 3), (_op_wrong_type, 1),
    (_op_other_string, 2), (_op_transplant, 3), (_op_delete, 1), (_op_deep, 1),
    (_op_list_remove, 1), (_op_list_duplicate, 1), (_op_list_foreign, 1),
    (_op_list_move_in, 3), (_op_list_reorder, 2), (_op_list_append_value, 1), (_op_swap, 4),
)


def mutate(doc: dict[str, Any], source: Corpus, rng: random.Random,
           deep: bool = True) -> tuple[Any, str]:
    """A copy of ``doc`` with one mutation, and its description.

    The field is picked uniformly among the fields (list positions aside) present
    in ``doc``, then one node of that field, then an operator that applies to it.
    Without ``deep``, no value is nested :data:`DEEP` levels (``json.dumps`` refuses
    one: for a caller that sends the state as JSON text).
    """
    operators = [(op, w) for op, w in OPERATORS if deep or op is not _op_deep]
    data = copy.deepcopy(doc)
    by_field: dict[str, list[JsonPath]] = {}
    for path, _ in walk(data):
        by_field.setdefault(pattern(path), []).append(path)
    while True:
        path = rng.choice(by_field[rng.choice(sorted(by_field))])
        target = _Target(data, path, _get(data, path), source, rng)
        operator = rng.choices([op for op, _ in operators], [w for _, w in operators])[0]
        done = operator(target)
        if done is not None:
            return data, f"{path_text(path)}: {done}"


def mutated_state(name: str, seed: int, index: int,
                  players: int | None = None) -> tuple[Any, str]:
    """Mutated state number ``index`` of the run ``seed`` (reproducible anywhere)."""
    source = corpus(name, seed, players)
    rng = random.Random(f"{name}:{seed}:{index}")
    return mutate(rng.choice(source.states), source, rng)


# -- the check ------------------------------------------------------------------------------------

#: Verdicts of :func:`check`: the first two are fine, the others problems.
REJECTED, ACCEPTED = "rejected", "accepted"
UNEXPLAINED, EXCEPTION, DISAGREEMENT, CRASH = "unexplained", "exception", "disagreement", "crash"
PROBLEMS = (UNEXPLAINED, EXCEPTION, DISAGREEMENT, CRASH)


class _Problem(Exception):
    """A property of an accepted state that does not hold."""


def _unexplained(exc: InvalidStateError) -> bool:
    """Whether a rejection came from the loader tripping on the data (a KeyError, a
    TypeError... turned into InvalidStateError) rather than from a check."""
    cause = exc.__cause__
    return cause is not None and not isinstance(cause, FurnaceError)


def check(game: Game, data: Any, seed: int, moves: tuple[int, ...] = ()) -> tuple[str, str]:
    """Load ``data`` and, if the loader accepts it, prove the state safe.

    Returns ``(verdict, message)``: :data:`REJECTED` with the loader's message,
    :data:`ACCEPTED`, or a problem: :data:`UNEXPLAINED` (rejected, but by an
    exception the loader did not raise on purpose), :data:`EXCEPTION` (anything
    raised other than a rejection) or :data:`DISAGREEMENT` (a property that does not
    hold: kernel and reference differ, a reached position the loader rejects...).
    ``moves`` are move numbers to probe ``why_illegal`` and ``apply`` with.
    """
    try:
        state = game.state_from_json(data)
    except InvalidStateError as exc:
        if _unexplained(exc):
            return UNEXPLAINED, f"{exc} (from {type(exc.__cause__).__name__})"
        return REJECTED, str(exc)
    except RecursionError:
        return EXCEPTION, "state_from_json raised RecursionError"
    except Exception as exc:
        return EXCEPTION, f"state_from_json raised {type(exc).__name__}: {exc}"
    try:
        _exercise(game, state, seed, moves)
    except _Problem as exc:
        return DISAGREEMENT, str(exc)
    except Exception as exc:
        return EXCEPTION, f"{type(exc).__name__}: {exc}"
    return ACCEPTED, ""


def _reload(game: Game, state: State, what: str) -> State:
    data = json.loads(json.dumps(state.to_json()))
    try:
        again = game.state_from_json(data)
    except InvalidStateError as exc:
        raise _Problem(f"the loader rejects {what}: {exc}") from None
    if again.to_json() != data:
        raise _Problem(f"{what} does not load back to the same JSON")
    return again


def _expect(problem: str | None) -> None:
    if problem is not None:
        raise _Problem(problem)


def _exercise(game: Game, state: State, seed: int, moves: tuple[int, ...]) -> None:
    _reload(game, state, "the accepted state's own JSON")
    observers: list[int | None] = [None, *range(state.num_players)]
    twin: State | None = None
    if game.kernel_available():
        twin = state.search_state()
        if twin is state:
            if state.num_players in kernel_player_counts(game):
                raise _Problem("the kernel refused a state the loader accepted "
                               "(search_state() fell back to the reference)")
            twin = None  # a player count the kernel leaves to the reference (solo)
    if twin is not None:
        _expect(_compare(state, twin))
        _expect(_compare_rollout(state, twin, seed))
    else:
        state.clone().rollout(seed)
    for k, observer in enumerate(observers):
        view = state.observation(observer)
        dealt = state.determinize(observer, random.Random(seed + k))
        if dealt.observation(observer) != view:
            raise _Problem(f"determinize({observer}) changes what that observer sees")
        if not (dealt.is_terminal() or dealt.legal_moves()):
            raise _Problem(f"determinize({observer}) deals a position without a legal move")
        _reload(game, dealt, f"determinize({observer})'s state")
        if twin is not None:
            _expect(_compare_determinize(state, twin, observer, seed + k))
    _probe(state, twin, moves, seed)
    _play_out(game, state, twin, seed)


def _probe(state: State, twin: State | None, moves: tuple[int, ...], seed: int) -> None:
    """Moves that are not legal are explained and refused, by both engines alike."""
    rng = random.Random(seed)
    legal = set(state.legal_moves())
    probes = rng.sample(moves, min(PROBES, len(moves))) + [-1, 1 << 40]
    for move in probes:
        reason = state.why_illegal(move)
        if (reason is None) != (move in legal):
            raise _Problem(f"why_illegal({move}) is {reason!r}, legal moves disagree")
        if twin is not None and (twin.why_illegal(move) is None) != (reason is None):
            raise _Problem(f"why_illegal({move}): the kernel says {twin.why_illegal(move)!r}, "
                           f"the reference {reason!r}")
        if reason is None:
            continue
        for engine in (state, twin) if twin is not None else (state,):
            try:
                engine.clone().apply(move)
            except IllegalMoveError:
                continue
            raise _Problem(f"apply({move}) accepted a move why_illegal refuses: {reason}")


def _play_out(game: Game, state: State, twin: State | None, seed: int) -> None:
    """A random game to the end, move for move on both engines."""
    rng = random.Random(seed)
    state = state.clone()
    step = 0
    while not state.is_terminal():
        if step >= MAX_STEPS:
            raise _Problem(f"not over after {MAX_STEPS} moves")
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            move = rng.choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            legal = state.legal_moves()
            if not legal:
                raise _Problem(f"move {step}: no legal move in a game that is not over")
            if twin is not None and twin.legal_moves() != legal:
                _expect(_compare(state, twin))
            move = rng.choice(legal)
        state.apply(move)
        if twin is not None:
            twin.apply(move)
            if step % COMPARE_EVERY == 0:
                _expect(_compare(state, twin))
        if step % RELOAD_EVERY == 0:
            _reload(game, state, f"the position after move {step}")
        step += 1
    state.outcome()
    if twin is not None:
        _expect(_compare(state, twin))
        if twin.outcome() != state.outcome():
            raise _Problem(f"outcome: {state.outcome()} vs {twin.outcome()}")


# -- runs -----------------------------------------------------------------------------------------

def run_states(name: str, seed: int, indices: list[int],
               players: int | None = None) -> list[tuple[int, str, str, str]]:
    """Check mutated states ``indices`` of a run: ``(index, verdict, mutation, message)``."""
    game = registry.get_game(name)
    source = corpus(name, seed, players)
    results = []
    for index in indices:
        data, mutation = mutated_state(name, seed, index, players)
        verdict, message = check(game, data, seed + index, source.moves)
        results.append((index, verdict, mutation, message))
    return results


def _isolated(name: str, seed: int, indices: list[int], players: int | None, workers: int,
              progress: Progress | None, total: int, done: list[int],
              cluster: str | None = None) -> Iterator[tuple[int, str, str, str]]:
    """:func:`run_states` in worker processes (or tasks of the Ray ``cluster``); a state
    that kills its process is reported as a :data:`CRASH`.

    When a process dies, every batch not finished in that pool fails with it: they
    are split and run again, and a single state is a crash only if it kills a pool
    of its own.  A cluster outlives its dead workers (only their tasks fail), so one
    is joined (or, ``local``, started) once for the whole run.
    """
    pending = [indices[i:i + CHUNK] for i in range(0, len(indices), CHUNK)]
    corpus(name, seed, players)  # built once here, inherited by forked workers

    def finished(results: list[tuple[int, str, str, str]]) -> None:
        done[0] += len(results)
        if progress is not None:
            progress(done[0], total)

    with open_batch(workers, cluster, start_method=None) if cluster \
            else contextlib.nullcontext() as shared:
        yield from _rounds(name, seed, pending, players, workers, shared, finished)


def _rounds(name: str, seed: int, pending: list[list[int]], players: int | None,
            workers: int, shared: Batch | None,
            finished: Callable[[list[tuple[int, str, str, str]]], None]
            ) -> Iterator[tuple[int, str, str, str]]:
    """The rounds of :func:`_isolated`: on ``shared`` (a cluster), else each in a pool
    of its own, a chunk that was in a dead pool split and run again."""
    def pool(size: int) -> Any:
        return contextlib.nullcontext(shared) if shared is not None \
            else open_batch(size, None, start_method=None)

    while pending:
        lost_jobs: list[int] = []
        jobs = [(name, seed, chunk, players) for chunk in pending]
        with pool(min(workers, len(pending))) as batch:
            for _, results in batch.run(run_states, jobs, on_lost=lost_jobs.append):
                yield from results
                finished(results)
        broken = [pending[i] for i in lost_jobs]
        pending = []
        for chunk in broken:
            if len(chunk) > 1:
                pending += [chunk[:len(chunk) // 2], chunk[len(chunk) // 2:]]
                continue
            with pool(1) as alone:
                lost: list[int] = []
                results = [r for _, batch_results in alone.run(
                    run_states, [(name, seed, chunk, players)], on_lost=lost.append)
                    for r in batch_results]
                if lost:
                    _, mutation = mutated_state(name, seed, chunk[0], players)
                    results = [(chunk[0], CRASH, mutation,
                                "the process died (a signal such as SIGSEGV)")]
            yield from results
            finished(results)


def fuzz(name: str, states: int, seed: int, players: int | None = None, workers: int = 1,
         progress: Progress | None = None, first: int = 0,
         cluster: str | None = None) -> dict[str, Any]:
    """Check mutated states ``first .. first + states - 1`` of game ``name``.

    ``workers=0`` checks them in this process (a kernel crash then kills it);
    otherwise in that many worker processes (or tasks of the Ray ``cluster``), which
    turns a crash into a finding.
    Returns a JSON-ready report: how many states were rejected and accepted, how
    many showed each kind of problem (``crashes``, ``exceptions``,
    ``disagreements``, ``unexplained_rejections``) with examples naming the state
    (``--seed``, index) and its mutation, and the fields rejections named most.
    """
    for label, value in (("states", states), ("workers", workers), ("first", first)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FurnaceError(f"{label} must be a non-negative integer, not {value!r}")
    game = registry.get_game(name)
    if players is not None:
        game.info.check_players(players)
    name = game.info.name
    start = time.perf_counter()
    counts = dict.fromkeys((REJECTED, ACCEPTED, *PROBLEMS), 0)
    problems: list[tuple[int, str]] = []
    fields: dict[str, int] = {}
    indices = list(range(first, first + states))
    if workers == 0 and not cluster:
        def inline() -> Iterator[tuple[int, str, str, str]]:
            for done, index in enumerate(indices, 1):
                yield from run_states(name, seed, [index], players)
                if progress is not None:
                    progress(done, states)
        results: Iterator[tuple[int, str, str, str]] = inline()
    else:
        results = _isolated(name, seed, indices, players, max(1, workers), progress, states,
                            [0], cluster)
    for index, verdict, mutation, message in results:
        counts[verdict] += 1
        if verdict == REJECTED:
            field_name = _named_field(message)
            fields[field_name] = fields.get(field_name, 0) + 1
        elif verdict in PROBLEMS:
            problems.append((index, f"state {index} ({mutation}): {verdict}: "
                                    f"{short_text(message)}"))
    # Workers finish in any order: the report lists by state, the same for every run.
    examples = [text for _, text in sorted(problems)[:MAX_EXAMPLES]]
    return {
        "game": name, "seed": seed, "players": players, "states": states,
        "rejected": counts[REJECTED], "accepted": counts[ACCEPTED],
        "crashes": counts[CRASH], "exceptions": counts[EXCEPTION],
        "disagreements": counts[DISAGREEMENT], "unexplained_rejections": counts[UNEXPLAINED],
        "problems": sum(counts[p] for p in PROBLEMS),
        "examples": examples,
        "rejected_by_field": top_fields(fields),
        "seconds": round(time.perf_counter() - start, 1),
    }


def top_fields(fields: dict[str, int], most: int = 15) -> dict[str, int]:
    """The ``most`` fields that refused the most states, ties by name (not by the order
    the workers finished in).

    >>> top_fields({"b": 2, "c": 1, "a": 2}, most=2)
    {'a': 2, 'b': 2}
    """
    return dict(sorted(fields.items(), key=lambda kv: (-kv[1], kv[0]))[:most])


_FIELD = re.compile(r"[A-Za-z_][\w\-]*(?:\[\d*\]|\.[A-Za-z_][\w\-]*)*")


def _named_field(message: str) -> str:
    """The field a rejection names (its first word), list positions left out."""
    match = _FIELD.match(message)
    word = match.group(0) if match else "?"
    return re.sub(r"\[\d+\]", "[]", word)


def short_text(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
