"""The game-conformance suite: every registered game, present and future, obeys the protocol.

Parametrized over :func:`engine.registry.game_names`, so registering a game adds
it here without editing this file (its perft counts go in ``tests/game_perft.json``;
the perft test says what to add).  CI runs the suite twice, on the compiled
kernels and with ``FURNACE_PURE_PYTHON=1``: searches, bots and estimates work on
``search_state()``, the kernel twin when one is built.

What it proves, on positions of seeded random games at every player count:

* JSON round trip (the restored state plays on identically), clone independence,
  move text round trip, ``legal_moves`` agreeing with ``why_illegal`` for every id
  (junk ones too), illegal moves refused without a trace;
* ``determinize(observer)`` keeps ``observation(observer)`` (for every seat and for
  the host, ``None``), on the reference state and on its kernel twin, and gives a
  position that plays on to the end; two states ``observer`` cannot tell apart
  determinize alike;
* **no peeking**: for two states that differ only in what a seat cannot see (the
  second made by ``determinize`` from that seat), everything shown to the seat and
  everything decided for it is identical: its board, the moves it may know of and
  their checks, other seats' moves and the events as it sees them, every bot's
  move, the search's statistics and principal variation, score estimates, with
  ISMCTS checking each determinization it draws (its debug mode);
* perft: the number of legal move sequences from fixed seeds to a fixed depth.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from checks.kernel import game_options
from engine import registry
from engine.forecast import current_scores, forecast_analysis, forecast_estimate
from engine.game import IllegalMoveError, State, events_seen_by
from engine.search import (
    RandomBot,
    estimate_scores,
    ismcts,
    make_bot,
    parallel_search,
    search_for,
)
from engine.search.parallel import make_pool

PERFT_FILE = Path(__file__).with_name("game_perft.json")
GAMES = registry.game_names()
#: Plies played from each setup, and one position kept in this many.
PLIES = 240
EVERY = 20
#: Bots and budgets of the no-peeking decisions (small: the pure path runs them too).
BOT_SPECS = ("random", "greedy", "mcts:10", "ismcts:10")
SEARCH_ITERATIONS = 20
PLAYOUTS = 6
#: Playouts to the end are slow on the pure path: from one position in this many.
ROLLOUT_EVERY = 4
#: Move ids drawn at random (below twice the largest legal one seen) to ask why_illegal.
JUNK_IDS = 40


@pytest.fixture(autouse=True)
def _ismcts_checks_every_determinization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ismcts, "DEBUG", True)


def setups(name: str) -> list[tuple[int, dict[str, Any]]]:
    """(players, options): every player count, with each boolean option flipped in turn."""
    game = registry.get_game(name)
    counts = game.info.player_counts
    flags = sum(isinstance(o.default, bool) for o in game.info.options)
    return [(counts[i % len(counts)], game_options(game, i))
            for i in range(len(counts) * (1 + flags))]


@cache
def positions(name: str) -> tuple[State, ...]:
    """Positions of seeded random games of every setup, the final one included."""
    game = registry.get_game(name)
    found: list[State] = []
    for index, (players, options) in enumerate(setups(name)):
        state = game.new_game(100 + index, players, options)
        rng = random.Random(index)
        for ply in range(PLIES):
            if state.is_terminal():
                break
            if ply % EVERY == EVERY // 2:
                found.append(state.clone())
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        if state.is_terminal():
            found.append(state.clone())
    return tuple(found)


@cache
def decision_positions(name: str, games: int = 3) -> tuple[State, ...]:
    """Positions near the end of seeded random games (short playouts: searches stay
    cheap on the pure-Python path), one early position, each with a seat to move."""
    game = registry.get_game(name)
    found: list[State] = []
    for index, (players, options) in enumerate(setups(name)[:games]):
        state = game.new_game(200 + index, players, options)
        rng = random.Random(index)
        history = []
        while not state.is_terminal():
            history.append(state.clone())
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        found += [history[-12], history[-37]]
        if index == 0:
            found.append(history[len(history) // 3])
    return tuple(found)


def observers(state: State) -> list[int | None]:
    return [None, *range(state.num_players)]


def twins(state: State, observer: int | None, count: int = 2) -> Iterator[State]:
    """States that differ from ``state`` only in what ``observer`` cannot see."""
    for k in range(count):
        yield state.determinize(observer, random.Random(1000 + k))


def stable(analysis: Any) -> dict[str, Any]:
    data = dict(analysis.to_json())
    data.pop("elapsed")
    return data


# -- the protocol -------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_json_round_trip(name: str) -> None:
    game = registry.get_game(name)
    for index, state in enumerate(positions(name)):
        data = json.loads(json.dumps(state.to_json()))
        again = game.state_from_json(data)
        assert again.to_json() == state.to_json()
        assert again.current_player() == state.current_player()
        assert again.legal_moves() == state.legal_moves()
        assert again.scores() == state.scores()
        if index % ROLLOUT_EVERY == 0:  # the JSON holds everything the future depends on
            assert again.clone().rollout(index) == state.clone().rollout(index)


@pytest.mark.parametrize("name", GAMES)
def test_clones_are_independent(name: str) -> None:
    for state in positions(name):
        before = state.to_json()
        copy = state.clone()
        if not copy.is_terminal():
            copy.apply(copy.legal_moves()[0])
            assert state.to_json() == before
            again = state.clone()
            state.apply(state.legal_moves()[0])
            assert again.to_json() == before
            state = again
        assert copy.clone().to_json() == copy.to_json()


@pytest.mark.parametrize("name", GAMES)
def test_move_texts_round_trip(name: str) -> None:
    for state in positions(name):
        for move in state.legal_moves():
            text = state.move_to_text(move)
            assert isinstance(text, str) and text.strip() == text and text
            assert state.parse_move(text) == move


@pytest.mark.parametrize("name", GAMES)
def test_legal_moves_agree_with_why_illegal(name: str) -> None:
    """Every id gets an answer: the legal moves of every position, ids no position
    allowed, negative and huge ones included."""
    seen = sorted({m for s in positions(name) for m in s.legal_moves()})
    rng = random.Random(len(seen))
    seen += [rng.randrange(2 * seen[-1] + 2) for _ in range(JUNK_IDS)] + [-1, 1 << 64]
    for state in positions(name):
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal)
        for move in legal:
            assert state.why_illegal(move) is None
        before = state.to_json()
        for move in seen:
            if move in legal:
                continue
            reason = state.why_illegal(move)
            assert isinstance(reason, str) and reason
            with pytest.raises(IllegalMoveError):
                state.clone().apply(move)
        assert state.to_json() == before
        if state.is_terminal():
            assert legal == [] and state.current_player() < 0


@pytest.mark.parametrize("name", GAMES)
def test_the_score_breakdown_adds_up_to_the_scores(name: str) -> None:
    """Every seat's score by source, in words, adds up to its score, mid-game and at the
    end; the sources are the game's own (not the protocol's one-line default)."""
    sources: set[str] = set()
    for state in positions(name):
        breakdown = state.score_breakdown()
        assert len(breakdown) == state.num_players
        for parts, score in zip(breakdown, state.scores(), strict=True):
            assert parts and all(isinstance(source, str) and source for source, _ in parts)
            assert sum(points for _, points in parts) == pytest.approx(score)
            sources.update(source for source, _ in parts)
    assert sources != {"score"}


@pytest.mark.parametrize("name", GAMES)
def test_a_judged_move_plays_as_apply_without_a_second_check(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """apply_judged (a move judge_move found legal) gives apply's events and position,
    and asks the rules once fewer whether a move is legal: the server judges a move
    once.  (A game may still ask while it plays: Oh My Goods! lists the next moves to
    play a forced one.)"""
    real = type(positions(name)[0]).why_illegal
    for state in positions(name):
        if state.current_player() < 0:
            continue
        move = state.legal_moves()[-1]
        asked = {"apply": 0, "apply_judged": 0}
        results = {}
        for way in ("apply", "apply_judged"):
            def counting(self: State, m: int, way: str = way,
                         asked: dict[str, int] = asked) -> str | None:
                asked[way] += 1
                return real(self, m)

            copy = state.clone()
            monkeypatch.setattr(type(copy), "why_illegal", counting)
            events = getattr(copy, way)(move)
            monkeypatch.undo()
            results[way] = (events, copy.to_json())
        assert results["apply_judged"] == results["apply"]
        assert asked["apply"] - asked["apply_judged"] == 1


@pytest.mark.parametrize("name", GAMES)
def test_determinize_keeps_the_observation(name: str) -> None:
    game = registry.get_game(name)
    for index, state in enumerate(positions(name)):
        twin_state = state.search_state()
        for observer in observers(state):
            view = state.observation(observer)
            json.dumps(view)
            for k, other in enumerate(twins(state, observer)):
                assert other.observation(observer) == view
                assert other.is_terminal() or other.legal_moves()  # a playable position
                game.state_from_json(other.to_json())  # a valid, consistent state
                kernel = twin_state.determinize(observer, random.Random(1000 + k))
                assert kernel.observation(observer) == view
                assert kernel.to_json() == other.to_json()
                assert kernel.is_terminal() or kernel.legal_moves()
                if k == 0 and observer == state.current_player() \
                        and index % ROLLOUT_EVERY == 0:
                    kernel.clone().rollout(index)  # and it plays on to the end


@pytest.mark.parametrize("name", GAMES)
def test_determinize_reads_nothing_hidden(name: str) -> None:
    """Two states that differ only in what a seat cannot see determinize alike for it:
    what is drawn again depends on what the seat sees, not on the hidden truth."""
    differed = 0
    for state in positions(name):
        for observer in observers(state):
            drawn = state.determinize(observer, random.Random(7)).to_json()
            for other in twins(state, observer):
                differed += other.to_json() != state.to_json()
                assert other.determinize(observer, random.Random(7)).to_json() == drawn
    if not registry.get_game(name).info.perfect_information:
        assert differed, "no twin differs from its state: the check above proved nothing"


# -- no peeking: what a seat is shown -----------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_a_seat_is_shown_only_what_it_sees(name: str) -> None:
    for state in positions(name):
        for observer in observers(state):
            for other in twins(state, observer):
                assert other.render(observer) == state.render(observer)
                known = state.moves_known_to(observer)
                assert other.moves_known_to(observer) == known
                if known:
                    assert other.legal_moves() == state.legal_moves()
                    for move in state.legal_moves():
                        assert other.move_to_text(move) == state.move_to_text(move)
                        assert other.why_illegal(move) is None
                if state.is_terminal():
                    continue
                _compare_next_move(state, other, observer)


#: Twins tried before concluding that nothing hidden from a seat decides the moves it
#: is not shown (a hand or plan that changes them can be a rare deal: a secret plan
#: costing more than 20 coins took 323 deals).
MAX_TWINS = 512


@pytest.mark.parametrize("name", GAMES)
def test_nothing_is_hidden_that_no_hidden_information_decides(name: str) -> None:
    """A seat is denied another seat's moves only where what it cannot see decides
    them: some position it cannot tell apart allows other moves.  And the verdict is
    the kernel twin's too."""
    hidden = 0
    for state in positions(name):
        twin_state = state.search_state()
        for observer in observers(state):
            known = state.moves_known_to(observer)
            assert twin_state.moves_known_to(observer) == known
            if known:
                continue
            assert observer is not None and observer != state.current_player()
            assert state.info.private_information
            hidden += 1
            moves = state.legal_moves()
            assert any(state.determinize(observer, random.Random(k)).legal_moves() != moves
                       for k in range(MAX_TWINS)), (state.to_json(), observer)
    if registry.get_game(name).info.private_information:
        assert hidden, "no position hides moves: the check above proved nothing"


def _compare_next_move(state: State, other: State, observer: int | None) -> None:
    """Play the seat to move's move on both; if the observer's view stays equal, so
    must the move and the events it is shown."""
    mover = state.current_player()
    if state.moves_known_to(observer):
        pairs = [(m, m) for m in state.legal_moves()[:8]]
    else:  # the mover's options differ: let a random bot pick in each world
        pairs = [(RandomBot().choose(state, random.Random(k)),
                  RandomBot().choose(other, random.Random(k))) for k in range(4)]
    for move, other_move in pairs:
        seen = state.move_seen_by(move, observer)
        other_seen = other.move_seen_by(other_move, observer)
        if observer in (None, mover):
            assert seen == state.move_to_text(move)
        after, other_after = state.clone(), other.clone()
        events = after.apply(move)
        other_events = other_after.apply(other_move)
        if after.observation(observer) != other_after.observation(observer):
            continue  # the move revealed something new (a draw): nothing to compare
        assert seen == other_seen
        assert events_seen_by(events, observer) == events_seen_by(other_events, observer)
        assert after.render(observer) == other_after.render(observer)


# -- no peeking: what is decided for a seat ---------------------------------------------
@pytest.fixture(scope="module")
def pool() -> Iterator[Any]:
    with make_pool(2) as workers:
        yield workers


@pytest.mark.parametrize("name", GAMES)
def test_decisions_for_a_seat_use_only_what_it_sees(name: str, pool: Any) -> None:
    for index, state in enumerate(decision_positions(name)):
        mover = state.current_player()
        # The mover's own view, and the host's (who cannot see the future either).
        for observer in (mover, None):
            for other in twins(state, observer, count=1):
                for spec in BOT_SPECS:
                    chosen = [make_bot(spec, seed=3).choose(s, random.Random(4))
                              for s in (state, other)]
                    assert chosen[0] == chosen[1], spec
                searched = [search_for(s, mover, iterations=SEARCH_ITERATIONS, seed=5)
                            for s in (state, other)]
                assert stable(searched[0]) == stable(searched[1])
                # The forecasts shown to the mover, and the scores so far they read.
                told = [forecast_analysis(s, a, mover)
                        for s, a in zip((state, other), searched, strict=True)]
                assert told[0].win_probability == told[1].win_probability
                assert told[0].expected_scores == told[1].expected_scores
                assert current_scores(state, observer) == current_scores(other, observer)
                estimates = [forecast_estimate(s, estimate_scores(s, observer,
                                                                  playouts=PLAYOUTS, seed=6)).seats
                             for s in (state, other)]
                assert estimates[0] == estimates[1]
        if index == 0:  # root-parallel search, in worker processes (once: they cost)
            other = next(twins(state, mover))
            results = [stable(parallel_search(s, 2, iterations=SEARCH_ITERATIONS, seed=7,
                                              pool=pool)) for s in (state, other)]
            assert results[0] == results[1]


@pytest.mark.parametrize("name", GAMES)
def test_searching_for_another_seat_needs_its_information(name: str) -> None:
    for state in decision_positions(name):
        mover = state.current_player()
        for seat in range(state.num_players):
            if state.moves_known_to(seat):
                search_for(state, seat, iterations=4, seed=1)
            else:
                assert not state.info.perfect_information and seat != mover
                with pytest.raises(ValueError, match="cannot search"):
                    search_for(state, seat, iterations=4, seed=1)


# -- perft --------------------------------------------------------------------------
def perft(state: State, depth: int) -> int:
    """Legal move sequences of length ``depth`` (a finished game ends a sequence early)."""
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        total += perft(child, depth - 1)
    return total


def perft_start(name: str, entry: dict[str, Any]) -> State:
    """The entry's position: a new game, then ``prefix`` moves picked by ply number."""
    state = registry.get_game(name).new_game(entry["seed"], entry["players"],
                                             entry.get("options") or {})
    for ply in range(entry.get("prefix", 0)):
        moves = state.legal_moves()
        state.apply(moves[ply * 7 % len(moves)])
    return state


def perft_cases() -> list[Any]:
    pinned = json.loads(PERFT_FILE.read_text())
    cases = []
    for name in GAMES:
        entries = pinned.get(name)
        if not entries:
            cases.append(pytest.param(name, None, id=f"{name}-missing"))
        for entry in entries or []:
            cases.append(pytest.param(
                name, entry, id=f"{name}-{entry['players']}p-seed{entry['seed']}-"
                                f"prefix{entry.get('prefix', 0)}"))
    return cases


@pytest.mark.parametrize(("name", "entry"), perft_cases())
def test_perft(name: str, entry: dict[str, Any] | None) -> None:
    if entry is None:
        pytest.fail(f"{name} has no perft counts: add them to {PERFT_FILE.name} "
                    f"(python -m tests.test_game_conformance {name} prints candidates)")
    # on the kernel twin when one is built (CI runs both paths)
    state = perft_start(name, entry).search_state()
    counts = [perft(state, depth) for depth in range(1, len(entry["counts"]) + 1)]
    assert counts == entry["counts"]


def _print_perft(name: str, limit: int = 12_000) -> None:  # pragma: no cover - for new games
    """Candidate perft entries for ``name`` (check them by hand before pinning them)."""
    game = registry.get_game(name)
    entries = []
    for players, prefix in ((game.info.min_players, 0), (game.info.max_players, 0),
                            (game.info.min_players, 40), (game.info.max_players, 60)):
        entry: dict[str, Any] = {"players": players, "seed": 1, "prefix": prefix, "counts": []}
        state = perft_start(name, entry)
        for depth in range(1, 12):
            count = perft(state, depth)
            if count > limit:
                break
            entry["counts"].append(count)
        entries.append(entry)
    print(json.dumps({name: entries}))


if __name__ == "__main__":  # pragma: no cover
    import sys

    for game_name in sys.argv[1:] or GAMES:
        _print_perft(game_name)
