"""Fixtures: a real Furnace server on 127.0.0.1 for the client tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ai_server.server import BackgroundServer
from clients.furnace_client import FurnaceClient


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    srv = BackgroundServer(workers=2, max_queue=4, max_iterations=100_000, max_time=5.0,
                           default_iterations=50, default_playouts=40, max_playouts=2000)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(grace=0.5)


@pytest.fixture(scope="module")
def address(server: BackgroundServer) -> str:
    return server.address


@pytest.fixture(scope="module")
def client(address: str) -> Iterator[FurnaceClient]:
    with FurnaceClient(address, timeout=30) as c:
        yield c
