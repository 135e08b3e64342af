"""``furnace review FILE``: every decision of a saved game judged by the search.

FILE is a game record (``furnace play``'s ``save``, ``furnace selfplay --save``: one
record a line; ``--record N`` picks one of several).  The review is the engine's
(:mod:`engine.search.review`): each decision of the seat searched from that seat's
information at the time, the move played against the search's best, labelled by the
game's thresholds (docs/review.md).  The table goes to stdout, a progress bar to
stderr; ``--json`` ends with one line ``{"turns": [...], "summary": [...]}``;
``--plot`` draws the seat's win probability and expected margin over the game.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine import records
from engine.game import FurnaceError, InvalidStateError
from engine.records import GameRecord
from engine.search.review import Decision, MoveFigures, Review, review_game
from engine.seats import player_name, seat_range
from engine.validation import decode_json

ProgressBar = Callable[[str], Callable[[int, int], None]]

#: Labels marked on the plot, with their marker and colour.
MARKED = {"inaccuracy": ("o", "#e0a000"), "mistake": ("s", "#e06000"),
          "blunder": ("X", "#c00000")}


def load_record(path: str, number: int = 1) -> GameRecord:
    """Record ``number`` (1-based) of the file ``path``: one record, or one a line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise FurnaceError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidStateError(f"{path} is not UTF-8 text: {exc.reason}") from None
    entries = _json_lines(text)
    several = entries is not None
    if entries is None:
        entries = [decode_json(text, path, InvalidStateError)]
    if not 1 <= number <= len(entries):
        raise FurnaceError(f"--record {number}: {path} holds {len(entries)} record(s)")
    where = f"{path} (record {number})" if several else path
    data = entries[number - 1]
    if not records.is_record_json(data):
        raise InvalidStateError(f"{where} is not a game record (a position saved alone has "
                                f"no moves to review): save the game with `furnace play`'s "
                                f"save or `furnace selfplay --save`")
    try:
        return records.record_from_json(data)
    except InvalidStateError as exc:
        raise InvalidStateError(f"{where}: {exc}") from None


def _json_lines(text: str) -> list[Any] | None:
    """The objects of a file of several JSON lines, or None for anything else (one
    JSON document, however it is laid out, is read whole)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    try:
        return [json.loads(line) for line in lines]
    except (json.JSONDecodeError, RecursionError):
        return None


def run_review_command(args: argparse.Namespace, progress_bar: ProgressBar) -> int:
    record = load_record(args.file, args.record)
    if args.seat is not None and not 0 <= args.seat < record.num_players:
        raise FurnaceError(f"--seat {args.seat}: a seat of {seat_range(record.num_players)}")
    if args.budget is not None and args.budget < 2:
        raise FurnaceError("--budget: at least 2 iterations (the best and the played move)")
    review = show_review(record, args.seat, budget=args.budget, seed=args.seed,
                         output=(lambda _line: None) if args.json else print,
                         progress=None if args.quiet else progress_bar("review"))
    if args.plot:
        plot(review, Path(args.plot))
    if args.json:
        print(json.dumps(review.to_json()))
    return 0


def show_review(record: GameRecord, seat: int | None = None, *, budget: int | None = None,
                seed: int = 0, output: Callable[[str], object] = print,
                progress: Callable[[int, int], None] | None = None) -> Review:
    """Review ``record`` for ``seat`` (None: every seat) and write the table and the
    summary through ``output``, line by line; what ``furnace play`` offers at a game's
    end.  ``progress(done, total)`` after each decision."""
    try:
        review = review_game(record, seat, budget=budget, seed=seed,
                             on_progress=None if progress is None else
                             lambda done, total, _: progress(done, total))
    except ValueError as exc:
        raise FurnaceError(str(exc)) from None
    for line in table(review):
        output(line)
    return review


def table(review: Review) -> list[str]:
    """The review as text: one row a decision, then a summary a seat."""
    lines = [f"{review.game}, {review.num_players} players: review of "
             + ", ".join(player_name(s) for s in review.seats)
             + f", {review.budget} iterations a search, seed {review.seed}",
             f"{'move':>5} {'seat':<4} {'played':<26} {'best':<26} {'win loss':>8} "
             f"{'points':>7}  label"]
    for d in review.decisions:
        lines.append(f"{d.turn + 1:5d} {player_name(d.seat):<4} {_cut(d.played.text):<26} "
                     f"{_cut(d.best.text) if d.best.move != d.played.move else '=':<26} "
                     f"{_percent(d.win_probability_loss):>8} {d.score_loss:7.1f}  {d.label}")
    for s in review.summaries:
        counts = ", ".join(f"{n} {label}" for label, n in s.counts.items())
        lines.append(f"{player_name(s.seat)}: {s.decisions} decisions ({counts}); average "
                     f"loss {s.average_win_probability_loss:.1%} win probability, "
                     f"{s.average_score_loss:.2f} points; accuracy {s.accuracy:.1f}")
    return lines


def _cut(text: str, width: int = 26) -> str:
    return text if len(text) <= width else text[:width - 1] + "~"


def _percent(loss: float) -> str:
    return f"{100 * loss:+.1f}%"


def plot(review: Review, path: Path) -> None:
    """Each reviewed seat's win probability (one seat: chance of reaching its target)
    and expected margin (one seat: over its target) after the move it played, over
    the game, with the best move's figures dashed and the labelled moves marked."""
    try:
        import matplotlib
    except ImportError as exc:
        raise FurnaceError("matplotlib is not installed (it draws --plot): pip install "
                           "matplotlib, or 'furnace[dev]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    solo = review.num_players == 1
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for seat in review.seats:
        own = [d for d in review.decisions if d.seat == seat]
        if not own:
            continue
        moves = [d.turn + 1 for d in own]
        name = player_name(seat)
        for ax, value in ((top, _probability), (bottom, _margin)):
            line, = ax.plot(moves, [value(d.played) for d in own], marker=".",
                            label=f"{name} played")
            ax.plot(moves, [value(d.best) for d in own], linestyle="--", linewidth=0.8,
                    color=line.get_color(), label=f"{name} best")
            _mark(ax, own, value)
    top.set_ylabel("chance of reaching the target" if solo else "win probability")
    top.set_ylim(-0.02, 1.02)
    bottom.set_ylabel("expected score - target" if solo else
                      "expected margin over the best other seat")
    bottom.axhline(0.0, color="gray", linewidth=0.8, alpha=0.6)
    bottom.set_xlabel("move of the game")
    for label, (marker, colour) in MARKED.items():
        top.scatter([], [], marker=marker, color=colour, label=label)
    top.legend(fontsize=8, ncol=2)
    top.grid(alpha=0.3)
    bottom.grid(alpha=0.3)
    top.set_title(f"{review.game} review, {review.budget} iterations a search, "
                  f"seed {review.seed}", fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise FurnaceError(f"cannot write --plot {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def _probability(figures: MoveFigures) -> float:
    return figures.win_probability


def _margin(figures: MoveFigures) -> float:
    return figures.margin


def _mark(ax: Any, decisions: Sequence[Decision], value: Callable[[MoveFigures], float]
          ) -> None:
    for label, (marker, colour) in MARKED.items():
        chosen = [d for d in decisions if d.label == label]
        if chosen:
            ax.scatter([d.turn + 1 for d in chosen], [value(d.played) for d in chosen],
                       marker=marker, color=colour, s=50, zorder=3)
