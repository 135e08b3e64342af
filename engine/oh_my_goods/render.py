"""A text drawing of an Oh My Goods! position."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.oh_my_goods.rules import OhMyGoodsState


def render_state(state: OhMyGoodsState, observer: int | None = None) -> str:
    """The position as text; with ``observer``, other players' hands and plans are hidden."""
    cards = state.catalogue.cards
    lines = [f"Oh My Goods! round {state.round}"
             + (f" (last round {state.final_round})" if state.final_round else "")
             + f", player {state.active + 1} active, phase {state.phase}"]
    lines.append(f"deck {len(state.deck)}  discard {len(state.discard)}")
    row = [cards[c].resource + ("*" if cards[c].half_sun else "") for c in state.display]
    if state.sunset_at >= 0:
        row.insert(state.sunset_at, "|")
    lines.append("market: " + (" ".join(row) if row else "-"))
    pool = [f"{state.catalogue.assistants[a].id}/{f}" for a, f in state.pool]
    lines.append("assistants for hire: " + (", ".join(pool) if pool else "-"))
    for seat, player in enumerate(state.players):
        mark = ">" if state.phase != "over" and state.current_player() == seat else " "
        lines.append(f"{mark}P{seat + 1}: {state.vp(seat)} VP, {state.coins(seat)} coins, "
                     f"score {state.scores()[seat]:g}")
        for slot in range(state.num_slots(seat)):
            building = state.slot_building(seat, slot)
            who = ""
            if player.work is not None and player.work[0] == slot and (
                    observer is None or observer == seat or state.phase != "choose"):
                who = f" [worker {('orderly', 'sloppy')[player.work[1]]}]"
            a = state.assistant_at(seat, slot)
            if a >= 0:
                who += f" [{state.catalogue.assistants[a].id}]"
            goods = player.goods[slot]
            good = f" {len(goods)} {building.good}" if building.good else ""
            lines.append(f"    #{slot} {building.name}{good}{who}")
        if observer is None or observer == seat:
            hand = " ".join(f"{cards[c].id}({cards[c].resource})" for c in player.hand)
            lines.append(f"    hand: {hand or '-'}")
            if player.plan is not None:
                lines.append(f"    plan: {cards[player.plan].id}")
        else:
            lines.append(f"    hand: {len(player.hand)} cards")
    return "\n".join(lines)
