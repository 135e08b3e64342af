"""The web table in headless chromium: the browser set up and the page driven, for the
browser tests (test_web_table.py, test_web_review.py, test_web_boards.py; their fixtures
``table_server`` and ``browser`` are in conftest.py) and for
scripts/web_board_screenshots.py, which takes the docs' pictures.

A tool of the tests and the scripts, in no installed package: nothing of the product
imports it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ai_server import sealing

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

#: Skips a browser test when chromium or its driver is missing (``.ci/run`` installs
#: both); :data:`on_the_kernels_only` skips it on the pure-Python run.
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="the browser test needs Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver)")

#: The browser tests run on the compiled kernels only.  Their subject is the page
#: (web/src and its committed bundle), the same on both engine paths; what the server
#: answers it is tested on both by the RPC and HTTP door tests, and what a seat may see
#: by tests/test_game_conformance.py.  On the pure-Python engine the bots would only be
#: slower (about 4 minutes of that run's suite).
on_the_kernels_only = pytest.mark.skipif(
    os.environ.get("FURNACE_PURE_PYTHON") == "1",
    reason="the page is the same on both engine paths: run once, on the kernels")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")

#: The table server's keys: the tests open what the page holds to know the bots' cards.
SEALER = sealing.Sealer([sealing.new_key()])

#: What the page holds: its table's state, as the case of the GameState's oneof, its
#: observer seat, the whole message as JSON (bytes as numbers) and a sealed blob's bytes.
HELD = """
const t = window.furnaceTable;
if (!t) return null;
const value = t.state.state.value;
const bytes = value instanceof Uint8Array ? btoa(String.fromCharCode(...value)) : "";
const json = JSON.stringify(t.state, (k, v) => typeof v === "bigint" ? String(v) : v);
return {kind: t.state.state.case, observer: t.state.observerSeat, json: json, bytes: bytes};
"""


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000, *, exact: bool = False) -> Iterator[Any]:
    """Debian's headless chromium driven by selenium, in a fresh profile removed at the end.

    ``exact``: the page itself is ``width`` x ``height`` without scroll bars (the
    screenshots), not only the window."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="furnace-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}",
                 *(("--hide-scrollbars",) if exact else ())):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER or ""), options=options)
    try:
        driver.set_page_load_timeout(30)
        if exact:  # --window-size sets the window, not the page
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1,
                                    "mobile": False})
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver: Any, condition: Any, what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    error = driver.find_element("id", "error").text
    raise AssertionError(f"timed out waiting for {what} (phase "
                         f"{driver.find_element('tag name', 'body').get_attribute('data-phase')}"
                         f", error {error!r})")


#: The body's ``data-phase`` and the log's length, read in one script: each WebDriver
#: call is a round trip, and ``get_attribute`` also sends a large script of its own
#: (selenium's atom), so a game's hundreds of polls were most of a browser test's time.
PHASE = "return document.body.getAttribute('data-phase')"
PHASE_AND_LOG = ("return [document.body.getAttribute('data-phase'),"
                 " document.querySelectorAll('#log li').length]")


def phase(driver: Any) -> str:
    return str(driver.execute_script(PHASE))


def log_length(driver: Any) -> int:
    """How many lines the page's log holds (each move adds at least one)."""
    return int(driver.execute_script("return document.querySelectorAll('#log li').length"))


def answered(driver: Any, before: int) -> bool:
    """The page waits for the human again (or the game is over) and its log has grown past
    ``before`` lines: the answer to a move has come."""
    now, lines = driver.execute_script(PHASE_AND_LOG)
    return now in ("human", "over") and lines > before


def open_table(driver: Any, url: str) -> None:
    """Load the table at ``url`` (``?seed=N`` pins its deals and searches) and wait for
    its game list."""
    driver.get(url)
    wait_for(driver, lambda: driver.find_element("tag name", "body")
             .get_attribute("data-ready") == "true", "the game list")


def new_game(driver: Any, game: str, players: int, *, seat: int = 0,
             kind: str = "iterations", strength: int = 20, searches: str = "bots") -> None:
    """Start ``game`` on the loaded table, the human at ``seat``, the bots of ``strength``
    (``kind``: "iterations" or "time", an exact budget set in the page's "Exact budgets",
    or "level", the main setting); hints and reviews search the bots' exact budget
    (``searches`` "bots", small and quick for a test) or the game's own ("game"); returns
    at once (see :func:`phase`)."""
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "game")).select_by_value(game)
    Select(driver.find_element("id", "players")).select_by_value(str(players))
    Select(driver.find_element("id", "seat")).select_by_value(str(seat))
    driver.execute_script("document.getElementById('exact').open = true")
    if kind == "level":
        Select(driver.find_element("id", "strength-kind")).select_by_value("level")
        Select(driver.find_element("id", "level")).select_by_value(str(strength))
    else:
        Select(driver.find_element("id", "strength-kind")).select_by_value(kind)
        field = driver.find_element("id", "strength")
        field.clear()
        field.send_keys(str(strength))
    Select(driver.find_element("id", "searches")).select_by_value(searches)
    driver.find_element("id", "new-game").click()


def human_move(driver: Any, timeout: float = 30.0) -> None:
    """The first legal move, then wait for the answer to it (the bots' moves after it,
    up to the human's next turn or the game's end)."""
    before = log_length(driver)
    driver.find_elements("css selector", "#moves button.move")[0].click()
    wait_for(driver, lambda: answered(driver, before), "the answer to the human's move",
             timeout)
