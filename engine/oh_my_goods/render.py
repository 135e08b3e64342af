"""A text drawing of an Oh My Goods! position, made from one seat's observation.

:func:`render_view` reads only the dict ``OhMyGoodsState.observation(observer)``
returns (and the public catalogue), so a drawing never shows a seat more than it
can see: another seat's hand is a count, a face-down good is a count, a secret
phase II choice is not there at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.oh_my_goods.catalogue import Catalogue
from engine.wording import count, counted_plural

COINS_PER_VP = 5


#: Every symbol the board uses, explained at its foot.
KEY = ("key: market GOOD* = a card showing GOOD, with a half sun (the second half sun ends a row); "
       "| = sunset (cards after it were turned up in the second row)",
       "key: > = the seat to move; #N = building slot N (#0 the Charburner); "
       "[worker MODE] = the worker there, and how it works; hand CARD(GOOD) = a card and "
       "the good it shows")


def _slot_buildings(view: Mapping[str, Any], catalogue: Catalogue, seat: int) -> list[Any]:
    cards = {c.id: c for c in catalogue.cards}
    player = view["players"][seat]
    burner = catalogue.buildings[catalogue.charburner_building]
    return [burner] + [catalogue.buildings[cards[b].building] for b in player["buildings"]]


def render_view(view: Mapping[str, Any], catalogue: Catalogue) -> str:
    """The position as ``view`` (an observation) shows it."""
    cards = {c.id: c for c in catalogue.cards}
    assistants = {a.id: a for a in catalogue.assistants}
    n = view["num_players"]
    lines = [f"Oh My Goods! round {view['round']}"
             + (f" (last round {view['final_round']})" if view["final_round"] else "")
             + f", P{view['active'] + 1} active, phase {view['phase']}"]
    lines.append(f"deck {view['deck']}  discard {len(view['discard'])}")
    row = [cards[c].resource + ("*" if cards[c].half_sun else "") for c in view["display"]]
    if view["sunset_at"] >= 0:
        row.insert(view["sunset_at"], "|")
    lines.append("market: " + (" ".join(row) if row else "-"))
    pool = []
    for entry in view["pool"]:
        face = assistants[entry["assistant"]].faces[entry["face"]]
        pool.append(f"{entry['assistant']} side {entry['face'] + 1} "
                    f"(costs {count(face.cost, 'coin')}, {face.vp} VP)")
    lines.append("assistants for hire: " + (", ".join(pool) if pool else "-"))
    to_move = (view["active"] + view["turn"]) % n if view["phase"] != "over" else -1
    for seat, player in enumerate(view["players"]):
        buildings = _slot_buildings(view, catalogue, seat)
        coins = sum(len(goods) * b.value for goods, b in zip(player["goods"], buildings,
                                                                strict=True))
        vp = sum(cards[b].vp for b in player["buildings"])
        vp += sum(assistants[a["assistant"]].faces[a["face"]].vp for a in player["assistants"])
        mark = ">" if seat == to_move else " "
        lines.append(f"{mark}P{seat + 1}: {vp} VP, {count(coins, 'coin')} in goods: score "
                     f"{vp + coins // COINS_PER_VP} (VP + 1 per {COINS_PER_VP} coins)")
        work = player["work"]
        for slot, building in enumerate(buildings):
            who = ""
            if work is not None and work["slot"] == slot:
                who = f" [worker {work['mode']}]"
            for a in player["assistants"]:
                if a["slot"] == slot:
                    who += f" [{a['assistant']}]"
            goods = player["goods"][slot]
            shown = [c for c in goods if c is not None]
            good = ""
            if building.good:
                good = f" {counted_plural(len(goods), building.good)}"
                if shown:
                    good += f" (shown: {', '.join(shown)})"
            lines.append(f"    #{slot} {building.name}{good}{who}")
        hand = player["hand"]
        if isinstance(hand, int):
            lines.append(f"    hand: {count(hand, 'card')}")
        else:
            text = " ".join(f"{c}({cards[c].resource})" for c in hand)
            lines.append(f"    hand: {text or '-'}")
        plan = player["plan"]
        if plan == "hidden":
            lines.append("    plan: a card, face down")
        elif plan is not None:
            lines.append(f"    plan: {plan}")
    lines += KEY
    return "\n".join(lines)
