"""The reset phase (rulebook pp. 15-18, L941-L1262), step by step.

A reset is triggered when 2 of the 4 furnaces are empty at the end of a turn
(L945-L947).  Its steps follow one another; a step every player takes is played
in turn order from the player who triggered the reset (L951-L956):

1. the French army advances 5 spaces toward 0 (L1017-L1030);
2. the 2 empty furnaces are refilled with the cubes printed where the army stopped,
   for 4/3/2 players (L1040-L1063);
3. each player with the ability V1 scores 1 VP (L1071-L1076);
4. each player activates investment columns of their choice (L1089-L1138);
5. the small factories are emptied (L1157-L1165);
6. each player supplies the small factories with every cube reserved in step 4,
   in valid combinations, taking their bonuses (L1200-L1216);
7. each player fulfils contracts of their choice (L1218-L1262).

The solo game takes 7 before 6, its supply being "the final step" (L1592; the
Automa supplies first): the game's hooks give the order (``Hooks.reset_steps``).

The final reset, after the last turn, skips the army and the refill (nothing reads
them any more) and starts with the player who took that turn, the last in the round
(docs/rules/stephens.md A-13, A-14).

Supplying is a sequence of ``supply`` moves, one combination each, in catalogue
order, none while no way remains to place the rest (one spelling per distinct
supply).  The bonuses are collected once every cube is placed, in an order that
never loses: coins at once, accessory types, then the workers assigned (their
disks may raise the influence cap), then the influence, then the acquisitions
(which may cost influence or coins).  Fulfilling goes contract by contract with
the payment named; contracts of different types in type order, those of one type
in the order the player wants (the order sets their columns, A-40).
"""

from __future__ import annotations

from engine.game import Event
from engine.stephens.abilities import gain_influence
from engine.stephens.acquisition import EITHER, open_acquisition
from engine.stephens.contracts import Payment, fulfil, fulfilment_payments
from engine.stephens.contracts import fulfil_reason as payment_reason
from engine.stephens.frames import Frame
from engine.stephens.hooks import Hooks
from engine.stephens.investments import activate_columns, column_sets, investment_columns
from engine.stephens.investments import columns_reason as chosen_columns_reason
from engine.stephens.moves import (
    COLUMNS,
    FULFIL,
    SKIP,
    SUPPLY,
    encode,
    fulfil_payload,
    kind_of,
    payload_of,
    unpack,
)
from engine.stephens.position import Position
from engine.stephens.supply import completable, deliveries_of, supply_reason
from engine.stephens.vocabulary import COLOURS, FURNACES, SMALL_FACTORIES, WOODEN_NAMES
from engine.wording import count

ARMY, REFILL, RESET_VP, INVESTMENTS, EMPTY_FACTORIES, SUPPLY_STEP, FULFIL_STEP, DONE = \
    range(1, 9)
#: The steps in the order of the pages (L1155-L1262): supply, then fulfil.
STEPS = (ARMY, REFILL, RESET_VP, INVESTMENTS, EMPTY_FACTORIES, SUPPLY_STEP, FULFIL_STEP, DONE)
#: The solo order: "In the final step, supply small factories" (L1592, A-1).
SUPPLY_LAST = (ARMY, REFILL, RESET_VP, INVESTMENTS, EMPTY_FACTORIES, FULFIL_STEP, SUPPLY_STEP,
               DONE)


def step_after(steps: tuple[int, ...], step: int) -> int:
    """The step that follows ``step`` in the order ``steps``."""
    return steps[steps.index(step) + 1]


def start_reset(state: Position, trigger: int, final: bool, events: list[Event]) -> None:
    state.decisions.append(Frame.make("reset", trigger, step=RESET_VP if final else ARMY,
                                      final=int(final)))
    events.append(Event("the final reset phase" if final else
                        f"P{trigger + 1} triggered a reset phase"))


def turn_order(state: Position, first: int) -> list[int]:
    return [(first + k) % state.num_players for k in range(state.num_players)]


def run_reset_step(state: Position, frame: Frame, events: list[Event], hooks: Hooks) -> None:
    """Run the step the reset frame on top names; decisions it asks for go above it.
    The game's ``hooks`` order the steps and follow the army step and the start of the
    supply step."""
    step = frame.num("step")
    cat = state.catalogue
    if step == DONE:
        state.decisions.pop()
        return
    state.decisions[-1] = frame.with_(step=step_after(hooks.reset_steps, step))
    order = turn_order(state, frame.seat)
    if step == ARMY:
        state.army = max(0, state.army - cat.army.step)
        events.append(Event(f"the French army advances to {state.army}"))
        hooks.army_advanced(state, events)
    elif step == REFILL:
        refill = cat.army.refill(state.army, state.num_players)
        empty = [f for f, n in enumerate(state.furnaces) if n == 0]
        for f in empty:
            state.furnaces[f] = refill
        if empty:
            events.append(Event(f"{' and '.join(FURNACES[f] for f in empty)} refilled with "
                                f"{count(refill, 'cube')} each"))
    elif step == RESET_VP:
        disk = cat.disk_with("reset-vp")
        for seat in order:
            if state.players[seat].unlocked[disk]:
                state.players[seat].vp += cat.disks[disk].vp
                events.append(Event(f"P{seat + 1} scores {cat.disks[disk].vp} VP (V1)"))
    elif step == INVESTMENTS:
        for seat in reversed(order):
            if investment_columns(state, seat):
                state.decisions.append(Frame.make("columns", seat))
    elif step == EMPTY_FACTORIES:
        if any(any(f) for f in state.factories):
            events.append(Event("the small factories are emptied"))
        state.factories = [[0, 0, 0] for _ in SMALL_FACTORIES]
    elif step == SUPPLY_STEP:
        hooks.supplying(state, events)  # solo: the Automa supplies first (L1589-L1596)
        for seat in reversed(order):
            if any(state.players[seat].reserved):
                state.decisions.append(Frame.make("supply", seat, last=-1, accessories=0,
                                                  influence=0, assign=0, acquire=0))
    elif step == FULFIL_STEP:
        for seat in reversed(order):
            if state.players[seat].contracts:
                state.decisions.append(Frame.make("fulfil", seat, type=0))


# -- R4: investment columns ------------------------------------------------------------------
def columns_moves(state: Position, frame: Frame) -> list[int]:
    return [encode(COLUMNS, sum(1 << k for k in chosen))
            for chosen in column_sets(state, frame.seat)]


def _chosen(mask: int) -> list[int]:
    return [k for k in range(56) if mask >> k & 1]


def columns_reason(state: Position, frame: Frame, move: int) -> str | None:
    return chosen_columns_reason(state, frame.seat, _chosen(payload_of(move)))


def apply_columns(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    chosen = _chosen(payload_of(move))
    activate_columns(state, frame.seat, chosen)
    if chosen:
        player = state.players[frame.seat]
        reserved = ", ".join(f"{n} {c}" for c, n in zip(WOODEN_NAMES, player.reserved,
                                                         strict=True) if n)
        events.append(Event(f"P{frame.seat + 1} activates investment "
                            f"{'column' if len(chosen) == 1 else 'columns'} "
                            f"{', '.join(str(k + 1) for k in chosen)}"
                            + (f", reserving {reserved}" if reserved else "")))


# -- R6: supplying the small factories ------------------------------------------------------
def supply_moves(state: Position, frame: Frame) -> list[int]:
    left = tuple(state.players[frame.seat].reserved)
    deliveries = deliveries_of(state.catalogue)
    out = []
    for b in range(max(0, frame.num("last")), len(deliveries)):
        d = deliveries[b]
        if all(x <= h for x, h in zip(d, left, strict=True)):
            rest = (left[0] - d[0], left[1] - d[1], left[2] - d[2])
            if completable(deliveries, b, rest):
                out.append(encode(SUPPLY, b))
    return out


def supply_move_reason(state: Position, frame: Frame, move: int) -> str | None:
    cat = state.catalogue
    b = payload_of(move)
    if b >= len(cat.bonuses):
        return "unknown supply combination"
    if b < frame.num("last"):
        return (f"name the combinations in catalogue order: {cat.bonuses[frame.num('last')].id} "
                f"was supplied already")
    reserved = state.players[frame.seat].reserved
    if any(d > h for d, h in zip(cat.bonuses[b].deliver, reserved, strict=True)):
        return f"{cat.bonuses[b].id} needs cubes you have not reserved"
    return supply_reason(state, frame.seat, [b])


def apply_supply(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    cat = state.catalogue
    b = payload_of(move)
    bonus = cat.bonuses[b]
    player = state.players[frame.seat]
    factory = state.factories[bonus.factory]
    for i in range(3):
        factory[i] += bonus.deliver[i]
        player.reserved[i] -= bonus.deliver[i]
    gains = {name: frame.num(name) for name in ("accessories", "influence", "assign", "acquire")}
    if bonus.gain == "coin":
        player.coins += bonus.n
    elif bonus.gain == "accessory":
        gains["accessories"] += bonus.n
    else:
        gains[bonus.gain] += bonus.n
    cubes = " + ".join(WOODEN_NAMES[i] for i in range(3) for _ in range(bonus.deliver[i]))
    events.append(Event(f"P{frame.seat + 1} supplies {cubes} to {SMALL_FACTORIES[bonus.factory]} "
                        f"({bonus.id}: {bonus.n} {bonus.gain})"))
    if any(player.reserved):
        state.decisions[-1] = frame.with_(last=b, **gains)
        return
    state.decisions.pop()
    seat = frame.seat
    # Pushed bottom first: the acquisitions are made last, the accessory types first.
    for _ in range(gains["acquire"]):
        open_acquisition(state, seat, EITHER, white=False)
    if gains["influence"]:
        state.decisions.append(Frame.make("influence", seat, n=gains["influence"]))
    for _ in range(gains["assign"]):
        state.decisions.append(Frame.make("assign", seat))
    if gains["accessories"]:
        state.decisions.append(Frame.make("accessories", seat, paid=0,
                                          gained=gains["accessories"]))


def run_influence(state: Position, frame: Frame, events: list[Event]) -> None:
    state.decisions.pop()
    gained = gain_influence(state.catalogue, state.players[frame.seat], frame.num("n"))
    events.append(Event(f"P{frame.seat + 1} gains {gained} influence"
                        + ("" if gained == frame.num("n") else
                           f" ({frame.num('n') - gained} lost above the cap)")))


# -- R7: fulfilling contracts -----------------------------------------------------------------
def fulfil_moves(state: Position, frame: Frame) -> list[int]:
    cat = state.catalogue
    player = state.players[frame.seat]
    lowest = frame.num("type")
    out = []
    for contract in sorted(player.contracts):
        if cat.contracts[contract].type < lowest:
            continue
        for pay in fulfilment_payments(state, frame.seat, contract):
            out.append(encode(FULFIL, fulfil_payload(contract, pay.cubes, pay.placed)))
    return out + [encode(SKIP)]


def _payment(state: Position, move: int) -> tuple[int, Payment] | None:
    cat = state.catalogue
    payload = payload_of(move)
    contract = payload & 0xFF
    cubes = unpack(payload >> 8, len(COLOURS), 4)
    placed_fields = unpack(payload >> 32, 6, 4)
    types = len(cat.accessories)
    if contract >= len(cat.contracts) or any(placed_fields[types:]):
        return None
    spec = cat.contracts[contract]
    return contract, Payment(tuple(cubes), spec.accessories, tuple(placed_fields[:types]))


def fulfil_reason(state: Position, frame: Frame, move: int) -> str | None:
    if kind_of(move) == SKIP:
        return None if payload_of(move) == 0 else "skip takes nothing more"
    found = _payment(state, move)
    if found is None:
        return "not a contract and payment"
    contract, pay = found
    cat = state.catalogue
    spec = cat.contracts[contract]
    lowest = frame.num("type")
    if contract in state.players[frame.seat].contracts and spec.type < lowest:
        return (f"fulfil contracts of different types in type order: "
                f"{cat.contract_types[lowest]} contracts were fulfilled before this "
                f"{cat.contract_types[spec.type]} one")
    return payment_reason(state, frame.seat, contract, pay)


def apply_fulfil(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    if kind_of(move) == SKIP:
        state.decisions.pop()
        return
    found = _payment(state, move)
    assert found is not None
    contract, pay = found
    fulfil(state, frame.seat, contract, pay)
    cat = state.catalogue
    spent = " ".join(COLOURS[c] for c in range(len(COLOURS)) for _ in range(pay.cubes[c]))
    events.append(Event(f"P{frame.seat + 1} fulfils {cat.contracts[contract].id}, paying "
                        f"{spent or 'no cubes'}"))
    state.decisions[-1] = frame.with_(type=cat.contracts[contract].type)
