"""Client-side round robin over three real server processes, one of which then stops.

The servers are ``python -m ai_server serve`` processes on loopback; each call's
server is read from the servers' own Prometheus metrics
(``furnace_requests_total{method="ListGames",status="OK"}``).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.furnace_client import FurnaceClient, channel_target

ROOT = Path(__file__).resolve().parents[2]


class ServerProcess:
    def __init__(self, log: Path) -> None:
        self.log = log
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--workers", "1",
                 "--metrics-port", "0", "--log-level", "WARNING"],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        self.address = ""
        self.metrics = ""

    def wait_started(self, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.log.read_text(errors="replace")
            listening = re.search(r"listening on 127\.0\.0\.1:(\d+)", text)
            metrics = re.search(r"metrics on (http://\S+)", text)
            if listening and metrics:
                self.address = f"127.0.0.1:{listening.group(1)}"
                self.metrics = metrics.group(1)
                return
            assert self.process.poll() is None, text
            time.sleep(0.05)
        raise AssertionError(f"server did not start: {self.log.read_text()}")

    def calls(self, method: str = "ListGames") -> int:
        with urllib.request.urlopen(self.metrics, timeout=10) as reply:
            text = reply.read().decode()
        pattern = 'furnace_requests_total{method="' + method + '",status="OK"} '
        match = re.search("^" + re.escape(pattern) + r"(\S+)$", text, re.MULTILINE)
        return int(float(match.group(1))) if match else 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    started = [ServerProcess(tmp_path / f"server{i}.log") for i in range(3)]
    try:
        for server in started:
            server.wait_started()
        yield started
    finally:
        for server in started:
            server.stop()


def test_round_robin_spreads_calls_and_survives_a_server_stopping(
        servers: list[ServerProcess]) -> None:
    addresses = [s.address for s in servers]
    assert channel_target(addresses).startswith("ipv4:127.0.0.1:")
    with FurnaceClient(addresses, load_balancing="round_robin", timeout=30) as client:
        client.wait_ready(30)
        # Until every subchannel is connected, round robin uses those that are.
        made = 0
        while made < 300 and not all(s.calls() for s in servers):
            client.list_games()
            made += 1
        assert all(s.calls() for s in servers), [s.calls() for s in servers]
        before = [s.calls() for s in servers]
        for _ in range(30):
            client.list_games()
            made += 1
        spread = [s.calls() - b for s, b in zip(servers, before, strict=True)]
        assert sum(spread) == 30
        assert min(spread) >= 5, spread  # all three connected: each gets its turn

        gone, *rest = servers
        gone.stop()
        assert gone.process.returncode == 0
        before = [s.calls() for s in rest]
        for _ in range(30):
            client.list_games()  # no call fails: the stopped server is left out
        gained = [s.calls() - b for s, b in zip(rest, before, strict=True)]
        assert sum(gained) == 30 and min(gained) >= 5, gained


def test_several_addresses_must_be_ip_addresses() -> None:
    with pytest.raises(ValueError, match="DNS name"):
        channel_target(["ai1.example.org:50051", "ai2.example.org:50051"])
    with pytest.raises(ValueError, match="round_robin"):
        FurnaceClient("127.0.0.1:1", load_balancing="random")
    assert channel_target("dns:///furnace.games.svc:50051") == "dns:///furnace.games.svc:50051"
