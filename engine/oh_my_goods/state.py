"""An Oh My Goods! position as the game's :class:`engine.game.State`: the rules in plain Python.

:class:`OhMyGoodsState` holds the position and plays it: legality, applying moves,
scoring, what a seat sees (``observation``, ``determinize``), copies, ``to_json`` and
``render``; the move words are :mod:`.moves`', reading a position back from JSON is
:mod:`.codec`'s, the deal :mod:`.setup`'s, and :mod:`.fast` the kernel twin for search.
A round has four phases: I new hand cards, II Sunrise (market draw, then each
player's simultaneous choices), III Sunset (second market draw), IV produce and
build in turn order.  The simultaneous phase II choices are sequential moves in
seat order from the active player whose content other seats cannot see until
Sunset (``observation`` hides them, ``determinize`` resamples them).  Shuffles and
draws happen inside ``apply`` with a SplitMix64 generator stored in the state, so
the state is never at CHANCE.  Interpretations: ``docs/rules/oh-my-goods.md``.

>>> from engine.oh_my_goods.catalogue import default_catalogue
>>> from engine.oh_my_goods.setup import new_state
>>> state = new_state(default_catalogue(), seed=1, num_players=2, second_edition=False)
>>> state.phase, state.current_player()
('choose', 0)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.game import (
    TERMINAL,
    Event,
    GameInfo,
    IllegalMoveError,
    MoveParseError,
    Outcome,
    State,
    rank_groups,
)
from engine.oh_my_goods import fast
from engine.oh_my_goods.catalogue import ANY, EXTRA_CARD, RESOURCES, Building, Catalogue
from engine.oh_my_goods.features import features
from engine.oh_my_goods.moves import is_move_code, move_to_text, not_a_move, parse_move
from engine.oh_my_goods.render import render_view
from engine.oh_my_goods.vocabulary import (
    BUILD,
    BUILDINGS_TO_END,
    CHAIN,
    CHAIN_ONLY,
    COINS_PER_VP,
    DEAL,
    DONE,
    HIRE,
    IDLE,
    INFO,
    KEEP,
    KIND_WORDS,
    MAX_ROUNDS,
    MODE_WORDS,
    NO_CARD,
    ORDERLY,
    PASS,
    PAY,
    PLACE,
    PLAN,
    PLAN_NONE,
    PRODUCE,
    REDRAW,
    SCRAP,
    SHIFT,
    SHIFT_COST,
    SLOPPY,
    STOP,
    SUPPLY,
    WORK_ORDERLY,
    WORK_SLOPPY,
    decode_move,
    encode_move,
)
from engine.playout_rng import PlayoutRng
from engine.wording import count, counted_plural


def _rng_below(rng_state: list[int], n: int) -> int:
    gen = PlayoutRng(rng_state[0])
    value = gen.below(n)
    rng_state[0] = gen.state
    return value


@dataclass
class Player:
    charburner: int
    worker: int
    hand: list[int] = field(default_factory=list)
    buildings: list[int] = field(default_factory=list)  # deck cards; slot k + 1
    goods: list[list[int]] = field(default_factory=lambda: [[]])  # per slot, slot 0 charburner
    assistants: list[list[int]] = field(default_factory=list)  # [assistant, face, slot]
    work: tuple[int, int] | None = None  # (slot, mode); slot -1 = idle
    plan: int | None = None
    chosen: int = 0  # phase II progress: 0 nothing, 1 worker placed, 2 plan made

    def copy(self) -> Player:
        return Player(self.charburner, self.worker, list(self.hand), list(self.buildings),
                      [list(g) for g in self.goods], [list(a) for a in self.assistants],
                      self.work, self.plan, self.chosen)


class OhMyGoodsState(State):
    """An Oh My Goods! position.  See the module docstring for the model."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue, num_players: int, second_edition: bool) -> None:
        self.catalogue = catalogue
        self.num_players = num_players
        self.second_edition = second_edition
        self.rng = [0]  # SplitMix64 state, boxed so helpers can advance it
        self.round = 1
        self.active = 0
        self.final_round: int | None = None
        self.phase = "choose"
        self.turn = 0
        self.deck: list[int] = []  # top card is the last
        self.discard: list[int] = []
        self.display: list[int] = []
        self.sunset_at = -1  # index in display where the Sunset row starts
        self.pool: list[list[int]] = []  # [assistant, face] still for hire
        self.players: list[Player] = []
        # phase IV of the seat to move
        self.step = "run"
        self.handled: list[int] = []
        self.running = -1
        self.need = [0] * 6  # per resource, then "any"
        self.slack = 0
        self.produce_count = 0
        self.chain_slot = -1
        self.hired = -1
        self.shifted: list[int] = []
        self.pay: dict[str, Any] | None = None  # due, paid, last, purpose, arg
        # Goods whose card every seat has seen (a hand card placed by a chain), and the
        # cards of the last reshuffle: the draw pile holds only those, since the
        # shuffled discard pile was public.  Both sharpen determinize().
        self.shown: set[int] = set()
        self.reshuffled: list[int] = []
        self._starting_sizes: list[int] = []  # hand sizes when phase I began
        self.last_rollout_steps = 0  # moves chosen by the last rollout(), for benchmarks

    # -- cards and buildings ---------------------------------------------------
    def card_name(self, card: int) -> str:
        return self.catalogue.cards[card].id

    def slot_building(self, seat: int, slot: int) -> Building:
        cat = self.catalogue
        if slot == 0:
            return cat.buildings[cat.charburner_building]
        return cat.buildings[cat.cards[self.players[seat].buildings[slot - 1]].building]

    def slot_inputs(self, seat: int, slot: int) -> tuple[tuple[str, int], ...]:
        player = self.players[seat]
        if slot == 0:
            return self.catalogue.charburners[player.charburner].inputs
        return self.catalogue.cards[player.buildings[slot - 1]].inputs

    def slot_label(self, seat: int, slot: int) -> str:
        return f"{self.slot_building(seat, slot).name} #{slot}"

    def num_slots(self, seat: int) -> int:
        return 1 + len(self.players[seat].buildings)

    def is_production(self, seat: int, slot: int) -> bool:
        return 0 <= slot < self.num_slots(seat) and self.slot_building(seat, slot).production

    def coins(self, seat: int) -> int:
        return sum(len(self.players[seat].goods[s]) * self.slot_building(seat, s).value
                   for s in range(self.num_slots(seat)))

    def market_counts(self, seat: int) -> list[int]:
        """Resources available to ``seat`` for starting production: display plus offices."""
        counts = [0] * 5
        for card in self.display:
            counts[RESOURCES.index(self.catalogue.cards[card].resource)] += 1
        for card in self.players[seat].buildings:
            market = self.catalogue.cards[card].market
            if market in RESOURCES:
                counts[RESOURCES.index(market)] += 1
        return counts

    def assistant_at(self, seat: int, slot: int) -> int:
        for a, _, s in self.players[seat].assistants:
            if s == slot:
                return a
        return -1

    def colour_count(self, seat: int, colour: str) -> int:
        return sum(self.slot_building(seat, s).colour == colour
                   for s in range(self.num_slots(seat)))

    def vp(self, seat: int) -> int:
        return self.building_vp(seat) + self.assistant_vp(seat)

    def building_vp(self, seat: int) -> int:
        return sum(self.catalogue.cards[c].vp for c in self.players[seat].buildings)

    def assistant_vp(self, seat: int) -> int:
        return sum(self.catalogue.assistants[a].faces[f].vp
                   for a, f, _ in self.players[seat].assistants)

    def _hand_counts(self, seat: int) -> list[int]:
        counts = [0] * 5
        for card in self.players[seat].hand:
            counts[RESOURCES.index(self.catalogue.cards[card].resource)] += 1
        return counts

    # -- randomness ---------------------------------------------------------
    def _shuffle(self, cards: list[int]) -> None:
        for i in range(len(cards) - 1, 0, -1):
            j = _rng_below(self.rng, i + 1)
            cards[i], cards[j] = cards[j], cards[i]

    def _draw(self, events: list[Event]) -> int | None:
        if not self.deck:
            if not self.discard:
                dropped = []
                for seat, player in enumerate(self.players):
                    cards = [player.hand.pop(_rng_below(self.rng, len(player.hand)))
                             for _ in range(len(player.hand) // 2)]
                    self.discard.extend(cards)
                    if cards:
                        dropped.append(f"P{seat + 1} "
                                       + ", ".join(self.card_name(c) for c in cards))
                events.append(Event("draw and discard piles are empty: everyone discards half "
                                    "their hand at random" + (": " + "; ".join(dropped)
                                                              if dropped else "")))
            if not self.discard:
                return None
            self.deck = sorted(self.discard)
            self.reshuffled = list(self.deck)
            self.discard = []
            self._shuffle(self.deck)
            events.append(Event(f"the discard pile is shuffled into a new draw pile "
                          f"({count(len(self.deck), 'card')})"))
        return self.deck.pop()

    # -- turn structure -----------------------------------------------------
    def seat(self) -> int:
        return (self.active + self.turn) % self.num_players

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        return self.seat()

    def _start_round(self, events: list[Event]) -> None:
        events.append(Event(f"round {self.round} begins; P{self.active + 1} is active"))
        self.turn = 0
        self._starting_sizes = [len(p.hand) for p in self.players]
        if self.second_edition:
            self.phase = "redraw"
        else:
            self._deal(events)

    def _deal(self, events: list[Event]) -> None:
        for k in range(self.num_players):
            seat = (self.active + k) % self.num_players
            player = self.players[seat]
            count = DEAL
            if self._starting_sizes[seat] <= 3:
                count += sum(self.catalogue.cards[c].market == EXTRA_CARD
                             for c in player.buildings)
            drawn = [card for _ in range(count) if (card := self._draw(events)) is not None]
            player.hand.extend(drawn)
            events.append(self._drawn_event(seat, drawn))
        self._market_row(events, "Sunrise")
        self.phase = "shift"
        self.turn = 0
        self.shifted = []

    def _drawn_event(self, seat: int, cards: list[int]) -> Event:
        """``seat`` took ``cards`` into its hand: it sees which, the others how many."""
        who = f"P{seat + 1}"
        return Event(f"{who} draws " + (", ".join(self.card_name(c) for c in cards) or "nothing"),
                     seats=frozenset({seat}), others=f"{who} draws {count(len(cards), 'card')}")

    def _market_row(self, events: list[Event], name: str) -> None:
        suns = 0
        drawn = []
        while suns < 2:
            card = self._draw(events)
            if card is None:
                break
            self.display.append(card)
            info = self.catalogue.cards[card]
            drawn.append(info.resource + ("*" if info.half_sun else ""))
            suns += info.half_sun
        events.append(Event(f"{name}: " + ", ".join(drawn)))

    def _next_seat(self, events: list[Event]) -> None:
        self.turn += 1
        self.shifted = []
        if self.turn < self.num_players:
            return
        self.turn = 0
        if self.phase == "redraw":
            self._deal(events)
        elif self.phase == "shift":
            self.phase = "choose"
        elif self.phase == "choose":
            self.sunset_at = len(self.display)
            self._market_row(events, "Sunset")
            for seat, player in enumerate(self.players):
                work = "keeps their worker idle"
                if player.work is not None and player.work[0] >= 0:
                    work = (f"works {MODE_WORDS[player.work[1]]} in "
                            f"{self.slot_label(seat, player.work[0])}")
                plan = "has planned a building" if player.plan is not None else "plans nothing"
                events.append(Event(f"P{seat + 1} {work} and {plan}"))
                player.chosen = 0
            self.phase = "act"
            self._reset_act()
        elif self.phase == "act":
            self._end_round(events)

    def _reset_act(self) -> None:
        self.step = "run"
        self.handled = []
        self.running = -1
        self.need = [0] * 6
        self.slack = 0
        self.produce_count = 0
        self.chain_slot = -1
        self.hired = -1
        self.pay = None

    def _end_round(self, events: list[Event]) -> None:
        self.discard.extend(self.display)
        self.display = []
        self.sunset_at = -1
        for seat, player in enumerate(self.players):
            player.work = None
            if self.final_round is None and 1 + len(player.buildings) >= BUILDINGS_TO_END:
                self.final_round = self.round + 1
                events.append(Event(f"P{seat + 1} has {BUILDINGS_TO_END} buildings: one more "
                              f"round after this one"))
        if self.final_round is None and self.round + 1 >= MAX_ROUNDS:
            self.final_round = MAX_ROUNDS
            events.append(Event(f"round {MAX_ROUNDS} will be the last (the engine's round limit)"))
        if self.final_round is not None and self.round >= self.final_round:
            self.phase = "over"
            events.append(Event("game over: " + ", ".join(
                f"P{s + 1} {self.scores()[s]:g} VP" for s in range(self.num_players))))
            return
        self.round += 1
        self.active = (self.active + 1) % self.num_players
        self._start_round(events)

    def last_round(self) -> bool:
        return self.final_round is not None and self.round >= self.final_round

    # -- production helpers -------------------------------------------------
    def occupant_mode(self, seat: int, slot: int) -> int | None:
        """ORDERLY/SLOPPY for the worker, 2 for an assistant, None when nobody works there."""
        player = self.players[seat]
        if player.work is not None and player.work[0] == slot:
            return player.work[1]
        if self.assistant_at(seat, slot) >= 0:
            return 2
        return None

    def requirement(self, seat: int, slot: int) -> list[int]:
        """Units still missing after the market (and Market Offices): 5 resources, then any."""
        avail = self.market_counts(seat)
        need = [0] * 6
        for key, n in self.slot_inputs(seat, slot):
            if key == ANY:
                need[5] = max(0, n - sum(avail))
            else:
                r = RESOURCES.index(key)
                need[r] = max(0, n - avail[r])
        return need

    def _shortfall(self, seat: int, need: list[int]) -> int:
        hand = self._hand_counts(seat)
        short = sum(max(0, need[r] - hand[r]) for r in range(5))
        return short + max(0, need[5] - sum(hand))

    def _chain_sources(self, seat: int, slot: int) -> tuple[str | None, list[int]]:
        """The chain's hand resource (if any) and, per goods item, a slot holding it (or -1)."""
        resource = None
        sources = []
        for item in self.slot_building(seat, slot).chain:
            if item in RESOURCES:
                resource = item
                continue
            found = -1
            for s in range(self.num_slots(seat)):
                if s != slot and self.slot_building(seat, s).good == item and \
                        self.players[seat].goods[s]:
                    found = s
                    break
            sources.append(found)
        return resource, sources

    def _chain_reason(self, seat: int, slot: int, card: int) -> str | None:
        building = self.slot_building(seat, slot)
        if not building.chain:
            return f"{building.name} has no production chain"
        resource, sources = self._chain_sources(seat, slot)
        goods = [g for g in building.chain if g not in RESOURCES]
        for good, src in zip(goods, sources, strict=True):
            if src < 0:
                return f"{building.name}'s chain needs 1 {good}; you have 0"
        if resource is None:
            if card != NO_CARD:
                return f"{building.name}'s chain takes no card from hand"
            return None
        if card == NO_CARD:
            return f"{building.name}'s chain needs 1 {resource} from your hand; name the card"
        if card not in self.players[seat].hand:
            return f"{self._card_text(card)} is not in your hand"
        if self.catalogue.cards[card].resource != resource:
            return (f"{building.name}'s chain needs 1 {resource}; "
                    f"{self.card_name(card)} is {self.catalogue.cards[card].resource}")
        return None

    def _can_chain(self, seat: int, slot: int) -> bool:
        building = self.slot_building(seat, slot)
        if not building.chain:
            return False
        resource, _ = self._chain_sources(seat, slot)
        if resource is None:
            return self._chain_reason(seat, slot, NO_CARD) is None
        return any(self._chain_reason(seat, slot, c) is None for c in self.players[seat].hand)

    # -- legality -------------------------------------------------------------
    def _candidates(self) -> list[int]:
        if self.phase == "over":
            return []
        seat = self.seat()
        player = self.players[seat]
        slots = range(self.num_slots(seat))
        if self.pay is not None:
            return [encode_move(PAY, s) for s in slots]
        if self.phase == "redraw":
            return [encode_move(KEEP), encode_move(REDRAW)]
        if self.phase == "shift":
            return [encode_move(SHIFT, a * 64 + s) for a, _, _ in player.assistants
                    for s in slots] + [encode_move(PASS)]
        if self.phase == "choose":
            if player.chosen == 0:
                return ([encode_move(k, s) for s in slots for k in (WORK_ORDERLY, WORK_SLOPPY)]
                        + [encode_move(IDLE)])
            return [encode_move(PLAN, c) for c in sorted(player.hand)] + [encode_move(PLAN_NONE)]
        if self.pay is not None:
            return [encode_move(PAY, s) for s in slots]
        if self.step == "run":
            return ([encode_move(PRODUCE, s) for s in slots]
                    + [encode_move(CHAIN_ONLY, s) for s in slots] + [encode_move(DONE)])
        if self.step == "supply":
            return [encode_move(SUPPLY, c) for c in sorted(set(player.hand))]
        if self.step == "chain":
            return ([encode_move(CHAIN, c) for c in sorted(set(player.hand))]
                    + [encode_move(CHAIN, NO_CARD), encode_move(STOP)])
        if self.step == "build":
            return [encode_move(BUILD), encode_move(SCRAP)]
        if self.step == "hire":
            return [encode_move(HIRE, a) for a, _ in self.pool] + [encode_move(PASS)]
        return [encode_move(PLACE, s) for s in slots]

    def legal_moves(self) -> list[int]:
        return [m for m in self._candidates() if self.why_illegal(m) is None]

    def _card_text(self, card: int) -> str:
        if 0 <= card < len(self.catalogue.cards):
            return self.catalogue.cards[card].id
        return f"card {card}"

    def _stage_text(self) -> str:
        if self.pay is not None:
            return f"paying {count(self.pay['due'], 'coin')} for {self.pay['purpose']}"
        if self.phase != "act":
            return {"redraw": "phase I (keep or redraw your hand)",
                    "shift": "phase II (move assistants or pass)",
                    "choose": "phase II (place your worker, then plan a building)",
                    "over": "the game is over"}[self.phase]
        if self.pay is not None:
            return f"paying {count(self.pay['due'], 'coin')} for {self.pay['purpose']}"
        return {"run": "phase IV (produce, or done)", "supply": "supplying missing resources",
                "chain": "the production chain", "build": "building your planned card",
                "hire": "hiring an assistant", "place": "placing your new assistant"}[self.step]

    def is_move_code(self, move: int) -> bool:
        """Whether ``move`` is a move code of this catalogue (see :func:`is_move_code`)."""
        return is_move_code(move, len(self.catalogue.cards), len(self.catalogue.assistants))

    def why_illegal(self, move: int) -> str | None:
        if not self.is_move_code(move):
            return not_a_move(move)
        kind, arg = decode_move(move)
        if self.phase == "over":
            return "the game is over"
        expected = self._expected_kinds()
        if kind not in expected:
            return f"'{KIND_WORDS[kind]}' is not possible now: this is {self._stage_text()}"
        seat = self.seat()
        player = self.players[seat]
        n_slots = self.num_slots(seat)
        if kind == REDRAW and not player.hand:
            return "your hand is empty: nothing to redraw"
        if kind in (KEEP, REDRAW, IDLE, PLAN_NONE, STOP, DONE, BUILD, SCRAP, PASS) and arg:
            return f"'{KIND_WORDS[kind]}' takes no argument"
        if kind in (KEEP, REDRAW, IDLE, PLAN_NONE, STOP, DONE, SCRAP, PASS):
            if kind == IDLE and self._free_work_slots(seat):
                return "your worker must work in one of your production buildings"
            return None
        if kind == SHIFT:
            a, slot = divmod(arg, 64)
            mine = [x for x in player.assistants if x[0] == a]
            if not mine:
                return f"{self._asst_text(a)} does not work for you"
            if a in self.shifted:
                return f"{self._asst_text(a)} has already moved this round"
            if not self.is_production(seat, slot):
                return f"#{slot} is not one of your production buildings"
            if mine[0][2] == slot:
                return f"{self._asst_text(a)} is already at {self.slot_label(seat, slot)}"
            if self.assistant_at(seat, slot) >= 0:
                return f"{self.slot_label(seat, slot)} already has an assistant"
            if self.coins(seat) < SHIFT_COST:
                return (f"moving an assistant costs {count(SHIFT_COST, 'coin')}; you have "
                        f"{self.coins(seat)}")
            return None
        if kind in (WORK_ORDERLY, WORK_SLOPPY):
            if not self.is_production(seat, arg):
                return f"#{arg} is not one of your production buildings"
            if self.assistant_at(seat, arg) >= 0:
                return f"{self.slot_label(seat, arg)} already has an assistant"
            return None
        if kind == PLAN:
            if arg not in player.hand:
                return f"{self._card_text(arg)} is not in your hand"
            return None
        if kind == PAY:
            return self._pay_reason(seat, arg)
        if kind == PRODUCE:
            if not 0 <= arg < n_slots:
                return f"you have no building #{arg}"
            label = self.slot_label(seat, arg)
            if arg in self.handled:
                return f"{label} has already worked this round"
            mode = self.occupant_mode(seat, arg)
            if mode is None:
                return f"nobody works in {label}"
            need = self.requirement(seat, arg)
            slack = 1 if mode == SLOPPY else 0
            short = self._shortfall(seat, need)
            if short > slack:
                return (f"{label} needs {self._inputs_text(seat, arg)}"
                        f"{' (sloppy: all but one)' if slack else ''}; the market and your "
                        f"hand are {short - slack} short")
            return None
        if kind == CHAIN_ONLY:
            if not (self.second_edition and self.last_round()):
                return "a chain without production is only allowed in the last round " \
                       "of the second edition"
            if not self.is_production(seat, arg):
                return f"#{arg} is not one of your production buildings"
            if arg in self.handled:
                return f"{self.slot_label(seat, arg)} has already worked this round"
            if not self._can_chain(seat, arg):
                return f"{self.slot_label(seat, arg)}'s chain cannot run: nothing to feed it"
            return None
        if kind == SUPPLY:
            if arg not in player.hand:
                return f"{self._card_text(arg)} is not in your hand"
            resource = self.catalogue.cards[arg].resource
            if self.need[5] == 0 and self.need[RESOURCES.index(resource)] == 0:
                missing = ", ".join(f"{self.need[r]} {RESOURCES[r]}" for r in range(5)
                                    if self.need[r])
                return f"{self.card_name(arg)} is {resource}; still missing: {missing}"
            return None
        if kind == CHAIN:
            return self._chain_reason(seat, self.chain_slot, arg)
        if kind == BUILD:
            assert player.plan is not None
            card = self.catalogue.cards[player.plan]
            coins = self.coins(seat)
            if coins < card.cost:
                return f"{card.id} costs {count(card.cost, 'coin')}; your goods are worth {coins}"
            return None
        if kind == HIRE:
            return self._hire_reason(seat, arg)
        if kind == PLACE:
            if not self.is_production(seat, arg):
                return f"#{arg} is not one of your production buildings"
            if self.assistant_at(seat, arg) >= 0:
                return f"{self.slot_label(seat, arg)} already has an assistant"
            return None
        return f"{move} is not a move of this game"

    def _expected_kinds(self) -> tuple[int, ...]:
        if self.pay is not None:
            return (PAY,)
        if self.phase == "redraw":
            return (KEEP, REDRAW)
        if self.phase == "shift":
            return (SHIFT, PASS)
        if self.phase == "choose":
            player = self.players[self.seat()]
            return (WORK_ORDERLY, WORK_SLOPPY, IDLE) if player.chosen == 0 else (PLAN, PLAN_NONE)
        if self.pay is not None:
            return (PAY,)
        return {"run": (PRODUCE, CHAIN_ONLY, DONE), "supply": (SUPPLY,), "chain": (CHAIN, STOP),
                "build": (BUILD, SCRAP), "hire": (HIRE, PASS), "place": (PLACE,)}[self.step]

    def _free_work_slots(self, seat: int) -> list[int]:
        return [s for s in range(self.num_slots(seat))
                if self.is_production(seat, s) and self.assistant_at(seat, s) < 0]

    def _inputs_text(self, seat: int, slot: int) -> str:
        return " + ".join(f"{n} {'resources' if k == ANY else k}"
                          for k, n in self.slot_inputs(seat, slot))

    def _asst_text(self, a: int) -> str:
        if 0 <= a < len(self.catalogue.assistants):
            return self.catalogue.assistants[a].id
        return f"assistant {a}"

    def _pay_reason(self, seat: int, slot: int) -> str | None:
        pay = self.pay
        assert pay is not None
        if not 0 <= slot < self.num_slots(seat):
            return f"you have no building #{slot}"
        goods = self.players[seat].goods
        if not goods[slot]:
            return f"{self.slot_label(seat, slot)} holds no goods"
        if slot < pay["last"]:
            return f"pay in building order: you already paid from #{pay['last']}"
        reach = pay["paid"] + sum(len(goods[s]) * self.slot_building(seat, s).value
                                  for s in range(slot, self.num_slots(seat)))
        if reach < pay["due"]:
            return (f"the goods from #{slot} on are worth {reach - pay['paid']}; "
                    f"{pay['due'] - pay['paid']} still due")
        return None

    def _hire_reason(self, seat: int, a: int) -> str | None:
        entry = [x for x in self.pool if x[0] == a]
        if not entry:
            return f"{self._asst_text(a)} is not for hire"
        player = self.players[seat]
        if len(player.assistants) >= 2:
            return "you already have 2 assistants"
        face = self.catalogue.assistants[a].faces[entry[0][1]]
        for colour, n in face.needs:
            have = self.colour_count(seat, colour)
            if have < n:
                return (f"{self._asst_text(a)} needs {count(n, colour + ' building')}; "
                        f"you have {have}")
        coins = self.coins(seat)
        if coins < face.cost:
            return (f"{self._asst_text(a)} costs {count(face.cost, 'coin')}; your goods are "
                    f"worth {coins}")
        if not self._free_work_slots(seat):
            return "none of your production buildings is free for an assistant"
        return None

    # -- applying moves -------------------------------------------------------
    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        return self.apply_judged(move)

    def apply_judged(self, move: int) -> list[Event]:
        events = self._apply_legal(move)
        self._autoplay(events)
        return events

    def play_legal(self, move: int) -> None:
        events = self._apply_legal(move)
        self._autoplay(events)

    def _autoplay(self, events: list[Event]) -> None:
        """Play forced moves (a single legal option) at once: no plies without a choice."""
        while self.phase != "over":
            moves = self.legal_moves()
            if len(moves) != 1:
                return
            events.extend(self._apply_legal(moves[0]))

    def _apply_legal(self, move: int) -> list[Event]:
        kind, arg = decode_move(move)
        seat = self.seat()
        player = self.players[seat]
        who = f"P{seat + 1}"
        events: list[Event] = []
        if kind == KEEP:
            events.append(Event(f"{who} keeps their hand"))
            self._next_seat(events)
        elif kind == REDRAW:
            count = len(player.hand)
            events.append(Event(f"{who} discards their hand: "
                                + ", ".join(self.card_name(c) for c in player.hand)))
            self.discard.extend(player.hand)
            player.hand = []
            player.hand = [card for _ in range(count) if (card := self._draw(events)) is not None]
            events.append(self._drawn_event(seat, player.hand))
            self._next_seat(events)
        elif kind == SHIFT:
            a, slot = divmod(arg, 64)
            self.pay = {"due": SHIFT_COST, "paid": 0, "last": 0, "purpose": "shift",
                        "arg": arg}
            events.append(Event(f"{who} moves {self._asst_text(a)} to {self.slot_label(seat, slot)}"))
        elif kind == PASS:
            if self.phase == "act":
                self._finish_act(events)
            else:
                self._next_seat(events)
        elif kind in (WORK_ORDERLY, WORK_SLOPPY, IDLE):
            player.work = (-1, ORDERLY) if kind == IDLE else (arg, kind - WORK_ORDERLY)
            player.chosen = 1
        elif kind in (PLAN, PLAN_NONE):
            if kind == PLAN:
                player.hand.remove(arg)
                player.plan = arg
            player.chosen = 2
            self._next_seat(events)
        elif kind == PAY:
            events.extend(self._pay(seat, arg))
        elif kind == PRODUCE:
            mode = self.occupant_mode(seat, arg)
            assert mode is not None
            self.running = arg
            self.need = self.requirement(seat, arg)
            self.slack = 1 if mode == SLOPPY else 0
            self.produce_count = 2 if mode == ORDERLY else 1
            self.handled.append(arg)
            if sum(self.need) <= self.slack:
                events.extend(self._produce(seat))
            else:
                self.step = "supply"
        elif kind == SUPPLY:
            player.hand.remove(arg)
            self.discard.append(arg)
            r = RESOURCES.index(self.catalogue.cards[arg].resource)
            if self.need[r] > 0:
                self.need[r] -= 1
            else:
                self.need[5] -= 1
            events.append(Event(f"{who} discards {self.card_name(arg)} as "
                          f"{RESOURCES[r]}"))
            if sum(self.need) <= self.slack:
                events.extend(self._produce(seat))
        elif kind == CHAIN_ONLY:
            self.handled.append(arg)
            self.chain_slot = arg
            self.step = "chain"
        elif kind == CHAIN:
            events.extend(self._chain(seat, arg))
        elif kind == STOP:
            self.step = "run"
            self.chain_slot = -1
        elif kind == DONE:
            player.work = None
            self.step = "build" if player.plan is not None else "hire"
        elif kind == BUILD:
            assert player.plan is not None
            cost = self.catalogue.cards[player.plan].cost
            self.pay = {"due": cost, "paid": 0, "last": 0, "purpose": "build",
                        "arg": player.plan}
            if cost == 0:
                events.extend(self._paid(seat))
        elif kind == SCRAP:
            assert player.plan is not None
            events.append(Event(f"{who} discards the planned {self.card_name(player.plan)}"))
            self.discard.append(player.plan)
            player.plan = None
            self.step = "hire"
        elif kind == HIRE:
            entry = next(x for x in self.pool if x[0] == arg)
            cost = self.catalogue.assistants[arg].faces[entry[1]].cost
            self.pay = {"due": cost, "paid": 0, "last": 0, "purpose": "hire", "arg": arg}
            if cost == 0:
                events.extend(self._paid(seat))
        elif kind == PLACE:
            face = next(x[1] for x in self.pool if x[0] == self.hired)
            self.pool = [x for x in self.pool if x[0] != self.hired]
            player.assistants.append([self.hired, face, arg])
            events.append(Event(f"{who} hires {self._asst_text(self.hired)} into "
                          f"{self.slot_label(seat, arg)}"))
            self.hired = -1
            self._finish_act(events)
        return events

    def _finish_act(self, events: list[Event]) -> None:
        self._reset_act()
        self._next_seat(events)
        if self.phase == "act":
            self._reset_act()

    def _pay(self, seat: int, slot: int) -> list[Event]:
        pay = self.pay
        assert pay is not None
        card = self.players[seat].goods[slot].pop()
        self.shown.discard(card)
        self.discard.append(card)
        pay["paid"] += self.slot_building(seat, slot).value
        pay["last"] = slot
        if pay["paid"] >= pay["due"]:
            return self._paid(seat)
        return []

    def _paid(self, seat: int) -> list[Event]:
        pay = self.pay
        assert pay is not None
        self.pay = None
        player = self.players[seat]
        who = f"P{seat + 1}"
        events = [Event(f"{who} pays {count(pay['paid'], 'coin')}")]
        if pay["purpose"] == "shift":
            a, slot = divmod(pay["arg"], 64)
            for entry in player.assistants:
                if entry[0] == a:
                    entry[2] = slot
            self.shifted.append(a)
        elif pay["purpose"] == "build":
            card = pay["arg"]
            player.buildings.append(card)
            player.goods.append([])
            player.plan = None
            events.append(Event(f"{who} builds {self.card_name(card)}"))
            self.step = "hire"
        else:
            self.hired = pay["arg"]
            self.step = "place"
        return events

    def _produce(self, seat: int) -> list[Event]:
        slot = self.running
        made = 0
        events: list[Event] = []
        for _ in range(self.produce_count):
            card = self._draw(events)
            if card is None:
                break
            self.players[seat].goods[slot].append(card)
            made += 1
        building = self.slot_building(seat, slot)
        events.append(Event(f"P{seat + 1}'s {building.name} #{slot} produces "
                            f"{counted_plural(made, building.good or 'goods')}"))
        self.running = -1
        self.need = [0] * 6
        if made and self._can_chain(seat, slot):
            self.step = "chain"
            self.chain_slot = slot
        else:
            self.step = "run"
        return events

    def _chain(self, seat: int, card: int) -> list[Event]:
        slot = self.chain_slot
        player = self.players[seat]
        _, sources = self._chain_sources(seat, slot)
        # Every item the chain shows is placed on this building, and each is a good
        # there: 1 Clay + 1 Coal on the Brickworks make 2 Bricks.  The hand card is
        # shown to everyone first; goods moved from other buildings stay face down.
        placed = [player.goods[src].pop() for src in sources]
        if card != NO_CARD:
            player.hand.remove(card)
            self.shown.add(card)
            placed.insert(0, card)
        player.goods[slot].extend(placed)
        building = self.slot_building(seat, slot)
        events = [Event(f"P{seat + 1}'s {building.name} #{slot} chains: "
                        f"+{counted_plural(len(placed), building.good or 'goods')}"
                        + (f" (shows {self.card_name(card)})" if card != NO_CARD else ""))]
        if not self._can_chain(seat, slot):
            self.step = "run"
            self.chain_slot = -1
        return events

    # -- scoring ---------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(self.vp(s) + self.coins(s) // COINS_PER_VP)
                for s in range(self.num_players)]

    def score_breakdown(self) -> list[list[tuple[str, float]]]:
        """The victory points of buildings and of assistants, and the coins' points (one
        per five), as :meth:`scores` adds them."""
        return [[("buildings", float(self.building_vp(seat))),
                 ("assistants", float(self.assistant_vp(seat))),
                 (f"coins (1 per {COINS_PER_VP})", float(self.coins(seat) // COINS_PER_VP))]
                for seat in range(self.num_players)]

    def ranking(self) -> list[list[int]]:
        keys = [(self.vp(s) + self.coins(s) // COINS_PER_VP, self.coins(s) % COINS_PER_VP)
                for s in range(self.num_players)]
        return rank_groups(keys)

    def heuristic(self) -> list[float]:
        """Victory points now plus what each seat's own cards and choices promise.

        Coins count at 1 VP per 5, a hand card 0.3, production capacity 0.1 per coin
        of goods value, an assistant 0.5.  A planned card counts as a hand card, plus
        half of what building it would gain (VP and capacity less its cost) when the
        seat can pay for it now.  During phase II the worker counts for the goods it
        should make: orderly 2 when the market and hand already hold the inputs
        (else 0.8), sloppy 1 when at most one is missing (else 0.4), at 0.8 of their
        coin value.  Each seat's value reads only that seat's own cards and choices.
        """
        out = []
        for s in range(self.num_players):
            player = self.players[s]
            production = sum(self.slot_building(s, k).value for k in range(self.num_slots(s)))
            money = self.coins(s)
            out.append(self.vp(s) + money / COINS_PER_VP + 0.3 * len(player.hand)
                       + 0.1 * production + 0.5 * len(player.assistants)
                       + self._plan_promise(s, money) + self._work_promise(s))
        return out

    def _plan_promise(self, seat: int, money: int) -> float:
        plan = self.players[seat].plan
        if plan is None:
            return 0.0
        card = self.catalogue.cards[plan]
        if card.cost > money:
            return 0.3
        gain = card.vp + 0.1 * self.catalogue.buildings[card.building].value \
            - card.cost / COINS_PER_VP
        return 0.3 + 0.5 * max(0.0, gain)

    def _work_promise(self, seat: int) -> float:
        work = self.players[seat].work
        if self.phase != "choose" or work is None or work[0] < 0:
            return 0.0
        slot, mode = work
        short = self._shortfall(seat, self.requirement(seat, slot))
        if mode == ORDERLY:
            goods = 2.0 if short == 0 else 0.8
        else:
            goods = 1.0 if short <= 1 else 0.4
        return 0.8 * goods * self.slot_building(seat, slot).value / COINS_PER_VP

    def features(self) -> list[list[float]]:
        return features(self)

    # -- copies ----------------------------------------------------------------
    def clone(self) -> OhMyGoodsState:
        twin = OhMyGoodsState.__new__(OhMyGoodsState)
        twin.__dict__.update(self.__dict__)
        twin.rng = list(self.rng)
        twin.deck = list(self.deck)
        twin.discard = list(self.discard)
        twin.display = list(self.display)
        twin.pool = [list(x) for x in self.pool]
        twin.players = [p.copy() for p in self.players]
        twin.handled = list(self.handled)
        twin.need = list(self.need)
        twin.shifted = list(self.shifted)
        twin.pay = dict(self.pay) if self.pay is not None else None
        twin._starting_sizes = list(self._starting_sizes)
        twin.shown = set(self.shown)
        twin.reshuffled = list(self.reshuffled)
        return twin

    def rollout(self, seed: int) -> Outcome:
        # The base class's loop, minus the legality check: moves come from legal_moves().
        # Forced moves are auto-played by apply() and are not counted as steps.
        rng = PlayoutRng(seed)
        steps = 0
        while self.phase != "over":
            moves = self.legal_moves()
            self._apply_legal(moves[rng.below(len(moves))])
            self._autoplay([])
            steps += 1
        self.last_rollout_steps = steps
        return self.outcome()

    def search_state(self) -> State:
        return fast.kernel_twin(self) or self

    # -- information -------------------------------------------------------------
    def _hidden_choice(self, seat: int, observer: int | None) -> bool:
        """Whether ``seat``'s phase II worker and plan are hidden from ``observer``."""
        return self.phase == "choose" and observer is not None and seat != observer

    def _plan_public(self, seat: int) -> bool:
        """A planned card is shown once its owner starts paying for it."""
        return (self.phase == "act" and self.pay is not None and
                self.pay["purpose"] == "build" and seat == self.seat())

    def _plan_hidden(self, seat: int, observer: int | None) -> bool:
        """Whether ``observer`` cannot see which card ``seat`` planned (if any)."""
        return observer is not None and seat != observer and not self._plan_public(seat)

    def observation(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees: hands and plans of its own (``None``: the host, every
        seat's), never the deck order, face-down goods or the generator.

        Other seats' hands are counts (a card planned in secret still counted in
        phase II), a goods card is its id when a chain showed it and ``None`` when
        face down, a plan made before Sunset is ``None`` and later ``"hidden"``.
        """
        data = self.to_json()
        data["observer"] = seat
        del data["rng"]
        data["deck"] = len(self.deck)
        data["discard"] = sorted(data["discard"])
        ids = [c.id for c in self.catalogue.cards]
        for p, entry in enumerate(data["players"]):
            player = self.players[p]
            entry["goods"] = [[ids[c] if c in self.shown else None for c in g]
                              for g in player.goods]
            if seat is None or p == seat:
                continue
            hidden = self._hidden_choice(p, seat)
            entry["hand"] = len(player.hand) + (1 if hidden and player.plan is not None else 0)
            if hidden:
                entry["work"] = None
                entry["plan"] = None
            elif player.plan is not None and self._plan_hidden(p, seat):
                entry["plan"] = "hidden"
        return data

    def determinize(self, observer: int | None, rng: random.Random) -> OhMyGoodsState:
        """Deal every card ``observer`` cannot see afresh, keeping what it can.

        The unseen cards (deck, face-down goods, and for a seat: other hands and
        secret plans) are sorted and shuffled with ``rng``.  A seat supplying
        resources in secret first keeps cards that cover them (``_supply_cards``);
        the draw pile takes the first of the others that may be there (after a
        reshuffle only cards of that public pile); the rest are dealt back by the
        public counts, popping from the end: hands and plans seat by seat, then the
        face-down goods.  Other seats' phase II choices still secret to ``observer``
        are drawn again from their new hands.  Every determinization is a position
        its seat to move can play on.
        """
        twin = self.clone()
        unseen = self._unseen_by(observer)
        unseen.sort()
        rng.shuffle(unseen)
        pile = set(self.reshuffled)
        kept = self._supply_cards(observer, unseen, pile)
        if kept:
            taken = set(kept)
            unseen = [c for c in unseen if c not in taken]
        fits_deck = [c for c in unseen if c in pile] if pile else unseen
        twin.deck = fits_deck[:len(self.deck)]
        assert len(twin.deck) == len(self.deck)
        in_deck = set(twin.deck)
        rest = [c for c in unseen if c not in in_deck]
        redo: list[tuple[int, int]] = []
        for p, twin_player in enumerate(twin.players):
            if observer is None or p == observer:
                continue
            size = len(twin_player.hand)
            has_plan = twin_player.plan is not None and self._plan_hidden(p, observer)
            if self._hidden_choice(p, observer) and twin_player.chosen > 0:
                redo.append((p, twin_player.chosen))
                twin_player.chosen = 0
                twin_player.work = None
                size += has_plan
                has_plan = False
                twin_player.plan = None
            own = kept if p == self.seat() else []
            twin_player.hand = own + [rest.pop() for _ in range(size - len(own))]
            if has_plan:
                twin_player.plan = rest.pop()
        for twin_player in twin.players:
            twin_player.goods = [[c if c in self.shown else rest.pop() for c in g]
                                 for g in twin_player.goods]
        assert not rest
        twin.rng = [rng.getrandbits(64)]
        for p, level in redo:
            twin_player = twin.players[p]
            options = [(s, m) for s in twin._free_work_slots(p) for m in (ORDERLY, SLOPPY)]
            twin_player.work = options[rng.randrange(len(options))] if options else (-1, 0)
            twin_player.chosen = 1
            if level >= 2:
                choices = [None, *sorted(twin_player.hand)]
                pick = choices[rng.randrange(len(choices))]
                if pick is not None:
                    twin_player.hand.remove(pick)
                    twin_player.plan = pick
                twin_player.chosen = 2
        return twin

    def _supply_cards(self, observer: int | None, unseen: list[int], pile: set[int]) -> list[int]:
        """Cards the seat to move must keep when it supplies resources out of sight.

        It chose to produce knowing its hand covers what the market lacks (all but
        ``slack`` units), so every determinization gives it such cards, in
        ``unseen``'s (shuffled) order: per resource as many as it still needs, first
        cards outside the reshuffled pile, trimmed from the last resource to its
        hand size; then pile cards for what is still missing, as far as the draw
        pile (which holds only pile cards) can spare them.  The result covers at
        least as many units as the real hand did, so the seat can always go on.
        """
        mover = self.seat()
        if not (self.phase == "act" and self.step == "supply" and observer is not None
                and observer != mover):
            return []
        cards = self.catalogue.cards
        outside: list[list[int]] = [[] for _ in RESOURCES]
        inside: list[list[int]] = [[] for _ in RESOURCES]
        for c in unseen:
            (inside if c in pile else outside)[RESOURCES.index(cards[c].resource)].append(c)
        room = len(self.players[mover].hand)
        take = [min(self.need[r], len(outside[r])) for r in range(len(RESOURCES))]
        r = len(RESOURCES) - 1
        while sum(take) > room:
            if take[r]:
                take[r] -= 1
            else:
                r -= 1
        kept = [c for r in range(len(RESOURCES)) for c in outside[r][:take[r]]]
        spare = sum(len(cs) for cs in inside) - len(self.deck)
        for r in range(len(RESOURCES)):
            extra = min(self.need[r] - take[r], len(inside[r]), spare, room - len(kept))
            if extra > 0:
                kept.extend(inside[r][:extra])
                spare -= extra
        return kept

    def moves_known_to(self, observer: int | None) -> bool:
        """Whether ``observer`` can know what the seat to move may do here.

        Decided from what ``observer`` sees (the step, hand sizes, the market, coins,
        and which cards it cannot see), so the answer itself reveals nothing.  Another
        seat's moves are hidden only when its hand or secret plan could decide them:
        a hand or plan made of cards ``observer`` cannot see could allow a move that
        another would not.  Phase II's plan, supplying and a chain fed from hand list
        hand cards; running a building depends on the hand only when the market
        leaves it short and some hand could make up for it and some could not;
        building depends on the secret plan's cost only when the goods pay for some
        unseen cards and not others.  Redraw, shift, phase II's worker, hiring,
        placing and paying read nothing private.
        """
        mover = self.current_player()
        if observer is None or observer == mover or self.phase == "over" \
                or self.pay is not None:
            return True
        held = len(self.players[mover].hand)
        if self.phase == "choose":
            return not (self.players[mover].chosen == 1 and held > 0)
        if self.phase != "act":
            return True
        if self.step == "supply":
            return held == 0
        if self.step == "chain":
            resource, sources = self._chain_sources(mover, self.chain_slot)
            return held == 0 or resource is None or min(sources, default=0) < 0
        if self.step == "run":
            if held == 0:
                return True
            counts = [0] * len(RESOURCES)  # the unseen cards by resource
            for card in self._unseen_by(observer):
                counts[RESOURCES.index(self.catalogue.cards[card].resource)] += 1
            return not any(self._run_depends_on_hand(mover, slot, held, counts)
                           for slot in range(self.num_slots(mover)))
        if self.step == "build":
            costs = {self.catalogue.cards[c].cost for c in self._unseen_by(observer)}
            coins = self.coins(mover)
            return all(cost <= coins for cost in costs) or all(cost > coins for cost in costs)
        return True

    def _unseen_by(self, observer: int | None) -> list[int]:
        """The cards ``observer`` cannot see: the deck, face-down goods, and for a seat
        other hands and other seats' hidden plans (what :meth:`determinize` deals
        afresh, and where another seat's hand and plan come from)."""
        unseen = list(self.deck)
        for p, player in enumerate(self.players):
            for goods in player.goods:
                unseen.extend(c for c in goods if c not in self.shown)
            if observer is not None and p != observer:
                unseen.extend(player.hand)
                if player.plan is not None and self._plan_hidden(p, observer):
                    unseen.append(player.plan)
        return unseen

    def _run_depends_on_hand(self, seat: int, slot: int, held: int, counts: list[int]
                             ) -> bool:
        """Whether producing (or, in the second edition's last round, chaining) at
        ``slot`` is allowed with some hand of ``held`` cards out of the unseen ones
        (``counts``: how many of each resource) and refused with another."""
        if slot in self.handled or not self.is_production(seat, slot):
            return False
        unseen = sum(counts)
        mode = self.occupant_mode(seat, slot)
        if mode is not None:
            need = self.requirement(seat, slot)
            slack = 1 if mode == SLOPPY else 0
            useful = [min(need[r], counts[r]) for r in range(len(RESOURCES))]
            # Fewest needed units a hand can hold: it takes every card it can that
            # covers nothing first; most: it takes needed cards first.
            least = max(0, held - (unseen - sum(useful)))
            most = min(held, sum(useful))
            short_any = max(0, need[5] - held)
            if sum(need[:5]) - least + short_any > slack >= sum(need[:5]) - most + short_any:
                return True
        if self.second_edition and self.last_round():
            building = self.slot_building(seat, slot)
            if building.chain:
                resource, sources = self._chain_sources(seat, slot)
                if resource is not None and min(sources, default=0) >= 0:
                    wanted = counts[RESOURCES.index(resource)]
                    # Some hand holds one and some does not.
                    return wanted > 0 and unseen - wanted >= held
        return False

    def move_seen_by(self, move: int, observer: int | None) -> str | None:
        """Phase II worker and plan choices are secret from the other seats until Sunset."""
        if not self.is_move_code(move):
            raise MoveParseError(not_a_move(move))
        if self.move_is_secret(move) and self._hidden_choice(self.seat(), observer):
            return None
        return self.move_to_text(move)

    def move_is_secret(self, move: int) -> bool:
        """Phase II's worker and plan choices (made only in that phase) are secret."""
        return decode_move(move)[0] in (WORK_ORDERLY, WORK_SLOPPY, IDLE, PLAN, PLAN_NONE)

    # -- notation ------------------------------------------------------------------
    def move_to_text(self, move: int) -> str:
        return move_to_text(self, move)

    def parse_move(self, text: str) -> int:
        return parse_move(self, text)

    # -- serialization ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        cards = self.catalogue.cards
        ids = [c.id for c in cards]
        assistants = self.catalogue.assistants
        return {
            "game": "oh-my-goods",
            "version": 1,
            "num_players": self.num_players,
            "options": {"second_edition": self.second_edition},
            "rng": format(self.rng[0], "016x"),
            "round": self.round,
            "active": self.active,
            "final_round": self.final_round,
            "phase": self.phase,
            "turn": self.turn,
            "deck": [ids[c] for c in self.deck],
            "discard": [ids[c] for c in self.discard],
            "display": [ids[c] for c in self.display],
            "sunset_at": self.sunset_at,
            "pool": [{"assistant": assistants[a].id, "face": f} for a, f in self.pool],
            "starting_hands": list(self._starting_sizes),
            "shown_goods": [ids[c] for c in sorted(self.shown)],
            "reshuffled": [ids[c] for c in self.reshuffled],
            "players": [
                {"charburner": self.catalogue.charburners[p.charburner].id,
                 "worker": self.catalogue.workers[p.worker],
                 "hand": [ids[c] for c in p.hand],
                 "buildings": [ids[c] for c in p.buildings],
                 "goods": [[ids[c] for c in g] for g in p.goods],
                 "assistants": [{"assistant": assistants[a].id, "face": f, "slot": s}
                                for a, f, s in p.assistants],
                 "work": None if p.work is None else {"slot": p.work[0],
                                                      "mode": MODE_WORDS[p.work[1]]},
                 "plan": None if p.plan is None else ids[p.plan],
                 "chosen": p.chosen}
                for p in self.players
            ],
            "act": {"step": self.step, "handled": list(self.handled), "running": self.running,
                    "need": list(self.need), "slack": self.slack,
                    "produce_count": self.produce_count, "chain_slot": self.chain_slot,
                    "hired": None if self.hired < 0 else assistants[self.hired].id,
                    "shifted": [assistants[a].id for a in self.shifted],
                    "pay": None if self.pay is None else dict(self.pay)},
        }

    def render(self, observer: int | None = None) -> str:
        return render_view(self.observation(observer), self.catalogue)
