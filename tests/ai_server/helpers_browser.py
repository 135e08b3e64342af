"""The web table in headless chromium: the browser set up and the page driven, for the
browser tests (test_web_table.py, test_web_review.py, test_web_boards.py; their fixtures
``table_server`` and ``browser`` are in conftest.py) and for
scripts/web_board_screenshots.py, which takes the docs' pictures.

A tool of the tests and the scripts, in no installed package: nothing of the product
imports it.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ai_server import sealing

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

#: Skips a browser test only when chromium or its driver is missing (``.ci/run``
#: installs both).
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="the browser test needs Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver)")

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


def phase(driver: Any) -> str:
    return str(driver.find_element("tag name", "body").get_attribute("data-phase"))


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
    before = len(driver.find_elements("css selector", "#log li"))
    driver.find_elements("css selector", "#moves button.move")[0].click()
    wait_for(driver, lambda: phase(driver) in ("human", "over")
             and len(driver.find_elements("css selector", "#log li")) > before,
             "the answer to the human's move", timeout)
