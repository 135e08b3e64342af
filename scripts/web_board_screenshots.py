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
reviewed decisions where the seat stood lowest clicked: the review panel alone, in a
taller window.  Needs chromium and chromium-driver (apt-get install chromium
chromium-driver) and the dev extra (selenium, pytest): the browser and the page are
driven by the browser tests' helpers (tests/ai_server/helpers_browser.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ai_server import sealing  # noqa: E402
from ai_server.server import BackgroundServer  # noqa: E402
from tests.ai_server.helpers_browser import (  # noqa: E402  (the browser tests' page helpers)
    chromium,
    new_game,
    open_table,
    phase,
    wait_for,
)

#: (file name, game, players): each board the docs show.
BOARDS = (("samara", "samara", 3), ("oh-my-goods", "oh-my-goods", 3),
          ("stephens", "stephens", 2), ("stephens-solo", "stephens", 1))


def play(driver: Any, url: str, game: str, players: int, moves: int) -> None:
    """A new game as P1 against bots of 30 iterations, then ``moves`` of the human's moves
    (the first legal move each time), up to the human's next turn or the game's end."""
    open_table(driver, url)
    new_game(driver, game, players, strength=30)
    for _ in range(moves):
        wait_for(driver, lambda: phase(driver) in ("human", "over"), "the human's turn", 60)
        if phase(driver) == "over":
            break
        driver.find_elements("css selector", "#moves button.move")[0].click()
        time.sleep(0.1)
    wait_for(driver, lambda: phase(driver) in ("human", "over"), "the human's turn", 60)


def shoot(driver: Any, url: str, game: str, players: int, moves: int, path: Path) -> None:
    play(driver, url, game, players, moves)
    if phase(driver) == "human":
        driver.find_element("id", "hint").click()
        wait_for(driver, lambda: phase(driver) == "human"
                 and bool(driver.find_elements("css selector", "#moves button.best")),
                 "the hint", 60)
    driver.execute_script("window.scrollTo(0, 0)")
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    print(f"{path}: {game}, {players} player(s)")


def shoot_review(driver: Any, url: str, moves: int, path: Path) -> None:
    """The review panel of a Stephens game of two players, on the decision after which
    the seat stood lowest."""
    play(driver, url, "stephens", 2, moves)
    if phase(driver) == "human":
        driver.find_element("id", "review-open").click()
    review = driver.find_element("id", "review")
    wait_for(driver, lambda: review.get_attribute("data-state") in ("done", "error"),
             "the review", 300)
    points = driver.find_elements("css selector", "#review-graph circle.point")
    if points:
        worst = max(range(len(points)), key=lambda i: float(driver.execute_script(
            "return arguments[0].getAttribute('cy')", points[i])))
        points[worst].click()
        wait_for(driver, lambda: bool(driver.find_elements("css selector", "#review-board svg")),
                 "the decision's position", 60)
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
        with chromium(1280, 800, exact=True) as driver:
            for name, game, players in BOARDS:
                shoot(driver, url, game, players, args.moves, args.out / f"board-{name}.png")
        # Taller, so that the panel (below the table) fits in the window whole.
        with chromium(1280, 1800, exact=True) as driver:
            shoot_review(driver, url, args.review_moves, args.out / "web-review.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
