"""Fixtures: a real Furnace server on 127.0.0.1 (port 0) and stubs talking to it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc
from tests.ai_server.helpers_browser import SEALER, chromium

#: Settings of the shared test server: small caps so tests stay quick.
TEST_SETTINGS: dict[str, Any] = {
    "workers": 2,
    "max_queue": 6,
    "max_iterations": 200_000,
    # Every search stops at max_time, an iteration-only one too: generous, so that
    # reproducible (iteration) searches end by their budget even on a slow machine.
    "max_time": 60.0,
    "default_iterations": 100,
    "default_analyze_time": 1.0,
    "max_playouts": 2_000,
    "default_playouts": 50,
    "call_workers": 2,
}


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(**TEST_SETTINGS)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


@pytest.fixture(scope="module")
def channel(server: BackgroundServer) -> Iterator[grpc.Channel]:
    ch = grpc.insecure_channel(server.address)
    try:
        yield ch
    finally:
        ch.close()


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> pb_grpc.FurnaceServiceStub:
    return pb_grpc.FurnaceServiceStub(channel)


@pytest.fixture(scope="module")
def new_state(stub: pb_grpc.FurnaceServiceStub) -> pb.GameState:
    """A fresh two-player Samara game (seed 1) in the typed form."""
    reply = stub.NewGame(pb.NewGameRequest(game="samara", num_players=2, seed=1))
    state: pb.GameState = reply.state
    return state


# -- the web table's browser tests (test_web_table.py, test_web_boards.py) ---------------
@pytest.fixture(scope="module")
def table_server() -> Iterator[BackgroundServer]:
    """A server with the web table, sealing with helpers_browser.SEALER's key, and taking
    the page's ``?seed=`` for a sealed game too (allow_sealed_seeds: the tests of pinned
    pages deal Oh My Goods! from their seed)."""
    with BackgroundServer(http_port=0, workers=1, max_time=10.0, sealer=SEALER,
                          allow_sealed_seeds=True) as srv:
        yield srv


@pytest.fixture(scope="module")
def keyless_table_server() -> Iterator[BackgroundServer]:
    """A server with the web table given no sealing key: it seals with one of its own
    (and, as by default, refuses a client's seed for a sealed game)."""
    with BackgroundServer(http_port=0, workers=1, max_time=10.0) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless chromium, driven by selenium (helpers_browser.chromium)."""
    with chromium() as driver:
        yield driver
