"""Log lines a client can cause, kept few: at most one per interval, with a count.

A hostile client can make the server log (a refused handshake, a killed job, a
wrong content type) as fast as it can send; one line per event would flood the
log.  A :class:`Throttle` lets the first event through, then at most one per
``interval`` seconds, and says how many went unlogged before it;
:class:`RateLimitedLogger` is a logger's lines behind one.

>>> import logging
>>> lines = []
>>> class Keep(logging.Handler):
...     def emit(self, record): lines.append(record.getMessage())
>>> logger = logging.getLogger("doctest.logs")
>>> logger.addHandler(Keep()); logger.propagate = False
>>> clock = iter([0.0, 1.0, 2.0, 61.0]).__next__
>>> limited = RateLimitedLogger(logger, 60.0, clock=clock)
>>> for _ in range(4):
...     _ = limited.warning("handshake failed from %s", "peer")
>>> lines
['handshake failed from peer', 'handshake failed from peer (2 more like it unlogged before this one)']
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

#: Seconds between two lines about one kind of event, by default.
LOG_INTERVAL = 60.0


class Throttle:
    """One event per ``interval`` seconds at most is let through (thread-safe).

    >>> throttle = Throttle(60.0)
    >>> throttle.admit(), throttle.admit(), throttle.admit()
    (0, None, None)
    """

    def __init__(self, interval: float = LOG_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._next: float | None = None
        self._held = 0

    def admit(self) -> int | None:
        """None when this event goes unlogged; else how many went unlogged before it."""
        now = self._clock()
        with self._lock:
            if self._next is not None and now < self._next:
                self._held += 1
                return None
            held, self._held, self._next = self._held, 0, now + self.interval
            return held


def held_note(held: int) -> str:
    """The words a line adds for the ``held`` events left unlogged before it."""
    return f" ({held} more like it unlogged before this one)" if held else ""


class RateLimitedLogger:
    """A logger's lines behind a :class:`Throttle`: one per ``interval`` seconds at most."""

    def __init__(self, logger: logging.Logger, interval: float = LOG_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self._throttle = Throttle(interval, clock)

    def log(self, level: int, message: str, *args: Any) -> bool:
        """Log ``message % args`` at ``level`` unless a line went out less than
        ``interval`` ago (then only count it); True when a line was written."""
        if not self.logger.isEnabledFor(level):
            return False
        held = self._throttle.admit()
        if held is None:
            return False
        self.logger.log(level, message + held_note(held).replace("%", "%%"), *args)
        return True

    def info(self, message: str, *args: Any) -> bool:
        return self.log(logging.INFO, message, *args)

    def warning(self, message: str, *args: Any) -> bool:
        return self.log(logging.WARNING, message, *args)
