"""``--cluster`` addresses and joining a cluster, with a fake ``ray`` module: a malformed
address is refused before Ray is touched, nothing listening is said at once, a head that
never answers fails after the timeout, Ray's errors become one line naming the likely
cause, and what Ray prints for the driver goes to stderr.  The real Ray's side of these
(its sockets, its printing) is in test_ray_batch.py."""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any

import pytest

from engine import batch
from engine.batch import (
    ClusterAddress,
    ClusterError,
    RayBatch,
    join_failure,
    parse_cluster_address,
    ray_prints_to_stderr,
)
from furnace_cli import main


class FakeRay(types.ModuleType):
    """The parts of ``ray`` that :class:`RayBatch` touches before a task runs."""

    __version__ = "9.9.9"

    def __init__(self, init_blocks: threading.Event | None = None) -> None:
        super().__init__("ray")
        self.inits: list[dict[str, Any]] = []
        self.initialised = False
        self.init_blocks = init_blocks
        self.printed: list[dict[str, Any]] = []

        class AuthenticationError(Exception):
            pass

        self.exceptions = types.SimpleNamespace(AuthenticationError=AuthenticationError)
        constants = types.SimpleNamespace(ENABLE_RAY_CLUSTER=True)
        worker = types.SimpleNamespace(
            print_to_stdstream=lambda data, ignore_prefix: self.printed.append(data))
        self._private = types.SimpleNamespace(ray_constants=constants, worker=worker)
        self.switch_seen: list[tuple[bool, str | None]] = []

    def is_initialized(self) -> bool:
        return self.initialised

    def init(self, address: str | None = None, **kwargs: Any) -> None:
        self.inits.append({"address": address, **kwargs,
                           "RAY_AUTH_TOKEN": os.environ.get("RAY_AUTH_TOKEN")})
        if address == "local":  # as Ray does for a cluster it starts
            os.environ.setdefault("RAY_AUTH_MODE", "token")
        self.switch_seen.append((self._private.ray_constants.ENABLE_RAY_CLUSTER,
                                 os.environ.get(batch.RAY_LOOPBACK_SWITCH)))
        if self.init_blocks is not None:
            self.init_blocks.wait()
        self.initialised = True

    def shutdown(self) -> None:
        self.initialised = False


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRay]:
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    yield fake


def _free_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("text", "expected"), [
    ("local", ClusterAddress("local", "local")),
    ("auto", ClusterAddress("auto", "auto")),
    ("10.0.0.5:6379", ClusterAddress("10.0.0.5:6379", "gcs", "10.0.0.5", 6379)),
    ("head-0.example.com:6379",
     ClusterAddress("head-0.example.com:6379", "gcs", "head-0.example.com", 6379)),
    ("ray://head:10001", ClusterAddress("ray://head:10001", "client", "head", 10001)),
    ("[::1]:6379", ClusterAddress("[::1]:6379", "gcs", "::1", 6379)),
])
def test_addresses_ray_takes_are_parsed(text: str, expected: ClusterAddress) -> None:
    assert parse_cluster_address(text) == expected


@pytest.mark.parametrize(("text", "says"), [
    ("nonsense", "has no port"),
    ("127.0.0.1", "has no port"),
    ("ray://head", "has no port"),
    ("[::1]", "has no port"),
    ("127.0.0.1:99999", "the port '99999' is not a number from 1 to 65535"),
    ("127.0.0.1:0", "the port '0' is not a number from 1 to 65535"),
    ("127.0.0.1:http", "the port 'http' is not a number"),
    ("http://head:8265", "http:// is not a Ray address"),
    ("999.1.1.1:6379", "'999.1.1.1' is not a host name or an IP address"),
    (":6379", "'' is not a host name"),
    ("head name:6379", "'head name' is not a host name"),
])
def test_malformed_addresses_are_refused(text: str, says: str) -> None:
    with pytest.raises(ClusterError, match="--cluster ") as caught:
        parse_cluster_address(text)
    assert says in str(caught.value)


@pytest.mark.parametrize("address", ["nonsense", "127.0.0.1", "127.0.0.1:99999"])
def test_the_cli_refuses_a_malformed_address_before_ray_starts(
        address: str, fake_ray: FakeRay, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "samara", "--bots", "random,greedy", "--games", "2", "--quiet",
                 "--cluster", address])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith(f"furnace: error: --cluster {address}") and err.count("\n") == 1
    assert fake_ray.inits == []


def test_nothing_listening_is_said_at_once_naming_the_address(
        fake_ray: FakeRay, capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    code = main(["check-games", "samara", "--games", "2", "--quiet",
                 "--cluster", f"127.0.0.1:{port}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0] == f"furnace: joining the Ray cluster at 127.0.0.1:{port} (at most 60 s) ..."
    assert lines[1] == (f"furnace: error: cannot join the Ray cluster at 127.0.0.1:{port}: "
                        f"nothing listens on port {port} of 127.0.0.1 (no head started there, "
                        "or it listens on another port or address: `ray start --head` prints "
                        "its own)")
    assert len(lines) == 2
    assert fake_ray.inits == []  # Ray was never asked: it would wait without end


def test_a_head_that_never_answers_fails_after_the_timeout(
        monkeypatch: pytest.MonkeyPatch, silent_listener: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    never = threading.Event()
    fake = FakeRay(init_blocks=never)
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setenv("FURNACE_CLUSTER_TIMEOUT", "0.5")
    address = f"127.0.0.1:{silent_listener}"
    try:
        code = main(["arena", "samara", "--bots", "random,greedy", "--games", "2",
                     "--quiet", "--json", "--cluster", address])
    finally:
        never.set()  # let the abandoned join end
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    error = err.splitlines()[-1]
    assert error.startswith(f"furnace: error: cannot join the Ray cluster at {address}: it "
                            "did not answer as a Ray cluster within 0.5 s")
    for cause in ("RAY_AUTH_MODE=token", "~/.ray/auth_token", "another version of Ray",
                  "Ray 9.9.9"):
        assert cause in error
    assert fake.inits[0]["address"] == address
    # A loopback head is joined on the loopback (Ray would try the outward address).
    assert fake.switch_seen == [(False, "0")]


def test_a_remote_head_is_joined_as_ray_joins_it(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.delenv(batch.RAY_LOOPBACK_SWITCH, raising=False)
    probed: list[ClusterAddress] = []
    monkeypatch.setattr(batch, "probe", lambda where, timeout: probed.append(where))
    with RayBatch("head.example.com:6379", say=lambda text: None):
        pass
    assert probed == [parse_cluster_address("head.example.com:6379")]
    assert fake.inits[0]["address"] == "head.example.com:6379"
    assert fake.switch_seen == [(True, None)]


@pytest.mark.parametrize("timeout", ["0", "-1", "soon", "inf"])
def test_a_bad_timeout_is_refused_before_ray_starts(
        timeout: str, fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FURNACE_CLUSTER_TIMEOUT", timeout)
    assert main(["fuzz-states", "samara", "--states", "2", "--quiet", "--cluster",
                 "auto"]) == 2
    err = capsys.readouterr().err
    assert err == (f"furnace: error: FURNACE_CLUSTER_TIMEOUT={timeout}: give a positive "
                   "number of seconds\n")
    assert fake_ray.inits == []


def test_ray_errors_become_their_likely_cause(fake_ray: FakeRay) -> None:
    auth = join_failure(fake_ray, fake_ray.exceptions.AuthenticationError("no token"))
    assert "RAY_AUTH_MODE=token" in auth and "ray get-auth-token" in auth
    try:
        try:
            raise RuntimeError("Failed to connect to GCS: ... UNAUTHENTICATED: bad token")
        except RuntimeError as inner:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379") \
                from inner
    except ConnectionError as chained:
        assert join_failure(fake_ray, chained) == auth
    version = join_failure(fake_ray, RuntimeError(
        "Version mismatch: The cluster was started with Ray 2.9.0, Python 3.10"))
    assert version.startswith("the cluster runs another version of Ray or Python")
    assert "Ray 9.9.9" in version
    other = join_failure(fake_ray, ConnectionError("Connection reset by peer.\n"
                                                   "while reading the cluster id"))
    assert other.startswith("Connection reset by peer. (")
    assert "\n" not in other and "RAY_AUTH_MODE" in other


def test_a_local_ray_is_announced_and_started_on_the_loopback(
        fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(batch.RAY_LOOPBACK_SWITCH, raising=False)
    said: list[str] = []
    with RayBatch("local", num_cpus=2, say=said.append):
        assert fake_ray.initialised
    assert said == ["furnace: starting a local Ray (2 CPUs), every port on 127.0.0.1 ..."]
    assert fake_ray.inits[0]["address"] == "local"
    assert fake_ray.inits[0]["include_dashboard"] is False
    # While Ray started: its loopback switch, in this process and for the node's.
    assert fake_ray.switch_seen == [(False, "0")]
    # After: as it was.
    assert fake_ray._private.ray_constants.ENABLE_RAY_CLUSTER is True
    assert batch.RAY_LOOPBACK_SWITCH not in os.environ


def test_a_local_ray_takes_a_token_of_its_own_unless_the_user_set_one(
        fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in batch.RAY_AUTH_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    tokens = []
    for _ in range(2):
        with RayBatch("local", say=lambda text: None):
            pass
        tokens.append(fake_ray.inits[-1]["RAY_AUTH_TOKEN"])
    assert all(re.fullmatch("[0-9a-f]{64}", token or "") for token in tokens)
    assert tokens[0] != tokens[1]  # a run's own: never ~/.ray/auth_token, never reused
    assert not any(name in os.environ for name in batch.RAY_AUTH_SETTINGS)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with RayBatch("local", say=lambda text: None):
        pass
    assert fake_ray.inits[-1]["RAY_AUTH_TOKEN"] is None
    # Joining a cluster takes the user's token (or none) as Ray finds it.
    monkeypatch.delenv("RAY_AUTH_MODE")
    with RayBatch("auto", say=lambda text: None):
        pass
    assert fake_ray.inits[-1]["RAY_AUTH_TOKEN"] is None


def test_what_ray_prints_for_the_driver_goes_to_stderr_while_it_runs(fake_ray: FakeRay) -> None:
    worker = fake_ray._private.worker
    message = {"lines": ["Raylet is terminated."], "pid": "raylet", "is_err": False}
    with RayBatch("local", say=lambda text: None):
        worker.print_to_stdstream(message, False)
    worker.print_to_stdstream(message, False)
    assert [m["is_err"] for m in fake_ray.printed] == [True, False]
    restore = ray_prints_to_stderr(fake_ray)
    assert ray_prints_to_stderr(fake_ray)() is None  # a second call changes nothing
    worker.print_to_stdstream(message, False)
    restore()
    assert [m["is_err"] for m in fake_ray.printed] == [True, False, True]


def test_the_errors_docs_cluster_md_shows_are_the_ones_said(
        fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cluster.md's sessions (``$ furnace ...`` and what it says on stderr), word for
    word; the port the doc leaves unused is replaced by one free here."""
    import shlex

    from tests.test_doc_blocks import ROOT, blocks

    monkeypatch.delenv("FURNACE_CLUSTER_TIMEOUT", raising=False)
    marker = ("runs", "tests/engine/test_cluster_address.py")
    sessions = [b for b in blocks(ROOT / "docs" / "cluster.md") if b.marker == marker]
    assert len(sessions) == 2
    free = str(_free_port())
    checked = 0
    for block in sessions:
        text = block.code.replace("45991", free)
        for session in text.split("$ ")[1:]:
            command, *said = session.strip("\n").split("\n")
            assert main(shlex.split(command)[1:]) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.splitlines() == said, command
            checked += 1
    assert checked == 3 and fake_ray.inits == []


def test_auto_names_where_it_leads_and_a_dead_cluster_is_said_at_once(
        fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``ray start``'s address file outlives a cluster killed without ``ray stop``: auto
    then leads Ray to a dead address, where it would wait without end."""
    port = _free_port()
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    fake_ray._private.utils = types.SimpleNamespace(read_ray_address=lambda: f"127.0.0.1:{port}")
    assert main(["check-games", "samara", "--games", "2", "--quiet", "--cluster", "auto"]) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith(f"furnace: error: cannot join the Ray cluster at auto (127.0.0.1:"
                            f"{port}, the cluster `ray start` last started on this machine): "
                            f"nothing listens on port {port}")
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    assert main(["check-games", "samara", "--games", "2", "--quiet", "--cluster", "auto"]) == 2
    assert f"at auto (127.0.0.1:{port}, RAY_ADDRESS): nothing listens" in capsys.readouterr().err
    assert fake_ray.inits == []
    # Nothing found: Ray looks for itself, and its answer becomes the cause.
    monkeypatch.delenv("RAY_ADDRESS")
    fake_ray._private.utils = types.SimpleNamespace(read_ray_address=lambda: None)
    nothing = join_failure(fake_ray, ConnectionError(
        "Could not find any running Ray instance. Please specify the one to connect to"))
    assert nothing.startswith("no Ray cluster runs on this machine (start one with `ray start")
