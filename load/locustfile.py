"""Locust load test of a Furnace gRPC server (protocol only: no engine imports).

For measurements, prefer ``furnace loadtest`` (load/): the same kind of
gRPC user run in-process, positions sampled from self-play games, 100 ms searches,
a report with plots, and a capacity sweep (docs/operations.md, "Capacity").  This
file is for the ``locust`` command line and its web UI.

Run against a server you started on this machine::

    furnace serve --port 50051 --workers 2 --max-searches-per-client 0 &
    locust -f load/locustfile.py --headless -u 20 -r 5 -t 60s --host 127.0.0.1:50051

Users mix cheap calls (LegalMoves, CheckMove, ApplyMove) with searches
(BestMove with a small iteration budget, a short Analyze stream, EstimateScores).
Budgets come from the environment: ``FURNACE_LOAD_ITERATIONS`` (default 200),
``FURNACE_LOAD_PLAYERS`` (2), ``FURNACE_LOAD_GAME`` (samara).  RESOURCE_EXHAUSTED
answers (the server's bounded queue at work) are reported as their own request
type so they can be told apart from failures.  Every user comes from one address,
which the server counts as one client: ``--max-searches-per-client 0`` lifts the
per-client quota for the test.

The module imports without locust installed (the ``GrpcUser`` machinery is then
skipped), so tools and tests can import it.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

import grpc

try:  # gevent-based locust needs grpc's gevent integration before any channel exists.
    import grpc.experimental.gevent as grpc_gevent
    from locust import User, between, events, task

    grpc_gevent.init_gevent()
    HAVE_LOCUST = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_LOCUST = False

from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

GAME = os.environ.get("FURNACE_LOAD_GAME", "samara")
PLAYERS = int(os.environ.get("FURNACE_LOAD_PLAYERS", "2"))
ITERATIONS = int(os.environ.get("FURNACE_LOAD_ITERATIONS", "200"))


class GrpcClient:
    """Wraps a stub so each call fires a locust ``request`` event (name = RPC)."""

    def __init__(self, address: str, fire: Callable[..., Any]) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.FurnaceServiceStub(self.channel)
        self._fire = fire

    def call(self, rpc: str, request: Any, timeout: float = 30.0) -> Any:
        start = time.perf_counter()
        response: Any = None
        exception: BaseException | None = None
        name = rpc
        try:
            response = getattr(self.stub, rpc)(request, timeout=timeout)
            if rpc == "Analyze":
                response = list(response)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                name = f"{rpc} (queue full)"
            else:
                exception = error
        elapsed_ms = (time.perf_counter() - start) * 1000
        size = response.ByteSize() if hasattr(response, "ByteSize") else 0
        self._fire(request_type="grpc", name=name, response_time=elapsed_ms,
                   response_length=size, exception=exception, context={})
        return response

    def close(self) -> None:
        self.channel.close()


if HAVE_LOCUST:

    class GrpcUser(User):
        """A locust user with a :class:`GrpcClient` on ``self.client``."""

        abstract = True

        def __init__(self, environment: Any) -> None:
            super().__init__(environment)
            host = self.host or "127.0.0.1:50051"
            self.client = GrpcClient(host.replace("grpc://", ""), events.request.fire)

        def on_stop(self) -> None:
            self.client.close()

    class FurnacePlayer(GrpcUser):
        """Plays games: mostly cheap rule calls, some searches."""

        wait_time = between(0.05, 0.5)

        def on_start(self) -> None:
            self.rng = random.Random()
            self.state: pb.GameState | None = None
            self.new_game()

        def new_game(self) -> None:
            reply = self.client.call("NewGame", pb.NewGameRequest(
                game=GAME, num_players=PLAYERS, seed=self.rng.randrange(1 << 32),
                state_format=pb.STATE_FORMAT_OPAQUE))
            self.state = reply.state if reply is not None else None

        @task(6)
        def play_random_move(self) -> None:
            if self.state is None:
                return self.new_game()
            legal = self.client.call("LegalMoves", pb.LegalMovesRequest(state=self.state))
            if legal is None or legal.status.terminal or not legal.moves:
                return self.new_game()
            move = self.rng.choice(list(legal.moves))
            self.client.call("CheckMove", pb.CheckMoveRequest(state=self.state,
                                                              move=pb.Move(text=move.text)))
            applied = self.client.call("ApplyMove", pb.ApplyMoveRequest(state=self.state,
                                                                        move=move))
            if applied is not None:
                self.state = applied.state
                if applied.status.terminal:
                    self.new_game()

        @task(3)
        def best_move(self) -> None:
            if self.state is None:
                return self.new_game()
            self.client.call("BestMove", pb.BestMoveRequest(
                state=self.state, seed=self.rng.randrange(1 << 32),
                budget=pb.SearchBudget(iterations=ITERATIONS)))

        @task(1)
        def analyze(self) -> None:
            if self.state is None:
                return self.new_game()
            self.client.call("Analyze", pb.AnalyzeRequest(
                state=self.state, budget=pb.SearchBudget(time_limit_ms=300),
                update_interval_ms=100))

        @task(1)
        def estimate(self) -> None:
            if self.state is None:
                return self.new_game()
            self.client.call("EstimateScores", pb.EstimateScoresRequest(
                state=self.state, playouts=50, seed=self.rng.randrange(1 << 32)))
