"""Log lines a client can cause, kept few: at most one per interval, with a count.

A hostile client can make the server log (a refused handshake, a killed job, a
wrong content type) as fast as it can send; one line per event would flood the
log.  :class:`RateLimitedLogger` writes the first event, then at most one line per
``interval`` seconds saying how many happened since the last line.

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
['handshake failed from peer', 'handshake failed from peer (and 2 more like it in 61 s)']
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any


class RateLimitedLogger:
    """One line per ``interval`` seconds at most, counting the events left unlogged."""

    def __init__(self, logger: logging.Logger, interval: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._last: float | None = None
        self._held = 0

    def log(self, level: int, message: str, *args: Any) -> bool:
        """Log ``message % args`` at ``level`` unless a line went out less than
        ``interval`` ago (then only count it); True when a line was written."""
        if not self.logger.isEnabledFor(level):
            return False
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last < self.interval:
                self._held += 1
                return False
            held, since = self._held, self._last
            self._held, self._last = 0, now
        if held:
            message += f" (and {held} more like it in {now - since:.0f} s)"  # type: ignore[operator]
        self.logger.log(level, message, *args)
        return True

    def info(self, message: str, *args: Any) -> bool:
        return self.log(logging.INFO, message, *args)

    def warning(self, message: str, *args: Any) -> bool:
        return self.log(logging.WARNING, message, *args)
