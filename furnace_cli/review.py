"""``furnace review FILE``: every decision of a saved game judged by the search.

FILE is a game record (``furnace play``'s ``save``, ``furnace selfplay --save``: one
record a line; ``--record N`` picks one of several).  The review is the engine's
(:mod:`engine.search.review`): each decision of the seat searched from that seat's
information at the time, the move played against the search's best, labelled by the
game's thresholds (docs/review.md).  The table goes to stdout, a progress bar to
stderr; ``--json`` ends with one line ``{"turns": [...], "summary": [...]}``;
``--plot`` draws the seat's win probability and expected margin over the game.
The table ends with the key moments (the engine's choice) and how the game ended
(the engine's scores, score breakdown and solo result); ``--key-moments`` prints each
with its position, ``--at N`` judges move N alone and shows its position, both from
the mover's seat (``State.render(seat)``: nothing that seat could not see).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clients.table import ending_lines
from engine import records
from engine.game import CHANCE, FurnaceError, InvalidStateError, State
from engine.records import GameRecord
from engine.search.review import (
    Decision,
    MoveFigures,
    Review,
    Swing,
    review_decision,
    review_game,
)
from engine.search.review_settings import review_settings_for
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
    if args.at is not None:
        return _review_at(record, args)
    review = show_review(record, args.seat, budget=args.budget, seed=args.seed,
                         output=(lambda _line: None) if args.json else print,
                         progress=None if args.quiet else progress_bar("review"))
    if args.plot:
        plot(review, Path(args.plot))
    final = _final_position(record)
    if args.json:
        print(json.dumps({**review.to_json(), "ending": ending_json(final)}))
        return 0
    if review.key_moments:
        if args.key_moments:
            positions = _positions(record, [k.turn for k in review.key_moments])
            for moment in review.key_moments:
                decision = review.decision_at(moment.turn)
                assert decision is not None  # a key moment is a reviewed decision
                print()
                print(f"key moment: {_reasons(moment.reasons)}")
                for line in decision_lines(decision, positions[moment.turn],
                                           review.num_players):
                    print(line)
            print()
        else:
            print(f"see one: furnace review {args.file} --at N; all, with their positions: "
                  f"--key-moments")
    for line in ending(final, len(record.moves)):
        print(line)
    return 0


def _review_at(record: GameRecord, args: argparse.Namespace) -> int:
    """``--at N``: judge move N alone and show it from its mover's seat."""
    if args.plot or args.key_moments:
        raise FurnaceError("--at shows one decision: without --plot or --key-moments, "
                           "which need the whole game's review")
    total = len(record.moves)
    if not 1 <= args.at <= total:
        raise FurnaceError(f"--at {args.at}: the record holds {total} moves; give a move "
                           f"number from 1 to {total} (the table's 'move' column)"
                           if total else f"--at {args.at}: the record holds no moves")
    turn = args.at - 1
    try:
        state = _positions(record, [turn])[turn]
        settings = review_settings_for(state)
        mover = state.current_player()
        if mover == CHANCE:
            raise FurnaceError(f"--at {args.at}: move {args.at} is a chance outcome "
                               f"({_chance_text(record, turn)}), not a decision")
        if args.seat is not None and mover != args.seat:
            raise FurnaceError(f"--at {args.at}: move {args.at} was {player_name(mover)}'s, "
                               f"not {player_name(args.seat)}'s (leave --seat out, or give "
                               f"--seat {mover})")
        if len(state.legal_moves()) < 2:
            raise FurnaceError(f"--at {args.at}: move {args.at} was forced ({player_name(mover)} "
                               f"had one legal move): there is nothing to judge")
        played = records.resolve_move(state, turn, record.moves[turn])
        decision = review_decision(state, played, turn, seed=args.seed, settings=settings,
                                   budget=settings.budget if args.budget is None
                                   else args.budget)
    except ValueError as exc:
        if isinstance(exc, FurnaceError):
            raise
        raise FurnaceError(str(exc)) from None
    if args.json:
        print(json.dumps({**decision.to_json(), "position": state.render(mover)}))
        return 0
    print(f"{state.info.name}, {record.num_players} players: move {args.at} of {total}, "
          f"{settings.budget if args.budget is None else args.budget} iterations a search, "
          f"seed {args.seed}")
    for line in decision_lines(decision, state, record.num_players):
        print(line)
    return 0


def _chance_text(record: GameRecord, turn: int) -> str:
    entry = record.moves[turn]
    return entry[1] if isinstance(entry, tuple) else str(entry)


def _positions(record: GameRecord, turns: Sequence[int]) -> dict[int, State]:
    """The record's position before each of ``turns`` (the game's reference rules), from
    one replay."""
    wanted = set(turns)
    state = records.start_state(record)
    found = {}
    for turn, entry in enumerate(record.moves[:max(wanted) + 1] if wanted else []):
        if turn in wanted:
            found[turn] = state.clone()
        state.apply(records.resolve_move(state, turn, entry))
    return found


def _final_position(record: GameRecord) -> State:
    try:
        return records.replay(record)
    except ValueError as exc:
        raise FurnaceError(str(exc)) from None


def decision_lines(decision: Decision, position: State, num_players: int) -> list[str]:
    """One decision as the reviewed seat saw it: the position (the game's text board from
    that seat's observation), the move played, the best move, the loss, and how the
    seat's forecast had moved since its previous decision."""
    seat = decision.seat
    name = player_name(seat)
    solo = num_players == 1
    measure = (f"chance of reaching {decision.target:g}" if solo and decision.target is not None
               else "win probability")
    against = "over the target" if solo else "over the best other seat"

    def figures(move: MoveFigures) -> str:
        return f"{measure} {move.win_probability:.1%}, margin {move.margin:+.1f} {against}"

    lines = [f"move {decision.turn + 1}, {name} to move, as {name} saw it:",
             position.render(seat),
             f"played: {decision.played.text} ({figures(decision.played)})"]
    if decision.best.move == decision.played.move:
        lines.append("best:   the move played")
    else:
        lines.append(f"best:   {decision.best.text} ({figures(decision.best)})")
    lines.append(f"loss: {_percent(decision.win_probability_loss)} {measure}, "
                 f"{decision.score_loss:.1f} points: {decision.label} "
                 f"(accuracy {decision.accuracy:.0f})")
    if decision.principal_variation:
        lines.append("line after the best: " + ", ".join(decision.principal_variation))
    if decision.swing is not None and decision.swing.notable:
        lines.append(swing_line(decision.swing, name, measure))
    return lines


def swing_line(moved: Swing, name: str, measure: str) -> str:
    """What moved ``name``'s forecast before a decision, and that it was not its loss."""
    return (f"before it: {name}'s forecast {'fell' if moved.drop else 'rose'} "
            f"({measure} {_percent(moved.win_probability)}, {moved.margin:+.1f} points) "
            f"through {moved.cause()} since move {moved.since_turn + 1}: not {name}'s own "
            f"move")


def _reasons(reasons: Sequence[str]) -> str:
    words = {"mistake": "a mistake", "blunder": "a blunder",
             "drop": "a large drop of the forecast before it",
             "rise": "a large rise of the forecast before it"}
    return ", and ".join(words[r] for r in reasons)


def ending(final: State, moves: int) -> list[str]:
    """How the game ended (the engine's scores, score breakdown and solo result, as
    ``furnace play`` shows them), or that the record stops before the end."""
    if not final.is_terminal():
        return [f"the game was not finished: the record stops after {moves} moves"]
    # Nobody is "you" in a saved game's review: its reader may have played any seat.
    return ending_lines(-1, final.scores(), final.ranking(), final.score_breakdown(),
                        final.solo_target(), final.solo_rank() or "")


def ending_json(final: State) -> dict[str, Any] | None:
    """How the game ended, for ``--json``: None if the record stops before the end."""
    if not final.is_terminal():
        return None
    return {"scores": final.scores(), "ranking": final.ranking(),
            "score_breakdown": [[{"source": source, "points": points}
                                 for source, points in parts]
                                for parts in final.score_breakdown()],
            "solo_target": final.solo_target(), "solo_result": final.solo_rank()}


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
    if review.key_moments:
        lines.append("key moments: " + "; ".join(
            f"move {k.turn + 1} {player_name(k.seat)} ({', '.join(k.reasons)})"
            for k in review.key_moments))
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

    fig = figure(review, plt)
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise FurnaceError(f"cannot write --plot {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def figure(review: Review, plt: Any) -> Any:
    """The figure :func:`plot` saves (``plt``: matplotlib's pyplot, Agg backend)."""
    from matplotlib.ticker import MaxNLocator

    solo = review.num_players == 1
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    # Moves are whole numbers: a short game must not get ticks at half moves.
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
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
    return fig


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
