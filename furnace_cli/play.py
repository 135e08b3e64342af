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
import secrets
from collections.abc import Callable
from pathlib import Path

from clients.table import (
    Hint,
    HintMove,
    MoveRefused,
    SaveFailed,
    UndoRefused,
    counted,
    ending_lines,
    run,
)
from clients.table import hint_text as table_hint_text
from engine import records, registry
from engine.forecast import forecast_analysis
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
from engine.search import Bot, make_bot
from engine.search.hints import hint_iterations, hint_search
from engine.seats import seat_label, seat_range
from engine.takeback import TakeBackRefused, take_back
from engine.validation import read_json_file
from furnace_cli.review import show_review


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


def local_hint(state: State, iterations: int, seed: int) -> Hint:
    """Advice for the seat to move, from that seat's information only."""
    seat = state.current_player()
    analysis = forecast_analysis(state, hint_search(state, seed, iterations), seat, seed=seed)
    # The position's forecast is the recommended move's (docs/forecasts.md).
    return Hint(analysis.iterations, analysis.elapsed, analysis.best_move_text,
                analysis.win_probability[seat],
                [HintMove(m.text, m.visits, m.win_probability, m.expected_scores)
                 for m in analysis.moves[:5]],
                analysis.principal_variation, analysis.target)


def hint_text(state: State, iterations: int, seed: int) -> str:
    """:func:`local_hint` as the table prints it."""
    return table_hint_text(local_hint(state, iterations, seed))


class LocalTable:
    """A game in this process, seen from the person's seat (:class:`clients.table.Table`)."""

    def __init__(self, state: State, record: GameRecord, seat: int, bots: dict[int, Bot],
                 iterations: int, rng: random.Random, loaded_from: str | None = None) -> None:
        self.state, self.record, self.seat = state, record, seat
        self.bots, self.iterations, self.rng = bots, iterations, rng
        self.loaded_from = loaded_from
        # Every move played is kept: `save` writes the record (ids and texts).
        self.texts: list[str | None] = [None] * len(record.moves)  # loaded: as saved

    def _apply(self, move: int) -> list[Event]:
        self.record.moves.append(move)
        self.texts.append(self.state.move_to_text(move))
        return self.state.apply(move)

    def board(self) -> str:
        return self.state.render(self.seat)

    def over(self) -> bool:
        return self.state.current_player() == TERMINAL

    def person_to_move(self) -> bool:
        return self.state.current_player() == self.seat

    def step(self) -> list[str]:
        player = self.state.current_player()
        bot = self.bots[player]
        move = bot.choose(self.state, self.rng)
        seen = self.state.move_seen_by(move, self.seat)
        events = self._apply(move)
        return ([f"P{player + 1} ({bot.name}): "
                 + (seen if seen is not None else "makes a secret choice")]
                + [f"  {text}" for text in events_seen_by(events, self.seat)])

    def moves(self) -> list[str]:
        return [self.state.move_to_text(m) for m in self.state.legal_moves()]

    def play(self, choice: int | str) -> list[str]:
        if isinstance(choice, int):
            move = self.state.legal_moves()[choice]
        else:
            try:
                move = self.state.parse_move(choice)
            except FurnaceError as exc:
                raise MoveRefused(str(exc)) from None
            reason = self.state.why_illegal(move)
            if reason is not None:
                raise MoveRefused(f"illegal move {choice!r}: {reason}")
        text = self.state.move_to_text(move)
        return ([f"P{self.seat + 1} (you): {text}"]
                + [f"  {e}" for e in events_seen_by(self._apply(move), self.seat)])

    def hint(self, iterations: int | None) -> Hint:
        return local_hint(self.state, iterations or self.iterations, self.rng.getrandbits(32))

    def undo(self) -> list[str]:
        try:
            back = take_back(self.record, self.seat)
        except TakeBackRefused as exc:
            raise UndoRefused(str(exc)) from None
        self.record, self.state = back.record, back.state
        del self.texts[len(back.record.moves):]
        replies = (f" and {counted(back.replies, 'move')} played since" if back.replies
                   else "")
        return [f"took back your move {back.move_text}{replies}; your move again"]

    def resumed(self) -> str:
        if self.loaded_from is None:
            return ""
        played = len(self.record.moves)
        if self.over():
            where = f"after {counted(played, 'move')}: the game is over"
        else:
            whose = ("your turn" if self.person_to_move() else
                     f"P{self.state.current_player() + 1}'s turn")
            where = f"at move {played + 1} ({played} played): {whose}"
        return f"Resumed {self.state.info.title} from {self.loaded_from} {where}."

    def save(self, path: str) -> str:
        try:
            Path(path).write_text(json.dumps(records.record_to_json(self.record, self.texts)),
                                  encoding="utf-8")
        except OSError as exc:
            raise SaveFailed(f"cannot save to {path}: {exc.strerror}") from None
        return f"saved to {path}"

    def can_review(self) -> bool:
        return True

    def review(self, output: Callable[[str], object], iterations: int | None) -> None:
        output(f"reviewing your decisions ({counted(len(self.record.moves), 'move')} played); "
               "each is searched as you saw it")

        def progress(done: int, total: int) -> None:
            if done == total or done % 10 == 0:
                output(f"  {done}/{total} decisions judged")

        show_review(self.record, self.seat, budget=iterations, output=output,
                    progress=progress)

    def result(self) -> list[str]:
        state = self.state  # solo_target and solo_rank are None with 2+ seats
        return ending_lines(self.seat, state.scores(), state.ranking(),
                            state.score_breakdown(), state.solo_target(),
                            state.solo_rank() or "")


def banner(seat: int, bots: dict[int, str]) -> str:
    """Who is who, in one line (a solo game has no bots to name)."""
    against = ", ".join(f"P{s + 1} = {name}" for s, name in bots.items())
    return (f"You are {seat_label(seat)}" + (f". {against}" if against else ", playing solo")
            + ". Type 'help' for commands.")


def game_seed(asked: int | None) -> tuple[int, str]:
    """The seed to deal a game from: the one asked for, else a fresh one (below 2**53,
    as NewGame draws), with the line that tells the player how to deal it again ("" for
    a seed that was asked for)."""
    if asked is not None:
        return asked, ""
    seed = secrets.randbelow(2**53)
    return seed, f"Dealt from seed {seed} (--seed {seed} deals this game again)."


def play_local(args: argparse.Namespace, input_fn: Callable[[str], str] = input,
               output: Callable[[str], object] = print) -> int:
    from furnace_cli import _options

    if args.load:
        state, record = load_game(args.load, args.game)
        seed, dealt = (0 if args.seed is None else args.seed), ""  # the bots' generator
    else:
        seed, dealt = game_seed(args.seed)
        options = _options(args.options)
        state = registry.get_game(args.game).new_game(seed, args.players, options)
        record = GameRecord(state.info.name, state.num_players, options, seed=seed)
    if not 0 <= args.seat < state.num_players:
        raise FurnaceError(f"--seat must be in {seat_range(state.num_players)}, got {args.seat}")
    if args.iterations is not None and args.iterations < 1:
        raise FurnaceError(f"--iterations must be at least 1, got {args.iterations}")
    human = args.seat
    specs = [s for s in args.bots.split(",") if s.strip()] or ["mcts:2000"]
    others = [p for p in range(state.num_players) if p != human]
    bots = {seat: make_bot(specs[k % len(specs)]) for k, seat in enumerate(others)}
    hints = hint_iterations(state) if args.iterations is None else args.iterations
    table = LocalTable(state, record, human, bots, hints, random.Random(seed),
                       loaded_from=args.load)
    run(table, banner(human, {s: b.name for s, b in bots.items()}) + (f"\n{dealt}" if dealt else ""),
        input_fn, output)
    return 0
