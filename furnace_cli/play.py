"""``furnace play``: a person against bots in the terminal, with hints on request.

The person sees only what their seat sees: the board is ``render(seat)``, other
seats' moves are shown as ``move_seen_by(move, seat)`` (a secret choice is shown
as such) and their events as ``Event.seen_by(seat)``.  Hints search from the
seat's own information.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

from engine import records, registry
from engine.game import (
    TERMINAL,
    Event,
    FurnaceError,
    InvalidStateError,
    State,
    UnknownGameError,
    events_seen_by,
)
from engine.records import GameRecord
from engine.search import Bot, make_bot, search_for
from engine.seats import seat_label, seat_range
from engine.validation import read_json_file

HELP = """commands:
  N             play move number N of the list ('moves' shows it)
  MOVE          play a move in the game's notation, e.g. 'tool saw r1c2 1'
  moves         list the legal moves
  hint [ITERS]  ask the bot for advice (default: --iterations)
  board         draw the position again
  save FILE     save the game as a game record (its deal and every move, as JSON;
                resume it with --load FILE); it tells every hand: keep it to yourself
  help          this text
  quit          stop playing"""


def load_game(path: str, game: str | None = None) -> tuple[State, GameRecord]:
    """The game saved in ``path`` (of ``game``, when given): its position and its record.

    A save is a game record (:mod:`engine.records`: the deal and the moves, replayed
    here) or, as ``save`` wrote it before records, the position's JSON (then the record
    starts from that position).  Anything wrong with the file is a
    :class:`FurnaceError` naming it: unreadable, not UTF-8, not JSON (or nested too
    deeply to read), not a game of a known game, a bad move, or a state its game's
    loader rejects.
    """
    data = read_json_file(path, "saved game", InvalidStateError, unreadable=FurnaceError)
    if records.is_record_json(data):
        try:
            record = records.record_from_json(data)
        except InvalidStateError as exc:
            raise InvalidStateError(f"saved game {path}: {exc}") from None
        name = record.game
    elif isinstance(data, dict) and isinstance(data.get("game"), str):
        name = data["game"]
    else:
        raise InvalidStateError(f"saved game {path} must be a JSON object with a 'game' "
                                f"field naming the game")
    try:
        saved = registry.get_game(name).info.name
    except UnknownGameError as exc:
        raise InvalidStateError(f"saved game {path}: {exc}") from None
    if game is not None and registry.get_game(game).info.name != saved:
        raise InvalidStateError(f"saved game {path} is a game of {saved}, "
                                f"not {registry.get_game(game).info.name}")
    try:
        if records.is_record_json(data):
            return records.replay(record), record
        state = registry.state_from_json(data)
    except FurnaceError as exc:
        raise InvalidStateError(f"saved game {path}: {exc}") from None
    return state, GameRecord(saved, state.num_players, initial=state.to_json())


def load_state(path: str, game: str | None = None) -> State:
    """The position of the game saved in ``path`` (see :func:`load_game`)."""
    return load_game(path, game)[0]


def hint_text(state: State, iterations: int, seed: int) -> str:
    """Advice for the seat to move, from that seat's information only."""
    seat = state.current_player()
    analysis = search_for(state, seat, iterations=iterations, seed=seed)
    lines = [f"hint after {analysis.iterations} iterations ({analysis.elapsed:.2f} s): "
             f"best {analysis.best_move_text}"]
    for stats in analysis.moves[:5]:
        scores = " ".join(f"P{s + 1}:{v:.1f}" for s, v in enumerate(stats.expected_scores))
        lines.append(f"  {stats.text:<28} visits {stats.visits:5d}  "
                     f"win {stats.win_probability:5.1%}  expected scores {scores}")
    aim = ("your win probability" if analysis.target is None else
           f"your chance of reaching {analysis.target:g}")  # one seat: a target score
    lines.append(f"  {aim}: {analysis.win_probability[seat]:.1%}; "
                 f"line: {' / '.join(analysis.principal_variation[:6])}")
    return "\n".join(lines)


def play_local(args: argparse.Namespace, input_fn: Callable[[str], str] = input,
               output: Callable[[str], None] = print) -> int:
    from furnace_cli import _options

    if args.load:
        state, record = load_game(args.load, args.game)
    else:
        options = _options(args.options)
        state = registry.get_game(args.game).new_game(args.seed, args.players, options)
        record = GameRecord(state.info.name, state.num_players, options, seed=args.seed)
    # Every move played is kept: `save` writes the record (ids and texts).
    texts: list[str | None] = [None] * len(record.moves)  # the loaded moves are as saved

    def play(move: int) -> list[Event]:
        record.moves.append(move)
        texts.append(state.move_to_text(move))
        return state.apply(move)

    if not 0 <= args.seat < state.num_players:
        raise FurnaceError(f"--seat must be in {seat_range(state.num_players)}, got {args.seat}")
    if args.iterations < 1:
        raise FurnaceError(f"--iterations must be at least 1, got {args.iterations}")
    human = args.seat
    specs = [s for s in args.bots.split(",") if s.strip()] or ["mcts:2000"]
    bots: dict[int, Bot] = {}
    others = [p for p in range(state.num_players) if p != human]
    for k, seat in enumerate(others):
        bots[seat] = make_bot(specs[k % len(specs)])
    rng = random.Random(args.seed)
    output(f"You are {seat_label(human)}. " + ", ".join(f"P{s + 1} = {b.name}" for s, b in bots.items())
           + ". Type 'help' for commands.")
    output(state.render(human))
    while state.current_player() != TERMINAL:
        player = state.current_player()
        if player != human:
            move = bots[player].choose(state, rng)
            seen = state.move_seen_by(move, human)
            events = play(move)
            output(f"P{player + 1} ({bots[player].name}): "
                   + (seen if seen is not None else "makes a secret choice"))
            for text in events_seen_by(events, human):
                output(f"  {text}")
            continue
        try:
            line = input_fn(f"P{human + 1}> ").strip()
        except EOFError:
            output("")
            output("bye (the game was not saved)")
            return 0
        if not line:
            continue
        word, _, rest = line.partition(" ")
        legal = state.legal_moves()
        if word == "help":
            output(HELP)
        elif word in ("quit", "exit"):
            return 0
        elif word == "board":
            output(state.render(human))
        elif word == "moves":
            for number, move in enumerate(legal, 1):
                output(f"  {number:3d}. {state.move_to_text(move)}")
        elif word == "hint":
            budget = args.iterations
            if rest.strip():
                if not rest.strip().isdigit() or int(rest) < 1:
                    output(f"hint takes a positive number of iterations, not {rest.strip()!r}")
                    continue
                budget = int(rest)
            output(hint_text(state, budget, rng.getrandbits(32)))
        elif word == "save":
            if not rest.strip():
                output("save needs a file name")
                continue
            try:
                Path(rest.strip()).write_text(
                    json.dumps(records.record_to_json(record, texts)), encoding="utf-8")
            except OSError as exc:
                output(f"cannot save to {rest.strip()}: {exc.strerror}")
                continue
            output(f"saved to {rest.strip()}")
        else:
            if line.isdigit():
                if not 1 <= int(line) <= len(legal):
                    output(f"there are {len(legal)} legal moves; pick 1-{len(legal)} "
                           "('moves' lists them)")
                    continue
                move = legal[int(line) - 1]
            else:
                try:
                    move = state.parse_move(line)
                except FurnaceError as exc:
                    output(str(exc))
                    continue
            reason = state.why_illegal(move)
            if reason is not None:
                output(f"illegal move {line!r}: {reason}")
                continue
            output(f"P{human + 1} (you): {state.move_to_text(move)}")
            for text in events_seen_by(play(move), human):
                output(f"  {text}")
            output(state.render(human))
    output(state.render(human))
    scores = state.scores()
    ranking = state.ranking()
    output("final scores: " + ", ".join(f"P{s + 1} {v:g}" for s, v in enumerate(scores)))
    output("winner: " + ", ".join(f"P{s + 1}" for s in ranking[0])
           + (" (you!)" if human in ranking[0] else ""))
    return 0
