"""Suite-wide checks.

Every Furnace server a test starts in this process watches its event loop
(:mod:`ai_server.loopwatch`, threshold ``loop_stall_threshold``, 100 ms by default);
a test during which code held a server's loop past it fails, showing the code, so
that a new blocking path is caught where it is written.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def no_event_loop_held() -> Iterator[None]:
    try:
        from ai_server.loopwatch import LoopWatchdog
    except ImportError:  # pragma: no cover - the server's dependencies are missing
        yield
        return
    before = len(LoopWatchdog.held_anywhere)
    yield
    held = LoopWatchdog.held_anywhere[before:]
    if held:
        pytest.fail("code held a server's event loop during this test: "
                    + "\n\n".join(stall.describe() for stall in held), pytrace=False)
