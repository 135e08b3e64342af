"""The locust side of ``furnace loadtest``: a gRPC user and the players' mix.

Locust is imported only by :func:`player_class`, inside a load test: importing
locust monkey-patches the process for gevent (:func:`load.runner.
prepare` does it first, with gRPC's gevent integration).  It speaks only the
protocol (no engine import).

The gRPC user follows locust's documented recipe for gRPC: a client interceptor
on the user's channel (:class:`LocustInterceptor`) times every call and fires
locust's ``request`` event with the RPC's name, its latency, its response and, on
failure, the ``grpc.RpcError``, so locust's own statistics and every listener
(the load test's :class:`~load.runner.Collector`) see each call.
A server stream (Analyze) is timed from the call to its last message.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import grpc

from clients.furnace_client import MAX_MESSAGE_BYTES, open_channel
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

#: Task weights of a player (also written into the report).
MIX: dict[str, int] = {
    "legal_moves": 6,      # LegalMoves: what may I play here?
    "play_move": 4,        # CheckMove then ApplyMove of a legal move
    "bot_move": 3,         # BestMove (100 ms) then ApplyMove of its answer
    "analyze": 1,          # a streamed Analyze (300 ms, updates every 100 ms)
    "estimate": 1,         # EstimateScores (200 playouts)
    "new_game": 1,         # NewGame, then on to a position of another game
}
#: The tasks a player runs once each, in this order, before drawing them by weight.
FIRST_ROUND = ("new_game", "legal_moves", "play_move", "bot_move", "analyze", "estimate")
#: A player's pause between two tasks (seconds): people think between moves.
WAIT_SECONDS = (0.5, 2.5)
#: Deadline of every call.
CALL_TIMEOUT = 30.0


def _method_name(method: Any) -> str:
    text = method.decode() if isinstance(method, bytes) else str(method)
    return text.rpartition("/")[2]


class _TimedStream:
    """A server stream that fires one ``request`` event when it ends (or fails)."""

    def __init__(self, call: Any, fire: Any, name: str, started: float) -> None:
        self._call = call
        self._fire = fire
        self._name = name
        self._started = started
        self._last: Any = None
        self._messages = 0
        self._size = 0
        self._done = False

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            message = next(self._call)
        except StopIteration:
            self._finish(None)
            raise
        except grpc.RpcError as error:
            self._finish(error)
            raise
        self._last = message
        self._messages += 1
        self._size += message.ByteSize()
        return message

    def cancel(self) -> bool:
        result: bool = self._call.cancel()
        return result

    def _finish(self, error: BaseException | None) -> None:
        if self._done:
            return
        self._done = True
        self._fire(request_type="grpc", name=self._name,
                   response_time=(time.perf_counter() - self._started) * 1000,
                   response_length=self._size, response=self._last,
                   context={"messages": self._messages}, exception=error)


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Fires locust's ``request`` event for every call of the channel it wraps."""

    def __init__(self, environment: Any) -> None:
        self.fire = environment.events.request.fire

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any,
                              request: Any) -> Any:
        name = _method_name(client_call_details.method)
        started = time.perf_counter()
        call = continuation(client_call_details, request)
        exception: BaseException | None = None
        size = 0
        try:
            size = call.result().ByteSize()
        except grpc.RpcError as error:
            exception = error
        self.fire(request_type="grpc", name=name,
                  response_time=(time.perf_counter() - started) * 1000, response_length=size,
                  response=None if exception is not None else call.result(), context={},
                  exception=exception)
        return call

    def intercept_unary_stream(self, continuation: Any, client_call_details: Any,
                               request: Any) -> Any:
        name = _method_name(client_call_details.method)
        started = time.perf_counter()
        return _TimedStream(continuation(client_call_details, request), self.fire, name,
                            started)


def player_class(positions: list[tuple[pb.GameState, str]], game: str, players: int,
                 budget_ms: int = 100, wait: tuple[float, float] = WAIT_SECONDS,
                 connection: dict[str, Any] | None = None) -> type:
    """The locust user class of a run: players over ``positions`` (``(GameState, move
    text)`` pairs sampled from self-play) of ``game``, searching with ``budget_ms``.

    ``connection``: the client library's connection options (``tls``, ``ca_cert``,
    ``client_cert``, ``client_key``, ``token``, ``load_balancing``).
    """
    from locust import User, between, task

    class GrpcUser(User):
        """A locust user with a FurnaceService stub whose every call is reported.

        ``host`` is the server's target (``HOST:PORT``, ``ipv4:A:P,B:Q``, ``dns:///...``);
        ``connection`` the client library's connection options (``tls``, ``ca_cert``,
        ``client_cert``, ``client_key``, ``token``, ``load_balancing``).
        """

        abstract = True
        connection: ClassVar[dict[str, Any]] = {}

        def __init__(self, environment: Any) -> None:
            super().__init__(environment)
            options = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                       ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)]
            self._base = open_channel(str(self.host), options=options, **self.connection)
            self.channel = grpc.intercept_channel(self._base, LocustInterceptor(environment))
            self.stub = pb_grpc.FurnaceServiceStub(self.channel)

        def on_stop(self) -> None:
            self._base.close()


    class FurnacePlayer(GrpcUser):
        """Someone playing a game against the server's bots (see :data:`MIX`).

        The runner subclasses it with ``positions`` (``(GameState, move text)`` pairs
        sampled from self-play games), ``game``, ``players`` and ``budget_ms``.
        """

        abstract = True
        wait_time = between(*WAIT_SECONDS)
        positions: ClassVar[list[tuple[pb.GameState, str]]] = []
        game: ClassVar[str] = "samara"
        players: ClassVar[int] = 2
        budget_ms: ClassVar[int] = 100

        def on_start(self) -> None:
            self.rng = random.Random()
            self.state: pb.GameState = self.positions[0][0]
            self.move: str | None = None
            self.jump()
            # A player starts a game and tries everything once before settling into the
            # mix: a short run (or a slow machine) then still calls every RPC, which a
            # draw by weight alone leaves to chance (NewGame is 1 task in 16).
            for name in FIRST_ROUND:
                getattr(self, name)()
                self.wait()

        # -- the player's position -------------------------------------------------------
        def jump(self) -> None:
            """On to a position of another game (sampled from self-play)."""
            self.state, self.move = self.rng.choice(self.positions)

        def _call(self, rpc: str, request: Any) -> Any:
            try:
                return getattr(self.stub, rpc)(request, timeout=CALL_TIMEOUT)
            except grpc.RpcError:
                return None  # the interceptor reported it

        def _after_apply(self, reply: Any) -> None:
            if reply is None or reply.status.terminal or reply.status.chance:
                self.jump()
            else:
                self.state, self.move = reply.state, None

        def _pick_move(self) -> str | None:
            if self.move is not None:
                return self.move
            reply = self._call("LegalMoves", pb.LegalMovesRequest(state=self.state))
            if reply is None or not reply.moves:
                self.jump()
                return self.move
            self.move = self.rng.choice(list(reply.moves)).text
            return self.move

        # -- tasks ----------------------------------------------------------------------
        @task(MIX["legal_moves"])
        def legal_moves(self) -> None:
            reply = self._call("LegalMoves", pb.LegalMovesRequest(state=self.state))
            if reply is not None and reply.moves:
                self.move = self.rng.choice(list(reply.moves)).text
            elif reply is not None:
                self.jump()

        @task(MIX["play_move"])
        def play_move(self) -> None:
            move = self._pick_move()
            if move is None:
                return
            self._call("CheckMove", pb.CheckMoveRequest(state=self.state, move=pb.Move(text=move)))
            self._after_apply(self._call("ApplyMove", pb.ApplyMoveRequest(
                state=self.state, move=pb.Move(text=move))))

        @task(MIX["bot_move"])
        def bot_move(self) -> None:
            reply = self._call("BestMove", pb.BestMoveRequest(
                state=self.state, seed=self.rng.randrange(1 << 31),
                budget=pb.SearchBudget(time_limit_ms=self.budget_ms)))
            if reply is None:
                return
            self._after_apply(self._call("ApplyMove", pb.ApplyMoveRequest(
                state=self.state, move=pb.Move(id=reply.move.id))))

        @task(MIX["analyze"])
        def analyze(self) -> None:
            try:
                for _ in self.stub.Analyze(pb.AnalyzeRequest(
                        state=self.state, seed=self.rng.randrange(1 << 31),
                        budget=pb.SearchBudget(time_limit_ms=3 * self.budget_ms),
                        update_interval_ms=self.budget_ms), timeout=CALL_TIMEOUT):
                    pass
            except grpc.RpcError:
                pass

        @task(MIX["estimate"])
        def estimate(self) -> None:
            self._call("EstimateScores", pb.EstimateScoresRequest(
                state=self.state, playouts=200, seed=self.rng.randrange(1 << 31)))

        @task(MIX["new_game"])
        def new_game(self) -> None:
            self._call("NewGame", pb.NewGameRequest(
                game=self.game, num_players=self.players, seed=self.rng.randrange(1 << 31),
                state_format=pb.STATE_FORMAT_OPAQUE))
            self.jump()

    return type("Player", (FurnacePlayer,), {
        "abstract": False, "wait_time": between(*wait), "positions": positions,
        "game": game, "players": players, "budget_ms": budget_ms,
        "connection": dict(connection or {})})
