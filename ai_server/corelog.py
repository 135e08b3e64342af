"""gRPC core's own log lines, routed into Python logging and rate-limited (``furnace serve``).

gRPC's C core logs through Abseil, and nobody calls ``absl::InitializeLog()`` in a
Python process, so Abseil writes every line, INFO included, straight to file
descriptor 2: past Python's logging and whatever ``--log-level`` says.  A failed TLS
handshake is one such line::

    I1126 16:40:27.513329    6614 ssl_transport_security.cc:2563] Handshake failed with
    error SSL_ERROR_SSL: error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER

so anyone could fill a server's log by opening plaintext connections to its TLS port
(300 of them: 303 lines in 0.17 s).  ``GRPC_VERBOSITY=ERROR`` silences them, and with
them every sign of failing handshakes (an expired certificate, a client of another CA).

:func:`route` puts a pipe under file descriptor 2 while the server runs, and a thread
reads it (:class:`CoreLogRouter`):

* an Abseil line becomes a record of logger ``grpc.core`` at its severity (I: INFO,
  W: WARNING, E: ERROR, F: CRITICAL), so ``--log-level`` decides what is shown;
* failed TLS handshakes are a WARNING: the first at once, then at most one a minute
  with the number of failures since (and what is still counted when the server
  stops).  Other Abseil lines are counted alike, by the source line that wrote them;
* anything else (a worker's traceback, a C library's message) is copied to the real
  standard error as it is.

Python's own ``sys.stderr`` is the real standard error meanwhile, so log records never
go through the pipe.  With ``GRPC_TRACE`` or ``GRPC_VERBOSITY=debug`` in the
environment (debugging gRPC itself) standard error is left alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

#: The logger of gRPC core's lines.
LOGGER = "grpc.core"
#: Seconds between two lines of one kind.
INTERVAL = 60.0

_ABSL = re.compile(r"^([IWEF])\d{4} [\d:.]+\s+\d+ ([^\s\]]+:\d+)\] ?(.*)$")
_LEVELS = {"I": logging.INFO, "W": logging.WARNING, "E": logging.ERROR,
           "F": logging.CRITICAL}
_ABSL_NOTICE = "WARNING: All log messages before absl::InitializeLog()"
_OPENSSL_REASON = re.compile(r"OPENSSL_internal:([A-Z0-9_]+)")
_HANDSHAKE = "tls-handshake"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass
class _Window:
    """Lines of one kind since the last one logged."""

    start: float
    level: int
    where: str
    count: int = 0
    latest: str = ""


class CoreLogRouter:
    """Turns gRPC core's lines into rate-limited log records (see the module docstring).

    ``raw`` receives the lines that are not Abseil's; ``clock`` is for tests.
    """

    def __init__(self, raw: TextIO, interval: float = INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.raw = raw
        self.interval = interval
        self.clock = clock
        self.log = logging.getLogger(LOGGER)
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def line(self, text: str) -> None:
        """One line written to standard error (with or without its newline)."""
        text = text.rstrip("\r\n")
        match = _ABSL.match(text)
        if match is None:
            if text.startswith(_ABSL_NOTICE):
                self.log.debug("%s", text)
            else:
                self.raw.write(text + "\n")
                self.raw.flush()
            return
        severity, where, message = match.groups()
        level = _LEVELS[severity]
        if message.startswith("Handshake failed"):
            key, level = _HANDSHAKE, max(level, logging.WARNING)
            reason = _OPENSSL_REASON.search(message)
            message = reason.group(1) if reason else message.removeprefix(
                "Handshake failed with ")
        else:
            key = where
        with self._lock:
            window = self._windows.get(key)
            if window is not None:
                window.count += 1
                window.latest = message
                window.level = max(window.level, level)
                return
            self._windows[key] = _Window(self.clock(), level, where)
        if key == _HANDSHAKE:
            self.log.log(level, "TLS handshake failed on 1 connection (%s); more are "
                         "counted and logged once a minute", message)
        else:
            self.log.log(level, "%s (%s)", message, where)

    def flush(self, final: bool = False) -> None:
        """Log the counts of the kinds whose minute is over (``final``: of all)."""
        now = self.clock()
        due: list[tuple[str, _Window, float]] = []
        with self._lock:
            for key, window in list(self._windows.items()):
                elapsed = now - window.start
                if elapsed < self.interval and not final:
                    continue
                if window.count:
                    due.append((key, _Window(window.start, window.level, window.where,
                                             window.count, window.latest), elapsed))
                    window.start, window.count = now, 0
                else:
                    del self._windows[key]
        for key, window, elapsed in due:
            if key == _HANDSHAKE:
                self.log.log(window.level, "TLS handshake failed on %s in the last %.0f s "
                             "(latest: %s)", _plural(window.count, "more connection"),
                             elapsed, window.latest)
            else:
                self.log.log(window.level, "%s like it in the last %.0f s (%s; latest: %s)",
                             _plural(window.count, "more line"), elapsed, window.where,
                             window.latest)

    def close(self) -> None:
        self.flush(final=True)


class _Pipe:
    """File descriptor 2 through a pipe that a thread hands to a :class:`CoreLogRouter`."""

    def __init__(self, interval: float) -> None:
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._python_stderr = sys.stderr
        encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
        self.stderr = open(self._saved, "w", buffering=1, encoding=encoding,  # noqa: SIM115
                           errors="backslashreplace", closefd=False)
        try:
            python_on_fd2 = sys.stderr.fileno() == 2
        except (AttributeError, OSError, ValueError):  # redirected within Python already
            python_on_fd2 = False
        if python_on_fd2:
            sys.stderr = self.stderr
        self.router = CoreLogRouter(self.stderr, interval)
        self._stopping = threading.Event()
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name="grpc-core-log", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pending = b""
        while True:
            stopping = self._stopping.is_set()
            ready, _, _ = select.select([self._read, self._wake_read], [], [],
                                        0.0 if stopping else 1.0)
            data = b""
            if self._read in ready:
                data = os.read(self._read, 65536)
                if data:
                    *lines, pending = (pending + data).split(b"\n")
                    for line in lines:
                        self._hand(line)
                    continue  # read on while there is something to read
            if pending:  # a line without its end for a second (or at the end): as it is
                self._hand(pending)
                pending = b""
            if stopping or self._read in ready and not data:  # drained, or no writer left
                break
            self.router.flush()
        self.router.close()

    def _hand(self, line: bytes) -> None:
        try:
            self.router.line(line.decode("utf-8", "replace"))
        except Exception:  # noqa: BLE001 - the pipe must always be read
            with contextlib.suppress(Exception):
                self.stderr.write(line.decode("utf-8", "replace") + "\n")

    def close(self) -> None:
        """Put standard error back and log what is still counted.

        The pipe's read end stays open (a process started meanwhile, such as
        multiprocessing's resource tracker, may hold its write end and must not fail
        writing), and so does the copy of standard error: log handlers made
        meanwhile write to it.
        """
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os.dup2(self._saved, 2)
        self._stopping.set()
        os.write(self._wake_write, b"x")
        self._thread.join(10)
        if sys.stderr is self.stderr:
            sys.stderr = self._python_stderr
        with contextlib.suppress(Exception):
            self.stderr.flush()


@contextlib.contextmanager
def route(interval: float = INTERVAL) -> Iterator[CoreLogRouter | None]:
    """gRPC core's lines into Python logging for the ``with`` block (the router; None
    where standard error is left alone: no pipes, or gRPC's own debugging asked for)."""
    debugging = os.environ.get("GRPC_TRACE") or \
        os.environ.get("GRPC_VERBOSITY", "").lower() == "debug"
    if debugging or not hasattr(select, "select") or os.name != "posix":
        yield None
        return
    try:
        pipe = _Pipe(interval)
    except OSError:  # no file descriptor 2 to speak of: nothing to route
        yield None
        return
    try:
        yield pipe.router
    finally:
        pipe.close()
