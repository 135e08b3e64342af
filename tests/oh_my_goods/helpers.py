"""Building blocks for Oh My Goods! rule tests: positions set up by hand."""

from __future__ import annotations

from engine.oh_my_goods import GAME
from engine.oh_my_goods.state import OhMyGoodsState


def blank(num_players: int = 2, seed: int = 0, second_edition: bool = False) -> OhMyGoodsState:
    """Phase IV for seat 0 (active), with every card back in the (sorted) deck."""
    s = GAME.new_game(seed, num_players, {"second_edition": second_edition})
    for p in s.players:
        s.deck += p.hand + [c for g in p.goods for c in g] + p.buildings
        if p.plan is not None:
            s.deck.append(p.plan)
        p.hand, p.goods, p.buildings, p.plan = [], [[]], [], None
        p.work, p.chosen, p.assistants = None, 0, []
    s.deck += s.display + s.discard
    s.display, s.discard = [], []
    s.deck.sort()
    s.phase, s.turn, s.active, s.sunset_at = "act", 0, 0, 0
    s._reset_act()
    return s


def card(s: OhMyGoodsState, card_id: str) -> int:
    return s.catalogue.card_index(card_id)


def set_charburner(s: OhMyGoodsState, seat: int, charburner_id: str) -> None:
    ids = [c.id for c in s.catalogue.charburners]
    other = [p for p in s.players if p.charburner == ids.index(charburner_id)]
    if other:
        other[0].charburner = s.players[seat].charburner
    s.players[seat].charburner = ids.index(charburner_id)


def build(s: OhMyGoodsState, seat: int, card_id: str) -> int:
    """Give ``seat`` the building ``card_id``; returns its slot."""
    c = card(s, card_id)
    s.deck.remove(c)
    s.players[seat].buildings.append(c)
    s.players[seat].goods.append([])
    return len(s.players[seat].buildings)


GOODS_FROM = ("cattle-ranch", "weaving-mill", "bakery", "cooperage")


def _take(s: OhMyGoodsState, resource: str) -> int:
    for c in s.deck:
        info = s.catalogue.cards[c]
        if info.resource == resource and not info.id.startswith(GOODS_FROM):
            s.deck.remove(c)
            return c
    raise AssertionError(f"no {resource} card left in the deck")


def give(s: OhMyGoodsState, seat: int, *resources: str) -> list[int]:
    """Put cards showing ``resources`` into ``seat``'s hand; returns their indices."""
    cards = [_take(s, r) for r in resources]
    s.players[seat].hand += cards
    return cards


def market(s: OhMyGoodsState, *resources: str) -> None:
    s.display += [_take(s, r) for r in resources]


def goods(s: OhMyGoodsState, seat: int, slot: int, n: int) -> None:
    """Put ``n`` face-down goods on ``seat``'s building ``slot``."""
    for _ in range(n):
        c = next(c for c in s.deck if s.catalogue.cards[c].id.startswith(GOODS_FROM))
        s.deck.remove(c)
        s.players[seat].goods[slot].append(c)


def text_moves(s: OhMyGoodsState) -> list[str]:
    return s.legal_moves_text()
