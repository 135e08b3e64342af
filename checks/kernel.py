"""Prove a compiled kernel plays exactly like its game's reference rules.

:func:`check_kernel` plays seeded random games on a reference state and on its
kernel twin (``state.search_state()``) side by side, and after every move
compares the legal moves (same integers, same order, same words), the whole state
(``to_json()``), the heuristic, the features (``features()``), the player to move and a one-seat game's target; at
the end it compares scores, ranking, outcome and a one-seat game's rank.  For every game it also checks that a random playout
(``clone().rollout(seed)``) ends in the same outcome and the same final state on
both, and so does a MAST-guided playout where the kernel has its own
(``guided_playout``, :mod:`engine.guided_playout`), and at every step that
``determinize(observer, random.Random(x))`` deals the same hidden cards on both (for
one observer, cycling through the seats and ``None``, the host).  It only uses the
:class:`~engine.game.State` protocol, so it works for any game that has a kernel.

>>> from engine import registry
>>> report = check_kernel(registry.get_game("samara"), games=2, seed=1)  # doctest: +SKIP
>>> report["mismatches"]  # doctest: +SKIP
0
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.batch import batched, open_batch
from engine.game import CHANCE, FurnaceError, Game, State

Progress = Callable[[int, int], None]

#: Descriptions kept in the report (the count covers every mismatch).
MAX_EXAMPLES = 5
#: Moves after which a second playout is compared (from a mid-game position).
MID_GAME_ROLLOUT = 30
#: The share of uniformly random moves in the compared guided playouts.
GUIDED_EPSILON = 0.25
#: A game longer than this is reported, not played forever.
MAX_STEPS = 100_000


def game_options(game: Game, index: int,
                 counts: Sequence[int] | None = None) -> dict[str, Any]:
    """Options of check game ``index``: boolean options take every combination.

    Player counts (``counts``, by default every count of the game) cycle fastest;
    after each full cycle the next combination of flipped boolean options is used,
    so every count meets every combination.
    """
    counts = counts or game.info.player_counts
    combo = index // len(counts)
    flags = [o for o in game.info.options if isinstance(o.default, bool)]
    return {o.name: (not o.default) if combo >> j & 1 else o.default
            for j, o in enumerate(flags)}


def kernel_player_counts(game: Game) -> tuple[int, ...]:
    """The player counts the game's kernel plays: those whose new game hands search a
    twin.  A kernel may leave some to the reference rules (each plays every count today:
    Stephens' plays the solo game too); none at all when the kernel is not built or
    ``FURNACE_PURE_PYTHON`` is set."""
    counts = []
    for n in game.info.player_counts:
        state = game.new_game(0, n, game_options(game, 0))
        if state.search_state() is not state:
            counts.append(n)
    return tuple(counts)


def _first_difference(ref: Sequence[Any], twin: Sequence[Any]) -> str:
    for j, (a, b) in enumerate(zip(ref, twin, strict=False)):
        if a != b:
            return f"at index {j}: {a!r} vs {b!r}"
    return f"lengths {len(ref)} vs {len(twin)}"


def _json_difference(ref: Any, twin: Any, path: str = "") -> str:
    """Where two JSON values first differ, as a short path."""
    if isinstance(ref, dict) and isinstance(twin, dict):
        for key in list(ref) + [k for k in twin if k not in ref]:
            if ref.get(key) != twin.get(key):
                return _json_difference(ref.get(key), twin.get(key), f"{path}.{key}")
    elif isinstance(ref, list) and isinstance(twin, list) and len(ref) == len(twin):
        for j, (a, b) in enumerate(zip(ref, twin, strict=True)):
            if a != b:
                return _json_difference(a, b, f"{path}[{j}]")
    text = f"{path or 'state'}: {ref!r} vs {twin!r}"
    return text if len(text) <= 200 else text[:197] + "..."


def _compare(state: State, twin: State) -> str | None:
    """What differs between the reference state and its twin now, or None."""
    try:
        if state.current_player() != twin.current_player():
            return (f"player to move: {state.current_player()} vs {twin.current_player()}")
        if state.is_terminal() != twin.is_terminal():
            return f"terminal: {state.is_terminal()} vs {twin.is_terminal()}"
        ref_moves, twin_moves = state.legal_moves(), twin.legal_moves()
        if list(ref_moves) != list(twin_moves):
            return "legal moves differ " + _first_difference(ref_moves, twin_moves)
        # Bots, hints and the server name moves by the twin's words.
        ref_texts = [state.move_to_text(m) for m in ref_moves]
        twin_texts = [twin.move_to_text(m) for m in ref_moves]
        if ref_texts != twin_texts:
            return "move texts differ " + _first_difference(ref_texts, twin_texts)
        if state.current_player() == CHANCE:
            ref_chance, twin_chance = state.chance_outcomes(), twin.chance_outcomes()
            if list(ref_chance) != list(twin_chance):
                return "chance outcomes differ " + _first_difference(ref_chance, twin_chance)
        ref_json, twin_json = state.to_json(), twin.to_json()
        if ref_json != twin_json:
            return "state differs at " + _json_difference(ref_json, twin_json)
        # The greedy baseline reads heuristic() on the twin: it must agree too.
        ref_h, twin_h = state.heuristic(), twin.heuristic()
        if any(abs(a - b) > 1e-9 for a, b in zip(ref_h, twin_h, strict=True)):
            return f"heuristic: {ref_h} vs {twin_h}"
        # A learned leaf value reads features() on the twin: the same vectors, and a
        # twin without them only for a game that declares none.
        ref_f = state.features()
        twin_features = getattr(twin, "features", None)
        twin_f = twin_features() if twin_features is not None else [[] for _ in ref_f]
        if len(ref_f) != len(twin_f) or any(
                len(a) != len(b) or any(abs(x - y) > 1e-9 for x, y in zip(a, b, strict=True))
                for a, b in zip(ref_f, twin_f, strict=False)):
            return f"features: {ref_f} vs {twin_f}"
        # A one-seat search aims at the target (the solo game's).
        one_seat = state.num_players == 1
        if one_seat and state.solo_target() != twin.solo_target():
            return f"solo target: {state.solo_target()} vs {twin.solo_target()}"
        if state.is_terminal():
            if list(state.scores()) != list(twin.scores()):
                return f"scores: {state.scores()} vs {twin.scores()}"
            if state.ranking() != twin.ranking():
                return f"ranking: {state.ranking()} vs {twin.ranking()}"
            if state.outcome() != twin.outcome():
                return f"outcome: {state.outcome()} vs {twin.outcome()}"
            if one_seat and state.solo_rank() != twin.solo_rank():
                return f"solo rank: {state.solo_rank()} vs {twin.solo_rank()}"
    except Exception as exc:  # the twin (or the reference) crashed: that is a mismatch too
        return f"raised {type(exc).__name__}: {exc}"
    return None


def _compare_copies(what: str, state: State, twin: State,
                    make: Callable[[State], tuple[State, Any]]) -> str | None:
    """Run ``make`` on both (a new state and a result); None if both agree."""
    try:
        ref, ref_result = make(state)
        fast, fast_result = make(twin)
        if ref_result != fast_result:
            return f"{what} result: {ref_result} vs {fast_result}"
        ref_json, fast_json = ref.to_json(), fast.to_json()
        if ref_json != fast_json:
            return f"{what} state differs at " + _json_difference(ref_json, fast_json)
    except Exception as exc:
        return f"{what} raised {type(exc).__name__}: {exc}"
    return None


def _compare_rollout(state: State, twin: State, seed: int) -> str | None:
    """Play the same seeded random playout on copies of both; None if they agree."""
    def playout(s: State) -> tuple[State, Any]:
        board = s.clone()
        return board, board.rollout(seed)

    return _compare_copies(f"rollout({seed})", state, twin, playout)


def _compare_guided(state: State, twin: State, seed: int) -> str | None:
    """Play the same MAST-guided playout (a seeded random move-value table, some moves
    random, some greedy) on copies of both, when the twin has its own
    ``guided_playout``; None if they agree or it has none."""
    if not hasattr(twin, "guided_playout"):
        return None
    import numpy as np

    from engine.guided_playout import MOVE_SLOTS, guided_playout

    values = np.random.default_rng(seed).random(state.num_players * MOVE_SLOTS)

    def playout(s: State) -> tuple[State, Any]:
        board = s.clone()
        trace = np.zeros(1024, dtype=np.int32)
        if s is twin:
            recorded = board.guided_playout(  # type: ignore[attr-defined]
                seed, values, GUIDED_EPSILON, trace)
        else:
            recorded = guided_playout(board, seed, values, GUIDED_EPSILON, trace)
        return board, (recorded, trace[:recorded].tolist())

    return _compare_copies(f"guided_playout({seed})", state, twin, playout)


def _observer(step: int, num_players: int) -> int | None:
    """The observer whose determinization is compared at ``step``: the seats in
    turn, then ``None`` (the host), and again."""
    k = step % (num_players + 1)
    return None if k == num_players else k


def _compare_determinize(state: State, twin: State, observer: int | None,
                         seed: int) -> str | None:
    """Determinize both for ``observer`` from equal generators; None if they agree."""
    def deal(s: State) -> tuple[State, Any]:
        return s.determinize(observer, random.Random(seed)), None

    return _compare_copies(f"determinize({observer})", state, twin, deal)


def _pick(state: State, rng: random.Random) -> int | None:
    """A random next move of the reference state (chance by probability), None at the end."""
    if state.is_terminal():
        return None
    if state.current_player() == CHANCE:
        outcomes = state.chance_outcomes()
        if not outcomes:
            return None
        moves = [m for m, _ in outcomes]
        return rng.choices(moves, weights=[p for _, p in outcomes])[0]
    moves = state.legal_moves()
    return rng.choice(moves) if moves else None


def check_kernel(game: Game, games: int, seed: int, progress: Progress | None = None,
                 players: Sequence[int] | None = None,
                 option_values: Mapping[str, Sequence[Any]] | None = None,
                 workers: int = 1, cluster: str | None = None) -> dict[str, Any]:
    """Compare ``games`` seeded random games on the reference rules and on the kernel.

    Game ``i`` uses seed ``seed + i``, player counts cycling through ``players`` (by
    default those the kernel plays, :func:`kernel_player_counts`) and the boolean
    options in every combination (:func:`game_options`); an option named in
    ``option_values`` takes its values in turn, the next one after each cycle of the
    player counts.  Its moves come from ``random.Random(seed * 1000003 + i)``.
    A mismatch is a step (or a playout check) where anything differs; the first of
    each game is described in ``examples`` (at most five kept) and the twin is
    rebuilt from the reference to go on.  Games run in ``workers`` processes or on the
    Ray ``cluster`` (:func:`engine.batch.open_batch`), with the same report.  Raises :class:`FurnaceError` when the
    game has no kernel twin (not built, or ``FURNACE_PURE_PYTHON`` set).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise FurnaceError(f"games must be a non-negative integer, not {games!r}")
    name = game.info.name
    if players:
        counts = tuple(players)
        for n in counts:
            if n not in game.info.player_counts:
                raise FurnaceError(f"{name} is played by {game.info.min_players}-"
                                   f"{game.info.max_players} players, not {n}")
    else:
        counts = kernel_player_counts(game) if games else ()
    if games and not counts:
        raise FurnaceError(f"kernel for {name} is not built (or FURNACE_PURE_PYTHON is set)")
    known = {o.name for o in game.info.options}
    for option, values in (option_values or {}).items():
        if option not in known or not values:
            raise FurnaceError(f"{name} has no option {option!r} to take the values "
                               f"{list(values)!r}")
    steps = 0
    mismatches = 0
    examples: list[tuple[int, str]] = []
    option_lists = {option: list(v) for option, v in (option_values or {}).items()}
    jobs = [(name, seed, i, counts, option_lists) for i in range(games)]

    def record(done: int, i: int, result: tuple[int, int, str | None]) -> None:
        nonlocal steps, mismatches
        steps += result[0]
        mismatches += result[1]
        if result[2] is not None:
            examples.append((i, result[2]))
        if progress is not None:
            progress(done, games)

    if not batched(cluster, workers) or games <= 1:
        for i, job in enumerate(jobs):  # the game itself: it may be one of no registry
            record(i + 1, i, check_kernel_game(game, *job[1:]))
    else:
        with open_batch(workers, cluster) as batch:
            for done, (i, result) in enumerate(batch.run(check_kernel_game, jobs), 1):
                record(done, i, result)
    # The first games' examples, whichever order the games finished in.
    kept = [text for _, text in sorted(examples)[:MAX_EXAMPLES]]
    return {"game": name, "games": games, "steps": steps, "mismatches": mismatches,
            "examples": kept}


def check_kernel_game(game: Game | str, seed: int, i: int, counts: Sequence[int],
                      option_values: Mapping[str, Sequence[Any]]) -> tuple[int, int, str | None]:
    """Game ``i`` of :func:`check_kernel` (``game``, or the registry's game of that name in
    a worker): its steps, its mismatches and the first one described (``None``: none)."""
    if isinstance(game, str):
        from engine import registry

        game = registry.get_game(game)
    name = game.info.name
    num_players = counts[i % len(counts)]
    options = game_options(game, i, counts)
    for option, values in option_values.items():
        options[option] = values[i // len(counts) % len(values)]
    state = game.new_game(seed + i, num_players, options)
    twin = state.search_state()
    if twin is state:
        raise FurnaceError(
            f"kernel for {name} is not built (or FURNACE_PURE_PYTHON is set), or does "
            f"not play {num_players}-player games")
    label = (f"game {i} (seed {seed + i}, {num_players} players"
             + "".join(f", {k}={v}" for k, v in options.items()) + ")")
    found: list[tuple[int, str]] = []  # (step, what differs) for this game
    rng = random.Random(seed * 1000003 + i)
    playout_seed = rng.getrandbits(64)
    for problem in (_compare_rollout(state, twin, playout_seed),
                    _compare_guided(state, twin, playout_seed)):
        if problem:
            found.append((0, problem))
    step = 0
    while True:
        problem = _compare(state, twin)
        if problem:
            found.append((step, problem))
            twin = state.search_state()  # resync and go on
        elif not state.is_terminal():
            problem = _compare_determinize(state, twin, _observer(step, num_players),
                                           playout_seed ^ (step << 1))
            if problem:
                found.append((step, problem))
        if step == MID_GAME_ROLLOUT and not state.is_terminal():
            for problem in (_compare_rollout(state, twin, playout_seed ^ step),
                            _compare_guided(state, twin, playout_seed ^ step)):
                if problem:
                    found.append((step, problem))
        move = _pick(state, rng)
        if move is None:
            break
        if step >= MAX_STEPS:
            found.append((step, f"still not over after {MAX_STEPS} moves"))
            break
        state.apply(move)
        try:
            twin.apply(move)
        except Exception as exc:
            found.append((step, f"twin refused move {move} ({type(exc).__name__}: {exc})"))
            twin = state.search_state()
        step += 1
    return step, len(found), f"{label} step {found[0][0]}: {found[0][1]}" if found else None
