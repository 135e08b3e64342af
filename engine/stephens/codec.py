"""A Stephens position read back from JSON, rejecting impossible positions.

:func:`state_from_json` checks everything
:func:`engine.stephens.encoding.state_to_json` writes (the field names live there) and names
the offending field: every card is somewhere exactly once, red cards sit on the
left, a fulfilled contract in the row of its type, an investment in the row of
its colour, the influence marker under its cap, the placement rule holds on the
board, abilities were unlocked in an allowed order, and each seat's workers on
cards match the disks gone from its board (plus its pending unlock decisions).

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=5, num_players=3)
>>> state_from_json(state.to_json()).to_json() == state.to_json()
True

A position may leave out ``decisions`` (:data:`OPTIONAL_FIELDS`): it is then the start
of the ``active`` seat's turn, and the loader puts in the stack the engine has there
(:func:`engine.stephens.flow.turn_start`), so a site that deals its own cards need
not know the stack (docs/rules/stephens.md, "Writing a position at the start of a
turn").  :meth:`StephensState.to_json` always writes the stack.

>>> from engine.stephens.rules import StephensGame
>>> state = StephensGame().new_game(seed=5, num_players=3)
>>> while state.decisions[-1].kind != "action":  # the setup decisions: first options
...     _ = state.apply(state.legal_moves()[0])
>>> [f["kind"] for f in state.to_json()["decisions"]]
['turn', 'action']
>>> written = {k: v for k, v in state.to_json().items() if k != "decisions"}
>>> state_from_json(written).to_json() == state.to_json()
True
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Mapping
from typing import Any

from engine.game import InvalidOptionError, InvalidStateError
from engine.playout_rng import MASK64
from engine.refusals import (
    BOUND,
    DECISIONS,
    HISTORY,
    ONE_PLACE,
    ORDER,
    PHASE,
    PLACEMENT,
    SHAPE,
    TOTALS,
)
from engine.stephens.abilities import influence_cap
from engine.stephens.catalogue import default_catalogue
from engine.stephens.components import FORMER_DISK_IDS, Catalogue
from engine.stephens.encoding import (
    AUTOMA_WORD,
    BIG,
    GAME,
    OPTIONAL_FIELDS,
    PLAYER_FIELDS,
    SOLO_FIELDS,
    STATE_FIELDS,
    VERSION,
)
from engine.stephens.flow import turn_start
from engine.stephens.frames import Frame
from engine.stephens.placement import placement_holds
from engine.stephens.position import EMPTY, Player
from engine.stephens.setup import MAX_PLAYERS, MIN_PLAYERS
from engine.stephens.solo import solo_options
from engine.stephens.stack import check_stack
from engine.stephens.state import StephensState
from engine.stephens.vocabulary import (
    AUTOMA,
    BLUE_DECK,
    COLOURS,
    FURNACES,
    PLACES,
    RED,
    SIDES,
    SMALL_FACTORIES,
    START,
    STEPHENS,
    WOODEN,
    WOODEN_NAMES,
    side_of_place,
    tier_of_place,
)
from engine.validation import expect, state_int


def state_from_json(data: Any, catalogue: Catalogue | None = None) -> StephensState:
    """Rebuild and validate a position; :class:`InvalidStateError` names the field."""
    try:
        return _Reader(catalogue or default_catalogue()).state(data)
    except InvalidStateError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InvalidStateError(f"corrupt Stephens state: {type(exc).__name__}: {exc}") from exc


#: A key that can be written in a field path (as engine.game.leading_path reads them).
_NAME = re.compile(r"[a-z_][a-z0-9_-]*")

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlevel = 2


def _short(value: Any) -> str:
    """``repr(value)`` bounded in size: messages quote what a client sent."""
    return _REPR.repr(value)


def _obj(value: Any, where: str, keys: tuple[str, ...] | None = None,
         optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``value``, an object (with the fields ``keys``, but for ``optional`` ones);
    ``where``: its path, ``"state"`` for the whole state (whose fields' paths are
    their names).  A refusal names the first field missing or unknown."""
    path = "" if where == "state" else where
    expect(isinstance(value, Mapping), f"{where} must be an object", path, SHAPE)
    if keys is not None:
        prefix = f"{path}." if path else ""
        missing = [k for k in keys if k not in value and k not in optional]
        extra = [k for k in value if k not in keys]
        expect(not missing, f"{where}: missing field(s) {', '.join(missing)}",
               prefix + missing[0] if missing else path, SHAPE)
        first = str(extra[0]) if extra else ""
        expect(not extra, f"{where}: unknown field(s) {', '.join(map(str, extra))}",
               prefix + first if _NAME.fullmatch(first) else path, SHAPE)
    return value


def _list(value: Any, where: str) -> list[Any]:
    expect(isinstance(value, list), f"{where} must be a list", kind=SHAPE)
    return value


def _counts(value: Any, where: str, names: tuple[str, ...], hi: int = BIG) -> list[int]:
    value = _obj(value, where, names)
    return [state_int(value[n], f"{where}.{n}", 0, hi) for n in names]


class _Refs:
    """Catalogue ids of one kind of card, each of which may be in one place only."""

    def __init__(self, names: list[str], what: str) -> None:
        self.index = {n: i for i, n in enumerate(names)}
        self.names = names
        self.what = what
        self.at: dict[int, str] = {}

    def __call__(self, value: Any, where: str) -> int:
        expect(isinstance(value, str) and value in self.index,
               f"{where}: unknown {self.what} {_short(value)}", kind=SHAPE)
        card = self.index[value]
        expect(card not in self.at, f"{where}: {self.what} {value!r} is also at "
                                    f"{self.at.get(card)}", kind=ONE_PLACE)
        self.at[card] = where
        return card

    def cards(self, value: Any, where: str, empty_ok: bool = False) -> list[int]:
        out = []
        for i, item in enumerate(_list(value, where)):
            if empty_ok and item is None:
                out.append(EMPTY)
            else:
                out.append(self(item, f"{where}[{i}]"))
        return out

    def all_seen(self, where: str) -> None:
        lost = [n for i, n in enumerate(self.names) if i not in self.at]
        expect(not lost, f"{where}: {len(lost)} {self.what}(s) are nowhere, e.g. "
                         f"{', '.join(lost[:3])} (each card must be in exactly one place)", kind=ONE_PLACE)


class _Reader:
    def __init__(self, catalogue: Catalogue) -> None:
        self.cat = catalogue

    def state(self, data: Any) -> StephensState:
        cat = self.cat
        data = _obj(data, "state")
        expect(data.get("game") == GAME, f"field 'game' must be {GAME!r}, "
                                         f"got {_short(data.get('game'))}", "game", SHAPE)
        expect(data.get("version") == VERSION, f"unsupported state version "
                                               f"{_short(data.get('version'))}", "version",
               SHAPE)
        n = state_int(data.get("num_players"), "num_players", MIN_PLAYERS, MAX_PLAYERS)
        data = _obj(data, "state", STATE_FIELDS + (("solo",) if n == 1 else ()),
                    OPTIONAL_FIELDS)
        state = StephensState(cat, n)
        self.options(state, data["options"])
        rng = data["rng"]
        expect(isinstance(rng, str) and 1 <= len(rng) <= 16
               and all(c in "0123456789abcdefABCDEF" for c in rng),
               "rng must be a hex string of at most 16 digits", kind=SHAPE)
        state.rng = [int(rng, 16) & MASK64]
        state.round = state_int(data["round"], "round", 1, BIG)
        state.end_round = state_int(data["end_round"], "end_round", 0, BIG)
        state.active = state_int(data["active"], "active", 0, n - 1)
        stops = (cat.army.start, *cat.army.spaces)
        expect(data["army"] in stops and not isinstance(data["army"], bool),
               f"army must be a space the French army stops on ({', '.join(map(str, stops))}), "
               f"got {_short(data['army'])}", kind=SHAPE)
        state.army = data["army"]
        most = max([f.start_cubes for f in cat.furnaces]
                   + [max(c) for _, c in cat.army.refills])
        state.furnaces = _counts(data["furnaces"], "furnaces", FURNACES, most)
        factories = _obj(data["small_factories"], "small_factories", SMALL_FACTORIES)
        state.factories = [_counts(factories[name], f"small_factories.{name}", WOODEN_NAMES)
                           for name in SMALL_FACTORIES]
        self.professions(state, data)
        self.contracts_and_investments(state, data)
        players = _list(data["players"], "players")
        expect(len(players) == n, f"players must hold {n} entries, not {len(players)}", kind=SHAPE)
        for seat, entry in enumerate(players):
            state.players.append(self.player(state, entry, f"players[{seat}]"))
        self.contract_refs.all_seen("contracts")
        self.investment_refs.all_seen("investments")
        if state.solo:
            self.solo(state, data["solo"])
        if "decisions" in data:
            state.decisions = [Frame.from_json(f, f"decisions[{i}]", n)
                               for i, f in enumerate(_list(data["decisions"], "decisions"))]
            self.workers(state)
            check_stack(state)
            return state
        self.start_of_turn(state)
        return state

    def start_of_turn(self, state: StephensState) -> None:
        """A position written without ``decisions``: the start of the active seat's turn,
        which nothing in the other fields may contradict (a reset phase due or running,
        a disk still to unlock)."""
        note = (f"(a state without 'decisions' is the start of P{state.active + 1}'s turn, "
                f"no other decision pending; write 'decisions' for any other moment)")
        empty = [name for name, n in zip(FURNACES, state.furnaces, strict=True) if n == 0]
        expect(len(empty) <= 1,
               f"furnaces: {' and '.join(empty)} are empty: a turn leaving two furnaces "
               f"empty ends with a reset phase, so no turn starts with two {note}", kind=DECISIONS)
        state.decisions = turn_start(state.active)
        try:
            self.workers(state)
            check_stack(state)
        except InvalidStateError as exc:
            raise InvalidStateError(f"{exc} {note}", exc.path, exc.kind) from None

    def options(self, state: StephensState, value: Any) -> None:
        if not state.solo:
            expect(value == {}, "options: the options 'difficulty' and 'opponent' belong to "
                                "the solo game (1 player)", kind=SHAPE)
            return
        options = _obj(value, "options", ("difficulty", "opponent"))
        for name in ("difficulty", "opponent"):
            expect(isinstance(options[name], str), f"options.{name} must be a string, got "
                                                   f"{_short(options[name])}", kind=SHAPE)
        try:
            state.difficulty, state.opponent = solo_options(1, dict(options))
        except InvalidOptionError as exc:
            raise InvalidStateError(f"options: {exc}", "options", SHAPE) from None
        expect(state.opponent >= -1, "options.opponent: a position holds the card drawn "
                                     "(opponent-1 ... opponent-5), not 'random'", kind=SHAPE)

    def solo(self, state: StephensState, value: Any) -> None:
        cat = self.cat
        section = _obj(value, "solo", SOLO_FIELDS)
        refs = _Refs([c.id for c in cat.solo.automa_cards], "Automa card")
        state.automa_deck = refs.cards(section["automa_deck"], "solo.automa_deck")
        state.automa_revealed = refs.cards(section["automa_revealed"], "solo.automa_revealed")
        refs.all_seen("solo")
        state.bag = _counts(section["bag"], "solo.bag", WOODEN_NAMES)
        for name, most in zip(WOODEN_NAMES, cat.solo.bag, strict=True):
            expect(state.bag[WOODEN_NAMES.index(name)] <= most,
                   f"solo.bag.{name}: the bag holds at most {most}", kind=SHAPE)
        state.final_reset = state_int(section["final_reset"], "solo.final_reset", 0, 1)
        expect(not state.final_reset or state.army <= state.final_space(),
               f"solo.final_reset: the final reset begins when the army reaches "
               f"{state.final_space()}", kind=PHASE)
        expect(bool(state.final_reset) or state.army > state.final_space(),
               f"solo.final_reset: the army at {state.army} has made a reset final", kind=PHASE)
        for seat, player in enumerate(state.players):
            expect(player.lost_disk < 0 or not player.unlocked[player.lost_disk],
                   f"players[{seat}].unlocked: {cat.disks[player.lost_disk].id} is "
                   f"unavailable with this opponent card", kind=HISTORY)

    def professions(self, state: StephensState, data: Mapping[str, Any]) -> None:
        cat = self.cat
        refs = _Refs([p.id for p in cat.professions], "profession")
        section = _obj(data["professions"], "professions",
                       ("red_deck", "blue_deck", "display", "red_discard", "blue_discard", "box"))

        def deck_cards(name: str, deck: int, empty_ok: bool = False) -> list[int]:
            cards = refs.cards(section[name], f"professions.{name}", empty_ok)
            for i, c in enumerate(cards):
                expect(c == EMPTY or cat.professions[c].deck == deck,
                       f"professions.{name}[{i}]: {cat.professions[c].id} is not a "
                       f"{('red', 'blue', 'starting')[deck]} profession", kind=SHAPE)
            return cards

        state.profession_decks = [deck_cards("red_deck", RED), deck_cards("blue_deck", BLUE_DECK)]
        state.profession_discards = [deck_cards("red_discard", RED),
                                     deck_cards("blue_discard", BLUE_DECK)]
        display = _list(section["display"], "professions.display")
        expect(len(display) == 4, "professions.display must hold 4 spaces (red, red, blue, "
                                  "blue)", kind=SHAPE)
        state.profession_display = (
            _display_cards(refs, cat, display[:2], "professions.display", RED, 0)
            + _display_cards(refs, cat, display[2:], "professions.display", BLUE_DECK, 2))
        state.box = deck_cards("box", START)
        places = _obj(data["places"], "places", PLACES)
        for place, name in enumerate(PLACES):
            for k, entry in enumerate(_list(places[name], f"places.{name}")):
                where = f"places.{name}[{k}]"
                entry = _obj(entry, where, ("card", "master", "apprentice"))
                card = refs(entry["card"], f"{where}.card")
                prof = cat.professions[card]
                expect(prof.side == side_of_place(place),
                       f"{where}.card: {prof.id} belongs on the {SIDES[prof.side]} side", kind=SHAPE)
                expect(prof.deck != START or tier_of_place(place) == STEPHENS,
                       f"{where}.card: starting profession {prof.id} is attached to the "
                       f"Stephens' factory", kind=SHAPE)
                master = self.worker(state, entry["master"], f"{where}.master")
                state.master[card] = master
                apprentice = entry["apprentice"]
                if apprentice is not None:
                    apprentice = self.worker(state, apprentice, f"{where}.apprentice")
                    expect(prof.has_apprentice_space,
                           f"{where}.apprentice: {prof.id} has no apprentice space", kind=PLACEMENT)
                    expect(apprentice != master, f"{where}.apprentice: the master's own "
                                                 f"colour cannot reinforce {prof.id}", kind=PLACEMENT)
                    state.apprentice[card] = apprentice
                state.places[place].append(card)
        refs.all_seen("professions")

    @staticmethod
    def worker(state: StephensState, value: Any, where: str) -> int:
        """A seat, or (solo) the Automa."""
        if state.solo and value == AUTOMA_WORD:
            return AUTOMA
        return state_int(value, where, 0, state.num_players - 1)

    def contracts_and_investments(self, state: StephensState, data: Mapping[str, Any]) -> None:
        cat = self.cat
        self.contract_refs = _Refs([c.id for c in cat.contracts], "contract")
        self.investment_refs = _Refs([c.id for c in cat.investments], "investment")
        (state.contract_deck, state.contract_display,
         state.contract_discard) = self.pile(data, "contracts", self.contract_refs,
                                             len(cat.contract_costs))
        (state.investment_deck, state.investment_display,
         state.investment_discard) = self.pile(data, "investments", self.investment_refs,
                                               len(cat.investment_costs))

    @staticmethod
    def pile(data: Mapping[str, Any], kind: str, refs: _Refs,
             size: int) -> tuple[list[int], list[int], list[int]]:
        """A face-down deck, its display (``size`` spaces, null when empty), its discards."""
        section = _obj(data[kind], kind, ("deck", "display", "discard"))
        deck = refs.cards(section["deck"], f"{kind}.deck")
        display = refs.cards(section["display"], f"{kind}.display", empty_ok=True)
        expect(len(display) == size, f"{kind}.display must hold {size} spaces", kind=SHAPE)
        return deck, display, refs.cards(section["discard"], f"{kind}.discard")

    def player(self, state: StephensState, data: Any, where: str) -> Player:
        cat = self.cat
        board = cat.board
        data = _obj(data, where, PLAYER_FIELDS)
        unlocked = [0] * len(cat.disks)
        for i, name in enumerate(_list(data["unlocked"], f"{where}.unlocked")):
            if isinstance(name, str):
                name = FORMER_DISK_IDS.get(name, name)  # saved before the renaming
            expect(isinstance(name, str) and name in cat.disk_ids,
                   f"{where}.unlocked[{i}]: unknown disk {_short(name)}", kind=SHAPE)
            disk = cat.disk_ids[name]
            expect(not unlocked[disk], f"{where}.unlocked[{i}]: {name} is listed twice", kind=SHAPE)
            unlocked[disk] = 1
        player = Player(
            coins=state_int(data["coins"], f"{where}.coins", 0, BIG),
            influence=0,
            vp=state_int(data["vp"], f"{where}.vp", 0, BIG),
            forest=state_int(data["forest"], f"{where}.forest", 0, cat.forest.top),
            dune=state_int(data["dune"], f"{where}.dune", 0, cat.dune.top),
            cubes=_counts(data["cubes"], f"{where}.cubes", COLOURS),
            accessories=_counts(data["accessories"], f"{where}.accessories", cat.accessories),
            unlocked=unlocked,
            reserved=_counts(data["reserved"], f"{where}.reserved", WOODEN_NAMES),
            placed_accessories=_counts(data["placed_accessories"],
                                       f"{where}.placed_accessories", cat.accessories))
        for disk in range(len(cat.disks)):
            missing = [cat.disks[r].id for r in cat.disks[disk].requires if not unlocked[r]]
            expect(not unlocked[disk] or not missing,
                   f"{where}.unlocked: {cat.disks[disk].id} needs {', '.join(missing)} "
                   f"unlocked first", kind=ORDER)
        if state.solo and state.opponent >= 0:
            opponent = cat.solo.opponents[state.opponent]
            if opponent.effect == "influence-disks-stacked":
                player.influence_stack = opponent.n
            if opponent.effect == "ability-unavailable":
                player.lost_disk = opponent.ability
        cap = influence_cap(cat, player)
        player.influence = state_int(data["influence"], f"{where}.influence", 0, cap, kind=BOUND)
        player.contracts = self.contract_refs.cards(data["contracts"], f"{where}.contracts")
        expect(len(player.contracts) <= board.contract_slots,
               f"{where}.contracts: at most {board.contract_slots} contracts to fulfil", kind=SHAPE)
        rows = _obj(data["investments"], f"{where}.investments",
                    tuple(COLOURS[c] for c in board.investment_rows))
        for colour in board.investment_rows:
            at = f"{where}.investments.{COLOURS[colour]}"
            row = self.investment_refs.cards(rows[COLOURS[colour]], at)
            for i, card in enumerate(row):
                own = cat.investments[card].colour
                expect(own in (colour, -1), f"{at}[{i}]: {cat.investments[card].id} depicts "
                                            f"{COLOURS[own]} cubes, not {COLOURS[colour]}", kind=SHAPE)
            player.investments.append(row)
        fulfilled = _obj(data["fulfilled"], f"{where}.fulfilled",
                         tuple(cat.contract_types[k] for k in board.contract_rows))
        for kind in board.contract_rows:
            at = f"{where}.fulfilled.{cat.contract_types[kind]}"
            row = self.contract_refs.cards(fulfilled[cat.contract_types[kind]], at)
            for i, card in enumerate(row):
                expect(cat.contracts[card].type == kind,
                       f"{at}[{i}]: {cat.contracts[card].id} is a "
                       f"{cat.contract_types[cat.contracts[card].type]} contract", kind=SHAPE)
            player.fulfilled.append(row)
        # Reserved cubes lie on investment cards of their colour (L1124-L1126).
        for i, name in enumerate(WOODEN_NAMES):
            colour = WOODEN[i]
            row = player.investments[board.investment_rows.index(colour)]
            expect(not player.reserved[i] or any(cat.investments[c].colour == colour
                                                 for c in row),
                   f"{where}.reserved.{name}: no {name} investment to hold the cubes", kind=PLACEMENT)
        placed = sum(player.placed_accessories)
        room = sum(cat.contracts[c].any_accessories for row in player.fulfilled for c in row)
        expect(placed <= room, f"{where}.placed_accessories: {placed} accessories on fulfilled "
                               f"contracts that take {room} of the player's choice", kind=BOUND)
        return player

    def workers(self, state: StephensState) -> None:
        """The board could have been reached by the rules: placement counts, and one disk
        off each board per worker placed (or per unlock decision still to make)."""
        cat = self.cat
        equal = cat.disk_with("equal-placement")
        problem = placement_holds(state, any(p.unlocked[equal] for p in state.players))
        expect(problem is None, f"places: {problem} (the placement rule)", kind=PLACEMENT)
        for seat, player in enumerate(state.players):
            pending = sum(f.kind == "unlock" and f.seat == seat for f in state.decisions)
            workers = state.workers_of(seat)
            expect(workers == player.disks_taken + pending,
                   f"players[{seat}].unlocked: {workers} workers on profession cards, but "
                   f"{player.disks_taken} disks are off the board and {pending} unlock "
                   f"decision(s) pending", kind=TOTALS)
            expect(workers <= len(cat.disks),
                   f"players[{seat}]: {workers} workers on profession cards, but a player "
                   f"board holds {len(cat.disks)} disks", kind=TOTALS)


def _display_cards(refs: _Refs, cat: Catalogue, values: list[Any], where: str, deck: int,
                   offset: int) -> list[int]:
    """Profession display spaces of one colour (``None`` for an empty space)."""
    out = []
    for k, value in enumerate(values):
        at = f"{where}[{offset + k}]"
        if value is None:
            out.append(EMPTY)
            continue
        card = refs(value, at)
        expect(cat.professions[card].deck == deck,
               f"{at}: {cat.professions[card].id} is not a {('red', 'blue')[deck]} profession "
               f"(the display holds red, red, blue, blue)", kind=SHAPE)
        out.append(card)
    return out
