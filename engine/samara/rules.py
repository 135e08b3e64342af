"""Samara's rules in plain Python: the reference the compiled kernel is checked against.

The board is a grid of spots (row = labor strength needed, column = months
needed) holding building tiles and tools.  Workers are stacks of pawns standing
on the time track; the worker nearest the board in the current month acts next.
Interpretations of the rulebook are listed in ``docs/rules/samara.md``.

>>> state = SamaraGame().new_game(seed=1, num_players=2)
>>> state.month_name(state.month)
'Sep'
>>> state.move_to_text(state.legal_moves()[-1])
'recruit woman'
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.game import (
    TERMINAL,
    Event,
    Game,
    GameInfo,
    IllegalMoveError,
    InvalidStateError,
    MoveParseError,
    Outcome,
    State,
    rank_groups,
)
from engine.playout_rng import PlayoutRng
from engine.samara import fast
from engine.samara.catalogue import (
    COMPASS,
    GLASS_A,
    GLASS_B,
    LASTING_POWERS,
    SAW,
    SQUARE,
    TOOL_NAMES,
    Catalogue,
    default_catalogue,
)
from engine.samara.features import features
from engine.samara.render import render_state
from engine.samara.schema import description
from engine.samara.vocabulary import (
    BUILD,
    BURY,
    DECISION_KIND,
    GIVE,
    GIVE_KINDS,
    IMPRISON,
    INFO,
    KIND_WORDS,
    MAX_MONTH,
    MAX_TOOLS,
    MONTH_NAMES,
    PRISON_MONTHS,
    RECRUIT,
    TOOL,
    VACATION,
    WAIT,
    WEAKEN,
    decode_move,
    encode_move,
)
from engine.seats import seat_label
from engine.state_schema import StateDescription
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

#: Every move code is below this (the kinds take the bits from 16 up).
MOVE_CODE_LIMIT = len(KIND_WORDS) << 16


def is_move_code(move: Any, num_spots: int) -> bool:
    """Whether ``move`` is a code :func:`encode_move` gives for some move of a board
    of ``num_spots`` spots (legal here or not): what ``move_to_text`` writes and
    ``parse_move`` reads back.  Negative ids, ids past :data:`MOVE_CODE_LIMIT` and
    codes with fields the move does not use are not.
    """
    if not is_int(move) or not 0 <= move < MOVE_CODE_LIMIT:
        return False
    kind, si, arg, mask = decode_move(move)
    if kind in (WAIT, VACATION):
        return si == arg == mask == 0
    if kind == RECRUIT:
        return si == mask == 0 and arg < 2
    if kind == GIVE:
        return si == mask == 0 and arg < len(TOOL_NAMES)
    if kind in (WEAKEN, BURY, IMPRISON):
        return si == mask == 0 and arg < 31  # workers 1..31
    # TOOL and BUILD: a spot of the board and a group of at least one worker.
    if si >= num_spots or mask == 0:
        return False
    return kind == BUILD or arg < len(TOOL_NAMES)


def not_a_move(move: Any) -> str:
    """The reason given for an id that is no move code of Samara."""
    return f"{short_repr(move)} is not a move of Samara"


@dataclass(eq=False)
class Worker:
    """A stack of pawns acting as one worker; its strength is its pawn count."""

    owner: int
    female: bool  # the worker's own gender: only women recruit
    men: int
    women: int

    @property
    def strength(self) -> int:
        return self.men + self.women

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "gender": "woman" if self.female else "man",
                "men": self.men, "women": self.women}


@dataclass
class Foreman:
    """A player's board: tools, pawns not in play, buildings, lasting powers."""

    tools: list[int]
    pawn_men: int
    pawn_women: int
    buildings: list[int] = field(default_factory=list)  # tile indices, in order taken
    powers: list[str] = field(default_factory=list)

    def trowels(self) -> int:
        return self.tools[COMPASS] + self.tools[SQUARE]

    def glass(self) -> int:
        return self.tools[GLASS_A] + self.tools[GLASS_B]


@dataclass
class Decision:
    """A choice a special power asks for before play goes on."""

    kind: str  # give | weaken | bury | imprison
    player: int  # who chooses
    target: int  # whose tool or worker (the chooser, except for imprison)
    spot: int = -1  # where given tools go
    count: int = 1  # tools still to give
    only: str = "any"  # which tools qualify: any | saw | trowel | glass


class SamaraState(State):
    """A Samara position.  See the module docstring for the model."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue, num_players: int, powers: bool) -> None:
        self.catalogue = catalogue
        self.num_players = num_players
        self.powers = powers
        self.month = catalogue.start_month
        self.spot_tile: list[int | None] = [None] * len(catalogue.spots)
        self.spot_tools: list[list[int]] = [[0] * 5 for _ in catalogue.spots]
        self.unused_tiles: list[int] = []
        self.track: dict[int, list[Worker]] = {}
        self.foremen: list[Foreman] = []
        self.pending: list[Decision] = []
        self.last_rollout_steps = 0  # moves made by the last rollout(), for benchmarks

    # -- time track ---------------------------------------------------------
    def track_end(self) -> int:
        """The furthest month on the track: the end of the six-month board after the current one."""
        return (self.month // 6 + 2) * 6 - 1

    @staticmethod
    def month_name(month: int) -> str:
        return MONTH_NAMES[month % 12]

    def workers_of(self, seat: int) -> list[tuple[int, Worker]]:
        """Seat's workers in track order (earliest month first, nearest the board first)."""
        return [(m, w) for m in sorted(self.track) for w in self.track[m] if w.owner == seat]

    def actor(self) -> Worker:
        return self.track[self.month][0]

    def _has(self, seat: int, power: str) -> bool:
        return power in self.foremen[seat].powers

    def _months(self, seat: int, months: int) -> int:
        """Months an action takes for ``seat``: the Bridge makes everything a month quicker."""
        if self._has(seat, "bridge"):
            return max(1, months - 1)
        return months

    def _destination(self, seat: int, start: int, months: int) -> int:
        end = self.track_end()
        dest = min(start + months, end)
        if self._has(seat, "hermit_house"):
            while dest < end and any(w.owner != seat for w in self.track.get(dest, ())):
                dest += 1
        return dest

    def _remove(self, worker: Worker) -> int:
        for month, workers in self.track.items():
            for i, w in enumerate(workers):
                if w is worker:
                    del workers[i]
                    if not workers:
                        del self.track[month]
                    return month
        raise AssertionError("worker not on the track")

    def _place(self, workers: list[Worker], dest: int) -> None:
        if not workers:
            return
        for w in workers:
            self._remove(w)
        self.track.setdefault(dest, []).extend(workers)

    # -- turn structure -----------------------------------------------------
    def is_terminal(self) -> bool:
        return not self.pending and all(t is None for t in self.spot_tile)

    def current_player(self) -> int:
        if self.pending:
            return self.pending[0].player
        if self.is_terminal():
            return TERMINAL
        return self.actor().owner

    def _finish_turn(self) -> list[str]:
        """Resolve forced decisions, then shift the track until the NOW month has workers."""
        events = self._settle()
        if self.pending or self.is_terminal():
            return events
        start = self.month
        while not self.track.get(self.month):
            self.month += 1
        if self.month != start:
            events.append(f"time track shifts to {self.month_name(self.month)}")
        return events

    # -- move generation ----------------------------------------------------
    def _own_current_workers(self) -> list[Worker]:
        actor = self.actor()
        return [w for w in self.track[self.month] if w.owner == actor.owner]

    def _strength(self, seat: int, workers: list[Worker], mask: int) -> int:
        total = sum(w.strength for i, w in enumerate(workers) if mask >> i & 1)
        if self._has(seat, "school") and bin(mask).count("1") >= 2:
            total += 1
        return total

    def worker_masks(self, row: int) -> list[int]:
        """Groups that include the acting worker, reach strength ``row``, and need every member."""
        workers = self._own_current_workers()
        seat = workers[0].owner
        masks = []
        for mask in range(1, 1 << len(workers), 2):
            if self._strength(seat, workers, mask) < row:
                continue
            if all(
                self._strength(seat, workers, mask & ~(1 << i)) < row
                for i in range(1, len(workers))
                if mask >> i & 1
            ):
                masks.append(mask)
        return masks

    @staticmethod
    def can_take_tool(foreman: Foreman, kind: int) -> bool:
        if foreman.tools[kind] >= MAX_TOOLS[kind]:
            return False
        return kind != GLASS_B or foreman.tools[GLASS_A] > 0

    def meets_tools(self, seat: int, tile_index: int) -> bool:
        tile = self.catalogue.tiles[tile_index]
        foreman = self.foremen[seat]
        if self._has(seat, "university"):
            return sum(foreman.tools) >= tile.tools_needed
        return (foreman.tools[SAW] >= tile.saws and foreman.trowels() >= tile.trowels
                and foreman.glass() >= tile.glass)

    def _trains(self, seat: int, tile_index: int) -> bool:
        foreman = self.foremen[seat]
        return (self.powers and self.catalogue.tiles[tile_index].power == "weight_room"
                and foreman.pawn_men + foreman.pawn_women > 0)

    def legal_moves(self) -> list[int]:
        if self.pending:
            return [encode_move(DECISION_KIND[self.pending[0].kind], arg=a)
                    for a in self.decision_options(self.pending[0])]
        if self.is_terminal():
            return []
        actor = self.actor()
        seat = actor.owner
        foreman = self.foremen[seat]
        masks_by_row: dict[int, list[int]] = {}
        moves: list[int] = []
        for si, spot in enumerate(self.catalogue.spots):
            tools = self.spot_tools[si]
            if not any(tools):
                continue
            kinds = [k for k in range(5) if tools[k] and self.can_take_tool(foreman, k)]
            if not kinds:
                continue
            if spot.row not in masks_by_row:
                masks_by_row[spot.row] = self.worker_masks(spot.row)
            masks = masks_by_row[spot.row]
            for kind in kinds:
                moves.extend(encode_move(TOOL, si, kind, mask) for mask in masks)
        for si, spot in enumerate(self.catalogue.spots):
            tile = self.spot_tile[si]
            if tile is None or not self.meets_tools(seat, tile):
                continue
            if spot.row not in masks_by_row:
                masks_by_row[spot.row] = self.worker_masks(spot.row)
            for mask in masks_by_row[spot.row]:
                if self._trains(seat, tile):
                    moves.extend(encode_move(BUILD, si, i + 1, mask)
                                 for i in range(5) if mask >> i & 1)
                else:
                    moves.append(encode_move(BUILD, si, 0, mask))
        if actor.female:
            if foreman.pawn_men:
                moves.append(encode_move(RECRUIT, arg=0))
            if foreman.pawn_women:
                moves.append(encode_move(RECRUIT, arg=1))
        if any(m > self.month and any(w.owner == seat for w in ws)
               for m, ws in self.track.items()):
            moves.append(encode_move(VACATION))
        if not moves:
            moves.append(encode_move(WAIT))
        return moves

    # -- decisions asked for by special powers --------------------------------
    def decision_options(self, decision: Decision) -> list[int]:
        """The ``arg`` values open to the chooser, in a fixed order."""
        if decision.kind == "give":
            tools = self.foremen[decision.target].tools
            return [k for k in GIVE_KINDS[decision.only]
                    if tools[k] and not (k == GLASS_A and tools[GLASS_B])]
        workers = [w for _, w in self.workers_of(decision.target)]
        women = sum(1 for w in workers if w.female)
        if decision.kind == "weaken":
            return [i for i, w in enumerate(workers)
                    if not (w.female and women == 1 and w.strength == 1)]
        if decision.kind == "bury":
            return [i for i, w in enumerate(workers) if not (w.female and women == 1)]
        # imprison
        five, _ = self._prison_candidates(decision.target)
        return five if five else list(range(len(workers)))

    def _prison_candidates(self, seat: int) -> tuple[list[int], list[int]]:
        """Indices of the weakest (else second-weakest) workers that can go 5 months on."""
        placed = self.workers_of(seat)
        end = self.track_end()
        for strength in sorted({w.strength for _, w in placed})[:2]:
            fits = [i for i, (m, w) in enumerate(placed)
                    if w.strength == strength and m + PRISON_MONTHS <= end]
            if fits:
                return fits, []
        return [], list(range(len(placed)))

    def _settle(self) -> list[str]:
        """Carry out decisions that leave no choice; stop at the first real choice."""
        events: list[str] = []
        while self.pending:
            options = self.decision_options(self.pending[0])
            if len(options) > 1:
                break
            if not options:
                self.pending.pop(0)
                continue
            events.extend(self._decide(options[0]))
        return events

    def _decide(self, arg: int) -> list[str]:
        decision = self.pending[0]
        name = f"P{decision.player + 1}"
        if decision.kind == "give":
            foreman = self.foremen[decision.target]
            foreman.tools[arg] -= 1
            self.spot_tools[decision.spot][arg] += 1
            decision.count -= 1
            if decision.count == 0:
                self.pending.pop(0)
            label = self.catalogue.spots[decision.spot].label
            return [f"{name} gives up a {TOOL_NAMES[arg]} (now at {label})"]
        self.pending.pop(0)
        month, worker = self.workers_of(decision.target)[arg]
        target = self.foremen[decision.target]
        if decision.kind == "bury" or (decision.kind == "weaken" and worker.strength == 1):
            self._remove(worker)
            target.pawn_men += worker.men
            target.pawn_women += worker.women
            return [f"P{decision.target + 1} loses a worker from {self.month_name(month)}"]
        if decision.kind == "weaken":
            if worker.female and worker.men or not worker.female and not worker.women:
                worker.men -= 1
                target.pawn_men += 1
            else:
                worker.women -= 1
                target.pawn_women += 1
            return [f"P{decision.target + 1}'s worker in {self.month_name(month)} "
                    f"drops to strength {worker.strength}"]
        five, _ = self._prison_candidates(decision.target)
        if five:
            dest = self._destination(decision.target, month, PRISON_MONTHS)
        else:
            dest = self.track_end()
        self._place([worker], dest)
        return [f"{name} sends P{decision.target + 1}'s worker to {self.month_name(dest)}"]

    # -- applying moves -----------------------------------------------------
    def apply(self, move: int) -> list[Event]:
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {self._safe_text(move)}: {reason}")
        return self.apply_judged(move)

    def apply_judged(self, move: int) -> list[Event]:
        # Perfect information: every event is public.
        return [Event(text) for text in self._apply_legal(move)]

    def play_legal(self, move: int) -> None:
        self._apply_legal(move)

    def _apply_legal(self, move: int) -> list[str]:
        kind, si, arg, mask = decode_move(move)
        if self.pending:
            return self._decide(arg) + self._finish_turn()
        workers = self._own_current_workers()
        seat = workers[0].owner
        foreman = self.foremen[seat]
        chosen = [w for i, w in enumerate(workers) if mask >> i & 1]
        name = f"P{seat + 1}"
        events: list[str] = []
        if kind == WAIT:
            self._place(workers[:1], self._destination(seat, self.month, 1))
            events.append(f"{name} has no action and waits a month")
        elif kind == VACATION:
            later = min(m for m, ws in self.track.items()
                        if m > self.month and any(w.owner == seat for w in ws))
            dest = self._destination(seat, later, 0)
            self._place(workers[:1], dest)
            events.append(f"{name} takes vacation until {self.month_name(dest)}")
        elif kind == RECRUIT:
            end = self.track_end()
            dest = self._destination(seat, self.month, self._months(seat, end - self.month))
            recruit = Worker(seat, arg == 1, 1 - arg, arg)
            if arg:
                foreman.pawn_women -= 1
            else:
                foreman.pawn_men -= 1
            self._place(workers[:1], dest)
            self.track[dest].append(recruit)
            events.append(f"{name} gets a new worker ({'woman' if arg else 'man'}) "
                          f"in {self.month_name(dest)}")
        elif kind == TOOL:
            spot = self.catalogue.spots[si]
            self.spot_tools[si][arg] -= 1
            foreman.tools[arg] += 1
            dest = self._destination(seat, self.month, self._months(seat, spot.col))
            self._place(chosen, dest)
            events.append(f"{name} gets a {TOOL_NAMES[arg]} from {spot.label}; workers back in "
                          f"{self.month_name(dest)}")
        else:
            events.extend(self._build(seat, si, arg, workers, mask))
        return events + self._finish_turn()

    def _build(self, seat: int, si: int, trainee: int, workers: list[Worker],
               mask: int) -> list[str]:
        """Take the tile at ``si`` with the ``mask`` group; ``trainee`` is 1 + its index."""
        chosen = [w for i, w in enumerate(workers) if mask >> i & 1]
        spot = self.catalogue.spots[si]
        tile_index = self.spot_tile[si]
        assert tile_index is not None
        tile = self.catalogue.tiles[tile_index]
        foreman = self.foremen[seat]
        self.spot_tile[si] = None
        foreman.buildings.append(tile_index)
        months = self._months(seat, spot.col)
        dest = self._destination(seat, self.month, months)
        if trainee:
            trained = workers[trainee - 1]
            self._place([w for w in chosen if w is not trained], dest)
        else:
            self._place(chosen, dest)
        events = [f"{self._who(seat)} builds {tile.name} at {spot.label} "
                  f"(+{tile.prestige} prestige); workers back in {self.month_name(dest)}"]
        if trainee:
            trained_dest = self._destination(seat, self.month, self._months(seat, spot.col + 1))
            self._place([trained], trained_dest)
            if foreman.pawn_women and (trained.female or not foreman.pawn_men):
                foreman.pawn_women -= 1
                trained.women += 1
            else:
                foreman.pawn_men -= 1
                trained.men += 1
            events.append(f"{self._who(seat)} trains a worker to strength {trained.strength} "
                          f"(back in {self.month_name(trained_dest)})")
        if self.powers and tile.power:
            events.extend(self._take_power(seat, si, tile.power))
        return events

    def _who(self, seat: int) -> str:
        return f"P{seat + 1}"

    def _take_power(self, seat: int, si: int, power: str) -> list[str]:
        foreman = self.foremen[seat]
        others = [(seat + k) % self.num_players for k in range(1, self.num_players)]
        if power in LASTING_POWERS:
            foreman.powers.append(power)
            return [f"{self._who(seat)} now has the power of the {power.replace('_', ' ')}"]
        if power == "boat":
            self.pending.append(Decision("give", seat, seat, si, only="saw"))
        elif power == "vase":
            self.pending.append(Decision("give", seat, seat, si, only="glass"))
        elif power == "sculpture":
            self.pending.append(Decision("give", seat, seat, si, only="trowel"))
        elif power == "ruin":
            self.pending.append(Decision("give", seat, seat, si, count=2))
        elif power == "barracks":
            self.pending.extend(Decision("give", q, q, si) for q in others)
        elif power == "hospital":
            self.pending.extend(Decision("weaken", q, q) for q in others)
        elif power == "tombstone":
            self.pending.append(Decision("bury", seat, seat))
        elif power == "prison":
            self.pending.extend(Decision("imprison", seat, q) for q in others)
        return []

    # -- legality explained ---------------------------------------------------
    def is_move_code(self, move: int) -> bool:
        """Whether ``move`` is a move code of this board (see :func:`is_move_code`)."""
        return is_move_code(move, len(self.catalogue.spots))

    def why_illegal(self, move: int) -> str | None:
        if not self.is_move_code(move):
            return not_a_move(move)
        if move in self.legal_moves():
            return None
        if self.is_terminal():
            return "the game is over"
        kind, si, arg, mask = decode_move(move)
        if self.pending:
            decision = self.pending[0]
            ask = self._decision_prompt(decision)
            if kind != DECISION_KIND[decision.kind]:
                return f"P{decision.player + 1} must first decide: {ask}"
            return f"that choice is not open: {ask}"
        if kind >= GIVE:
            return "no special power is asking for a decision now"
        seat = self.actor().owner
        foreman = self.foremen[seat]
        workers = self._own_current_workers()
        if kind == WAIT:
            return "waiting is only allowed when no other action is possible"
        if kind == VACATION:
            return "vacation needs one of your workers in a later month"
        if kind == RECRUIT:
            if not self.actor().female:
                return "only a woman can get a new worker, and the acting worker is a man"
            return f"you have no {'woman' if arg else 'man'} left on your Foreman board"
        if si >= len(self.catalogue.spots):
            return f"there is no spot number {si}"
        spot = self.catalogue.spots[si]
        if mask >> len(workers) or not mask & 1:
            return (f"the group must include your acting worker (1) and only your "
                    f"{len(workers)} worker(s) in {self.month_name(self.month)}")
        strength = self._strength(seat, workers, mask)
        if kind == TOOL:
            if arg > GLASS_B:
                return "no such tool"
            if not self.spot_tools[si][arg]:
                return f"there is no {TOOL_NAMES[arg]} at {spot.label}"
            if foreman.tools[arg] >= MAX_TOOLS[arg]:
                held = foreman.tools[arg]
                return f"you already hold {held} {TOOL_NAMES[arg]}, the most allowed"
            if arg == GLASS_B and not foreman.tools[GLASS_A]:
                return "your first glass-blowing tool must be glass-a"
        else:
            tile_index = self.spot_tile[si]
            if tile_index is None:
                return f"the building at {spot.label} has already been taken"
            if not self.meets_tools(seat, tile_index):
                tile = self.catalogue.tiles[tile_index]
                return (f"{tile.name} needs {tile.saws} saw(s), {tile.trowels} trowel(s), "
                        f"{tile.glass} glass tool(s); you have {foreman.tools[SAW]}, "
                        f"{foreman.trowels()}, {foreman.glass()}")
            if arg and not self._trains(seat, tile_index):
                return "only the Weight Room trains a worker, and only with a pawn to spare"
            if self._trains(seat, tile_index) and not (arg and mask >> (arg - 1) & 1):
                return "name which worker of the group trains at the Weight Room"
        if strength < spot.row:
            return (f"needs labor strength {spot.row} in the current month; "
                    f"that group has {strength}")
        return "every worker in the group must be needed to reach the labor strength"

    def _decision_prompt(self, decision: Decision) -> str:
        who = f"P{decision.target + 1}"
        if decision.kind == "give":
            what = "a tool" if decision.only == "any" else f"a {decision.only} tool"
            return f"choose {what} to give up ({decision.count} left)"
        return {"weaken": f"choose one of {who}'s workers to lose 1 strength (Hospital)",
                "bury": f"choose one of {who}'s workers to lose (Tombstone)",
                "imprison": f"choose one of {who}'s workers to send forward (Prison)"}[decision.kind]

    # -- notation -----------------------------------------------------------
    def _safe_text(self, move: int) -> str:
        if not isinstance(move, int) or isinstance(move, bool) or move < 0:
            return repr(move)
        try:
            return self.move_to_text(move)
        except (ValueError, IndexError, KeyError):
            return str(move)

    def move_to_text(self, move: int) -> str:
        if not self.is_move_code(move):
            raise MoveParseError(not_a_move(move))
        kind, si, arg, mask = decode_move(move)
        word = KIND_WORDS[kind]
        if kind in (WAIT, VACATION):
            return word
        if kind == RECRUIT:
            return f"recruit {'woman' if arg else 'man'}"
        if kind == GIVE:
            return f"give {TOOL_NAMES[arg]}" if arg < 5 else f"give {arg}"
        if kind in (WEAKEN, BURY, IMPRISON):
            return f"{word} {arg + 1}"
        label = self.catalogue.spots[si].label if si < len(self.catalogue.spots) else f"s{si}"
        group = "+".join(str(i + 1) for i in range(5) if mask >> i & 1) or "0"
        if kind == TOOL:
            return f"tool {TOOL_NAMES[arg] if arg < 5 else arg} {label} {group}"
        text = f"build {label} {group}"
        return f"{text} train {arg}" if arg else text

    def _spot_ranges(self) -> str:
        """The board's spots, row by row: ``r1c1-r1c7, ..., r4c4-r4c9``."""
        rows: dict[int, list[int]] = {}
        for spot in self.catalogue.spots:
            rows.setdefault(spot.row, []).append(spot.col)
        return ", ".join(f"r{r}c{min(cols)}-r{r}c{max(cols)}" for r, cols in sorted(rows.items()))

    def parse_move(self, text: str) -> int:
        words = str(text).strip().lower().split()
        if not words:
            raise MoveParseError("empty move")
        word = words[0]

        def fail(expected: str) -> MoveParseError:
            return MoveParseError(f"cannot read move {text!r}: expected {expected}")

        def number(token: str, what: str) -> int:
            if not token.isdigit() or not 1 <= int(token) <= 31:
                raise fail(f"{what} as a number from 1")
            return int(token)

        def spot(token: str) -> int:
            try:
                return self.catalogue.spot_index(token)
            except KeyError:
                if re.fullmatch(r"r\d+c\d+", token):
                    raise MoveParseError(f"cannot read move {text!r}: {token} is off the "
                                         f"board, whose spots are {self._spot_ranges()}"
                                         ) from None
                raise fail("a board spot like r3c1") from None

        def group(token: str) -> int:
            mask = 0
            for part in token.split("+"):
                mask |= 1 << (number(part, "workers like 1+3") - 1)
            if mask >= 32:
                raise fail("at most 5 workers")
            return mask

        def tool(token: str) -> int:
            if token not in TOOL_NAMES:
                raise fail(f"a tool ({', '.join(TOOL_NAMES)})")
            return TOOL_NAMES.index(token)

        if word in ("wait", "vacation") and len(words) == 1:
            return encode_move(KIND_WORDS.index(word))
        if word == "recruit" and len(words) == 2 and words[1] in ("man", "woman"):
            return encode_move(RECRUIT, arg=int(words[1] == "woman"))
        if word == "tool" and len(words) == 4:
            return encode_move(TOOL, spot(words[2]), tool(words[1]), group(words[3]))
        if word == "build" and len(words) == 3:
            return encode_move(BUILD, spot(words[1]), 0, group(words[2]))
        if word == "build" and len(words) == 5 and words[3] == "train":
            return encode_move(BUILD, spot(words[1]), number(words[4], "the trainee"),
                               group(words[2]))
        if word == "give" and len(words) == 2:
            return encode_move(GIVE, arg=tool(words[1]))
        if word in ("weaken", "bury", "imprison") and len(words) == 2:
            return encode_move(KIND_WORDS.index(word), arg=number(words[1], "a worker") - 1)
        raise fail("one of: wait | vacation | recruit man|woman | tool KIND SPOT GROUP | "
                   "build SPOT GROUP [train N] | give KIND | weaken N | bury N | imprison N")

    # -- scoring ------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(sum(self.catalogue.tiles[t].prestige for t in f.buildings))
                for f in self.foremen]

    def first_available(self, seat: int) -> tuple[int, int]:
        """(month, place in that month) of the seat's next worker to act: the tie-break."""
        for month in sorted(self.track):
            for i, w in enumerate(self.track[month]):
                if w.owner == seat:
                    return month, i
        return 1 << 30, 0

    def ranking(self) -> list[list[int]]:
        keys = []
        for seat, score in enumerate(self.scores()):
            month, place = self.first_available(seat)
            keys.append((score, -month, -place))
        return rank_groups(keys)

    def heuristic(self) -> list[float]:
        """Prestige, plus half a point per tool and per strength, minus half a point per
        strength-month a seat's workers still have to wait (time is Samara's currency)."""
        values = []
        prestige = self.scores()
        for seat, foreman in enumerate(self.foremen):
            placed = self.workers_of(seat)
            strength = sum(w.strength for _, w in placed)
            waiting = sum(w.strength * (m - self.month) for m, w in placed)
            values.append(prestige[seat] + 0.5 * sum(foreman.tools) + 0.5 * strength
                          - 0.5 * waiting)
        return values

    def features(self) -> list[list[float]]:
        return features(self)

    # -- copies, information, serialization -----------------------------------
    def clone(self) -> SamaraState:
        twin = SamaraState(self.catalogue, self.num_players, self.powers)
        twin.month = self.month
        twin.spot_tile = list(self.spot_tile)
        twin.spot_tools = [list(t) for t in self.spot_tools]
        twin.unused_tiles = list(self.unused_tiles)
        twin.track = {m: [Worker(w.owner, w.female, w.men, w.women) for w in ws]
                      for m, ws in self.track.items()}
        twin.foremen = [Foreman(list(f.tools), f.pawn_men, f.pawn_women, list(f.buildings),
                                list(f.powers)) for f in self.foremen]
        twin.pending = [Decision(d.kind, d.player, d.target, d.spot, d.count, d.only)
                        for d in self.pending]
        return twin

    def rollout(self, seed: int) -> Outcome:
        # The base class's loop, minus the legality check: moves come from legal_moves().
        rng = PlayoutRng(seed)
        steps = 0
        while not self.is_terminal():
            moves = self.legal_moves()
            self._apply_legal(moves[rng.below(len(moves))])
            steps += 1
        self.last_rollout_steps = steps
        return self.outcome()

    def observation(self, seat: int | None) -> dict[str, Any]:
        data = self.to_json()
        data["observer"] = seat
        return data

    def determinize(self, observer: int | None, rng: random.Random) -> SamaraState:
        # Samara is perfect information once the tiles are laid: nothing to resample.
        return self.clone()

    def search_state(self) -> State:
        return fast.kernel_twin(self) or self

    def to_json(self) -> dict[str, Any]:
        tiles = self.catalogue.tiles
        spots = self.catalogue.spots
        return {
            "game": "samara",
            "version": 1,
            "num_players": self.num_players,
            "options": {"powers": self.powers},
            "month": self.month,
            "spots": [
                {"spot": spot.label,
                 "tile": None if (t := self.spot_tile[i]) is None else tiles[t].id,
                 "tools": dict(zip(TOOL_NAMES, self.spot_tools[i], strict=True))}
                for i, spot in enumerate(spots)
            ],
            "unused_tiles": [tiles[t].id for t in self.unused_tiles],
            "track": [{"month": m, "workers": [w.to_json() for w in self.track[m]]}
                      for m in sorted(self.track)],
            "foremen": [
                {"tools": dict(zip(TOOL_NAMES, f.tools, strict=True)),
                 "pawns": {"men": f.pawn_men, "women": f.pawn_women},
                 "buildings": [tiles[t].id for t in f.buildings],
                 "powers": list(f.powers)}
                for f in self.foremen
            ],
            "pending": [
                {"kind": d.kind, "player": d.player, "target": d.target,
                 "spot": spots[d.spot].label if d.spot >= 0 else None,
                 "count": d.count, "only": d.only}
                for d in self.pending
            ],
        }

    def render(self, observer: int | None = None) -> str:
        # Perfect information: every seat sees the same board.
        return render_state(self)


def new_state(catalogue: Catalogue, seed: int, num_players: int, powers: bool) -> SamaraState:
    """Set up a game: lay 30 of the 36 tiles and the mixed tool sets, place the workers."""
    rng = random.Random(seed)
    state = SamaraState(catalogue, num_players, powers)
    order = list(range(len(catalogue.tiles)))
    rng.shuffle(order)
    used = len(catalogue.spots)
    state.spot_tile = list(order[:used])
    state.unused_tiles = sorted(order[used:])
    tools = [kind for kind in range(5) for _ in range(catalogue.tool_set[kind] * num_players)]
    rng.shuffle(tools)
    column = num_players - 2
    for si, spot in enumerate(catalogue.spots):
        for _ in range(spot.tools[column]):
            state.spot_tools[si][tools.pop()] += 1
    # 1 man and 1 woman wait on the board; 1 woman and a double-pawn man stand in the month.
    state.foremen = [Foreman([0] * 5, catalogue.pawn_men - 2, catalogue.pawn_women - 1)
                     for _ in range(num_players)]
    women = [Worker(p, True, 0, 1) for p in range(num_players)]
    men = [Worker(p, False, 2, 0) for p in reversed(range(num_players))]
    state.track[state.month] = women + men
    return state


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
        _expect(state.month in state.track, "month: no worker stands in the current month")
    return state


def _tools(value: Any, where: str) -> list[int]:
    value = state_object(value, where)
    _expect(set(value) == set(TOOL_NAMES), f"{where} must map exactly {', '.join(TOOL_NAMES)} "
                                          f"to counts")
    return [_int(value[name], f"{where}.{name}", 0, 99) for name in TOOL_NAMES]


def _read_spots(state: SamaraState, value: Any, tiles: UniqueRefs) -> None:
    spots = state.catalogue.spots
    for i, entry in enumerate(state_list(value, "spots", len(spots))):
        where = f"spots[{i}]"
        entry = state_object(entry, where)
        _expect(entry.get("spot") == spots[i].label,
                f"{where}.spot must be {spots[i].label!r}, got {short_repr(entry.get('spot'))}")
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
                    f"{where}.tools.{TOOL_NAMES[kind]}: {tools[kind]} is more than {limit}")
        _expect(tools[GLASS_B] <= tools[GLASS_A], f"{where}.tools: glass-b without glass-a")
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
        _expect(power in owned, f"{where}: {power!r} without its building")
        _expect(powers.count(power) == 1, f"{where}: {power!r} is listed twice")
        _expect(state.powers, f"{where}: {power!r} in a game played without powers")
    if state.powers:
        for power in owned:
            _expect(power in powers, f"{where}: {power!r} is missing: its building was taken "
                                     f"in a game played with powers")
    return powers


def _check_tiles(state: SamaraState, tiles: UniqueRefs) -> None:
    catalogue = state.catalogue
    _expect(tiles.missing() == 0,
            f"tiles: {tiles.missing()} catalogue tile(s) are nowhere "
            f"(each must be on a spot, unused, or on a Foreman board)")
    _expect(len(state.unused_tiles) == len(catalogue.tiles) - len(catalogue.spots),
            f"unused_tiles must list {len(catalogue.tiles) - len(catalogue.spots)} tiles")


def _read_track(state: SamaraState, value: Any) -> None:
    last = -1
    for k, entry in enumerate(state_list(value, "track")):
        where = f"track[{k}]"
        entry = state_object(entry, where)
        month = _int(entry.get("month"), f"{where}.month", state.month, state.track_end())
        _expect(month > last, f"{where}.month: months must be increasing")
        last = month
        workers = state_list(entry.get("workers"), f"{where}.workers")
        _expect(len(workers) > 0, f"{where}.workers must be a non-empty list")
        state.track[month] = [_read_worker(state, w, f"{where}.workers[{j}]")
                              for j, w in enumerate(workers)]


def _read_worker(state: SamaraState, value: Any, where: str) -> Worker:
    w = state_object(value, where)
    owner = _int(w.get("owner"), f"{where}.owner", 0, state.num_players - 1)
    female = state_choice(w.get("gender"), f"{where}.gender", ("man", "woman")) == "woman"
    men = _int(w.get("men"), f"{where}.men", 0, 9)
    women = _int(w.get("women"), f"{where}.women", 0, 9)
    _expect(men + women >= 1, f"{where}: a worker needs at least one pawn")
    _expect(women >= 1 if female else men >= 1, f"{where}: no pawn of the worker's gender")
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
                f"{catalogue.pawn_men} and {catalogue.pawn_women}")
        _expect(any(w.female for w in workers), f"foremen[{p}]: no woman worker on the track")
    n = state.num_players
    for kind in range(5):
        total = sum(t[kind] for t in state.spot_tools) + sum(f.tools[kind] for f in state.foremen)
        expected = catalogue.tool_set[kind] * n
        _expect(total == expected, f"tools: {total} {TOOL_NAMES[kind]} in play, "
                                   f"{n} players have {expected}")


def _read_decision(state: SamaraState, value: Any, where: str) -> Decision:
    entry = state_object(value, where)
    n = state.num_players
    kind = state_choice(entry.get("kind"), f"{where}.kind", tuple(DECISION_KIND))
    player = _int(entry.get("player"), f"{where}.player", 0, n - 1)
    target = _int(entry.get("target"), f"{where}.target", 0, n - 1)
    label, count, only = entry.get("spot"), entry.get("count", 1), entry.get("only", "any")
    if kind != "give":
        _expect(label is None, f"{where}.spot: only a give decision names a spot")
        _expect(count == 1 and is_int(count), f"{where}.count must be 1 for {kind}")
        _expect(only == "any", f"{where}.only must be 'any' for {kind}")
        return Decision(kind, player, target)
    labels = [s.label for s in state.catalogue.spots]
    spot = labels.index(state_choice(label, f"{where}.spot", labels))
    _expect(state.spot_tile[spot] is None,
            f"{where}.spot: {label} still holds a tile; given tools go to the spot of the "
            f"building just taken")
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
    _expect(state.powers, "pending: decisions in a game played without powers")
    _expect(len(pending) <= n - 1, f"pending: {len(pending)} decisions, a power asks at most "
                                   f"the {n - 1} other seat(s)")
    for k, d in enumerate(pending):
        where = f"pending[{k}]"
        _expect((d.kind, d.spot, d.only, d.count) == (first.kind, first.spot, first.only,
                                                      first.count),
                f"{where}: pending decisions come from one power, like pending[0]")
        if d.kind == "imprison":
            _expect(d.player == first.player and d.target != d.player,
                    f"{where}: the Prison's builder (pending[0].player) decides for each "
                    f"other seat")
        else:
            _expect(d.target == d.player, f"{where}.target: a seat decides {d.kind} for itself")
        if k:
            before = pending[k - 1].target
            _expect(d.target == (before + 1) % n, f"{where}: decisions go clockwise, "
                                                  f"{seat_label(before)} then "
                                                  f"{seat_label((before + 1) % n)}")
    sources = _decision_sources(state)
    _expect(bool(sources), f"pending: no power queues these {first.kind} decisions together")
    _expect(any(_last_power(state, builder) == power for power, builder in sources),
            "pending: these decisions come from a power just used: "
            + " or ".join(f"P{b + 1}'s last building would be the "
                          f"{p.replace('_', ' ').title()}" for p, b in sources))
    _expect(bool(state.decision_options(first)),
            f"pending[0]: {state._decision_prompt(first)} is impossible: "
            f"P{first.target + 1} has nothing that qualifies")


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


class SamaraGame(Game):
    """Factory of Samara states, registered as ``samara``."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, catalogue: Catalogue | None = None) -> None:
        self.catalogue = catalogue or default_catalogue()

    def new_game(self, seed: int, num_players: int,
                 options: Mapping[str, Any] | None = None) -> SamaraState:
        INFO.check_players(num_players)
        resolved = INFO.resolve_options(options)
        return new_state(self.catalogue, int(seed), num_players, bool(resolved["powers"]))

    def state_from_json(self, data: Mapping[str, Any]) -> SamaraState:
        return state_from_json(data, self.catalogue)

    def kernel_available(self) -> bool:
        return fast.kernel_module() is not None

    def state_description(self) -> StateDescription:
        return description(self.catalogue)
