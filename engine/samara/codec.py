"""A Samara position read back from JSON, rejecting impossible positions.

:func:`state_from_json` checks everything :meth:`SamaraState.to_json
<engine.samara.state.SamaraState.to_json>` writes, first the shape the game's state
description gives (:mod:`engine.samara.schema`), then the rules, and names the
offending field: every tile on a spot, unused or on one Foreman board, every pawn and
tool of the game in one place, lasting powers exactly those of a foreman's buildings,
workers on the track between the current month and its end with a woman among each
seat's, pending decisions those of the power just used with the first one open, and a
worker to act when nothing is pending (docs/rules/samara.md, "Saved states").

>>> from engine.samara.catalogue import default_catalogue
>>> from engine.samara.setup import new_state
>>> state = new_state(default_catalogue(), seed=5, num_players=3, powers=True)
>>> state_from_json(state.to_json()).to_json() == state.to_json()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.game import InvalidStateError
from engine.refusals import BOUND, DECISIONS, HISTORY, ONE_PLACE, ORDER, PLACEMENT, SHAPE, TOTALS
from engine.samara.catalogue import (
    GLASS_A,
    GLASS_B,
    LASTING_POWERS,
    TOOL_NAMES,
    Catalogue,
    default_catalogue,
)
from engine.samara.schema import description
from engine.samara.state import Decision, Foreman, SamaraState, Worker
from engine.samara.vocabulary import DECISION_KIND, GIVE_KINDS, INFO, MAX_MONTH, MAX_TOOLS
from engine.seats import seat_label
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


def state_from_json(data: Mapping[str, Any], catalogue: Catalogue | None = None) -> SamaraState:
    """Rebuild and validate a state; errors name the offending field.

    Accepted are exactly the states the rules (and the kernel) can play: every
    field in range and consistent with the others, the pieces of the game all
    there, pending decisions those of the power just used, the first of them with
    an option open, and a worker to act when nothing is pending.
    """
    catalogue = catalogue or default_catalogue()
    try:
        return _state_from_json(data, catalogue)
    except InvalidStateError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InvalidStateError(f"corrupt Samara state: {type(exc).__name__}: {exc}") from exc


def _state_from_json(data: Mapping[str, Any], catalogue: Catalogue) -> SamaraState:
    n, options = state_header(data, INFO)
    # The shape (JSON types, fields, static bounds) as the game's one description of its
    # JSON state says, the description its JSON Schema is made from; the rules below.
    check_shape(description(catalogue).root, data, "", n)
    state = SamaraState(catalogue, n, bool(options["powers"]))
    state.month = _int(data.get("month"), "month", 0, MAX_MONTH)
    tiles = UniqueRefs({t.id: i for i, t in enumerate(catalogue.tiles)}, "tile")
    _read_spots(state, data.get("spots"), tiles)
    state.unused_tiles = tiles.list(data.get("unused_tiles"), "unused_tiles")
    _read_foremen(state, data.get("foremen"), tiles)
    _check_tiles(state, tiles)
    _read_track(state, data.get("track"))
    _check_pieces(state)
    pending = data.get("pending")
    state.pending = [_read_decision(state, entry, f"pending[{k}]")
                     for k, entry in enumerate(state_list([] if pending is None else pending,
                                                          "pending"))]
    _check_pending(state)
    if not state.pending and not state.is_terminal():
        _expect(state.month in state.track, "month: no worker stands in the current month", kind=BOUND)
    return state


def _tools(value: Any, where: str) -> list[int]:
    value = state_object(value, where)
    _expect(set(value) == set(TOOL_NAMES), f"{where} must map exactly {', '.join(TOOL_NAMES)} "
                                          f"to counts", kind=SHAPE)
    return [_int(value[name], f"{where}.{name}", 0, 99) for name in TOOL_NAMES]


def _read_spots(state: SamaraState, value: Any, tiles: UniqueRefs) -> None:
    spots = state.catalogue.spots
    for i, entry in enumerate(state_list(value, "spots", len(spots))):
        where = f"spots[{i}]"
        entry = state_object(entry, where)
        _expect(entry.get("spot") == spots[i].label,
                f"{where}.spot must be {spots[i].label!r}, got {short_repr(entry.get('spot'))}", kind=SHAPE)
        if entry.get("tile") is not None:
            state.spot_tile[i] = tiles(entry["tile"], f"{where}.tile")
        state.spot_tools[i] = _tools(entry.get("tools"), f"{where}.tools")


def _read_foremen(state: SamaraState, value: Any, tiles: UniqueRefs) -> None:
    for p, entry in enumerate(state_list(value, "foremen", state.num_players)):
        where = f"foremen[{p}]"
        entry = state_object(entry, where)
        tools = _tools(entry.get("tools"), f"{where}.tools")
        for kind, limit in enumerate(MAX_TOOLS):
            _expect(tools[kind] <= limit,
                    f"{where}.tools.{TOOL_NAMES[kind]}: {tools[kind]} is more than {limit}", kind=SHAPE)
        _expect(tools[GLASS_B] <= tools[GLASS_A], f"{where}.tools: glass-b without glass-a", kind=BOUND)
        pawns = state_object(entry.get("pawns"), f"{where}.pawns")
        foreman = Foreman(tools, _int(pawns.get("men"), f"{where}.pawns.men", 0, 9),
                          _int(pawns.get("women"), f"{where}.pawns.women", 0, 9))
        buildings = entry.get("buildings")
        foreman.buildings = tiles.list([] if buildings is None else buildings,
                                       f"{where}.buildings")
        powers = entry.get("powers")
        foreman.powers = _read_powers(state, foreman, [] if powers is None else powers,
                                      f"{where}.powers")
        state.foremen.append(foreman)


def _read_powers(state: SamaraState, foreman: Foreman, value: Any, where: str) -> list[str]:
    """The lasting powers of a foreman: those of its buildings, when powers are played."""
    powers = [state_choice(v, f"{where}[{k}]", LASTING_POWERS)
              for k, v in enumerate(state_list(value, where))]
    owned = [p for t in foreman.buildings
             if (p := state.catalogue.tiles[t].power) in LASTING_POWERS]
    for power in powers:
        _expect(power in owned, f"{where}: {power!r} without its building", kind=HISTORY)
        _expect(powers.count(power) == 1, f"{where}: {power!r} is listed twice", kind=SHAPE)
        _expect(state.powers, f"{where}: {power!r} in a game played without powers", kind=HISTORY)
    if state.powers:
        for power in owned:
            _expect(power in powers, f"{where}: {power!r} is missing: its building was taken "
                                     f"in a game played with powers", kind=HISTORY)
    return powers


def _check_tiles(state: SamaraState, tiles: UniqueRefs) -> None:
    catalogue = state.catalogue
    _expect(tiles.missing() == 0,
            f"tiles: {tiles.missing()} catalogue tile(s) are nowhere "
            f"(each must be on a spot, unused, or on a Foreman board)", "", ONE_PLACE)
    _expect(len(state.unused_tiles) == len(catalogue.tiles) - len(catalogue.spots),
            f"unused_tiles must list {len(catalogue.tiles) - len(catalogue.spots)} tiles", kind=SHAPE)


def _read_track(state: SamaraState, value: Any) -> None:
    last = -1
    for k, entry in enumerate(state_list(value, "track")):
        where = f"track[{k}]"
        entry = state_object(entry, where)
        month = _int(entry.get("month"), f"{where}.month", state.month, state.track_end(), kind=BOUND)
        _expect(month > last, f"{where}.month: months must be increasing", kind=ORDER)
        last = month
        workers = state_list(entry.get("workers"), f"{where}.workers")
        _expect(len(workers) > 0, f"{where}.workers must be a non-empty list", kind=SHAPE)
        state.track[month] = [_read_worker(state, w, f"{where}.workers[{j}]")
                              for j, w in enumerate(workers)]


def _read_worker(state: SamaraState, value: Any, where: str) -> Worker:
    w = state_object(value, where)
    owner = _int(w.get("owner"), f"{where}.owner", 0, state.num_players - 1)
    female = state_choice(w.get("gender"), f"{where}.gender", ("man", "woman")) == "woman"
    men = _int(w.get("men"), f"{where}.men", 0, 9)
    women = _int(w.get("women"), f"{where}.women", 0, 9)
    _expect(men + women >= 1, f"{where}: a worker needs at least one pawn", kind=BOUND)
    _expect(women >= 1 if female else men >= 1, f"{where}: no pawn of the worker's gender", kind=BOUND)
    return Worker(owner, female, men, women)


def _check_pieces(state: SamaraState) -> None:
    """Every pawn and tool of the game is somewhere, each seat has its woman on the track."""
    catalogue = state.catalogue
    for p, foreman in enumerate(state.foremen):
        workers = [w for _, w in state.workers_of(p)]
        men = foreman.pawn_men + sum(w.men for w in workers)
        women = foreman.pawn_women + sum(w.women for w in workers)
        _expect(men == catalogue.pawn_men and women == catalogue.pawn_women,
                f"foremen[{p}]: {men} men and {women} women in all, the game has "
                f"{catalogue.pawn_men} and {catalogue.pawn_women}", kind=TOTALS)
        _expect(any(w.female for w in workers), f"foremen[{p}]: no woman worker on the track", kind=HISTORY)
    n = state.num_players
    for kind in range(5):
        total = sum(t[kind] for t in state.spot_tools) + sum(f.tools[kind] for f in state.foremen)
        expected = catalogue.tool_set[kind] * n
        _expect(total == expected, f"tools: {total} {TOOL_NAMES[kind]} in play, "
                                   f"{n} players have {expected}", "", TOTALS)


def _read_decision(state: SamaraState, value: Any, where: str) -> Decision:
    entry = state_object(value, where)
    n = state.num_players
    kind = state_choice(entry.get("kind"), f"{where}.kind", tuple(DECISION_KIND))
    player = _int(entry.get("player"), f"{where}.player", 0, n - 1)
    target = _int(entry.get("target"), f"{where}.target", 0, n - 1)
    label, count, only = entry.get("spot"), entry.get("count", 1), entry.get("only", "any")
    if kind != "give":
        _expect(label is None, f"{where}.spot: only a give decision names a spot", kind=SHAPE)
        _expect(count == 1 and is_int(count), f"{where}.count must be 1 for {kind}", kind=SHAPE)
        _expect(only == "any", f"{where}.only must be 'any' for {kind}", kind=SHAPE)
        return Decision(kind, player, target)
    labels = [s.label for s in state.catalogue.spots]
    spot = labels.index(state_choice(label, f"{where}.spot", labels))
    _expect(state.spot_tile[spot] is None,
            f"{where}.spot: {label} still holds a tile; given tools go to the spot of the "
            f"building just taken", kind=PLACEMENT)
    only = state_choice(only, f"{where}.only", tuple(GIVE_KINDS))
    count = _int(count, f"{where}.count", 1, 2 if only == "any" else 1)
    return Decision(kind, player, target, spot, count, only)


def _check_pending(state: SamaraState) -> None:
    """Pending decisions are those one power just queued (as far as play has not
    settled them), and the first has an option open.

    A power queues one decision for its builder (Boat, Vase, Sculpture, Ruin,
    Tombstone), or one per other seat clockwise from the builder's left (Barracks and
    Hospital: each seat decides for itself; Prison: the builder decides for each).
    Decisions are settled from the front, so what is left is the end of that queue,
    and the building that asked for them is still its builder's last one.  Later
    decisions may have no option left: play skips them, as it does when they come up.
    """
    pending = state.pending
    if not pending:
        return
    n = state.num_players
    first = pending[0]
    _expect(state.powers, "pending: decisions in a game played without powers", kind=DECISIONS)
    _expect(len(pending) <= n - 1, f"pending: {len(pending)} decisions, a power asks at most "
                                   f"the {n - 1} other seat(s)", kind=SHAPE)
    for k, d in enumerate(pending):
        where = f"pending[{k}]"
        _expect((d.kind, d.spot, d.only, d.count) == (first.kind, first.spot, first.only,
                                                      first.count),
                f"{where}: pending decisions come from one power, like pending[0]", kind=DECISIONS)
        if d.kind == "imprison":
            _expect(d.player == first.player and d.target != d.player,
                    f"{where}: the Prison's builder (pending[0].player) decides for each "
                    f"other seat", kind=DECISIONS)
        else:
            _expect(d.target == d.player, f"{where}.target: a seat decides {d.kind} for itself", kind=DECISIONS)
        if k:
            before = pending[k - 1].target
            _expect(d.target == (before + 1) % n, f"{where}: decisions go clockwise, "
                                                  f"{seat_label(before)} then "
                                                  f"{seat_label((before + 1) % n)}", kind=DECISIONS)
    sources = _decision_sources(state)
    _expect(bool(sources), f"pending: no power queues these {first.kind} decisions together", kind=DECISIONS)
    _expect(any(_last_power(state, builder) == power for power, builder in sources),
            "pending: these decisions come from a power just used: "
            + " or ".join(f"P{b + 1}'s last building would be the "
                          f"{p.replace('_', ' ').title()}" for p, b in sources), kind=DECISIONS)
    _expect(bool(state.decision_options(first)),
            f"pending[0]: {state._decision_prompt(first)} is impossible: "
            f"P{first.target + 1} has nothing that qualifies", kind=DECISIONS)


def _decision_sources(state: SamaraState) -> list[tuple[str, int]]:
    """(power, builder) pairs that could have queued ``state.pending``."""
    pending = state.pending
    first, single = pending[0], len(pending) == 1
    left_of = (pending[-1].target + 1) % state.num_players  # who asked each other seat
    if first.kind == "imprison":
        return [("prison", first.player)] if left_of == first.player else []
    if first.kind == "weaken":
        return [("hospital", left_of)]
    if not single:
        return [("barracks", left_of)] if first.kind == "give" and first.only == "any" \
            and first.count == 1 else []
    if first.kind == "bury":
        return [("tombstone", first.player)]
    if first.only != "any":
        return [({"saw": "boat", "glass": "vase", "trowel": "sculpture"}[first.only],
                 first.player)]
    return [("ruin", first.player)] + ([("barracks", left_of)] if first.count == 1 else [])


def _last_power(state: SamaraState, seat: int) -> str | None:
    buildings = state.foremen[seat].buildings
    return state.catalogue.tiles[buildings[-1]].power if buildings else None
