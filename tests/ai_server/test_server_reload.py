"""Credentials renewed while the server runs, SIGHUP, and grpc core's own log lines.

* Certificates (server certificate and key, client CA) and token files are read again
  on SIGHUP and when they change on disk (``--reload-interval``): new handshakes present
  the new certificate on both doors, new calls need the new tokens, and calls in
  flight finish.  A reload that fails keeps what is served and logs an error.
* SIGHUP never ends the server: it reloads, and says so.
* A failed TLS handshake is one line of grpc core's on standard error; ``furnace
  serve`` logs them at most once a minute, with a count, through Python logging.

Certificates are made by ``trustme`` (throwaway CAs), as in test_server_security.py;
the signal tests run ``python -m ai_server serve`` in a process of its own.
"""

from __future__ import annotations

import io
import logging
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
import trustme

from ai_server import corelog
from ai_server.security import SecurityConfig
from ai_server.server import BackgroundServer
from clients.furnace_client import FurnaceClient
from furnace_proto.furnace.v1 import furnace_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
ALICE = "alice-0123456789abcdef0123456789"
BOB = "bob-fedcba9876543210fedcba98765"
SETTINGS: dict[str, Any] = {"workers": 1, "max_queue": 2, "max_iterations": 2000,
                            "max_time": 5.0, "default_iterations": 20}


def _chain(cert: trustme.LeafCert) -> bytes:
    return b"".join(blob.bytes() for blob in cert.cert_chain_pems)


@pytest.fixture()
def pki(tmp_path: Path) -> SimpleNamespace:
    """Two CAs (the old and the new), each with a server and a client certificate; the
    server's files (``server.pem``, ``server.key``, ``clients-ca.pem``, ``tokens.txt``)
    hold the old ones."""
    folder = SimpleNamespace(dir=tmp_path)
    for era in ("old", "new"):
        ca = trustme.CA()
        server, client = ca.issue_cert("localhost", "127.0.0.1"), ca.issue_cert("me.example")
        setattr(folder, era, SimpleNamespace(
            ca=ca.cert_pem.bytes(), server=_chain(server),
            server_key=server.private_key_pem.bytes(), client=_chain(client),
            client_key=client.private_key_pem.bytes(),
            der=ssl.PEM_cert_to_DER_cert(server.cert_chain_pems[0].bytes().decode())))
        for name in ("ca", "client", "client_key"):
            path = tmp_path / f"{era}-{name}.pem"
            path.write_bytes(getattr(getattr(folder, era), name))
            setattr(getattr(folder, era), f"{name}_path", str(path))
    folder.cert, folder.key = tmp_path / "server.pem", tmp_path / "server.key"
    folder.client_ca, folder.tokens = tmp_path / "clients-ca.pem", tmp_path / "tokens.txt"
    rotate(folder, "old")
    folder.tokens.write_text(f"alice:{ALICE}\n")
    folder.tokens.chmod(0o600)
    return folder


def rotate(pki: SimpleNamespace, era: str) -> None:
    """Renew the server's files in place, as a certificate robot would."""
    material = getattr(pki, era)
    pki.cert.write_bytes(material.server)
    pki.key.write_bytes(material.server_key)
    pki.key.chmod(0o600)
    pki.client_ca.write_bytes(material.ca)


def presented(port: int, alpn: str) -> bytes:
    """The certificate a new TLS handshake with 127.0.0.1:``port`` is shown (DER)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols([alpn])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            der = tls.getpeercert(binary_form=True)
    assert der is not None
    return der


def list_games(port: int, era: SimpleNamespace, token: str | None = None,
               client_cert: bool = False) -> Any:
    """ListGames over a new connection that trusts ``era``'s CA: the reply, or the error."""
    extra = {"client_cert": era.client_path, "client_key": era.client_key_path} \
        if client_cert else {}
    with FurnaceClient(f"localhost:{port}", ca_cert=era.ca_path, token=token, timeout=20,
                       **extra) as client:
        try:
            return client.list_games()
        except grpc.RpcError as error:
            return error.code()


class Served:
    """``python -m ai_server serve`` in a process (and session) of its own; its standard
    error is collected line by line."""

    def __init__(self, *flags: str, log_level: str = "INFO") -> None:
        env = dict(os.environ,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ai_server", "serve", "--port", "0", "--workers", "1",
             "--log-level", log_level, *flags],
            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        match = self.wait_for(r"listening on \S+:(\d+)")
        self.port = int(match.group(1))

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    @property
    def text(self) -> str:
        with self._changed:
            return "".join(self.lines)

    def wait_for(self, pattern: str, timeout: float = 60.0, after: int = 0) -> re.Match[str]:
        """The first match of ``pattern`` in a line past the first ``after`` lines."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines[after:]:
                    match = re.search(pattern, line)
                    if match:
                        return match
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None and not self._reader.is_alive():
                    raise AssertionError(f"no line matches {pattern!r}:\n{''.join(self.lines)}")
                self._changed.wait(min(left, 0.2))

    def signal(self, sig: int) -> int:
        """Send ``sig``; the number of lines seen so far."""
        count = len(self.lines)
        self.process.send_signal(sig)
        return count

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self._reader.join(10)
        return code


@pytest.fixture()
def served() -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(*flags: str, **kwargs: Any) -> Served:
        started.append(Served(*flags, **kwargs))
        return started[-1]

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def in_background(fn: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn())
        except grpc.RpcError as error:
            box.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


# -- rotation by SIGHUP and by change ------------------------------------------------------------
def test_sighup_reloads_certificate_and_tokens_without_dropping_calls(pki, served) -> None:
    server = served("--tls-cert", str(pki.cert), "--tls-key", str(pki.key),
                    "--token-file", str(pki.tokens), "--http-port", "0")
    http_port = int(server.wait_for(r"HTTP .* on https://\S+:(\d+)/").group(1))
    assert presented(server.port, "h2") == pki.old.der
    assert presented(http_port, "http/1.1") == pki.old.der
    with FurnaceClient(f"localhost:{server.port}", ca_cert=pki.old.ca_path, token=ALICE,
                       timeout=30) as client:
        state = client.new_game("samara", 2, seed=3).state
        search = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=2500))
        thread, box = in_background(lambda: client.stub.BestMove(search, metadata=[
            ("authorization", f"Bearer {ALICE}")], timeout=30))
        time.sleep(0.5)
        rotate(pki, "new")
        pki.tokens.write_text(f"bob:{BOB}\n")
        seen = server.signal(signal.SIGHUP)
        server.wait_for(r"SIGHUP: reloaded", after=seen)
        # New handshakes, on both doors, present the new certificate...
        assert presented(server.port, "h2") == pki.new.der
        assert presented(http_port, "http/1.1") == pki.new.der
        assert list_games(server.port, pki.old, BOB) == grpc.StatusCode.UNAVAILABLE
        # ... and new calls need the new token.
        assert list_games(server.port, pki.new, BOB).games
        assert list_games(server.port, pki.new, ALICE) == grpc.StatusCode.UNAUTHENTICATED
        # The call in flight, on a connection made before, finishes.
        thread.join()
        assert isinstance(box[0], pb.BestMoveResponse), box[0]
        assert box[0].analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
    # A renewal that does not load (a key of another certificate) changes nothing.
    pki.key.write_bytes(pki.old.server_key)
    seen = server.signal(signal.SIGHUP)
    server.wait_for(r"ERROR .*cannot reload the TLS certificate.*do not load as a pair",
                    after=seen)
    assert presented(server.port, "h2") == pki.new.der
    assert list_games(server.port, pki.new, BOB).games
    assert server.stop() == 0


def test_a_changed_token_file_is_read_again_without_a_signal(pki, served) -> None:
    server = served("--token-file", str(pki.tokens), "--reload-interval", "0.2")
    address = f"127.0.0.1:{server.port}"

    def answer(token: str) -> Any:
        with FurnaceClient(address, token=token, timeout=20) as client:
            try:
                return client.list_games().games
            except grpc.RpcError as error:
                return error.code()

    assert answer(ALICE)
    seen = len(server.lines)
    pki.tokens.write_text(f"bob:{BOB}\n")
    server.wait_for(r"reloaded 1 token", after=seen)
    assert answer(BOB)
    assert answer(ALICE) == grpc.StatusCode.UNAUTHENTICATED
    # A token file that does not parse keeps the tokens in force; it is said once.
    seen = len(server.lines)
    pki.tokens.write_text("bob:short\n")
    server.wait_for(r"ERROR .*cannot reload the tokens.*at least 16", after=seen)
    time.sleep(1.0)  # five more looks at the file
    assert server.text.count("cannot reload the tokens") == 1
    assert answer(BOB)
    assert server.stop() == 0


def test_a_reloaded_client_ca_decides_who_gets_in_on_both_doors(pki) -> None:
    """Mutual TLS: once the client CA is renewed, only its clients' handshakes succeed."""
    hosting = SecurityConfig.from_files(tls_cert=str(pki.cert), tls_key=str(pki.key),
                                        tls_client_ca=str(pki.client_ca))
    with BackgroundServer(security=hosting, http_port=0, **SETTINGS) as srv:
        assert list_games(srv.port, pki.old, client_cert=True).games
        rotate(pki, "new")
        assert hosting.reload("test") is True
        assert hosting.reload("test") is False  # nothing new
        assert list_games(srv.port, pki.new, client_cert=True).games
        assert list_games(srv.port, pki.new) == grpc.StatusCode.UNAVAILABLE
        old_client_new_server = SimpleNamespace(
            ca_path=pki.new.ca_path, client_path=pki.old.client_path,
            client_key_path=pki.old.client_key_path)
        assert list_games(srv.port, old_client_new_server, client_cert=True) == \
            grpc.StatusCode.UNAVAILABLE
        assert srv.server is not None and srv.server.http_port is not None
        for era, accepted in ((pki.new, True), (old_client_new_server, False)):
            context = ssl.create_default_context(cafile=era.ca_path)
            context.load_cert_chain(era.client_path, era.client_key_path)
            with socket.create_connection(("127.0.0.1", srv.server.http_port), 10) as raw:
                with context.wrap_socket(raw, server_hostname="localhost") as tls:
                    tls.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n"
                                b"Connection: close\r\n\r\n")
                    try:
                        answer = tls.recv(100)
                    except (ssl.SSLError, ConnectionError):
                        answer = b""
            assert answer.startswith(b"HTTP/1.1") == accepted, answer


# -- signals -----------------------------------------------------------------------------------
def test_sighup_to_the_process_group_does_not_cut_a_call(served) -> None:
    """SIGHUP (a reload, or a closed terminal) reaches the server and its search workers:
    nothing stops, the call in flight is answered, and the log says what happened."""
    server = served()
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        client = FurnaceClient(channel=channel, timeout=30)
        state = client.new_game("samara", 2, seed=3).state
        search = pb.BestMoveRequest(state=state, budget=pb.SearchBudget(time_limit_ms=1500))
        thread, box = in_background(lambda: client.stub.BestMove(search, timeout=30))
        time.sleep(0.4)
        seen = len(server.lines)
        os.killpg(server.process.pid, signal.SIGHUP)
        server.wait_for(r"SIGHUP", after=seen)
        thread.join()
        assert isinstance(box[0], pb.BestMoveResponse), box[0]
        assert box[0].analysis.stop_reason == pb.SEARCH_STOP_REASON_TIME_LIMIT
        assert client.health() == "SERVING"
        assert client.best_move(state, iterations=10).move.text  # the worker lives on
    assert server.process.poll() is None
    assert server.stop() == 0


# -- grpc core's log lines ---------------------------------------------------------------------
def _knock(port: int, count: int) -> None:
    """``count`` plaintext HTTP/2 connections to a TLS port."""
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(24))
            try:
                while sock.recv(1024):
                    pass
            except OSError:
                pass


def test_failed_handshakes_are_logged_once_a_minute_with_a_count(pki, served) -> None:
    server = served("--tls-cert", str(pki.cert), "--tls-key", str(pki.key),
                    "--token-file", str(pki.tokens))
    _knock(server.port, 300)
    time.sleep(1.5)
    lines = [line for line in server.lines if "andshake" in line]
    assert len(lines) == 1, "".join(server.lines)
    assert re.search(r"WARNING .*TLS handshake failed on 1 connection", lines[0]), lines
    assert list_games(server.port, pki.old, ALICE).games  # still serving
    assert server.stop() == 0
    # What was still counted is told on the way out.
    lines = [line for line in server.lines if "andshake" in line]
    assert len(lines) == 2, "".join(server.lines)
    assert re.search(r"TLS handshake failed on 299 more connections", lines[1]), lines
    assert not any(line.startswith(("I", "E")) and "ssl_transport" in line
                   for line in server.lines)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


HANDSHAKE = ("I1126 16:40:27.513329    6614 ssl_transport_security.cc:2563] Handshake "
             "failed with error SSL_ERROR_SSL: error:100000f7:SSL routines:"
             "OPENSSL_internal:WRONG_VERSION_NUMBER: Invalid certificate verification context")


def test_core_lines_become_rate_limited_log_records(caplog) -> None:
    clock, raw = _Clock(), io.StringIO()
    router = corelog.CoreLogRouter(raw, interval=60.0, clock=clock)
    with caplog.at_level(logging.DEBUG, logger=corelog.LOGGER):
        for _ in range(300):
            router.line(HANDSHAKE)
            clock.now += 0.0005
        router.line("E0000 00:00:1739970744.889307   61962 chttp2_server.cc:100] "
                    "accept failed: Too many open files")
        router.line("Traceback (most recent call last): a worker's own words")
        router.line("WARNING: All log messages before absl::InitializeLog() is called are "
                    "written to STDERR")
        records = [(r.levelname, r.getMessage()) for r in caplog.records]
        assert records[0] == ("WARNING", "TLS handshake failed on 1 connection "
                              "(WRONG_VERSION_NUMBER); more are counted and logged once a "
                              "minute")
        assert records[1][0] == "ERROR" and "accept failed: Too many open files" in records[1][1]
        assert records[2][0] == "DEBUG" and "absl::InitializeLog" in records[2][1]
        assert len(records) == 3
        assert raw.getvalue() == "Traceback (most recent call last): a worker's own words\n"
        caplog.clear()
        clock.now += 30
        router.flush()
        assert caplog.records == []  # not a minute yet
        clock.now += 31
        router.flush()
        assert [r.getMessage() for r in caplog.records] == [
            "TLS handshake failed on 299 more connections in the last 61 s "
            "(latest: WRONG_VERSION_NUMBER)"]
        caplog.clear()
        router.line(HANDSHAKE)  # within a minute of the last line: counted
        assert caplog.records == []
        clock.now += 61
        router.flush()
        assert [r.getMessage() for r in caplog.records] == [
            "TLS handshake failed on 1 more connection in the last 61 s "
            "(latest: WRONG_VERSION_NUMBER)"]
        caplog.clear()
        clock.now += 120
        router.flush()
        router.line(HANDSHAKE)  # a quiet minute later: at once again
        assert len(caplog.records) == 1


def test_core_lines_below_the_log_level_are_not_logged(caplog) -> None:
    router = corelog.CoreLogRouter(io.StringIO(), interval=60.0, clock=_Clock())
    with caplog.at_level(logging.ERROR):
        for _ in range(50):
            router.line(HANDSHAKE)
        router.close()
    assert caplog.records == []
