"""A terminal game against bots served by a remote Furnace server (protocol only).

The human plays ``seat``; every other seat asks the server for its BestMove.
Only ListGames (a hint's budget, ``GameInfo.hint_iterations``), NewGame, LegalMoves,
CheckMove, ApplyMove and BestMove are used: the board drawing is the ``render`` text
the server sends with each state.

Whose view: this client is the *host*.  It holds the whole position (every hand)
and asks for the bots' moves as the host (no ``observer_seat``; the search for a
seat only ever uses that seat's information).  Everything it shows the human is
asked for with ``observer_seat`` = the human's seat: the board (LegalMoves and
ApplyMove renders), other seats' moves (the ApplyMove record: a secret choice is
shown as such) and events, so the human sees only what their seat sees.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import grpc

from clients.furnace_client import (
    RECORD_FILE_FORMAT,
    RECORD_FILE_VERSION,
    FurnaceClient,
    describe_error,
    host_state,
    record_state,
)
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
from furnace_proto.furnace.v1 import furnace_pb2 as pb

_BAD_INPUT = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
              grpc.StatusCode.OUT_OF_RANGE}


#: Each remote bot move's iterations when ``furnace play --server`` is given no
#: ``--iterations``.
BOT_ITERATIONS = 2000


def _name(seat: int) -> str:
    return f"P{seat + 1}"


def play_remote(
    server: str,
    game: str,
    players: int,
    seat: int,
    seed: int,
    iterations: int | None,
    input_fn: Callable[[str], str] = input,
    output: Callable[[str], object] = print,
    connection: Mapping[str, Any] | None = None,
) -> int:
    """Play ``game`` with ``players`` seats on ``server``; the human is ``seat`` (0-based).

    ``seed`` sets up the game (and, plus the ply number, seeds each bot search);
    ``iterations`` is each bot move's search budget and each hint's (None: the bots
    :data:`BOT_ITERATIONS`, a hint the game's hint budget, ``GameInfo.hint_iterations``,
    whatever the bots search: docs/api.md, "Hints and reviews").  Returns an exit code: 0 when
    the game ends (or the player quits), 1 when input ends or the server fails,
    2 for bad arguments (unknown game, player count, seat, budget).  ``connection``:
    :class:`FurnaceClient` keywords for a hosted server (``tls``, ``ca_cert``,
    ``client_cert``, ``client_key``, ``token``).
    """
    if not 0 <= seat < players:
        output(f"error: seat must be in 0..{players - 1} (0 is P1), got {seat}")
        return 2
    if iterations is not None and iterations < 1:
        output(f"error: iterations must be positive, got {iterations}")
        return 2
    try:
        client = FurnaceClient(server, **(connection or {}))
    except ValueError as exc:
        output(f"error: {exc}")
        return 2
    with client:
        try:
            return _play(client, game, players, seat, seed, iterations, input_fn, output)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code == grpc.StatusCode.UNAUTHENTICATED:
                output(f"error: the Furnace server at {server} refused the credentials "
                       "(give a valid token: --token or $FURNACE_TOKEN)")
                return 1
            if code == grpc.StatusCode.UNAVAILABLE:
                output(f"error: cannot reach the Furnace server at {server}: "
                       f"{describe_error(exc)}")
                return 1
            output(f"error: {describe_error(exc)}")
            return 2 if code in _BAD_INPUT else 1


def _play(client: FurnaceClient, game: str, players: int, seat: int, seed: int,
          iterations: int | None, input_fn: Callable[[str], str],
          output: Callable[[str], object]) -> int:
    table = RemoteTable(client, game, players, seat, seed, iterations)
    others = ", ".join(_name(s) for s in range(players) if s != seat)
    against = f"against bots ({others})" if others else "playing solo"
    banner = (f"{game}: you are {_name(seat)} (seat {seat}) {against} on the server; "
              "type 'help' for commands")
    return run(table, banner, input_fn, output)


#: Seconds a whole review on the server may take: a game's decisions at the game's
#: review budget take minutes; past it the server sends what it judged.
REVIEW_DEADLINE = 3600.0

LABELS = {pb.REVIEW_LABEL_BEST: "best", pb.REVIEW_LABEL_GOOD: "good",
          pb.REVIEW_LABEL_INACCURACY: "inaccuracy", pb.REVIEW_LABEL_MISTAKE: "mistake",
          pb.REVIEW_LABEL_BLUNDER: "blunder"}


def _cut(text: str, width: int = 26) -> str:
    return text if len(text) <= width else text[:width - 1] + "~"


def review_lines(stream: Iterable[pb.ReviewGameResponse], iterations: int | None,
                 progress: Callable[[str], object]) -> list[str]:
    """A ReviewGame stream as the table prints a review: one row a decision (played,
    best, loss in win probability and points, label), then each seat's summary; every
    tenth decision judged is reported through ``progress`` as it comes.  A review the
    server stops (its deadline, a refusal) ends with the reason, after what it judged."""
    budget = (f"{counted(iterations, 'iteration')} a search" if iterations
              else "the game's review budget")
    rows = [f"review on the server, {budget}",
            f"{'move':>5} {'seat':<4} {'played':<26} {'best':<26} {'win loss':>8} "
            f"{'points':>7}  label"]
    try:
        for item in stream:
            _review_row(item, rows, progress)
    except grpc.RpcError as exc:
        rows.append(f"the review stopped: {describe_error(exc)}")
    return rows


def _review_row(item: pb.ReviewGameResponse, rows: list[str],
                progress: Callable[[str], object]) -> None:
    if item.HasField("decision"):
        d = item.decision
        done = d.index + 1
        if done == d.total or done % 10 == 0:
            progress(f"  {done}/{d.total} decisions judged")
        best = _cut(d.best.move.text) if d.best.move.id != d.played.move.id else "="
        rows.append(f"{d.turn + 1:5d} {'P' + str(d.seat + 1):<4} "
                    f"{_cut(d.played.move.text):<26} {best:<26} "
                    f"{100 * d.win_probability_loss:+7.1f}% {d.score_loss:7.1f}  "
                    f"{LABELS.get(d.label, 'unlabelled')}")
    else:
        s = item.summary
        counts = ", ".join(f"{getattr(s.counts, label)} {label}"
                           for label in LABELS.values())
        rows.append(f"P{s.seat + 1}: {counted(s.decisions, 'decision')} ({counts}); "
                    f"average loss {s.average_win_probability_loss:.1%} win probability, "
                    f"{s.average_score_loss:.2f} points; accuracy {s.accuracy:.1f}"
                    + ("" if s.complete else " (the review stopped early)"))


class RemoteTable:
    """A game held by a Furnace server, seen from the person's seat (:class:`Table`)."""

    def __init__(self, client: FurnaceClient, game: str, players: int, seat: int, seed: int,
                 iterations: int | None) -> None:
        self.client, self.seat, self.seed = client, seat, seed
        self.game, self.players = game, players
        self.iterations = iterations or BOT_ITERATIONS
        # A hint's own budget, the game's (0 from a server without it: the server's
        # default budget), not the bots'.
        self.hint_iterations = iterations or next(
            (g.hint_iterations for g in client.list_games().games if g.name == game), 0)
        # The game as played, every seat's moves (and chance's) with id and text: what
        # `save` writes and `review` sends, a record the server deals again from seed.
        self.played: list[pb.Move] = []
        started = client.new_game(game, players, seed=seed,
                                  state_format=pb.STATE_FORMAT_OPAQUE)
        # The whole position, asked about as the host; the person's view is asked for
        # with observer_seat=seat (NewGame's own render is the host's: never shown).
        self.state = host_state(started.state)
        self.chance_rng = random.Random(seed)
        self.ply = 0
        self._view: pb.LegalMovesResponse | None = None

    def _seen(self) -> pb.LegalMovesResponse:
        if self._view is None:
            self._view = self.client.legal_moves(self.state, include_render=True,
                                                 observer_seat=self.seat)
        return self._view

    def _apply(self, move: pb.Move, actor: int | None) -> list[str]:
        # Applied to the whole position; the record and render are the person's view.
        applied = self.client.apply_move(self.state, move, seat=actor, observer_seat=self.seat)
        self.played.append(pb.Move(id=move.id, text=move.text))
        record = applied.record
        lines = []
        if actor is not None and actor != self.seat:
            lines.append(f"{_name(actor)} makes a secret choice" if record.move_hidden
                         else f"{_name(actor)} plays {record.move.text}")
        elif actor == self.seat:
            lines.append(f"{_name(actor)} (you): {record.move.text}")
        lines += [f"  {event}" for event in record.events]
        self.state = host_state(applied.state)
        self.ply += 1
        self._view = None
        return lines

    def board(self) -> str:
        return self._seen().render

    def over(self) -> bool:
        return self._seen().status.terminal

    def person_to_move(self) -> bool:
        status = self._seen().status
        return not status.chance and status.current_player == self.seat

    def step(self) -> list[str]:
        view = self._seen()
        if view.status.chance:
            # Chance outcomes may depend on what the person cannot see: the host draws.
            outcomes = list(view.chance_outcomes) if not view.moves_hidden else \
                list(self.client.legal_moves(self.state).chance_outcomes)
            weights = [o.probability for o in outcomes]
            return self._apply(self.chance_rng.choices(outcomes, weights=weights)[0].move,
                               None)
        player = view.status.current_player
        reply = self.client.best_move(self.state, iterations=self.iterations,
                                      seed=(self.seed + self.ply) % (1 << 64), seat=player)
        return self._apply(reply.move, player)

    def moves(self) -> list[str]:
        return [m.text for m in self._seen().moves]

    def play(self, choice: int | str) -> list[str]:
        if isinstance(choice, int):
            move = self._seen().moves[choice]
        else:
            check = self.client.check_move(self.state, choice, seat=self.seat,
                                           observer_seat=self.seat)
            if not check.legal:
                raise MoveRefused(f"not allowed: {check.reason}")
            move = check.move
        return self._apply(move, self.seat)

    def hint(self, iterations: int | None) -> Hint:
        # Searched from the person's information only (observer_seat).
        reply = self.client.best_move(self.state,
                                      iterations=iterations or self.hint_iterations,
                                      seed=self.chance_rng.getrandbits(32), seat=self.seat,
                                      observer_seat=self.seat, max_candidates=5)
        a = reply.analysis
        # win_probabilities is the position's forecast, the best move's (docs/forecasts.md).
        return Hint(a.iterations, a.elapsed_seconds, a.best_move.text,
                    a.win_probabilities[self.seat],
                    [HintMove(m.move.text, m.visits, m.win_probability, list(m.expected_scores))
                     for m in a.moves],
                    [m.text for m in a.principal_variation],
                    a.target if a.HasField("target") else None)

    def undo(self) -> list[str]:
        raise UndoRefused("undo is not available over --server: the server keeps no "
                          "games and takes no move back; play without --server to undo")

    def resumed(self) -> str:
        return ""

    def record_json(self) -> dict[str, object]:
        """The game as a record file (``furnace play``'s save): the seed the server dealt
        from and every move, with its id and text."""
        return {"format": RECORD_FILE_FORMAT, "version": RECORD_FILE_VERSION,
                "game": self.game, "num_players": self.players, "options": {},
                "seed": self.seed,
                "moves": [{"id": m.id, "text": m.text} for m in self.played]}

    def save(self, path: str) -> str:
        # A game record, as a local game saves: `furnace play --load FILE` resumes it
        # and `furnace review FILE` reviews it.
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self.record_json(), handle)
        except OSError as exc:
            raise SaveFailed(f"cannot save to {path}: {exc.strerror}") from None
        return f"saved to {path}"

    def can_review(self) -> bool:
        return True

    def review(self, output: Callable[[str], object], iterations: int | None) -> None:
        output(f"reviewing your decisions on the server "
               f"({counted(len(self.played), 'move')} played); each is searched as you "
               "saw it")
        record = record_state(self.game, self.players, self.played, seed=self.seed)
        stream = self.client.review_game(record, self.seat, iterations=iterations or 0,
                                         seed=self.seed, observer_seat=self.seat,
                                         timeout=REVIEW_DEADLINE)
        for line in review_lines(stream, iterations, output):
            output(line)

    def result(self) -> list[str]:
        status = self._seen().status
        breakdown = [[(part.source, part.points) for part in seat.parts]
                     for seat in status.score_breakdown]
        return ending_lines(self.seat, list(status.scores),
                            [list(place.seats) for place in status.ranking], breakdown,
                            status.solo_target if status.HasField("solo_target") else None,
                            status.solo_result)
