"""A terminal game against bots served by a remote Furnace server (protocol only).

The human plays ``seat``; every other seat asks the server for its BestMove.
Only NewGame, LegalMoves, CheckMove, ApplyMove and BestMove are used: the
board drawing is the ``render`` text the server sends with each state.

Whose view: this client is the *host*.  It holds the whole position (every hand)
and asks for the bots' moves as the host (no ``observer_seat``; the search for a
seat only ever uses that seat's information).  Everything it shows the human is
asked for with ``observer_seat`` = the human's seat: the board (LegalMoves and
ApplyMove renders), other seats' moves (the ApplyMove record: a secret choice is
shown as such) and events, so the human sees only what their seat sees.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import grpc

from clients.furnace_client import FurnaceClient, describe_error, host_state
from furnace_proto.furnace.v1 import furnace_pb2 as pb

HELP = ("enter a move's number from the list or its text (e.g. 'tool saw r2c2 1+2'); "
        "'list' shows the moves again, 'board' draws the board, 'quit' ends the game")

_BAD_INPUT = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
              grpc.StatusCode.OUT_OF_RANGE}


def _name(seat: int) -> str:
    return f"P{seat + 1}"


def play_remote(
    server: str,
    game: str,
    players: int,
    seat: int,
    seed: int,
    iterations: int,
    input_fn: Callable[[str], str] = input,
    output: Callable[[str], object] = print,
    connection: Mapping[str, Any] | None = None,
) -> int:
    """Play ``game`` with ``players`` seats on ``server``; the human is ``seat`` (0-based).

    ``seed`` sets up the game (and, plus the ply number, seeds each bot search);
    ``iterations`` is each bot move's search budget.  Returns an exit code: 0 when
    the game ends (or the player quits), 1 when input ends or the server fails,
    2 for bad arguments (unknown game, player count, seat, budget).  ``connection``:
    :class:`FurnaceClient` keywords for a hosted server (``tls``, ``ca_cert``,
    ``client_cert``, ``client_key``, ``token``).
    """
    if not 0 <= seat < players:
        output(f"error: seat must be in 0..{players - 1} (0 is P1), got {seat}")
        return 2
    if iterations < 1:
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
          iterations: int, input_fn: Callable[[str], str],
          output: Callable[[str], object]) -> int:
    started = client.new_game(game, players, seed=seed, state_format=pb.STATE_FORMAT_OPAQUE)
    # The whole position, asked about as the host; the human's view is asked for
    # with observer_seat=seat (NewGame's own render is the host's: never shown).
    state = host_state(started.state)
    output(f"{game}: you are {_name(seat)} (seat {seat}) against {players - 1} bot(s); "
           f"type 'help' for help")
    chance_rng = random.Random(seed)
    ply = 0
    show_board = True
    while True:
        view = client.legal_moves(state, include_render=True, observer_seat=seat)
        status = view.status
        board = view.render
        if status.terminal:
            output(board)
            scores = ", ".join(f"{_name(i)} {s:g}" for i, s in enumerate(status.scores))
            winners = [_name(s) for s in status.ranking[0].seats] if status.ranking else []
            output(f"game over: {scores}")
            if winners:
                verdict = "you win!" if [_name(seat)] == winners else \
                    f"winner: {' and '.join(winners)}"
                output(verdict)
            return 0
        player = status.current_player
        if status.chance:
            # Chance outcomes may depend on what the human cannot see: the host draws.
            outcomes = list(view.chance_outcomes) if not view.moves_hidden else \
                list(client.legal_moves(state).chance_outcomes)
            weights = [o.probability for o in outcomes]
            move = chance_rng.choices(outcomes, weights=weights)[0].move
            actor = None
        elif player == seat:
            if show_board:
                output(board)
                show_board = False
            picked = _ask(client, state, list(view.moves), seat, input_fn, output, board)
            if picked is None:
                return 1
            if picked == "quit":
                output("game abandoned")
                return 0
            move = picked
            actor = seat
        else:
            reply = client.best_move(state, iterations=iterations,
                                     seed=(seed + ply) % (1 << 64), seat=player)
            move = reply.move
            actor = player
        # Applied to the whole position; the record and render are the human's view.
        applied = client.apply_move(state, move, seat=actor, observer_seat=seat)
        record = applied.record
        if actor is not None and actor != seat:
            output(f"{_name(player)} makes a secret choice" if record.move_hidden
                   else f"{_name(player)} plays {record.move.text}")
        for event in record.events:
            output(f"  {event}")
        state = host_state(applied.state)
        ply += 1
        if actor != seat:
            show_board = True


def _ask(client: FurnaceClient, state: pb.GameState, moves: list[pb.Move], seat: int,
         input_fn: Callable[[str], str], output: Callable[[str], object],
         board: str) -> pb.Move | str | None:
    """The human's move (a Move), "quit", or None when input ends."""
    _list_moves(moves, output)
    while True:
        try:
            line = input_fn(f"{_name(seat)} your move> ").strip()
        except (EOFError, KeyboardInterrupt):
            output("")
            output("input ended: game abandoned")
            return None
        if not line:
            continue
        word = line.lower()
        if word in ("quit", "exit", "q"):
            return "quit"
        if word in ("help", "?", "h"):
            output(HELP)
            continue
        if word in ("list", "moves", "l"):
            _list_moves(moves, output)
            continue
        if word in ("board", "b"):
            output(board)
            continue
        if line.isdigit():
            number = int(line)
            if 1 <= number <= len(moves):
                return moves[number - 1]
            output(f"no move number {number}: pick 1..{len(moves)}")
            continue
        check = client.check_move(state, line, seat=seat, observer_seat=seat)
        if check.legal:
            return check.move
        output(f"not allowed: {check.reason}")


def _list_moves(moves: list[pb.Move], output: Callable[[str], object]) -> None:
    width = len(str(len(moves)))
    for i, move in enumerate(moves, 1):
        output(f"  {i:>{width}}. {move.text}")
