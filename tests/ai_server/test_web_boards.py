"""The web table's drawn boards, in a real headless browser (as test_web_table.py).

A full game of each game at 2, 3 and 4 players (and Stephens solo) through the drawn
board and its buttons alone (the text board never opened), some moves picked by
clicking a component and then one of the moves it offers, hints lit on the board,
every piece's tooltip there and every card's and tile's naming its cost and points as
the engine's catalogue has them, and what is drawn counted against the
observation of the human's seat (the engine's, from what the page holds) at several
points.  In Oh My Goods! (held sealed) no hidden card (the deck, a bot's hand or
secret plan, a face-down good) is anywhere the page can read, the log included, unless
it is a card once face up, named where everyone saw it (LeakWatch).  Also the table's defects: a hint's panel outliving the move, Stephens'
scores unexplained beside the track's VP, the text board naming the wrong seat, the
missing icon, and sideways scrolling at 1280x800.

The tests run on the compiled kernels only (helpers_browser.on_the_kernels_only): the
page is the same on both engine paths, and the pure-Python run (FURNACE_PURE_PYTHON=1)
would only make the bots slower.
"""

from __future__ import annotations

import base64
import json
import re
import time
import urllib.request
from typing import Any

import pytest

from ai_server.server import BackgroundServer
from engine import registry
from tests.ai_server.helpers_browser import (
    SEALER,
    answered,
    log_length,
    needs_chromium,
    new_game,
    on_the_kernels_only,
    open_table,
    phase,
    wait_for,
)

pytestmark = on_the_kernels_only

#: What the page holds, as a game engine reads it: the JSON state (a game with nothing
#: hidden) or the sealed blob's bytes (base64), and the status scores.
HELD = """
const t = window.furnaceTable;
if (!t) return null;
const s = t.state.state;
if (s.case === "sealed") return {sealed: btoa(String.fromCharCode(...s.value)), scores: t.status.scores};
return {json: JSON.stringify(s.value), scores: t.status.scores};
"""


def seen(driver: Any, game: str, human: int) -> dict[str, Any]:
    """The observation of the human's seat, made by the engine from what the page holds."""
    held = driver.execute_script(HELD)
    if "sealed" in held:
        data, seat = SEALER.open(base64.b64decode(held["sealed"]))
        assert seat == human
    else:
        data = json.loads(held["json"])
    return dict(registry.get_game(game).state_from_json(data).observation(human))


def drawn(driver: Any, kind: str, seat: int | None = None) -> int:
    where = f'#drawn [data-kind="{kind}"]' + ("" if seat is None else f'[data-seat="{seat}"]')
    return len(driver.find_elements("css selector", where))


def check_counts(driver: Any, game: str, human: int) -> None:
    """What is drawn matches the human's observation: cards, workers, goods."""
    o = seen(driver, game, human)
    if game == "samara":
        # One piece per worker, whatever its strength (a strength-2 worker is one piece).
        assert drawn(driver, "worker") == sum(len(e["workers"]) for e in o["track"])
        assert drawn(driver, "tile") == sum(1 for s in o["spots"] if s["tile"])
        tools = sum(sum(s["tools"].values()) for s in o["spots"])
        tools += sum(sum(f["tools"].values()) for f in o["foremen"])
        assert drawn(driver, "tool") == tools
        assert drawn(driver, "pawn") == sum(sum(f["pawns"].values()) for f in o["foremen"])
    elif game == "oh-my-goods":
        assert drawn(driver, "market") == len(o["display"])
        for seat, p in enumerate(o["players"]):
            if seat == human:
                assert drawn(driver, "card", seat) == len(p["hand"])
                assert drawn(driver, "back", seat) == 0
            else:
                assert drawn(driver, "back", seat) == p["hand"] and drawn(driver, "card", seat) == 0
            assert drawn(driver, "building", seat) == 1 + len(p["buildings"])
            assert drawn(driver, "good", seat) == sum(len(g) for g in p["goods"])
            assert drawn(driver, "worker", seat) == (p["work"] is not None)
            assert drawn(driver, "assistant", seat) == len(p["assistants"])
        assert drawn(driver, "assistant") == len(o["pool"]) + sum(
            len(p["assistants"]) for p in o["players"])
    else:
        workers = sum((e["master"] is not None) + (e["apprentice"] is not None)
                      for row in o["places"].values() for e in row)
        assert drawn(driver, "worker") == workers
        assert drawn(driver, "glass") == sum(o["furnaces"].values())
        assert drawn(driver, "product") == sum(sum(c.values()) for c in o["small_factories"].values())
        assert drawn(driver, "contract") == sum(1 for c in o["contracts"]["display"] if c)
        assert drawn(driver, "investment") == sum(1 for c in o["investments"]["display"] if c)
        for seat, p in enumerate(o["players"]):
            assert drawn(driver, "held-contract", seat) == len(p["contracts"])
        assert drawn(driver, "automa") == (1 if o.get("solo") else 0)


#: The kinds of drawn pieces that show a card or tile of the catalogue.
CARDS = ("tile", "market", "card", "building", "assistant", "profession", "profession-card",
         "deck", "contract", "held-contract", "investment")
#: Each drawn piece: its kind, catalogue id and side (if any), and its tooltip's text.
TOOLTIPS = """
return Array.from(document.querySelectorAll('#drawn [data-kind]'), (e) => [e.dataset.kind,
  e.dataset.card || '', e.dataset.face || '', e.querySelector(':scope > title')?.textContent || '']);
"""


def tooltip_facts(game: str, kind: str, card: str, face: str, o: dict[str, Any]) -> list[str]:
    """What the tooltip of a piece showing ``card`` must say: its cost and points, read
    from the engine's catalogue (and, for a Stephens display, the space it lies on)."""
    if game == "samara":
        from engine.samara.catalogue import default_catalogue as samara_catalogue

        tile = samara_catalogue().tiles[samara_catalogue().tile_index(card)]
        return [f"cost {tile.saws} saws, {tile.trowels} trowels, {tile.glass} glass",
                f"points {tile.prestige} prestige"]
    if game == "oh-my-goods":
        from engine.oh_my_goods.catalogue import default_catalogue as omg_catalogue

        cat = omg_catalogue()
        if kind == "assistant":
            side = cat.assistants[cat.assistant_index(card)].faces[int(face)]
            return [f"cost {side.cost} coins; points {side.vp} VP"]
        if card in cat.card_ids:
            deck_card = cat.cards[cat.card_index(card)]
            return [f"cost {deck_card.cost} coins; points {deck_card.vp} VP"]
        return ["cost 0 coins; points 0 VP"]  # a Charburner: everyone's from the start
    from engine.stephens.catalogue import default_catalogue as stephens_catalogue

    cat = stephens_catalogue()
    if kind in ("contract", "held-contract"):
        cubes = cat.contract(card).cube_count
        cost = (f"cost {cat.contract_costs[o['contracts']['display'].index(card)]} coins"
                if kind == "contract" else "cost paid when taken")
        return [cost, f"points {cubes} per contract in its column"]
    if kind == "investment":
        cost = cat.investment_costs[o["investments"]["display"].index(card)]
        return [f"cost {cost} coins", f"points {cat.investment(card).vp} VP"]
    master = cat.profession(card).spaces[0]
    cost = f"master {master.coins} coins" if master.coins else (
        f"master {master.influence} influence" if master.influence else "master free")
    return [f"cost to place a worker: {cost}", "points "]


def check_tooltips(driver: Any, game: str, human: int) -> None:
    """Every drawn piece has a tooltip, and every card and tile's names its cost and
    points as the catalogue has them."""
    o = seen(driver, game, human)
    shown = driver.execute_script(TOOLTIPS)
    assert shown
    for kind, card, face, tip in shown:
        assert tip.strip(), f"a {kind} without a tooltip"
        if kind in CARDS:
            assert card, f"a {kind} without its catalogue id"
            for fact in tooltip_facts(game, kind, card, face, o):
                assert fact in tip, (kind, card, fact, tip)


def check_scores(driver: Any, game: str) -> None:
    """Stephens: each player board shows the status score beside the track's VP, and the
    status says what its scores are."""
    if game != "stephens":
        return
    scores = driver.execute_script("return window.furnaceTable.status.scores")
    status = driver.find_element("id", "status").text
    over = status.startswith("Game over")
    assert over or "Scores if the game ended now" in status, status
    for seat, score in enumerate(scores):
        text = driver.find_element("css selector", f'#drawn [data-kind="score"][data-seat="{seat}"]').text
        assert f"score {score:g} if the game ended now" in text, (text, score)
        assert re.match(r"track \d+ VP", text), text


def check_ending(driver: Any, players: int) -> None:
    """The end says what the engine says: a solo game its score against the target and
    its rank (never "You win": a lone seat always ranks first), every game each seat's
    score by source."""
    status = driver.find_element("id", "status").text
    assert status.startswith("Game over"), status
    table = driver.execute_script("return window.furnaceTable.status")
    score = table["scores"][0]
    assert "By source: P1" in status, status
    if players == 1:
        assert "You win" not in status and "You lose" not in status, status
        assert table["soloResult"] and table["soloTarget"], table
        assert (f"You scored {score:g} against a target of {table['soloTarget']:g}: "
                f"{table['soloResult']}") in status, status
    else:
        assert "Winner" in status or "Tied winners" in status, status


def once_public(o: dict[str, Any]) -> set[str]:
    """The cards an Oh My Goods! observation shows face up outside the hands: the market,
    the discard pile and what was reshuffled from it, goods shown, buildings.  A card
    there may later be drawn into another hand: its id was public, its owner is not."""
    cards = set(o["display"]) | set(o["discard"]) | set(o["reshuffled"]) | set(o["shown_goods"])
    for p in o["players"]:
        cards |= set(p["buildings"]) | {g for row in p["goods"] for g in row if g}
    return cards


def hidden_from(data: dict[str, Any], o: dict[str, Any], human: int) -> set[str]:
    """The Oh My Goods! cards whose place the human's seat cannot see (``data`` the whole
    position, ``o`` the seat's observation): the deck, the other hands and their secret
    plans, and goods lying face down."""
    cards = set(data["deck"])
    shown = set(data["shown_goods"])
    for seat, (player, view) in enumerate(zip(data["players"], o["players"], strict=True)):
        cards |= {g for row in player["goods"] for g in row if g not in shown}
        if seat != human:
            cards |= set(player["hand"])
            if player["plan"] is not None and view["plan"] != player["plan"]:
                cards.add(player["plan"])
    return cards


def names(text: str, card: str) -> re.Match[str] | None:
    """Where ``text`` names ``card`` (mill-1, not the start of mill-10)."""
    return re.search(rf"(?<![\w-]){re.escape(card)}(?!\d)", text)


#: The parts of the page that show the game, but the log (read by LeakWatch.turn).
SHOWN = ("drawn", "board", "moves", "status", "analysis-info", "chart", "expected", "pv")
#: What the page keeps beside the sealed state: the table without the game's `info`
#: (ListGames' description, whose state schema names every card of the box) and the
#: seat's view (compared whole with the engine's observation instead).
KEPT = ("return JSON.stringify({...window.furnaceTable, info: null, seen: null},"
        " (k, v) => typeof v === 'bigint' ? String(v) : v)")
#: The log's lines, oldest first (the page puts the newest on top).
LOG = "return Array.from(document.querySelectorAll('#log li'), (li) => li.textContent).reverse()"


class LeakWatch:
    """Oh My Goods!: nothing the page draws or keeps says where a hidden card is (the
    deck, the bots' hands and secret plans, face-down goods), at every human turn.

    A card that was once face up for everyone (the market, the discard pile, and so
    the reshuffled deck) has a public id: the view lists it where everyone saw it, and
    the log names it when it went there.  What may not be shown is where it went
    since: so the view must be the seat's observation exactly, the board, moves,
    analysis and the rest of what the page keeps must name no hidden card at all, and
    the log lines that came with the last moves must name no card that was hidden
    before them and still is (a bot's draw, or its secret plan, shown in the log)."""

    def __init__(self, human: int) -> None:
        self.human = human
        self.public: set[str] = set()
        self.hidden: set[str] = set()
        self.lines = 0

    def turn(self, driver: Any, whole: bool) -> None:
        """Look at the page on a human turn; ``whole``: read all of it, else only the
        view and the new log lines."""
        held = driver.execute_script(HELD)
        assert "sealed" in held, "the page holds Oh My Goods! unsealed"
        data, seat = SEALER.open(base64.b64decode(held["sealed"]))
        assert seat == self.human
        state = registry.get_game("oh-my-goods").state_from_json(data)
        o = json.loads(json.dumps(state.observation(self.human)))
        assert driver.execute_script("return window.furnaceTable.seen") == o, \
            "the page keeps more (or other) than the seat's view"
        self.public |= once_public(o)
        hidden = hidden_from(data, o, self.human)
        log = driver.execute_script(LOG)
        # A card reshuffled into the deck since was face up in the discard pile first
        # (a bot's discard or its dropped plan, in the log when it was shown to all).
        for line in log[self.lines:]:
            for card in hidden & self.hidden - set(o["reshuffled"]):
                assert not names(line, card), (card, line)
        self.lines, self.hidden = len(log), hidden
        if not whole:
            return
        page = driver.execute_script(
            f"return {list(SHOWN)!r}.map((id) => document.getElementById(id).outerHTML)"
            ".join('')") + driver.execute_script(KEPT)
        for card in hidden:
            found = names(page, card)
            assert not found, (card, page[max(0, found.start() - 300):found.end() + 100])
            if card not in self.public:  # never face up: not even in the log
                assert not any(names(line, card) for line in log), card


#: The page's ``?seed=``: every run deals and searches the same games.
PAGE_SEED = 20261126


def start(driver: Any, srv: BackgroundServer, game: str, players: int, budget: int = 10,
          seed: int = PAGE_SEED) -> None:
    assert srv.server is not None
    open_table(driver, f"http://127.0.0.1:{srv.server.http_port}/?seed={seed}")
    new_game(driver, game, players, strength=budget)


def hint(driver: Any) -> str:
    """Ask a hint: its move is marked in the list and its components lit on the board."""
    driver.find_element("id", "hint").click()
    wait_for(driver, lambda: phase(driver) == "human"
             and driver.find_elements("css selector", "#moves button.best"), "the hint")
    best = driver.find_element("css selector", "#moves button.best").text
    words = set(re.split(r"[\s:]+", best))
    lit = driver.find_elements("css selector", "#drawn g.part.hinted")
    for part in lit:
        assert words & set(str(part.get_attribute("data-ref")).split()), best
    return best


def click_a_component(driver: Any) -> bool:
    """Click a live component and then the first move it offers (each named by it)."""
    parts = driver.find_elements("css selector", "#drawn g.part.live")
    if not parts:
        return False
    part = parts[len(parts) // 2]
    refs = set(str(part.get_attribute("data-ref")).split())
    driver.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", part)
    buttons = driver.find_elements("css selector", "#moves button.move")
    assert buttons and driver.find_element("id", "show-all").is_displayed()
    for button in buttons:
        assert refs & set(re.split(r"[\s:]+", button.text)), (refs, button.text)
    buttons[0].click()
    return True


#: (game, players): one full game of each game at 2, 3 and 4 players, and Stephens solo.
GAMES = [(game, players) for game in ("samara", "oh-my-goods", "stephens")
         for players in (2, 3, 4)] + [("stephens", 1)]
#: Seconds the human may wait for its turn before the game counts as stuck (a guard
#: against a hang, not a measure of speed).
STUCK = 120.0


@needs_chromium
@pytest.mark.parametrize(("game", "players"), GAMES, ids=[f"{g}-{n}" for g, n in GAMES])
def test_a_full_game_on_the_drawn_board(table_server: BackgroundServer, browser: Any,
                                        game: str, players: int) -> None:
    start(browser, table_server, game, players)
    wait_for(browser, lambda: phase(browser) in ("human", "over"), "the first move")
    assert browser.find_element("css selector", f'#drawn svg[data-game="{game}"]')
    assert not browser.find_element("id", "board").is_displayed()  # the text board, one click away
    human_moves = clicked = hints = checks = 0
    watch = LeakWatch(0) if game == "oh-my-goods" else None
    deadline = time.monotonic() + STUCK
    while (now := phase(browser)) != "over":
        assert time.monotonic() < deadline, f"stuck after {human_moves} moves"
        if now != "human":
            time.sleep(0.02)
            continue
        if watch is not None:
            watch.turn(browser, whole=human_moves % 12 == 0)
        if human_moves % 12 == 0:
            check_counts(browser, game, 0)
            check_tooltips(browser, game, 0)
            check_scores(browser, game)
            # Played from the drawn board and its buttons alone: the text board stays
            # shut (nothing shuts it once open: a look at each check and the end sees it).
            assert not browser.find_element("id", "board").is_displayed()
            checks += 1
        if human_moves in (1, 9):
            hint(browser)
            hints += 1
        before = log_length(browser)
        if human_moves % 3 == 1 and click_a_component(browser):
            clicked += 1
        else:
            browser.find_elements("css selector", "#moves button.move")[0].click()
        human_moves += 1
        deadline = time.monotonic() + STUCK
        wait_for(browser, lambda before=before: answered(browser, before), "the move")
    assert not browser.find_element("id", "error").is_displayed()
    check_ending(browser, players)
    assert not browser.find_element("id", "board").is_displayed()
    if watch is not None:
        watch.turn(browser, whole=True)
    check_counts(browser, game, 0)
    check_scores(browser, game)
    assert clicked >= 3 and hints == 2 and checks >= 2, (clicked, hints, checks)


@needs_chromium
def test_a_move_clears_the_hint(table_server: BackgroundServer, browser: Any) -> None:
    """Stephens solo, where the human moves again at once: a hint's candidates are gone
    once the human has moved (they were for the position before)."""
    start(browser, table_server, "stephens", 1)
    wait_for(browser, lambda: phase(browser) == "human", "the first move")
    hint(browser)
    assert browser.find_elements("css selector", "#chart .row")
    before = log_length(browser)
    browser.find_elements("css selector", "#moves button.move")[0].click()
    wait_for(browser, lambda: phase(browser) == "human"
             and len(browser.find_elements("css selector", "#log li")) > before, "the move")
    assert not browser.find_elements("css selector", "#chart .row")
    assert not browser.find_elements("css selector", "#moves button.best")
    assert not browser.find_elements("css selector", "#drawn g.part.hinted")
    assert browser.find_element("id", "analysis-title").text == "Analysis"


@needs_chromium
def test_stephens_scores_and_seat_to_play(table_server: BackgroundServer,
                                          browser: Any) -> None:
    """Stephens, two players: the status says its scores are the game's as if it ended
    now, each player board shows that score beside the track's VP, and the text board
    names the seat whose decision it is (P2 unlocks at the start while P1 is active)."""
    start(browser, table_server, "stephens", 2)
    wait_for(browser, lambda: phase(browser) == "human", "the first move")
    check_scores(browser, "stephens")
    browser.find_element("id", "text-toggle").click()
    assert browser.find_element("id", "board").is_displayed()
    for _ in range(8):
        to_move = browser.execute_script("return window.furnaceTable.status.currentPlayer")
        first = browser.find_element("id", "board").text.splitlines()[0]
        assert f"P{to_move + 1} to play" in first, first
        before = log_length(browser)
        browser.find_elements("css selector", "#moves button.move")[0].click()
        wait_for(browser, lambda before=before: answered(browser, before), "the move")
        check_scores(browser, "stephens")
    browser.find_element("id", "text-toggle").click()
    assert not browser.find_element("id", "board").is_displayed()


@needs_chromium
def test_the_page_has_an_icon(table_server: BackgroundServer, browser: Any) -> None:
    """No favicon 404: the page names its icon, and the server serves it."""
    assert table_server.server is not None
    base = f"http://127.0.0.1:{table_server.server.http_port}"
    browser.get(base + "/")
    links = browser.find_elements("css selector", "link[rel=icon]")
    assert links, "the page names no icon (the browser asks /favicon.ico: 404)"
    with urllib.request.urlopen(str(links[0].get_attribute("href"))) as reply:  # noqa: S310
        assert reply.status == 200
        assert reply.headers["content-type"].startswith("image/")


#: The page's layout measured in the browser: sideways scrolling, move buttons the player
#: cannot reach without scrolling the page, overlapping card faces, and text wider than
#: the box it is drawn in (on the board) or cut (the hint's labels).
LAYOUT = """
const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5
  && r.bottom <= innerHeight + 0.5;
const name = (e) => (e.closest('[data-kind]')?.dataset.kind || '?') + ' '
  + (e.textContent || '').trim().slice(0, 40);
const out = {width: [document.documentElement.scrollWidth, innerWidth], unreachable: [],
             overlapping: [], wide: [], cut: []};
const list = document.getElementById('moves');
const lr = list.getBoundingClientRect();
const scrolls = list.scrollHeight > list.clientHeight + 1;
for (const b of list.querySelectorAll('button.move')) {
  const r = b.getBoundingClientRect();
  const inList = r.top >= lr.top - 0.5 && r.bottom <= lr.bottom + 0.5;
  if (!inside(lr) || !(inList ? inside(r) : scrolls)) out.unreachable.push(b.textContent);
}
for (const id of ['hint', 'review-open', 'text-toggle', 'new-game']) {
  if (!inside(document.getElementById(id).getBoundingClientRect())) out.unreachable.push(id);
}
const faces = Array.from(document.querySelectorAll(
  '#drawn [data-card] > rect.face, #drawn [data-kind=spot] > rect.face'),
  (f) => [f, f.getBoundingClientRect()]);
for (let i = 0; i < faces.length; i += 1) {
  for (let j = i + 1; j < faces.length; j += 1) {
    const [a, ra] = faces[i], [b, rb] = faces[j];
    const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
    const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
    if (w > 0.5 && h > 0.5) out.overlapping.push([name(a.parentNode), name(b.parentNode)]);
  }
}
const svg = document.querySelector('#drawn svg');
for (const t of svg.querySelectorAll('text')) {
  let g = t.parentNode;
  while (g !== svg && !g.querySelector(':scope > rect.face')) g = g.parentNode;
  const box = (g === svg ? svg : g.querySelector(':scope > rect.face')).getBoundingClientRect();
  const r = t.getBoundingClientRect();
  if (r.width && (r.left < box.left - 1 || r.right > box.right + 1)) out.wide.push(name(t));
}
for (const l of document.querySelectorAll('#chart .label, #moves button.move')) {
  if (l.scrollWidth > l.clientWidth + 1) out.cut.push(l.textContent);
}
return out;
"""


@needs_chromium
def test_it_fits_1280_by_800(table_server: BackgroundServer, browser: Any) -> None:
    """Each game's page, for every player count, at 1280x800 after a few moves and a
    hint: no sideways scrolling, every move button reachable without scrolling the page
    (in the window, or in the move list, which scrolls, itself in the window), no card
    faces overlapping, no text on the board wider than its box, no hint label cut, and
    what is drawn matches the human's observation."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    try:
        for game in ("samara", "oh-my-goods", "stephens"):
            for players in registry.get_game(game).info.player_counts:
                check_fits(browser, table_server, game, players)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def check_fits(browser: Any, table_server: BackgroundServer, game: str, players: int,
               moves: int = 4) -> None:
    start(browser, table_server, game, players)
    for _ in range(moves):  # into the game: hands and boards fill
        wait_for(browser, lambda: phase(browser) in ("human", "over"), "the human's turn")
        if phase(browser) == "over":
            break
        before = log_length(browser)
        browser.find_elements("css selector", "#moves button.move")[-1].click()
        wait_for(browser, lambda before=before: answered(browser, before), "the move")
    if phase(browser) == "human":
        hint(browser)
        check_counts(browser, game, 0)
    layout = browser.execute_script(LAYOUT)
    where = f"{game}, {players} players"
    assert layout["width"][0] <= layout["width"][1], (where, layout["width"])
    for problem in ("unreachable", "overlapping", "wide", "cut"):
        assert not layout[problem], (where, problem, layout[problem])


def test_the_boards_copy_nothing_from_the_catalogues() -> None:
    """What a card, tile or furnace is comes from GameInfo.catalogue, not from tables in
    the web code: boards.ts names no card, tile, profession, contract, investment,
    assistant or furnace of any catalogue (the Charburner's building aside: the
    catalogue's format links every Charburner card to it, as the engine does)."""
    from pathlib import Path

    root = Path(__file__).parents[2]
    quoted = set(re.findall(r'"([^"\n]+)"', (root / "web" / "src" / "boards.ts").read_text()))
    sections = {"samara": (("tiles",),),
                "oh_my_goods": (("deck",), ("buildings",), ("assistants",), ("charburners",)),
                "stephens": (("professions",), ("contracts",), ("investments",),
                             ("board", "furnaces"), ("board", "places"))}
    for package, paths in sections.items():
        catalogue = json.loads((root / "engine" / package / "catalogue.json").read_text())
        for path in paths:
            entries = catalogue
            for key in path:
                entries = entries[key]
            ids = {entry["id"] for entry in entries} - {"charburner"}
            assert ids and not ids & quoted, (package, path, sorted(ids & quoted))


@needs_chromium
def test_a_pinned_page_seed_deals_the_same_game(table_server: BackgroundServer,
                                                browser: Any) -> None:
    """``?seed=N`` makes the page's deals repeat (tests, bug reports); without it each
    new game is dealt afresh."""
    def first_board(seed: int) -> str:
        start(browser, table_server, "oh-my-goods", 2, seed=seed)
        wait_for(browser, lambda: phase(browser) == "human", "the first move")
        return str(browser.find_element("id", "board").get_attribute("textContent"))

    a, b, other = first_board(PAGE_SEED), first_board(PAGE_SEED), first_board(PAGE_SEED + 1)
    assert a and a == b
    assert other != a


#: Every text drawn on the board, in one script (not a WebDriver call per text).
LABELS = "return Array.from(document.querySelectorAll('#drawn svg text'), (t) => t.textContent)"
_TEXT_MONTH = re.compile(r"^\s*(?:NOW )?([A-Z][a-z]{2}) \(\+(\d+)\):", re.M)
_DRAWN_MONTH = re.compile(r"^([A-Z][a-z]{2}) \((now|\+\d+)\)$")


@needs_chromium
def test_the_samara_time_track_names_the_text_boards_months(table_server: BackgroundServer,
                                                            browser: Any) -> None:
    """The drawn time track counted months one off from the engine ("Aug (now)" where
    the text board said Sep) and numbered its boxes by place in the list, not by
    months ahead (a track skips empty months)."""
    start(browser, table_server, "samara", 2)
    for _ in range(12):
        wait_for(browser, lambda: phase(browser) in ("human", "over"), "the human's turn")
        if phase(browser) == "over":
            break
        text = str(browser.find_element("id", "board").get_attribute("textContent"))
        expected = [(name, int(ahead)) for name, ahead in _TEXT_MONTH.findall(text)]
        labels = browser.execute_script(LABELS)
        drawn_months = [(m.group(1), 0 if m.group(2) == "now" else int(m.group(2)[1:]))
                        for m in map(_DRAWN_MONTH.match, labels) if m]
        assert expected and drawn_months == expected, (drawn_months, expected)
        before = log_length(browser)
        browser.find_elements("css selector", "#moves button.move")[0].click()
        wait_for(browser, lambda before=before: answered(browser, before), "the move")
