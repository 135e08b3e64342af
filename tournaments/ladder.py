"""A rating ladder: a round robin between bot specs, rated by Bradley-Terry (Elo).

Schedule: every pair of specs ``(a, b)``, ``a`` listed before ``b``, plays
``games`` games (the count is *per pair*: ``k`` specs play
``games * k * (k - 1) / 2`` games).  Each pair's games follow the arena's rules
(:mod:`tournaments.arena`) for two specs: game ``g`` seats ``a`` first when
``g`` is even and ``b`` first when it is odd, and games ``2d`` and ``2d + 1``
form deal ``d``: the same setup and chance seeds with the seats swapped.  The
seeds depend only on the ladder's seed and ``g``, so every pair plays the same
deals, and game ``g`` of a pair is the same however many games the ladder has.
Use an even number of games per pair for perfectly balanced seats.

All games go through one worker pool, round by round (game ``g`` of every pair
before game ``g + 1`` of any), so a long ladder stopped early has rated every pair
on as many games, give or take one.  Each game depends only on ``(seed, pair, g)``
and the report is built from the results in schedule order, so the worker count
and the order in which games finish change nothing.

Results file: with ``results_path`` every finished game is appended as one JSON
line (after a header line naming the ladder), so an interrupted ladder loses at
most the games that were being played.  ``resume=True`` reads the file back,
refuses it unless game, players, seed, options and specs match, and plays only
the missing games; a line cut off mid-write is dropped.  A resumed ladder may
ask for more games per pair than before: the recorded ones are kept.

Ratings: :func:`tournaments.ratings.fit_ratings` on the pairwise points (a
win share, so draws count half), anchored at ``random`` when it plays, else at
the first spec; see that module for the regularisation and the intervals.

Only two-player games have a ladder: ratings come from head-to-head results.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.batch import batched, open_batch
from engine.game import FurnaceError, Game, Outcome
from engine.search.bots import Bot, make_bot
from tournaments.arena import play_arena_game, play_arena_game_by_name, seat_assignment
from tournaments.ratings import DEFAULT_VIRTUAL_DRAWS, Pairing, fit_ratings

#: ``progress(games_done, games_total)``, called after every game.
LadderProgress = Callable[[int, int], None]

#: The header's ``format``: a results file of another format is refused.
RESULTS_FORMAT = "furnace-ladder/1"

#: Header fields that must match for a results file to be resumed.
_IDENTITY = ("game", "players", "seed", "options", "specs")


class LadderError(FurnaceError):
    """A ladder that cannot be run: bad parameters, or a results file that does not fit."""


def default_anchor(specs: Sequence[str]) -> str:
    """The spec fixed at 0: ``random`` when it plays (a rating anyone can reproduce),
    else the first spec.

    >>> default_anchor(["mcts:100", "random"]), default_anchor(["mcts:100", "greedy"])
    ('random', 'mcts:100')
    """
    return "random" if "random" in specs else specs[0]


def ladder_schedule(num_specs: int, games: int) -> list[tuple[int, int, int]]:
    """Every game of the ladder as ``(a, b, g)``: spec indices ``a < b`` and the game's
    index ``g`` within the pair, in the order they are played: round by round, game
    ``g`` of every pair before game ``g + 1`` of any.

    >>> ladder_schedule(3, 2)
    [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)]
    """
    return [(a, b, g) for g in range(games) for a in range(num_specs)
            for b in range(a + 1, num_specs)]


def run_ladder(
    game: Game,
    num_players: int,
    bot_specs: Sequence[str],
    games: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    progress: LadderProgress | None = None,
    workers: int = 1,
    cluster: str | None = None,
    results_path: str | os.PathLike[str] | None = None,
    resume: bool = False,
    anchor: str | None = None,
    virtual_draws: float = DEFAULT_VIRTUAL_DRAWS,
) -> dict[str, Any]:
    """Play the round robin of ``bot_specs`` (``games`` per pair) and rate the specs.

    Returns JSON-ready data: ``game``, ``players``, ``seed``, ``options`` (resolved),
    ``games_per_pair``, ``games`` (all of them), ``specs`` (as given), ``anchor``,
    ``virtual_draws``; ``ratings[spec]``, best first, with ``rank``, ``elo``,
    ``se``, ``ci95: [lo, hi]`` (relative to the anchor), ``games``, ``score``
    (points), ``score_share`` and ``by_seat: [{"games", "score"}, ...]``; and
    ``pairwise[a][b] = {"games", "score"}``, ``a``'s points against ``b``, for
    every two distinct specs in the order given.

    ``results_path``: the JSON-lines file of finished games (see the module
    docstring; its directory is created).  Without ``resume`` it must not exist
    yet or be empty, so a finished ladder is never overwritten by accident.
    ``anchor`` defaults to :func:`default_anchor`.

    Raises :class:`LadderError` (a ``ValueError``) for a player count other than
    2, fewer than two specs, repeated specs, fewer than one game per pair, an
    anchor that does not play, or a results file that does not fit, and the
    arena's errors for a bad spec or option, all before any game is played.
    """
    if num_players != 2:
        solo = " (a solo game has no ladder)" if num_players == 1 else ""
        raise LadderError(f"a ladder rates head-to-head results: it needs 2 players, "
                          f"not {num_players!r}{solo}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise LadderError(f"games per pair must be a positive integer, not {games!r}")
    specs = [str(s).strip() for s in bot_specs]
    if len(specs) < 2:
        raise LadderError(f"a ladder needs at least two bot specs, got {specs}")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise LadderError(f"each spec may play once in a ladder: {', '.join(repeated)} "
                          "repeated")
    anchor = default_anchor(specs) if anchor is None else anchor
    if anchor not in specs:
        raise LadderError(f"the anchor {anchor!r} is not one of the specs {specs}")
    game.info.check_players(num_players)
    resolved = game.info.resolve_options(options)
    bots = {spec: make_bot(spec) for spec in specs}  # validates every spec up front
    header = {"format": RESULTS_FORMAT, "game": game.info.name, "players": num_players,
              "seed": seed, "options": resolved, "specs": specs}

    schedule = ladder_schedule(len(specs), games)
    results: dict[tuple[int, int, int], tuple[float, ...]] = {}
    path = Path(results_path) if results_path is not None else None
    if path is not None:
        results = _open_results(path, header, specs, resume)

    todo = [key for key in schedule if key not in results]
    total = len(schedule)
    done = total - len(todo)
    if done and progress is not None:
        progress(done, total)
    # The file stays open for the whole run so each game is on disk as it ends.
    sink = path.open("a", encoding="utf-8") if path is not None else None

    def record(key: tuple[int, int, int], outcome: Outcome) -> None:
        nonlocal done
        a, b, g = key
        results[key] = tuple(float(r) for r in outcome.rewards)
        if sink is not None:
            seats = [specs[(a, b)[i]] for i in seat_assignment(2, 2, g)]
            sink.write(json.dumps({"a": specs[a], "b": specs[b], "g": g, "seats": seats,
                                   "rewards": list(results[key]),
                                   "scores": [float(s) for s in outcome.scores]}) + "\n")
            sink.flush()
        done += 1
        if progress is not None:
            progress(done, total)

    try:
        _play(game, specs, bots, seed, options, todo, record, workers, cluster)
    finally:
        if sink is not None:
            sink.close()
    return _report(header, games, schedule, results, anchor, virtual_draws)


def _play(
    game: Game,
    specs: Sequence[str],
    bots: Mapping[str, Bot],
    seed: int,
    options: Mapping[str, Any] | None,
    todo: Sequence[tuple[int, int, int]],
    record: Callable[[tuple[int, int, int], Outcome], None],
    workers: int,
    cluster: str | None = None,
) -> None:
    """Play the games ``todo``, in this process, in a pool or on a cluster, and ``record``
    each as it finishes."""
    if not batched(cluster, workers) or len(todo) <= 1:
        for a, b, g in todo:
            pair = [specs[a], specs[b]]
            outcome, _ = play_arena_game(game, 2, pair, seed, g, options,
                                     [bots[pair[0]], bots[pair[1]]])
            record((a, b, g), outcome)
        return
    jobs = [(game.info.name, 2, [specs[a], specs[b]], seed, g, dict(options or {}))
            for a, b, g in todo]
    # Leaving early (Ctrl-C) cancels the games not played: what finished is already in
    # the results file, for --resume.
    with open_batch(workers, cluster) as batch:
        for index, result in batch.run(play_arena_game_by_name, jobs):
            record(todo[index], result[0])


def _open_results(path: Path, header: dict[str, Any], specs: Sequence[str],
                  resume: bool) -> dict[tuple[int, int, int], tuple[float, ...]]:
    """The games recorded in ``path`` (after checking its header), or none with the
    header written to a new file."""
    data = path.read_bytes() if path.exists() else b""
    if not data.strip():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(header) + "\n", encoding="utf-8")
        return {}
    if not resume:
        raise LadderError(f"{path} already holds ladder results: resume the ladder or "
                          "remove the file")
    if not data.endswith(b"\n"):
        # The last game was being written when the ladder stopped: drop it, it is
        # played again.
        keep = data.rfind(b"\n") + 1
        if keep == 0:
            raise LadderError(f"{path} is not a ladder results file (no complete header)")
        with path.open("r+b") as handle:
            handle.truncate(keep)
        data = data[:keep]
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    try:
        found = json.loads(lines[0])
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, dict) or found.get("format") != RESULTS_FORMAT:
        raise LadderError(f"{path} is not a ladder results file (its first line is not a "
                          f"{RESULTS_FORMAT} header)")
    differences = [f"{field} {found.get(field)!r}, not {header[field]!r}"
                   for field in _IDENTITY if found.get(field) != header[field]]
    if differences:
        raise LadderError(f"{path} holds another ladder ({'; '.join(differences)}): "
                          "use the same parameters or another results file")
    index = {spec: i for i, spec in enumerate(specs)}
    results: dict[tuple[int, int, int], tuple[float, ...]] = {}
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            key = (index[entry["a"]], index[entry["b"]], entry["g"])
            rewards = tuple(float(r) for r in entry["rewards"])
            valid = (key[0] < key[1] and isinstance(key[2], int) and key[2] >= 0
                     and len(rewards) == 2)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            valid = False
        if not valid:
            raise LadderError(f"{path}, line {number}: not a game of this ladder")
        results.setdefault(key, rewards)
    return results


def _report(header: Mapping[str, Any], games: int, schedule: Sequence[tuple[int, int, int]],
            results: Mapping[tuple[int, int, int], tuple[float, ...]], anchor: str,
            virtual_draws: float) -> dict[str, Any]:
    """Add up the results in schedule order (so the floats never depend on which game
    finished first) and fit the ratings."""
    specs: list[str] = list(header["specs"])
    k = len(specs)
    pair_games = [[0] * k for _ in range(k)]
    pair_score = [[0.0] * k for _ in range(k)]
    seat_games = [[0, 0] for _ in range(k)]
    seat_score = [[0.0, 0.0] for _ in range(k)]
    for a, b, g in schedule:
        rewards = results[(a, b, g)]
        for seat, i in enumerate(seat_assignment(2, 2, g)):
            spec = (a, b)[i]
            other = (a, b)[1 - i]
            pair_games[spec][other] += 1
            pair_score[spec][other] += rewards[seat]
            seat_games[spec][seat] += 1
            seat_score[spec][seat] += rewards[seat]
    fit = fit_ratings(
        [Pairing(specs[a], specs[b], pair_games[a][b], pair_score[a][b])
         for a in range(k) for b in range(a + 1, k)],
        names=specs, anchor=anchor, virtual_draws=virtual_draws)
    ratings: dict[str, Any] = {}
    for rank, rating in enumerate(fit.ranked(), 1):
        i = specs.index(rating.name)
        ratings[rating.name] = {
            "rank": rank,
            "elo": rating.elo,
            "se": rating.se,
            "ci95": list(rating.ci95),
            "games": int(rating.games),
            "score": rating.score,
            "score_share": rating.share,
            "by_seat": [{"games": n, "score": s}
                        for n, s in zip(seat_games[i], seat_score[i], strict=True)],
        }
    return {
        "game": header["game"],
        "players": header["players"],
        "seed": header["seed"],
        "options": dict(header["options"]),
        "games_per_pair": games,
        "games": len(schedule),
        "specs": specs,
        "anchor": anchor,
        "virtual_draws": virtual_draws,
        "ratings": ratings,
        "pairwise": {
            specs[a]: {specs[b]: {"games": pair_games[a][b], "score": pair_score[a][b]}
                       for b in range(k) if b != a}
            for a in range(k)
        },
    }
