"""The terminal table: one command loop for a person playing against bots.

``furnace play`` runs it on a game in this process (:mod:`furnace_cli.play`) and
``furnace play --server`` on a game held by a Furnace server (:mod:`clients.play`):
both give the same commands, so the loop knows only a :class:`Table`, the game seen
from the person's seat.  Product code (protocol only): it imports no engine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

#: Where a board explains its symbols: lines starting with this (see ``legend``).
KEY_PREFIX = "key:"


class MoveRefused(Exception):
    """The person's move cannot be played: the message says why."""


class UndoRefused(Exception):
    """The person's last move cannot be taken back: the message says why."""


class SaveFailed(Exception):
    """The game could not be saved: the message says why."""


@dataclass(frozen=True)
class HintMove:
    """One candidate of a hint: its text, the search's visits, the person's forecast
    chance after it (of winning; solo: of reaching the target) and every seat's
    expected score."""

    text: str
    visits: int
    win_probability: float
    expected_scores: Sequence[float]


@dataclass(frozen=True)
class Hint:
    """A hint for the person's move, local or from a server, printed by :func:`hint_text`."""

    iterations: int
    elapsed: float
    best: str
    #: The person's forecast chance with the best move: the position's forecast
    #: (docs/forecasts.md), the hint's headline.
    win_probability: float
    moves: Sequence[HintMove]
    line: Sequence[str]
    #: Solo games: the score the chances are of reaching (None with 2+ seats).
    target: float | None = None


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the plural unless ``n`` is 1 (``plural``, else noun + s).

    >>> counted(1, "legal move"), counted(2, "legal move")
    ('1 legal move', '2 legal moves')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


class Table(Protocol):
    """A game seen from the person's seat, with the bots and chance behind it."""

    seat: int

    def board(self) -> str:
        """The position drawn as the person's seat sees it."""

    def over(self) -> bool:
        """Whether the game has ended."""

    def person_to_move(self) -> bool:
        """Whether the person decides next."""

    def step(self) -> list[str]:
        """Play the next bot (or chance) move; what the person sees of it."""

    def moves(self) -> list[str]:
        """The person's legal moves, as texts, in the order numbers refer to."""

    def play(self, choice: int | str) -> list[str]:
        """Play the person's move (an index into :meth:`moves`, or a text); what happened.
        Raises :class:`MoveRefused`."""

    def hint(self, iterations: int | None) -> Hint:
        """Advice for the person's move (``None``: the default budget)."""

    def undo(self) -> list[str]:
        """Take back the person's last move and the moves played since; what was taken
        back.  Raises :class:`UndoRefused`."""

    def resumed(self) -> str:
        """Where a loaded game stands ("" for a game started here)."""

    def save(self, path: str) -> str:
        """Save the game to ``path`` (a game record); the line to print.  Raises
        :class:`SaveFailed`."""

    def result(self) -> list[str]:
        """The final scores and the winner."""

    def can_review(self) -> bool:
        """Whether :meth:`review` can judge this game once it ends."""

    def review(self, output: Callable[[str], object], iterations: int | None) -> None:
        """Judge the person's decisions of the finished game with searches of
        ``iterations`` (``None``: the game's review budget), writing the review's lines
        through ``output`` as they come."""


def ending_lines(seat: int, scores: Sequence[float], ranking: Sequence[Sequence[int]],
                 breakdown: Sequence[Sequence[tuple[str, float]]],
                 solo_target: float | None = None, solo_result: str = "") -> list[str]:
    """How a game ended, for the person at ``seat``: the scores, each seat's score by
    source (``breakdown``: the engine's ``score_breakdown``, sources that gave nothing
    left out) and the winner; a one-seat game says its score against ``solo_target``
    and ``solo_result`` (a rank, or whether an opponent card was beaten) instead, since
    a lone seat always comes first.

    >>> ending_lines(0, [24.0], [[0]], [[("contracts", 20.0), ("Forest", 4.0)]], 160.0,
    ...              "Apprentice")
    ['final score: 24, target 160: Apprentice', '  P1 (you): contracts 20, Forest 4']
    """
    lines = []
    if len(scores) == 1:
        target = "" if solo_target is None else f", target {solo_target:g}"
        verdict = f": {solo_result}" if solo_result else ""
        lines.append(f"final score: {scores[0]:g}{target}{verdict}")
    else:
        lines.append("final scores: " + ", ".join(f"P{s + 1} {v:g}"
                                                  for s, v in enumerate(scores)))
    for s, parts in enumerate(breakdown):
        earned = ", ".join(f"{source} {points:g}" for source, points in parts if points)
        lines.append(f"  P{s + 1}{' (you)' if s == seat else ''}: {earned or 'nothing scored'}")
    if len(scores) > 1 and ranking:
        first = list(ranking[0])
        lines.append(("winners: " if len(first) > 1 else "winner: ")
                     + ", ".join(f"P{s + 1}" for s in first)
                     + (" (you!)" if seat in first else ""))
    return lines


def hint_text(hint: Hint) -> str:
    """A hint as the table prints it: the headline, the candidates, the expected line.

    >>> print(hint_text(Hint(200, 0.5, "wait", 0.25, [HintMove("wait", 150, 0.25, [40, 44])],
    ...                      ["wait", "recruit woman"])))
    hint after 200 iterations (0.50 s): best wait
      wait                         visits   150  win 25.0%  expected scores P1:40.0 P2:44.0
      your win probability with wait: 25.0%; line: wait / recruit woman
    """
    lines = [f"hint after {counted(hint.iterations, 'iteration')} ({hint.elapsed:.2f} s): "
             f"best {hint.best}"]
    # Solo has no one to beat: its "win" is reaching the target score.
    column = "win" if hint.target is None else f"reach {hint.target:g}:"
    for move in hint.moves:
        scores = " ".join(f"P{s + 1}:{v:.1f}" for s, v in enumerate(move.expected_scores))
        lines.append(f"  {move.text:<28} visits {move.visits:5d}  "
                     f"{column} {move.win_probability:5.1%}  expected scores {scores}")
    aim = ("your win probability" if hint.target is None else
           f"your chance of reaching {hint.target:g}")
    lines.append(f"  {aim} with {hint.best}: {hint.win_probability:.1%}; "
                 f"line: {' / '.join(hint.line[:6])}")
    return "\n".join(lines)


def example_move(moves: list[str]) -> str:
    """A move of this position to show in ``help``: one with arguments when there is one."""
    return next((m for m in moves if " " in m), moves[0] if moves else "")


def help_text(moves: list[str]) -> str:
    example = example_move(moves)
    move_line = (f"  MOVE          play a move in the game's notation, e.g. '{example}'"
                 if example else "  MOVE          play a move in the game's notation")
    return "\n".join([
        "commands:",
        "  N             play move number N of the list ('moves' shows it)",
        move_line,
        "  moves         list the legal moves",
        "  hint [ITERS]  advice at the game's hint budget (or --iterations, or ITERS)",
        "  undo          take back your last move and the bots' replies to it; refused",
        "                once they showed you a hidden card, hand or choice, and over",
        "                --server",
        "  board         draw the position again",
        "  legend        what the board's symbols mean",
        "  save FILE     save the game (resume it with --load FILE); it tells every",
        "                hand: keep it to yourself",
        "  help          this text",
        "  quit          stop playing (it offers to save the game first)",
        "once the game is over:",
        "  review [ITERS] judge your decisions (default: the game's review budget)",
        "  board, legend, save FILE, quit as above"])


def legend_text(board: str) -> str:
    """The board's own key lines (every board explains the symbols it uses)."""
    keys = [line.strip()[len(KEY_PREFIX):].strip() for line in board.splitlines()
            if line.strip().startswith(KEY_PREFIX)]
    return "\n".join(keys) if keys else "this board uses no symbols beyond plain words"


def shown_anytime(table: Table, word: str, rest: str, output: Callable[[str], object]) -> bool:
    """Answer a command that works during the game and after it (board, legend, save);
    False when ``word`` is none of them."""
    if word == "board":
        output(table.board())
    elif word == "legend":
        output(legend_text(table.board()))
    elif word == "save":
        if not rest:
            output("save needs a file name")
        else:
            try:
                output(table.save(rest))
            except SaveFailed as exc:
                output(str(exc))
    else:
        return False
    return True


def run(table: Table, banner: str, input_fn: Callable[[str], str],
        output: Callable[[str], object]) -> int:
    """Play until the game ends or the person quits (0), or input ends (1)."""
    output(banner)
    resumed = table.resumed()
    if resumed:
        output(resumed)
    output(table.board())
    stale = False  # the last board printed no longer shows the position
    while not table.over():
        if not table.person_to_move():
            for line in table.step():
                output(line)
            stale = True
            continue
        if stale:
            output(table.board())
            stale = False
        prompt = f"P{table.seat + 1}> "
        try:
            line = input_fn(prompt).strip()
        except (EOFError, KeyboardInterrupt):
            output("")
            output("bye (the game was not saved)")
            return 1
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        word = word.lower()
        if word in ("quit", "exit"):
            if not offer_to_save(table, input_fn, output):
                output("game abandoned")
            return 0
        if word == "help":
            output(help_text(table.moves()))
        elif shown_anytime(table, word, rest, output):
            pass
        elif word == "moves":
            moves = table.moves()
            width = len(str(len(moves)))
            for number, text in enumerate(moves, 1):
                output(f"  {number:>{width}}. {text}")
        elif word == "hint":
            if rest and (not rest.isdigit() or int(rest) < 1):
                output(f"hint takes a positive number of iterations, not {rest!r}")
                continue
            output(hint_text(table.hint(int(rest) if rest else None)))
        elif word == "undo":
            stale = _told(output, table.undo, UndoRefused) or stale
        else:
            choice: int | str = line
            if line.isdigit():
                count = len(table.moves())
                if not 1 <= int(line) <= count:
                    output(f"there {'is' if count == 1 else 'are'} "
                           f"{counted(count, 'legal move')}; pick 1-{count} "
                           "('moves' lists them)")
                    continue
                choice = int(line) - 1
            stale = _told(output, functools.partial(table.play, choice), MoveRefused) or stale
    output(table.board())
    for line in table.result():
        output(line)
    return after_the_game(table, input_fn, output)


def _told(output: Callable[[str], object], change: Callable[[], list[str]],
          refused: type[Exception]) -> bool:
    """Make ``change`` to the game and print what it says; a refusal is printed instead.
    Whether the game changed."""
    try:
        lines = change()
    except refused as exc:
        output(str(exc))
        return False
    for text in lines:
        output(text)
    return True


SAVE_OFFER = "save the game first? a file name saves it there, Enter leaves without saving: "


def offer_to_save(table: Table, input_fn: Callable[[str], str],
                  output: Callable[[str], object]) -> bool:
    """Before leaving a game that is not over: ask for a file to save it to (Enter,
    or the end of input, leaves it unsaved; a failed save asks again).  Whether it was
    saved."""
    while True:
        try:
            path = input_fn(SAVE_OFFER).strip()
        except (EOFError, KeyboardInterrupt):
            output("")
            return False
        if not path:
            return False
        try:
            output(f"{table.save(path)}: resume it with --load {path}")
            return True
        except SaveFailed as exc:
            output(str(exc))


AFTER_THE_GAME = ("the game is over: 'review [ITERS]' judges your decisions, 'save FILE' "
                  "keeps the game, 'quit' leaves")


def after_the_game(table: Table, input_fn: Callable[[str], str],
                   output: Callable[[str], object]) -> int:
    """What the person may still do once the game has ended (0 when done)."""
    if not table.can_review():
        return 0
    output(AFTER_THE_GAME)
    while True:
        try:
            line = input_fn(f"P{table.seat + 1}> ").strip()
        except (EOFError, KeyboardInterrupt):
            return 0
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if not word:
            continue
        if word in ("quit", "exit"):
            return 0
        if word == "review":
            if rest and (not rest.isdigit() or int(rest) < 1):
                output(f"review takes a positive number of iterations, not {rest!r}")
                continue
            table.review(output, int(rest) if rest else None)
        elif not shown_anytime(table, word, rest, output):
            output(AFTER_THE_GAME)
