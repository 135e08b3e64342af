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
from collections.abc import Callable, Mapping
from typing import Any

import grpc

from clients.furnace_client import FurnaceClient, describe_error, host_state, state_json
from clients.table import MoveRefused, ending_lines, run
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


class RemoteTable:
    """A game held by a Furnace server, seen from the person's seat (:class:`Table`)."""

    def __init__(self, client: FurnaceClient, game: str, players: int, seat: int, seed: int,
                 iterations: int | None) -> None:
        self.client, self.seat, self.seed = client, seat, seed
        self.iterations = iterations or BOT_ITERATIONS
        # A hint's own budget, the game's (0 from a server without it: the server's
        # default budget), not the bots'.
        self.hint_iterations = iterations or next(
            (g.hint_iterations for g in client.list_games().games if g.name == game), 0)
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

    def hint(self, iterations: int | None) -> str:
        # Searched from the person's information only (observer_seat).
        reply = self.client.best_move(self.state,
                                      iterations=iterations or self.hint_iterations,
                                      seed=self.chance_rng.getrandbits(32), seat=self.seat,
                                      observer_seat=self.seat, max_candidates=5)
        a = reply.analysis
        column = "win" if not a.HasField("target") else f"reach {a.target:g}:"
        lines = [f"hint after {a.iterations} iterations ({a.elapsed_seconds:.2f} s): "
                 f"best {a.best_move.text}"]
        for m in a.moves:
            scores = " ".join(f"P{s + 1}:{v:.1f}" for s, v in enumerate(m.expected_scores))
            lines.append(f"  {m.move.text:<28} visits {m.visits:5d}  "
                         f"{column} {m.win_probability:5.1%}  expected scores {scores}")
        if a.principal_variation:
            lines.append("  line: " + " / ".join(m.text for m in a.principal_variation[:6]))
        return "\n".join(lines)

    def save(self, path: str) -> str:
        # The whole position (every hand), as the game's JSON state: `furnace play
        # --load FILE` resumes it.
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(state_json(self.state), handle)
        except OSError as exc:
            return f"cannot save to {path}: {exc.strerror}"
        return f"saved to {path}"

    def can_review(self) -> bool:
        # A review runs the engine's searches: this client holds no engine, and the
        # server does not review games yet.
        return False

    def review(self, output: Callable[[str], object], iterations: int | None) -> None:
        output("a game played on a server cannot be reviewed from this client")

    def result(self) -> list[str]:
        status = self._seen().status
        breakdown = [[(part.source, part.points) for part in seat.parts]
                     for seat in status.score_breakdown]
        return ending_lines(self.seat, list(status.scores),
                            [list(place.seats) for place in status.ranking], breakdown,
                            status.solo_target if status.HasField("solo_target") else None,
                            status.solo_result)
