"""Helpers shared by the server tests (plain functions, no fixtures)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engine import registry
from engine.game import State


def rpc_error_details(error: grpc.RpcError
                      ) -> tuple[grpc.StatusCode, list[str], str | None, dict[str, str]]:
    """(code, BadRequest fields, ErrorInfo reason, ErrorInfo metadata) of a failed call."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    fields: list[str] = []
    reason = None
    metadata: dict[str, str] = {}
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                fields.extend(v.field for v in bad.field_violations)
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                assert info.domain == "furnace.v1"
                reason, metadata = info.reason, dict(info.metadata)
    return error.code(), fields, reason, metadata


def rpc_error_info(error: grpc.RpcError) -> tuple[grpc.StatusCode, list[str], str | None]:
    """(code, BadRequest fields, ErrorInfo reason) of a failed call."""
    code, fields, reason, _ = rpc_error_details(error)
    return code, fields, reason


def random_positions(count: int, seed: int = 0, players: tuple[int, ...] = (2, 3, 4, 5),
                     ) -> list[State]:
    """Positions of random Samara games at random depths, terminal ones included."""
    rng = random.Random(seed)
    game = registry.get_game("samara")
    positions: list[State] = []
    for _ in range(count):
        state = game.new_game(seed=rng.randrange(10**6), num_players=rng.choice(players),
                              options={"powers": rng.random() < 0.8})
        depth = rng.choice([0, 5, 20, 60, 10_000])
        for _ in range(depth):
            if state.is_terminal():
                break
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        positions.append(state)
    return positions


def positions_json(count: int, seed: int = 0) -> list[dict[str, Any]]:
    return [s.to_json() for s in random_positions(count, seed)]


def wait_for(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "") -> None:
    """Poll ``predicate`` until true; the timeout only stops a broken build from hanging."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what or predicate}")
        time.sleep(0.02)


def card_ids(data: dict[str, Any]) -> set[str]:
    """Every card of an Oh My Goods! state: deck, display, hands, goods, buildings."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and value[-1:].isdigit() and "-" in value:
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({k: v for k, v in data.items() if k != "rng"})
    assert len(found) > 100  # the whole deck
    return found
