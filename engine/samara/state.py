"""Samara's rules in plain Python: the reference the compiled kernel is checked against.

The board is a grid of spots (row = labor strength needed, column = months
needed) holding building tiles and tools.  Workers are stacks of pawns standing
on the time track; the worker nearest the board in the current month acts next.
:class:`SamaraState` holds the position with the rules (legal moves, why a move is
illegal, playing one, the decisions special powers ask for), scoring, copies,
information and its JSON; it hands the notation over to :mod:`.moves`, features
to :mod:`.features`, drawing to :mod:`.render` and search to the kernel twin
(:mod:`.fast`).  Interpretations of the rulebook are listed in ``docs/rules/samara.md``.

>>> from engine.samara.catalogue import default_catalogue
>>> from engine.samara.setup import new_state
>>> state = new_state(default_catalogue(), seed=1, num_players=2, powers=True)
>>> state.month_name(state.month), state.current_player()
('Sep', 0)
>>> state.move_to_text(state.legal_moves()[-1])
'recruit woman'
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
)
from engine.samara.features import features
from engine.samara.moves import is_move_code, move_to_text, not_a_move, parse_move, safe_text
from engine.samara.render import render_state
from engine.samara.vocabulary import (
    BUILD,
    DECISION_KIND,
    GIVE,
    GIVE_KINDS,
    INFO,
    MAX_TOOLS,
    MONTH_NAMES,
    PRISON_MONTHS,
    RECRUIT,
    TOOL,
    VACATION,
    WAIT,
    decode_move,
    encode_move,
)
from engine.wording import count


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
                    f"{count(len(workers), 'worker')} in {self.month_name(self.month)}")
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
                return (f"{tile.name} needs {count(tile.saws, 'saw')}, "
                        f"{count(tile.trowels, 'trowel')}, {count(tile.glass, 'glass tool')}; "
                        f"you have {foreman.tools[SAW]}, "
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
        # The kernel words its illegal-move errors with the reference's text too.
        return safe_text(self, move)

    def move_to_text(self, move: int) -> str:
        return move_to_text(self, move)

    def parse_move(self, text: str) -> int:
        return parse_move(self, text)

    # -- scoring ------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(sum(self.catalogue.tiles[t].prestige for t in f.buildings))
                for f in self.foremen]

    def score_breakdown(self) -> list[list[tuple[str, float]]]:
        """Prestige is Samara's only score: each seat's buildings, one by one in the
        order they were built (a seat without buildings scores nothing)."""
        tiles = self.catalogue.tiles
        return [[(tiles[t].name, float(tiles[t].prestige)) for t in f.buildings]
                or [("no buildings", 0.0)] for f in self.foremen]

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
