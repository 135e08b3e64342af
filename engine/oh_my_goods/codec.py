"""An Oh My Goods! position read back from JSON, rejecting impossible positions.

:func:`state_from_json` reads what :meth:`OhMyGoodsState.to_json
<engine.oh_my_goods.state.OhMyGoodsState.to_json>` writes and accepts exactly the
positions the rules and the kernel can play, naming the offending field of any other:
its shape against the game's description (:mod:`engine.oh_my_goods.schema`), then the
``_read_*`` helpers one part each (the round, the pool, a player, phase IV's fields)
and the ``_check_*`` helpers what relates them (every card in one place, the phase and
each seat's choices, phase IV's step, a payment), as docs/rules/oh-my-goods.md lists
under "Saved states".

>>> from engine.oh_my_goods.catalogue import default_catalogue
>>> from engine.oh_my_goods.setup import new_state
>>> state = new_state(default_catalogue(), seed=5, num_players=3, second_edition=True)
>>> state_from_json(state.to_json()).to_json() == state.to_json()
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.game import InvalidStateError
from engine.oh_my_goods.catalogue import Catalogue, default_catalogue
from engine.oh_my_goods.schema import description
from engine.oh_my_goods.state import OhMyGoodsState, Player
from engine.oh_my_goods.vocabulary import (
    BUILDINGS_TO_END,
    INFO,
    MAX_ROUNDS,
    MODE_WORDS,
    ORDERLY,
    PHASES,
    SHIFT_COST,
    SLOPPY,
    START_HAND,
    STEPS,
)
from engine.refusals import BOUND, HISTORY, ONE_PLACE, ORDER, PHASE, PLACEMENT, SHAPE, TOTALS
from engine.state_schema import check as check_shape
from engine.validation import (
    UniqueRefs,
    is_int,
    short_repr,
    state_choice,
    state_header,
    state_list,
    state_object,
)
from engine.validation import expect as _expect
from engine.validation import state_int as _int


def state_from_json(data: Mapping[str, Any],
                    catalogue: Catalogue | None = None) -> OhMyGoodsState:
    """Rebuild and validate a state; errors name the offending field.

    Accepted are exactly the states the rules (and the kernel) can play: every card
    and assistant of the game in one place, the phase, the turn and each seat's
    phase II choices consistent with each other, and in phase IV the step, the
    building being run or chained, the payment and the assistant being hired those
    the rules could have reached, so that the seat to move always has a legal move.
    """
    catalogue = catalogue or default_catalogue()
    try:
        return _state_from_json(data, catalogue)
    except InvalidStateError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InvalidStateError(f"corrupt Oh My Goods! state: {type(exc).__name__}: {exc}") \
            from exc


_HEX = re.compile(r"[0-9a-fA-F]{1,16}")
#: (slack, produce_count) of each occupant (OhMyGoodsState.occupant_mode), and before any production.
_PRODUCTION = {ORDERLY: (0, 2), SLOPPY: (1, 1), 2: (0, 1)}
_NOTHING_PRODUCED = (0, 0)


def _state_from_json(data: Mapping[str, Any], catalogue: Catalogue) -> OhMyGoodsState:
    n, options = state_header(data, INFO)
    # The shape (JSON types, fields, static bounds) as the game's one description of its
    # JSON state says, the description its JSON Schema is made from; the rules below.
    check_shape(description(catalogue).root, data, "", n)
    state = OhMyGoodsState(catalogue, n, bool(options["second_edition"]))
    _read_round(state, data)
    cards = UniqueRefs(catalogue.card_ids, "card")
    assistants = UniqueRefs(catalogue.assistant_ids, "assistant")
    state.deck = cards.list(data.get("deck"), "deck")
    state.discard = cards.list(data.get("discard"), "discard")
    state.display = cards.list(data.get("display"), "display")
    state.sunset_at = _int(data.get("sunset_at"), "sunset_at", -1, len(state.display), kind=BOUND)
    state.pool = _read_pool(data.get("pool"), assistants)
    state._starting_sizes = [
        _int(v, f"starting_hands[{i}]", 0, len(catalogue.cards))
        for i, v in enumerate(state_list(data.get("starting_hands"), "starting_hands", n))]
    state.players = [_read_player(state, entry, f"players[{p}]", cards, assistants)
                     for p, entry in enumerate(state_list(data.get("players"), "players", n))]
    _check_components(state, cards, assistants)
    _check_starting_hands(state)
    state.shown = _read_shown(state, data.get("shown_goods"))
    state.reshuffled = _read_reshuffled(state, data.get("reshuffled"))
    _read_act(state, state_object(data.get("act"), "act"))
    _check_phase(state)
    if state.phase == "act":
        _check_act(state)
    if state.pay is not None:
        _check_pay(state)
    return state


def _read_round(state: OhMyGoodsState, data: Mapping[str, Any]) -> None:
    """The generator, the round and whose turn it is in which phase."""
    n = state.num_players
    rng = data.get("rng")
    _expect(isinstance(rng, str) and _HEX.fullmatch(rng) is not None,
            f"rng must be a hex string of 1-16 digits, got {short_repr(rng)}", kind=SHAPE)
    assert isinstance(rng, str)
    state.rng = [int(rng, 16)]
    state.round = _int(data.get("round"), "round", 1, MAX_ROUNDS)
    state.active = _int(data.get("active"), "active", 0, n - 1)
    state.turn = _int(data.get("turn"), "turn", 0, n - 1)
    final = data.get("final_round")
    if final is not None:
        _expect(is_int(final) and final == state.round,
                f"final_round must be null or the current round ({state.round}): the last "
                f"round is announced at the end of the round before it, got {short_repr(final)}", kind=PHASE)
        state.final_round = state.round
    _expect(state.round < MAX_ROUNDS or state.final_round is not None,
            f"final_round: round {MAX_ROUNDS} is the last, announced as such", kind=PHASE)
    state.phase = state_choice(data.get("phase"), "phase", PHASES)
    _expect(state.phase != "redraw" or state.second_edition,
            "phase: 'redraw' (the phase I choice) is played in the second edition only", kind=PHASE)
    _expect(state.phase != "over" or state.final_round is not None,
            "phase: the game is over only at the end of its last round (final_round)", kind=PHASE)


def _read_pool(value: Any, assistants: UniqueRefs) -> list[list[int]]:
    pool = []
    for i, entry in enumerate(state_list(value, "pool")):
        entry = state_object(entry, f"pool[{i}]")
        pool.append([assistants(entry.get("assistant"), f"pool[{i}].assistant"),
                     _int(entry.get("face"), f"pool[{i}].face", 0, 1)])
    return pool


def _makes_goods(state: OhMyGoodsState, player: Player, slot: int) -> bool:
    """Whether building ``slot`` of ``player`` is a production building (not gray)."""
    catalogue = state.catalogue
    if slot == 0:
        return catalogue.buildings[catalogue.charburner_building].production
    return catalogue.buildings[catalogue.cards[player.buildings[slot - 1]].building].production


def _read_player(state: OhMyGoodsState, value: Any, where: str, cards: UniqueRefs,
                 assistants: UniqueRefs) -> Player:
    catalogue = state.catalogue
    entry = state_object(value, where)
    burners = [c.id for c in catalogue.charburners]
    player = Player(burners.index(state_choice(entry.get("charburner"), f"{where}.charburner",
                                               burners)),
                    catalogue.workers.index(state_choice(entry.get("worker"), f"{where}.worker",
                                                         catalogue.workers)))
    player.hand = cards.list(entry.get("hand"), f"{where}.hand")
    player.buildings = cards.list(entry.get("buildings"), f"{where}.buildings")
    most = BUILDINGS_TO_END - (1 if state.final_round is None else 0)
    _expect(len(player.buildings) <= most,
            f"{where}.buildings: {len(player.buildings)} buildings; a player builds at most one "
            f"a round and the round after one has {BUILDINGS_TO_END} (Charburner included) is "
            f"the last, so at most {most} now", kind=SHAPE)
    goods = state_list(entry.get("goods"), f"{where}.goods", 1 + len(player.buildings), kind=BOUND)
    player.goods = [cards.list(g, f"{where}.goods[{k}]") for k, g in enumerate(goods)]
    for k, card in enumerate(player.buildings):
        _expect(not player.goods[k + 1] or _makes_goods(state, player, k + 1),
                f"{where}.goods[{k + 1}]: {catalogue.cards[card].id} makes no goods", kind=PLACEMENT)
    plan = entry.get("plan")
    player.plan = None if plan is None else cards(plan, f"{where}.plan")
    hired = entry.get("assistants")
    hired = state_list([] if hired is None else hired, f"{where}.assistants")
    _expect(len(hired) <= 2, f"{where}.assistants: a player has at most 2 assistants", kind=SHAPE)
    for k, a in enumerate(hired):
        aw = f"{where}.assistants[{k}]"
        a = state_object(a, aw)
        slot = _int(a.get("slot"), f"{aw}.slot", 0, len(player.buildings), kind=BOUND)
        _expect(_makes_goods(state, player, slot),
                f"{aw}.slot: #{slot} is not a production building", kind=PLACEMENT)
        _expect(all(slot != other[2] for other in player.assistants),
                f"{aw}.slot: two assistants in building #{slot}", kind=PLACEMENT)
        player.assistants.append([assistants(a.get("assistant"), f"{aw}.assistant"),
                                  _int(a.get("face"), f"{aw}.face", 0, 1), slot])
    player.work = _read_work(state, player, entry.get("work"), f"{where}.work")
    player.chosen = _int(entry.get("chosen", 0), f"{where}.chosen", 0, 2)
    return player


def _read_work(state: OhMyGoodsState, player: Player, value: Any,
               where: str) -> tuple[int, int] | None:
    """The worker's building (-1: idle) and mode, or None when it has not been placed."""
    if value is None:
        return None
    work = state_object(value, where)
    mode = MODE_WORDS.index(state_choice(work.get("mode"), f"{where}.mode", MODE_WORDS))
    slot = _int(work.get("slot"), f"{where}.slot", -1, len(player.buildings), kind=BOUND)
    free = [s for s in range(1 + len(player.buildings)) if _makes_goods(state, player, s)
            and all(s != a[2] for a in player.assistants)]
    if slot < 0:
        _expect(mode == ORDERLY, f"{where}.mode: an idle worker is written 'orderly'", kind=SHAPE)
        _expect(not free, f"{where}.slot: the worker is idle only when no production building "
                          f"is free, and #{free[0] if free else 0} is", kind=PLACEMENT)
    else:
        _expect(slot in free, f"{where}.slot: #{slot} is not a production building free of "
                              f"assistants", kind=PLACEMENT)
    return slot, mode


def _check_components(state: OhMyGoodsState, cards: UniqueRefs, assistants: UniqueRefs) -> None:
    """Every card in one place, each seat its own Charburner and Worker, 2 assistants a seat."""
    n = state.num_players
    catalogue = state.catalogue
    for p, player in enumerate(state.players):
        for q in range(p):
            _expect(state.players[q].charburner != player.charburner,
                    f"players[{p}].charburner: also players[{q}]'s", kind=ONE_PLACE)
            _expect(state.players[q].worker != player.worker,
                    f"players[{p}].worker: also players[{q}]'s", kind=ONE_PLACE)
    _expect(cards.missing() == 0,
            f"cards: {cards.missing()} of the {len(catalogue.cards)} deck cards are nowhere "
            f"(each must be in the deck, discard, display, a hand, a plan, a building or goods)",
            "", ONE_PLACE)
    _expect(len(assistants.at) == 2 * n,
            f"assistants: {len(assistants.at)} in play (for hire or hired), a {n}-player game "
            f"has {2 * n}", "pool", TOTALS)


def _check_starting_hands(state: OhMyGoodsState) -> None:
    """The hand sizes the round began with (``starting_hands``) are hands it could begin
    with: the setup's in round 1; held all at once beside the buildings built before
    the round; no smaller than a hand before the deal (phase I only discards and
    redraws as many)."""
    n, sizes = state.num_players, state._starting_sizes
    if state.round == 1:
        for seat, size in enumerate(sizes):
            _expect(size == START_HAND, f"starting_hands[{seat}]: {size}, but round 1 begins "
                                        f"with the {START_HAND} cards each seat is dealt",
                    kind=BOUND)
    # A seat builds at most once a round, in its phase IV (the seats up to the one to
    # move, counted from the active seat), and in the last round each seat has.
    building = {"act": state.turn + 1, "over": n}.get(state.phase, 0)
    earlier = sum(len(p.buildings) - (1 if (seat - state.active) % n < building
                                      and p.buildings else 0)
                  for seat, p in enumerate(state.players))
    room = len(state.catalogue.cards) - earlier
    _expect(sum(sizes) <= room,
            f"starting_hands: {sum(sizes)} cards in hands when round {state.round} began, "
            f"but {earlier} of the {len(state.catalogue.cards)} cards are buildings built "
            f"before it", kind=BOUND)
    if state.phase == "redraw":
        for seat, player in enumerate(state.players):
            _expect(len(player.hand) <= sizes[seat],
                    f"players[{seat}].hand: {len(player.hand)} cards in phase I, more than "
                    f"the {sizes[seat]} the round began with (starting_hands[{seat}]): a "
                    f"hand grows only at the deal, after phase I", kind=BOUND)


def _read_shown(state: OhMyGoodsState, value: Any) -> set[int]:
    ids = state.catalogue.card_ids
    goods = {c for player in state.players for g in player.goods for c in g}
    shown: set[int] = set()
    for i, v in enumerate(state_list([] if value is None else value, "shown_goods")):
        _expect(isinstance(v, str) and v in ids and ids[v] in goods,
                f"shown_goods[{i}]: {short_repr(v)} is not a card on a building", kind=PLACEMENT)
        _expect(ids[v] not in shown, f"shown_goods[{i}]: {v} is listed twice", kind=SHAPE)
        _expect(not shown or ids[v] > max(shown),
                f"shown_goods[{i}]: {v} comes before {value[i - 1]} in the catalogue: shown "
                f"goods are listed in catalogue order", kind=ORDER)
        shown.add(ids[v])
    return shown


def _read_reshuffled(state: OhMyGoodsState, value: Any) -> list[int]:
    ids = state.catalogue.card_ids
    pile: set[int] = set()
    for i, v in enumerate(state_list([] if value is None else value, "reshuffled")):
        _expect(isinstance(v, str) and v in ids, f"reshuffled[{i}]: unknown card {short_repr(v)}", kind=SHAPE)
        _expect(ids[v] not in pile, f"reshuffled[{i}]: {v} is listed twice", kind=SHAPE)
        pile.add(ids[v])
    if pile:
        stray = [state.catalogue.cards[c].id for c in state.deck if c not in pile]
        _expect(not stray, f"deck: {', '.join(stray[:3])} cannot be in the draw pile: it holds "
                           f"only cards of the last reshuffle (reshuffled)", kind=HISTORY)
    return sorted(pile)


def _read_act(state: OhMyGoodsState, act: Mapping[str, Any]) -> None:
    """Phase IV's fields, each read on its own (:func:`_check_act` relates them)."""
    ids = state.catalogue.assistant_ids
    state.step = state_choice(act.get("step"), "act.step", STEPS)
    handled = act.get("handled")
    state.handled = [_int(v, f"act.handled[{i}]", 0, 63) for i, v in
                     enumerate(state_list([] if handled is None else handled, "act.handled"))]
    state.running = _int(act.get("running", -1), "act.running", -1, 63)
    state.need = [_int(v, f"act.need[{i}]", 0, 50)
                  for i, v in enumerate(state_list(act.get("need"), "act.need", 6))]
    state.slack = _int(act.get("slack", 0), "act.slack", 0, 1)
    state.produce_count = _int(act.get("produce_count", 0), "act.produce_count", 0, 2)
    state.chain_slot = _int(act.get("chain_slot", -1), "act.chain_slot", -1, 63)
    hired = act.get("hired")
    state.hired = -1 if hired is None else ids[state_choice(hired, "act.hired", tuple(ids))]
    shifted = act.get("shifted")
    for i, v in enumerate(state_list([] if shifted is None else shifted, "act.shifted")):
        a = ids[state_choice(v, f"act.shifted[{i}]", tuple(ids))]
        _expect(a not in state.shifted, f"act.shifted[{i}]: {v} is listed twice", kind=SHAPE)
        state.shifted.append(a)
    pay = act.get("pay")
    if pay is not None:
        pay = state_object(pay, "act.pay")
        state.pay = {"due": _int(pay.get("due"), "act.pay.due", 1, 1000),
                     "paid": _int(pay.get("paid"), "act.pay.paid", 0, 1000),
                     "last": _int(pay.get("last"), "act.pay.last", 0, 63),
                     "purpose": state_choice(pay.get("purpose"), "act.pay.purpose",
                                             ("shift", "build", "hire")),
                     "arg": _int(pay.get("arg"), "act.pay.arg", 0, 1023)}


def _check_phase(state: OhMyGoodsState) -> None:
    """The market, each seat's phase II choices and phase IV's fields fit the phase.

    The display is discarded at the end of a round (empty in phase I and once the
    game is over); the Sunset row exists in phase IV.  In phase II each seat, in
    turn from the active one, places its worker and then plans (hidden); in phase
    IV, in the same order, each produces, builds and hires, and its worker and plan
    are gone once it is done.  Outside phase IV its fields are at rest, but for a
    payment and the assistants moved in phase II.
    """
    phase, n = state.phase, state.num_players
    if phase in ("redraw", "over"):
        _expect(not state.display, f"display: the market is empty in phase "
                                   f"{'I' if phase == 'redraw' else 'over'}", kind=PHASE)
    if phase == "act":
        _expect(state.sunset_at >= 0, "sunset_at: phase IV comes after the Sunset row", kind=PHASE)
    else:
        _expect(state.sunset_at == -1, "sunset_at must be -1 before the Sunset row", kind=PHASE)
    for k in range(n):
        seat = (state.active + k) % n
        player, where = state.players[seat], f"players[{seat}]"
        chosen = (2 if k < state.turn else (0, 1) if k == state.turn else 0) \
            if phase == "choose" else 0
        _expect(player.chosen in (chosen if isinstance(chosen, tuple) else (chosen,)),
                f"{where}.chosen: {player.chosen} in phase {phase} with turn {state.turn}", kind=PHASE)
        if phase == "choose":
            _expect((player.work is not None) == (player.chosen > 0),
                    f"{where}.work: the worker is placed as the first phase II choice", kind=PHASE)
            _expect(player.plan is None or player.chosen == 2,
                    f"{where}.plan: a building is planned as the second phase II choice", kind=PHASE)
        elif phase != "act" or k < state.turn:
            when = "once its phase IV is done" if phase == "act" else f"in phase {phase}"
            _expect(player.work is None, f"{where}.work: no worker is placed {when}", kind=PHASE)
            _expect(player.plan is None, f"{where}.plan: no building is planned {when}", kind=PHASE)
    if phase == "act":
        return
    rest = {"step": (state.step, "run"), "handled": (state.handled, []),
            "running": (state.running, -1), "need": (state.need, [0] * 6),
            "slack": (state.slack, 0), "produce_count": (state.produce_count, 0),
            "chain_slot": (state.chain_slot, -1), "hired": (state.hired, -1)}
    for name, (value, idle) in rest.items():
        _expect(value == idle, f"act.{name} must be {short_repr(idle)} outside phase IV", kind=PHASE)
    if phase != "shift":
        _expect(not state.shifted, "act.shifted: assistants move in phase II only", kind=PHASE)
        _expect(state.pay is None, f"act.pay: nothing is paid in phase {phase}", kind=PHASE)
        return
    mine = [a for a, _, _ in state.players[state.seat()].assistants]
    for i, a in enumerate(state.shifted):
        _expect(a in mine, f"act.shifted[{i}]: not an assistant of the seat to move", kind=PHASE)


def _check_act(state: OhMyGoodsState) -> None:
    """Phase IV: the step and the fields it uses agree with each other and the seat."""
    seat = state.seat()
    player, where = state.players[seat], f"players[{seat}]"
    step = state.step
    _expect(not state.shifted, "act.shifted: assistants move in phase II only", kind=PHASE)
    for i, slot in enumerate(state.handled):
        _expect(state.is_production(seat, slot),
                f"act.handled[{i}]: #{slot} is not a production building of the seat to move", kind=PLACEMENT)
        _expect(state.handled.index(slot) == i, f"act.handled[{i}]: #{slot} is listed twice", kind=SHAPE)
    unused = {"supply": ("running", "need"), "chain": ("chain_slot",), "place": ("hired",)}
    for name, idle in (("running", -1), ("need", [0] * 6), ("chain_slot", -1), ("hired", -1)):
        if name not in unused.get(step, ()):
            _expect(getattr(state, name) == idle,
                    f"act.{name} must be {idle} in step {step}", kind=PHASE)
    produced = (state.slack, state.produce_count)
    _expect(produced in (*_PRODUCTION.values(), _NOTHING_PRODUCED),
            f"act.slack and act.produce_count: {produced} fits no worker or assistant", kind=PHASE)
    if step in ("build", "hire", "place"):
        _expect(player.work is None, f"{where}.work: the worker leaves at 'done', before "
                                     f"step {step}", kind=PHASE)
    if step in ("hire", "place"):
        _expect(player.plan is None, f"{where}.plan: the plan is built or scrapped before "
                                     f"step {step}", kind=PHASE)
    purpose = {"build": "build", "hire": "hire"}.get(step)
    _expect(state.pay is None or state.pay["purpose"] == purpose,
            f"act.pay.purpose: no {state.pay['purpose'] if state.pay else ''} payment in "
            f"step {step}", kind=PHASE)
    if step == "supply":
        _check_supply(state, seat)
    elif step == "chain":
        slot = state.chain_slot
        _expect(slot in state.handled, "act.chain_slot must name a building that worked this "
                                       "turn (in act.handled)", kind=PHASE)
        _expect(bool(state.slot_building(seat, slot).chain),
                f"act.chain_slot: {state.slot_label(seat, slot)} has no production chain", kind=PLACEMENT)
    elif step == "build":
        _expect(player.plan is not None, f"{where}.plan: step build needs a planned building", kind=PHASE)
    elif step == "place":
        _expect(any(a == state.hired for a, _ in state.pool),
                "act.hired: the assistant being placed is still in the pool until placed", kind=PHASE)
        _check_can_hire(state, seat, "act.hired")


def _check_supply(state: OhMyGoodsState, seat: int) -> None:
    """The running building's occupant, and a need the seat's hand can still cover."""
    slot = state.running
    _expect(slot in state.handled, "act.running must name a building that started producing "
                                   "this turn (in act.handled)", kind=PHASE)
    mode = state.occupant_mode(seat, slot)
    _expect(mode is not None, f"act.running: nobody works in #{slot}", kind=PHASE)
    assert mode is not None
    _expect((state.slack, state.produce_count) == _PRODUCTION[mode],
            f"act.slack and act.produce_count must be {_PRODUCTION[mode]} for "
            f"{('an orderly worker', 'a sloppy worker', 'an assistant')[mode]}", kind=PHASE)
    most = state.requirement(seat, slot)
    for r in range(6):
        _expect(state.need[r] <= most[r], f"act.need[{r}]: {state.need[r]} is more than "
                                          f"#{slot} lacks ({most[r]})", kind=BOUND)
    _expect(sum(state.need) > state.slack,
            "act.need: nothing left to supply (production would have happened)", kind=PHASE)
    _expect(state._shortfall(seat, state.need) <= state.slack,
            "act.need: the hand cannot cover what is still missing", kind=BOUND)


def _check_can_hire(state: OhMyGoodsState, seat: int, where: str) -> None:
    """The seat may hire (the coins aside, which a payment checks)."""
    player = state.players[seat]
    a = state.hired if state.pay is None else state.pay["arg"]
    face = next((f for x, f in state.pool if x == a), None)
    _expect(face is not None, f"{where}: {state._asst_text(a)} is not for hire", kind=PHASE)
    assert face is not None
    _expect(len(player.assistants) < 2, f"{where}: the seat to move has 2 assistants already", kind=PHASE)
    for colour, count in state.catalogue.assistants[a].faces[face].needs:
        _expect(state.colour_count(seat, colour) >= count,
                f"{where}: {state._asst_text(a)} needs {count} {colour} building(s)", kind=PHASE)
    _expect(bool(state._free_work_slots(seat)),
            f"{where}: the seat to move has no production building free for an assistant", kind=PHASE)


def _check_pay(state: OhMyGoodsState) -> None:
    """A payment in progress: its purpose and amount, and enough goods left to finish it
    (paying goes in building order, from act.pay.last on)."""
    pay = state.pay
    assert pay is not None
    seat = state.seat()
    player = state.players[seat]
    slots = state.num_slots(seat)
    _expect(pay["paid"] < pay["due"], "act.pay.paid: a payment ends when the due is paid", kind=BOUND)
    _expect(pay["last"] < slots, f"act.pay.last: no building #{pay['last']}", kind=BOUND)
    reach = pay["paid"] + sum(len(player.goods[s]) * state.slot_building(seat, s).value
                              for s in range(pay["last"], slots))
    _expect(reach >= pay["due"], f"act.pay: the goods from #{pay['last']} on cannot pay the "
                                 f"{pay['due'] - pay['paid']} coins still due", kind=BOUND)
    purpose, arg = pay["purpose"], pay["arg"]
    _expect((state.phase == "shift") == (purpose == "shift"),
            f"act.pay.purpose: no {purpose} payment in phase {state.phase}", kind=PHASE)
    if purpose == "shift":
        a, slot = divmod(arg, 64)
        mine = [x for x in player.assistants if x[0] == a]
        _expect(bool(mine) and a not in state.shifted,
                "act.pay.arg: the assistant moved must be one of the seat's, not moved yet", kind=PHASE)
        _expect(slot in state._free_work_slots(seat),
                f"act.pay.arg: #{slot} is not a production building free for the assistant", kind=PLACEMENT)
        due = SHIFT_COST
    elif purpose == "build":
        _expect(arg == player.plan, "act.pay.arg must be the planned card being built", kind=PHASE)
        due = state.catalogue.cards[arg].cost
    else:
        _check_can_hire(state, seat, "act.pay.arg")
        face = next(f for x, f in state.pool if x == arg)
        due = state.catalogue.assistants[arg].faces[face].cost
    _expect(pay["due"] == due, f"act.pay.due must be {due}, the cost of the {purpose}", kind=BOUND)
