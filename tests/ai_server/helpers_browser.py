"""Helpers of the web table's browser tests (plain functions and constants; the
fixtures ``table_server`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import shutil
import time
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
         "--disable-dev-shm-usage", "--window-size=1400,1000")

#: The table server's keys: the tests open what the page holds to know the bots' cards.
SEALER = sealing.Sealer([sealing.new_key()])


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
