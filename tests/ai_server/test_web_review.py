"""The web table's review panel (web/src/review.ts) in a real headless browser.

A Samara game on a pinned page (``/?seed=N``), tiny bot budgets: the Review button
mid-game, and the review that opens by itself at the game's end.  The page streams
ReviewGame for the human's seat; the graph gets one point per reviewed decision, and a
click on one shows its played and best moves and the position the seat saw then, which
the server rebuilt from the record.  And an Oh My Goods! game, which the page holds
sealed and never sees whole: reviewed from its sealed state, each position the seat's
view.  Skipped when chromium or its driver is missing (``.ci/run`` installs both), and on
the pure-Python run (helpers_browser.on_the_kernels_only).
"""

from __future__ import annotations

import base64
import re
import time
from typing import Any

from ai_server.http_door import static_file
from ai_server.server import BackgroundServer
from engine.records import GameRecord, record_from_json, replay
from tests.ai_server.helpers_browser import (
    HELD,
    SEALER,
    human_move,
    needs_chromium,
    new_game,
    on_the_kernels_only,
    open_table,
    phase,
    wait_for,
)

pytestmark = [needs_chromium, on_the_kernels_only]

#: The drawn board without what only the live table adds (clickable components, the
#: hint) and what only the review adds (the played and the best move marked).
BOARD = """
const svg = document.querySelector(arguments[0]);
return svg ? svg.outerHTML.replace(/ (live|hinted|played-move|best-move)(?=[ "])/g, "") : null;
"""


def test_the_bundle_has_the_review() -> None:
    bundle = static_file("app.js")
    assert bundle is not None and b"reviewGame" in bundle
    page = static_file("index.html")
    assert page is not None and b'id="review-open"' in page and b'id="review-graph"' in page


def start(browser: Any, port: int, seed: int | None, game: str = "samara") -> None:
    """A new game of ``game`` on the page pinned to ``seed`` (None: not pinned)."""
    open_table(browser, f"http://127.0.0.1:{port}/" + ("" if seed is None else f"?seed={seed}"))
    new_game(browser, game, 2)
    wait_for(browser, lambda: phase(browser) == "human", "the first move")


#: An attribute of each element a selector finds, in one script: a WebDriver call per
#: element (and selenium's own script for each ``get_attribute``) made the review's
#: graph of dozens of points slow to read.
ATTRIBUTES = ("return Array.from(document.querySelectorAll(arguments[0]),"
              " (e) => e.getAttribute(arguments[1]))")


def attributes(browser: Any, selector: str, name: str) -> list[str | None]:
    return list(browser.execute_script(ATTRIBUTES, selector, name))


def review_state(browser: Any) -> str:
    return str(browser.execute_script(
        "return document.getElementById('review').getAttribute('data-state')"))


def reviewed(browser: Any) -> int:
    """The review's end: its number of decisions, checked against the graph and list."""
    wait_for(browser, lambda: review_state(browser) in ("done", "error"), "the review", 90)
    assert review_state(browser) == "done", browser.find_element("id", "review-status").text
    status = browser.find_element("id", "review-status").text
    found = re.match(r"Reviewed all (\d+) of your decisions\.", status)
    assert found, status
    decisions = int(found.group(1))
    assert browser.find_element("id", "review-summary").text.startswith("Accuracy ")
    points = browser.find_elements("css selector", "#review-graph circle.point")
    assert len(points) == decisions
    assert len(browser.find_elements("css selector", "#review-list button.decision")) == decisions
    return decisions


def show_decision(browser: Any, index: int) -> dict[str, str]:
    browser.find_elements("css selector", "#review-graph circle.point")[index].click()
    wait_for(browser, lambda: browser.find_elements("css selector", "#review-board svg"),
             "the decision's position")
    detail = {cls: browser.find_element("css selector", f"#review-detail .{cls}").text
              for cls in ("heading", "played", "best", "variation")}
    assert detail["played"].startswith("Played: ") and detail["best"].startswith("Best: ")
    assert browser.find_elements("css selector", "#review-graph circle.point.shown")
    return detail


def test_review_on_demand_shows_the_position_the_seat_saw(table_server: BackgroundServer,
                                                          browser: Any) -> None:
    assert table_server.server is not None
    start(browser, table_server.server.http_port, seed=5)
    first_board = browser.execute_script(BOARD, "#drawn svg")
    assert first_board
    first_moves = [b.text for b in browser.find_elements("css selector", "#moves button.move")]
    for _ in range(3):
        human_move(browser)
    assert browser.find_element("id", "review-open").is_enabled()
    browser.find_element("id", "review-open").click()
    decisions = reviewed(browser)
    assert decisions == 3  # the human's three moves, each a choice in Samara's opening

    # The first decision is the human's first move: the position before it is the deal,
    # rebuilt for seat 0 by the server, and drawn as the live table drew it.
    detail = show_decision(browser, 0)
    assert detail["heading"].startswith("Move 1, ")
    assert detail["played"].startswith(f"Played: {first_moves[0]} (")
    assert browser.execute_script(BOARD, "#review-board svg") == first_board
    # A later decision: the position after the moves before it, a different board.
    detail = show_decision(browser, 2)
    turn = int(browser.find_elements("css selector", "#review-graph circle.point")[2]
               .get_attribute("data-turn"))
    assert turn >= 2 and detail["heading"].startswith(f"Move {turn + 1}, ")
    wait_for(browser, lambda: browser.execute_script(BOARD, "#review-board svg") != first_board,
             "the third decision's position")
    assert not browser.find_element("id", "error").is_displayed()

    # Closing the panel empties it and cancels the review: nothing of it comes after.  The
    # review takes the strength field's budget when it opens: 4 s a decision keeps this one
    # running on any machine (the bots' 20 iterations finish 3 decisions before a look).
    from selenium.webdriver.support.ui import Select

    browser.execute_script("document.getElementById('exact').open = true")  # a game closed it
    Select(browser.find_element("id", "strength-kind")).select_by_value("time")
    field = browser.find_element("id", "strength")
    field.clear()
    field.send_keys("4000")
    browser.find_element("id", "review-open").click()
    assert review_state(browser) == "running"
    browser.find_element("id", "review-close").click()
    assert not browser.find_element("id", "review").is_displayed()
    time.sleep(1.0)
    assert review_state(browser) == "idle"
    assert not browser.find_elements("css selector", "#review-graph circle.point")


def test_the_review_opens_at_the_end_of_a_game(table_server: BackgroundServer,
                                               browser: Any) -> None:
    assert table_server.server is not None
    start(browser, table_server.server.http_port, seed=11)
    moves = 0
    deadline = time.monotonic() + 120
    while phase(browser) != "over":
        assert time.monotonic() < deadline, f"the game did not end ({moves} moves)"
        human_move(browser)
        moves += 1
    assert browser.find_element("id", "review").is_displayed()
    decisions = reviewed(browser)
    # Every decision of the human's with a choice: at most one per move it made.
    assert 0 < decisions <= moves
    turns = [int(str(t)) for t in attributes(browser, "#review-graph circle.point", "data-turn")]
    assert turns == sorted(turns) and len(set(turns)) == len(turns)
    detail = show_decision(browser, decisions - 1)
    assert detail["heading"].startswith(f"Move {turns[-1] + 1}, ")
    labels = [str(c).split()[1] for c in
              attributes(browser, "#review-graph circle.point", "class")]
    assert set(labels) <= {"best", "good", "inaccuracy", "mistake", "blunder"}
    assert not browser.find_element("id", "error").is_displayed()
    follow_the_review(browser, labels)


def marked(browser: Any, mark: str) -> list[str]:
    return [str(ref) for ref in attributes(browser, f"#review-board g.part.{mark}", "data-ref")]


def naming(browser: Any, text: str) -> list[str]:
    """The refs of the drawn components a move's text names (its words, as a hint's)."""
    words = [w for w in re.split(r"[\s:]+", text) if w]
    return [str(ref) for ref in attributes(browser, "#review-board g.part", "data-ref")
            if any(w in str(ref).split() for w in words)]


def follow_the_review(browser: Any, labels: list[str]) -> None:
    """A review of a game of first legal moves (Samara, two seats): its mistakes are key
    moments, "Next mistake" steps to each in turn, the board marks the played and the best
    move, and a large swing between two decisions is put down to the opponents' moves."""
    mistakes = [i for i, label in enumerate(labels) if label in ("mistake", "blunder")]
    assert mistakes, "a game of first legal moves has mistakes"
    moments = {int(b.get_attribute("data-index")): b.text for b in
               browser.find_elements("css selector", "#review-moments button.moment")}
    for i in mistakes:
        assert labels[i] in moments[i]
    ringed = {int(str(i)) for i in
              attributes(browser, "#review-graph circle.point.key", "data-index")}
    assert ringed == set(moments)

    # "Next mistake" from the last decision shown (the end-of-game test showed the last)
    steps = {name: browser.find_element("id", f"review-{name}")
             for name in ("prev", "next", "next-mistake")}
    shown = int(browser.find_element("css selector", "#review-graph circle.point.shown")
                .get_attribute("data-index"))
    assert steps["next"].is_enabled() == (shown + 1 < len(labels))
    browser.find_element("css selector", "#review-graph circle.point").click()  # the first
    for i in mistakes if mistakes[0] > 0 else mistakes[1:]:
        steps["next-mistake"].click()
        wait_for(browser, lambda i=i: browser.find_elements(
            "css selector", f"#review-graph circle.point.shown[data-index='{i}']"),
            f"decision {i}, a mistake")
        wait_for(browser, lambda: browser.find_elements("css selector", "#review-board svg"),
                 "its position")
        heading = browser.find_element("css selector", "#review-detail .heading").text
        assert labels[i] in heading
        played = browser.find_element("css selector", "#review-detail .played").text
        best = browser.find_element("css selector", "#review-detail .best").text
        played_text = re.match(r"Played: (.+) \(", played)
        best_text = re.match(r"Best: (.+) \(", best)
        assert played_text and best_text, (played, best)
        assert marked(browser, "played-move") == naming(browser, played_text.group(1))
        assert marked(browser, "best-move") == naming(browser, best_text.group(1))
        assert browser.find_element("css selector", "#review-board .marks").text \
            .startswith("On the board: ")
    assert not steps["next-mistake"].is_enabled()
    # some decision's board names its played move's pieces (Samara's moves name spots)
    browser.find_element("css selector", "#review-graph circle.point").click()
    swings, marks = [], 0
    for i in range(len(labels)):
        wait_for(browser, lambda i=i: browser.find_elements(
            "css selector", f"#review-graph circle.point.shown[data-index='{i}']")
            and browser.find_elements("css selector", "#review-board svg"), f"decision {i}")
        marks += len(marked(browser, "played-move"))
        swings.append(browser.find_element("css selector", "#review-detail .swing").text)
        if i + 1 < len(labels):
            steps["next"].click()
    assert marks
    assert not steps["next"].is_enabled() and steps["prev"].is_enabled()
    said = [text for text in swings if text]
    assert said, "no large swing in a game of first legal moves"
    for text in said:
        assert re.fullmatch(r"Before this move your forecast (fell|rose) \(win probability "
                            r"[+−][\d.]+%, [+−][\d.]+ points\) through the opponents' moves "
                            r"since move \d+: not your move\.", text), text


def test_a_sealed_game_is_reviewed_from_its_sealed_state(table_server: BackgroundServer,
                                                        browser: Any) -> None:
    """Oh My Goods!: the bot's secret choices never reach the page, which reviews the game
    from the sealed position it holds (the record inside, for the server alone); a click
    draws the position as the human saw it, without the bot's hand.  The page is not
    pinned: it holds no seed of the game, and needs none to review it."""
    assert table_server.server is not None
    start(browser, table_server.server.http_port, seed=None, game="oh-my-goods")
    first_board = browser.execute_script(BOARD, "#drawn svg")
    moves = 0
    while moves < 6 and phase(browser) == "human":
        human_move(browser)
        moves += 1
    held = browser.execute_script(HELD)
    assert held["kind"] == "sealed"
    opened = SEALER.unseal(base64.b64decode(held["bytes"]))
    assert opened.record is not None and opened.seat == 0
    record = record_from_json(opened.record)
    hidden = [item.text for item in browser.find_elements("css selector", "#log li")
              if item.text.startswith("Bot, P2") and "(a move you cannot see)" in item.text]
    assert hidden, "the bot should have made a secret choice"

    browser.find_element("id", "review-open").click()
    decisions = reviewed(browser)
    assert 0 < decisions <= moves
    turns = [int(str(t)) for t in attributes(browser, "#review-graph circle.point", "data-turn")]
    # Turns count every seat's moves of the record the sealed state carries.
    assert turns == sorted(turns) and turns[-1] < len(record.moves)

    detail = show_decision(browser, 0)
    assert detail["heading"].startswith(f"Move {turns[0] + 1}, ")
    if turns[0] == 0:  # the deal: drawn as the live table drew it
        assert browser.execute_script(BOARD, "#review-board svg") == first_board
    # The position drawn is the human's view before its move: the bot's hand unseen.
    before = replay(GameRecord(record.game, 2, seed=record.seed, moves=record.moves[:turns[0]]))
    board = browser.find_element("id", "review-board").get_attribute("innerHTML")
    for card in before.to_json()["players"][1]["hand"]:
        assert not re.search(rf"(?<![\w-]){re.escape(card)}(?!\d)", board), card
    if decisions > 1:
        show_decision(browser, decisions - 1)
    assert not browser.find_element("id", "error").is_displayed()
