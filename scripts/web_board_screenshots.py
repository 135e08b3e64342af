"""Screenshots of the web table's drawn boards, docs/images/board-<game>.png, and of its
review panel, docs/images/web-review.png.

    python scripts/web_board_screenshots.py [--out docs/images] [--moves 6]

Starts a table server (with a fresh sealing key, so Oh My Goods! is held sealed),
opens the page in Debian's headless chromium at 1280x800 (the size the page must fit
without sideways scrolling), and for each game (Samara 3 players, Oh My Goods! 3
players, Stephens 2 players and solo) starts a game as P1 against tiny bots, plays
``--moves`` of the human's moves (the first legal move each time), asks for a hint so
its candidate is lit on the board, and saves the page.  Then a Stephens game of two
players, ``--review-moves`` of the human's moves, the Review button, the worst of the
reviewed decisions where the seat stood lowest clicked: the review panel alone, in a taller window.  Needs chromium and
chromium-driver (apt-get install chromium chromium-driver) and selenium.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ai_server import sealing
from ai_server.server import BackgroundServer

#: (file name, game, players): each board the docs show.
BOARDS = (("samara", "samara", 3), ("oh-my-goods", "oh-my-goods", 3),
          ("stephens", "stephens", 2), ("stephens-solo", "stephens", 1))


def browser(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-dev-shm-usage", "--hide-scrollbars", f"--window-size={width},{height}",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='furnace-shots-')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or ""),
                              options=options)
    # --window-size sets the window, not the page: make the page itself width x height.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    return driver


def wait(driver: Any, condition: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}: "
                             f"{driver.find_element('id', 'error').text!r}")
        time.sleep(0.05)


def phase(driver: Any) -> str:
    return str(driver.find_element("tag name", "body").get_attribute("data-phase"))


def shoot(driver: Any, url: str, game: str, players: int, moves: int, path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    driver.get(url)
    wait(driver, lambda: driver.find_element("tag name", "body").get_attribute("data-ready") == "true",
         "the game list")
    Select(driver.find_element("id", "game")).select_by_value(game)
    Select(driver.find_element("id", "players")).select_by_value(str(players))
    Select(driver.find_element("id", "seat")).select_by_value("0")
    Select(driver.find_element("id", "strength-kind")).select_by_value("iterations")
    strength = driver.find_element("id", "strength")
    strength.clear()
    strength.send_keys("30")
    driver.find_element("id", "new-game").click()
    for _ in range(moves):
        wait(driver, lambda: phase(driver) in ("human", "over"), "the human's turn")
        if phase(driver) == "over":
            break
        driver.find_elements("css selector", "#moves button.move")[0].click()
        time.sleep(0.1)
    wait(driver, lambda: phase(driver) in ("human", "over"), "the human's turn")
    if phase(driver) == "human":
        driver.find_element("id", "hint").click()
        wait(driver, lambda: phase(driver) == "human"
             and bool(driver.find_elements("css selector", "#moves button.best")), "the hint")
    driver.execute_script("window.scrollTo(0, 0)")
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    print(f"{path}: {game}, {players} player(s)")


def shoot_review(driver: Any, url: str, moves: int, path: Path) -> None:
    """The review panel of a Stephens game of two players, on the decision after which
    the seat stood lowest."""
    from selenium.webdriver.support.ui import Select

    driver.get(url)
    wait(driver, lambda: driver.find_element("tag name", "body").get_attribute("data-ready") == "true",
         "the game list")
    Select(driver.find_element("id", "game")).select_by_value("stephens")
    Select(driver.find_element("id", "players")).select_by_value("2")
    Select(driver.find_element("id", "seat")).select_by_value("0")
    Select(driver.find_element("id", "strength-kind")).select_by_value("iterations")
    strength = driver.find_element("id", "strength")
    strength.clear()
    strength.send_keys("30")
    driver.find_element("id", "new-game").click()
    for _ in range(moves):
        wait(driver, lambda: phase(driver) in ("human", "over"), "the human's turn")
        if phase(driver) == "over":
            break
        driver.find_elements("css selector", "#moves button.move")[0].click()
        time.sleep(0.1)
    wait(driver, lambda: phase(driver) in ("human", "over"), "the human's turn")
    if phase(driver) == "human":
        driver.find_element("id", "review-open").click()
    review = driver.find_element("id", "review")
    wait(driver, lambda: review.get_attribute("data-state") in ("done", "error"), "the review", 300)
    points = driver.find_elements("css selector", "#review-graph circle.point")
    if points:
        worst = max(range(len(points)), key=lambda i: float(driver.execute_script(
            "return arguments[0].getAttribute('cy')", points[i])))
        points[worst].click()
        wait(driver, lambda: bool(driver.find_elements("css selector", "#review-board svg")),
             "the decision's position")
    path.parent.mkdir(parents=True, exist_ok=True)
    review.screenshot(str(path))
    print(f"{path}: the review panel, Stephens, 2 players")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--moves", type=int, default=6, help="the human's moves before the hint")
    parser.add_argument("--review-moves", type=int, default=12,
                        help="the human's moves before the review")
    args = parser.parse_args(argv)
    sealer = sealing.Sealer([sealing.new_key()])
    with BackgroundServer(http_port=0, workers=1, max_time=10.0, sealer=sealer) as srv:
        assert srv.server is not None
        url = f"http://127.0.0.1:{srv.server.http_port}/"
        driver = browser(1280, 800)
        try:
            for name, game, players in BOARDS:
                shoot(driver, url, game, players, args.moves, args.out / f"board-{name}.png")
        finally:
            driver.quit()
        # Taller, so that the panel (below the table) fits in the window whole.
        driver = browser(1280, 1800)
        try:
            shoot_review(driver, url, args.review_moves, args.out / "web-review.png")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
