"""A player's turn: the action and its follow-ups (rulebook pp. 6-13).

On a turn the player either takes glass from a furnace of the Stephens' factory
(upper furnaces: the row beside it is activated; lower left: commit to a
contract; lower right: fund an investment), takes products from a small factory
(1 cube, up to 2/3/4 with the abilities S1-S3, and the row beside it is activated,
or with 3+ cubes an empty furnace's effect instead), or assigns a worker: creates
a profession or reinforces one (L208-L287, L958-L1011).  The ability P1 first lets
the player discard two display professions (L876-L885).

Activating a row asks every player with a worker there, in turn order from the
active player, for a plan (:mod:`engine.stephens.activation`); the colours of
cubes and the types of accessories gained as "any" are chosen after it.

This module holds the decisions of a turn: ``action``, ``effect``, ``activation``,
``cubes``, ``accessories`` (also the setup's ``accessory``) and ``unlock``; each
has a function listing its legal moves, one saying why a move is refused, and one
playing it (see :mod:`engine.stephens.flow` for the dispatch).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from engine.game import Event
from engine.stephens.abilities import has_ability, products_limit, unlock
from engine.stephens.abilities import unlock_reason as disk_unlock_reason
from engine.stephens.acquisition import CONTRACTS, INVESTMENTS, open_acquisition
from engine.stephens.activation import (
    Exchange,
    activation_plans,
    apply_exchange,
    apply_plan,
    describe_plan,
    exchanges,
    row_workers,
)
from engine.stephens.activation import activation_reason as plan_reason
from engine.stephens.displays import DISPLAY_SPACES, discard_professions
from engine.stephens.frames import Frame
from engine.stephens.moves import (
    ACCESSORIES,
    ACTIVATE_PART,
    CREATE,
    CUBES,
    DISCARD,
    DISCARD_WORDS,
    EFFECT,
    EFFECT_ROW,
    GLASS,
    PLAN_STEPS,
    PRODUCTS,
    REINFORCE,
    UNLOCK,
    decode_exchange,
    decode_plan,
    encode,
    encode_exchange,
    encode_plan,
    kind_of,
    pack,
    payload_of,
    unpack,
    wooden_counts,
)
from engine.stephens.opponents import accessory_gain_ok
from engine.stephens.position import EMPTY, Position
from engine.stephens.vocabulary import (
    COLOURS,
    FURNACES,
    PLACES,
    SMALL_FACTORIES,
    WOODEN,
    WOODEN_NAMES,
    place_of_factory,
    place_of_furnace,
)
from engine.stephens.workers import (
    create,
    create_options,
    create_reason,
    reinforce,
    reinforce_check,
    reinforce_options,
    unlock_options,
)
from engine.wording import count


# -- the action ----------------------------------------------------------------------------
def _can_discard(state: Position, seat: int, colour: int, frame: Frame) -> bool:
    return (not frame.num("discarded")
            and has_ability(state.catalogue, state.players[seat], "discard-professions")
            and all(state.profession_display[s] != EMPTY for s in DISPLAY_SPACES[colour]))


def product_choices(state: Position, seat: int, factory: int) -> list[list[int]]:
    """The cube counts (orange, pink, black) ``seat`` may take from ``factory``: at
    least one cube, at most the ability's number (docs/rules/stephens.md A-25)."""
    have = state.factories[factory]
    limit = products_limit(state.catalogue, state.players[seat])
    out = []
    for total in range(1, limit + 1):
        for combo in combinations_with_replacement(range(3), total):
            counts = [combo.count(i) for i in range(3)]
            if all(c <= h for c, h in zip(counts, have, strict=True)):
                out.append(counts)
    return out


def worker_moves(state: Position, seat: int) -> list[int]:
    return ([encode(CREATE, pack([card, place])) for card, place in create_options(state, seat)]
            + [encode(REINFORCE, card) for card in reinforce_options(state, seat)])


def action_moves(state: Position, frame: Frame) -> list[int]:
    seat = frame.seat
    out = [encode(DISCARD, colour) for colour in range(2)
           if _can_discard(state, seat, colour, frame)]
    out += [encode(GLASS, f) for f, n in enumerate(state.furnaces) if n > 0]
    for factory in range(len(SMALL_FACTORIES)):
        for counts in product_choices(state, seat, factory):
            out.append(encode(PRODUCTS, pack([factory, *counts])))
    return out + worker_moves(state, seat)


def worker_reason(state: Position, seat: int, move: int) -> str | None:
    kind, payload = kind_of(move), payload_of(move)
    if kind == CREATE:
        card, place = unpack(payload, 2)
        if payload >> 16:
            return "not a create move"
        return create_reason(state, seat, card, place)
    return reinforce_check(state, seat, payload)


def action_reason(state: Position, frame: Frame, move: int) -> str | None:
    seat = frame.seat
    kind, payload = kind_of(move), payload_of(move)
    if kind == DISCARD:
        if payload >= len(DISCARD_WORDS):
            return "discard red or blue"
        if not has_ability(state.catalogue, state.players[seat], "discard-professions"):
            return "discarding professions needs the ability P1"
        if frame.num("discarded"):
            return "you have discarded professions this turn already"
        return (f"the {DISCARD_WORDS[payload]} display must hold 2 cards to discard "
                f"(the deck top is never discarded)")
    if kind == GLASS:
        if payload >= len(FURNACES):
            return f"there is no furnace {payload}"
        return f"{FURNACES[payload]} is empty"
    if kind == PRODUCTS:
        factory, counts = wooden_counts(payload)
        if factory >= len(SMALL_FACTORIES) or payload >> 32:
            return "not a small factory"
        have = state.factories[factory]
        limit = products_limit(state.catalogue, state.players[seat])
        if not any(have):
            return f"{SMALL_FACTORIES[factory]} is empty"
        if sum(counts) == 0:
            return "take at least one cube"
        if sum(counts) > limit:
            return (f"you may take {count(limit, 'cube')} from a small factory (the abilities "
                    f"S1-S3 allow 2, 3, 4)")
        missing = [WOODEN_NAMES[i] for i in range(3) if counts[i] > have[i]]
        return f"{SMALL_FACTORIES[factory]} has not that many {', '.join(missing)} cubes"
    return worker_reason(state, seat, move)


def apply_action(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    seat = frame.seat
    kind, payload = kind_of(move), payload_of(move)
    player = state.players[seat]
    cat = state.catalogue
    if kind == DISCARD:
        discard_professions(state, payload, events)
        state.decisions[-1] = frame.with_(discarded=1)
        return
    state.decisions.pop()
    if kind == GLASS:
        furnace = cat.furnaces[payload]
        state.furnaces[payload] -= 1
        player.cubes[furnace.colour] += 1
        events.append(Event(f"P{seat + 1} takes 1 {COLOURS[furnace.colour]} glass from "
                            f"{FURNACES[payload]}"))
        furnace_effect(state, seat, payload, white=True, events=events)
    elif kind == PRODUCTS:
        factory, counts = wooden_counts(payload)
        for i, n in enumerate(counts):
            state.factories[factory][i] -= n
            player.cubes[WOODEN[i]] += n
        taken = " ".join(WOODEN_NAMES[i] for i in range(3) for _ in range(counts[i]))
        events.append(Event(f"P{seat + 1} takes {taken} from {SMALL_FACTORIES[factory]}"))
        if sum(counts) >= 3 and 0 in state.furnaces:
            state.decisions.append(Frame.make("effect", seat, factory=factory))
        else:
            activate_row(state, place_of_factory(factory), seat, events)
    else:
        worker_apply(state, seat, move, events)


def worker_apply(state: Position, seat: int, move: int, events: list[Event]) -> None:
    kind, payload = kind_of(move), payload_of(move)
    if kind == CREATE:
        card, place = unpack(payload, 2)
        create(state, seat, card, place, events)
    else:
        reinforce(state, seat, payload, events)


def furnace_effect(state: Position, seat: int, furnace: int, white: bool,
                   events: list[Event]) -> None:
    """What a furnace lets the player do: activate its row, commit to a contract or
    fund an investment (``white``: with plate glass actually taken, so C2 applies)."""
    action = state.catalogue.furnaces[furnace].action
    if action == "activate":
        place = place_of_furnace(furnace)
        assert place is not None
        activate_row(state, place, seat, events)
    else:
        open_acquisition(state, seat, CONTRACTS if action == "contract" else INVESTMENTS,
                         white=white)


# -- the effect of 3 or 4 products ----------------------------------------------------------
def effect_moves(state: Position, frame: Frame) -> list[int]:
    return [encode(EFFECT, EFFECT_ROW + frame.num("factory"))] + [
        encode(EFFECT, 1 + f) for f, n in enumerate(state.furnaces) if n == 0]


def effect_reason(state: Position, frame: Frame, move: int) -> str | None:
    payload = payload_of(move)
    if payload >= EFFECT_ROW:
        return (f"you took the cubes from {SMALL_FACTORIES[frame.num('factory')]}: activate "
                f"its row or an empty furnace's effect")
    if not 1 <= payload <= len(FURNACES):
        return "not a furnace"
    return f"{FURNACES[payload - 1]} is not empty: only an empty furnace's effect is allowed"


def apply_effect(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    payload = payload_of(move)
    if payload >= EFFECT_ROW:
        activate_row(state, place_of_factory(payload - EFFECT_ROW), frame.seat, events)
        return
    events.append(Event(f"P{frame.seat + 1} uses the effect of the empty furnace "
                        f"{FURNACES[payload - 1]}"))
    furnace_effect(state, frame.seat, payload - 1, white=False, events=events)


# -- activating a row -----------------------------------------------------------------------
def activate_row(state: Position, place: int, first: int, events: list[Event]) -> None:
    """Every player with a worker in the row decides, in turn order from ``first``
    (docs/rules/stephens.md A-9)."""
    n = state.num_players
    order = [(first + k) % n for k in range(n)]
    deciders = [s for s in order if row_workers(state, s, place)]
    events.append(Event(f"the row of {PLACES[place]} is activated"
                        + ("" if deciders else " (no worker there)")))
    for seat in reversed(deciders):
        state.decisions.append(Frame.make("activation", seat, place=place, used=0))


def activation_moves(state: Position, frame: Frame) -> list[int]:
    seat, place, used = frame.seat, frame.num("place"), frame.num("used")
    out: list[int] = []
    seen: set[int] = set()
    for plan in activation_plans(state, seat, place, exclude=used):
        steps = plan.steps
        move = encode_plan(state, seat, place, steps[:PLAN_STEPS],
                           part=len(steps) > PLAN_STEPS)
        if move not in seen:
            seen.add(move)
            out.append(move)
    return out


def activation_reason(state: Position, frame: Frame, move: int) -> str | None:
    seat, place, used = frame.seat, frame.num("place"), frame.num("used")
    steps = decode_plan(state, seat, place, move)
    if steps is None:
        return "a step names no worker of yours and option in this row"
    reason = plan_reason(state, seat, place, steps, used)
    if reason is not None:
        return reason
    if kind_of(move) == ACTIVATE_PART:
        return "only the first steps of a plan longer than one move are played in parts"
    return ("another order or a plan leaving you at least as much of everything reaches "
            "this outcome or a better one: it is offered instead")


def apply_activation_move(state: Position, frame: Frame, move: int,
                          events: list[Event]) -> None:
    seat, place, used = frame.seat, frame.num("place"), frame.num("used")
    steps = decode_plan(state, seat, place, move)
    assert steps is not None
    events.append(Event(f"P{seat + 1} collects: {describe_plan(state, seat, place, steps)}"))
    cubes, accessories = apply_plan(state, seat, place, steps, used)
    if kind_of(move) == ACTIVATE_PART:
        for w, _ in steps:
            used |= 1 << w
        state.decisions[-1] = frame.with_(used=used)
    else:
        state.decisions.pop()
    for kind, exchange in (("accessories", accessories), ("cubes", cubes)):
        if exchange.paid or exchange.gained:
            state.decisions.append(Frame.make(kind, seat, paid=exchange.paid,
                                              gained=exchange.gained))


# -- colours of "any" cubes and accessories, setup accessories -----------------------------
def _exchange(state: Position, frame: Frame) -> tuple[list[int], Exchange, int, list[str]]:
    """What the frame exchanges: the items held, the counts, the move kind, the names."""
    player = state.players[frame.seat]
    if frame.kind == "cubes":
        return player.cubes, Exchange(frame.num("paid"), frame.num("gained")), CUBES, \
            list(COLOURS)
    if frame.kind == "accessory":
        exchange = Exchange(0, 1)
    else:
        exchange = Exchange(frame.num("paid"), frame.num("gained"))
    return player.accessories, exchange, ACCESSORIES, list(state.catalogue.accessories)


def colour_moves(state: Position, frame: Frame) -> list[int]:
    held, exchange, kind, _ = _exchange(state, frame)
    deltas = exchanges(held, exchange)
    if kind == ACCESSORIES and state.opponent >= 0:
        deltas = [d for d in deltas if accessory_gain_ok(state, held, list(d))]
    return [encode_exchange(kind, delta) for delta in deltas]


def colour_reason(state: Position, frame: Frame, move: int) -> str | None:
    held, exchange, kind, names = _exchange(state, frame)
    if frame.kind == "accessory":
        return "take 1 accessory tile of your choice"
    what = "cube colours" if kind == CUBES else "accessory types"
    delta = decode_exchange(move, len(names))
    if delta is not None:
        short = [names[c] for c, d in enumerate(delta) if d < 0 and held[c] < -d]
        if short:
            return f"you do not hold that many {', '.join(short)}"
        if kind == ACCESSORIES and state.opponent >= 0:
            if not accessory_gain_ok(state, held, delta):
                return ("the opponent card: a duplicate accessory only after completing the "
                        "previous set of 3 different ones")
    return (f"name the {what}: {exchange.paid} paid and {exchange.gained} gained as 'any' "
            f"(a colour paid and gained is the same as neither)")


def apply_colours(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    held, _, kind, names = _exchange(state, frame)
    delta = decode_exchange(move, len(names))
    assert delta is not None
    apply_exchange(held, delta)
    paid = [names[c] for c, d in enumerate(delta) for _ in range(-d)]
    gained = [names[c] for c, d in enumerate(delta) for _ in range(d)]
    words = (["pays " + " ".join(paid)] if paid else []) + \
        (["takes " + " ".join(gained)] if gained else [])
    events.append(Event(f"P{frame.seat + 1} " + (" and ".join(words) or "keeps its "
                                                 + ("cubes" if kind == CUBES else "accessories"))))


# -- unlocking an ability -------------------------------------------------------------------
def unlock_moves(state: Position, frame: Frame) -> list[int]:
    return [encode(UNLOCK, d) for d in unlock_options(state, frame.seat)]


def unlock_reason(state: Position, frame: Frame, move: int) -> str | None:
    cat = state.catalogue
    disk = payload_of(move)
    found = disk_unlock_reason(cat, state.players[frame.seat], disk)
    if found is not None:
        return found
    return (f"{cat.disks[disk].id}: take the influence disk on the lowest space first "
            f"(a higher one raises no cap: docs/rules/stephens.md A-24)")


def apply_unlock(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    cat = state.catalogue
    disk = payload_of(move)
    unlock(cat, state.players[frame.seat], disk)
    events.append(Event(f"P{frame.seat + 1} unlocks {cat.disks[disk].id}"))

