"""Is a decision stack one the game can be in?  Checks for the JSON decoder.

The stack is read from the bottom, as the flow builds it (:mod:`engine.stephens.flow`):

* setup: the first turn, then the setup decisions still to make (every player's
  starting disk, then every player's accessory, the start player's on top);
* a turn: the turn (stage 1, the active seat) and what its action left to decide:
  the action itself, a disk to unlock, the effect of 3+ products, an acquisition,
  or the players of an activated row in turn order (the next one on top), maybe
  with the colours of "any" gains of the player who just collected;
* a reset after a turn: the turn (stage 2, passing the turn on), the reset, and the
  decisions of its current step for the players still to decide, in turn order
  from the trigger player; supplying leaves the bonuses of the player who finished
  (acquisitions, the influence, worker assignments with their disk, accessory types);
* the final reset alone; nothing once the game is over.

Each frame's context must fit the position (a supply needs reserved cubes, an
acquisition's hole is on the display, an activation's player has a worker left in
the row, ...), so that a decoded position never leaves a player without a legal
move.  Failures name the frame: ``decisions[3]``.

The decision on top must offer a choice, as play leaves it (a single option is played
at once), except an activation: counting its plans takes the exhaustive plan search,
seconds to minutes with many workers in the row, so the loader accepts one plan or
more, and doing nothing (or a plan leaving more) is always one.
"""

from __future__ import annotations

from engine.game import InvalidStateError
from engine.refusals import DECISIONS
from engine.stephens.activation import most_any_cubes, row_workers
from engine.stephens.displays import display
from engine.stephens.flow import hooks_of, legal_moves
from engine.stephens.frames import PROCEDURES, Frame
from engine.stephens.investments import investment_columns
from engine.stephens.opponents import closed_space
from engine.stephens.position import EMPTY, Position
from engine.stephens.reset import (
    ARMY,
    DONE,
    FULFIL_STEP,
    RESET_VP,
    SUPPLY_STEP,
    step_after,
)
from engine.stephens.reset import (
    INVESTMENTS as INVESTMENT_STEP,
)
from engine.stephens.supply import completable, deliveries_of
from engine.stephens.vocabulary import CONTRACTS, INVESTMENTS, PLACES, SMALL_FACTORIES

#: The most "any" cubes or accessories one decision names (a generous bound).
MOST_ANY = 12


class _Fail(Exception):
    pass


def check_stack(state: Position) -> None:
    """Raise :class:`InvalidStateError` naming the frame when the stack is impossible."""
    try:
        _Stack(state).check()
    except _Fail as exc:
        raise InvalidStateError(str(exc), kind=DECISIONS) from None


class _Stack:
    def __init__(self, state: Position) -> None:
        self.state = state
        self.frames = state.decisions
        self.i = 0

    # -- reading ------------------------------------------------------------------------
    def fail(self, message: str, at: int | None = None) -> _Fail:
        index = self.i if at is None else at
        return _Fail(f"decisions[{index}]: {message}")

    def peek(self) -> Frame | None:
        return self.frames[self.i] if self.i < len(self.frames) else None

    def take(self, kind: str, seat: int | None = None) -> Frame:
        frame = self.peek()
        if frame is None or frame.kind != kind:
            found = "nothing" if frame is None else f"a {frame.kind!r} frame"
            raise self.fail(f"expected a {kind!r} frame here, found {found}")
        if seat is not None and frame.seat != seat:
            raise self.fail(f"the {kind!r} frame belongs to seat {seat}, not {frame.seat}")
        self.i += 1
        return frame

    def done(self) -> None:
        if self.i != len(self.frames):
            raise self.fail(f"a {self.frames[self.i].kind!r} frame cannot come here")

    def value(self, frame: Frame, name: str, lo: int, hi: int) -> int:
        value = frame.get(name)
        if not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(f"context.{name} of the {frame.kind!r} frame must be an integer "
                            f"in {lo}..{hi}, got {value!r}", self.i - 1)
        return value

    # -- the whole stack -----------------------------------------------------------------
    def check(self) -> None:
        state = self.state
        self.game_end()
        self.displays()
        if not self.frames and state.solo:
            if not state.final_reset:
                raise _Fail("decisions: a solo game is over only after the final reset")
            return
        if not self.frames:
            if not state.end_round or state.round != state.end_round + 1:
                raise _Fail("decisions: the game is over only after the final reset, in the "
                            "round after the one in which the end was triggered")
            return
        in_reset = any(f.kind == "reset" for f in self.frames)
        for seat, player in enumerate(state.players):
            if any(player.reserved) and not in_reset:
                raise _Fail(f"players[{seat}].reserved: cubes are reserved on investments "
                            f"only during a reset phase")
        top = self.frames[-1]
        if top.kind in PROCEDURES:
            raise self.fail(f"the top frame must be a decision, not a {top.kind!r} step",
                            len(self.frames) - 1)
        bottom = self.frames[0]
        if state.solo:
            self.solo()
        elif bottom.kind == "turn":
            turn = self.take("turn", state.active)
            stage = self.value(turn, "stage", 0, 2)
            if stage == 0:
                self.setup()
            elif stage == 1:
                self.turn_content()
            else:
                reset = self.take("reset", state.active)
                if self.value(reset, "final", 0, 0) != 0:
                    raise self.fail("only the final reset ends a game")
                self.reset_content(reset)
        elif bottom.kind == "reset":
            reset = self.take("reset", state.num_players - 1)
            self.value(reset, "final", 1, 1)
            if not (state.end_round and state.round == state.end_round + 1
                    and state.active == state.num_players - 1):
                raise self.fail("the final reset comes after the last turn of the round after "
                                "the one in which the end was triggered", 0)
            self.reset_content(reset)
        else:
            raise self.fail("the bottom frame is the turn or the final reset", 0)
        self.done()
        if top.kind == "activation":
            # Not counted: its plans take an exhaustive search (seconds with many
            # workers in the row); it always has one, doing nothing or better, and a
            # single one is offered as it is (docs/rules/stephens.md, the loader).
            return
        if len(legal_moves(state)) < 2:
            raise self.fail(f"the {top.kind!r} decision on top must offer a choice (a single "
                            f"option is played at once)", len(self.frames) - 1)

    def game_end(self) -> None:
        state = self.state
        if state.solo:
            if state.end_round or state.active:
                raise _Fail("end_round: a solo game has no end round (the final reset ends it) "
                            "and the player is always active")
            return
        met = max(p.vp for p in state.players) >= state.army
        if met != bool(state.end_round):
            raise _Fail("end_round: the end is triggered (end_round > 0) exactly when some "
                        "score has reached the French army")
        if state.end_round and not state.end_round <= state.round <= state.end_round + 1:
            raise _Fail("round: the game ends with the round after the one in which the end "
                        "was triggered (end_round)")

    def displays(self) -> None:
        """Cards lie on the cheapest spaces; a dear space is empty only when the deck is,
        apart from the space a card was just taken from (an acquisition on top)."""
        top = self.frames[-1] if self.frames else None
        for kind, name in ((CONTRACTS, "contracts"), (INVESTMENTS, "investments")):
            spaces = display(self.state, kind)
            hole = None
            if top is not None and top.kind == "acquire" and top.get("pile") == kind:
                first = top.get("first")
                if isinstance(first, int) and 0 <= first < len(spaces):
                    hole = first
            closed = closed_space(self.state, kind)
            if closed is not None and spaces[closed] != EMPTY:
                raise _Fail(f"{name}.display: the space costing 5 is closed by the opponent "
                            f"card")
            cards = [c for k, c in enumerate(spaces) if k not in (hole, closed)]
            if EMPTY in cards:
                if any(c != EMPTY for c in cards[cards.index(EMPTY):]):
                    raise _Fail(f"{name}.display: the cards slide to the cheapest spaces")
                deck = self.state.contract_deck if kind == CONTRACTS else \
                    self.state.investment_deck
                if deck:
                    raise _Fail(f"{name}.display: an empty space is refilled while the deck "
                                f"holds cards")

    def solo(self) -> None:
        """The solo stack: the player's turn (setup, its action, the reset after it, or
        the reset after the Automa's turn), or the Automa's turn waiting for the player."""
        state = self.state
        bottom = self.frames[0]
        if bottom.kind == "automa":
            automa = self.take("automa", 0)
            self.value(automa, "stage", 1, 1)
            if not state.automa_revealed:
                raise self.fail("the Automa's turn waits after revealing a card", 0)
            frame = self.peek()
            if frame is not None and frame.kind == "remove":
                self.take("remove", 0)
                factory = self.value(frame, "factory", 0, len(SMALL_FACTORIES) - 1)
                n = self.value(frame, "n", 1, max(state.catalogue.solo.worker_supply))
                if sum(state.factories[factory]) <= n:
                    raise self.fail("the Automa removes every cube of a factory holding no "
                                    "more than its number without asking", self.i - 1)
            else:
                self.activations(0)
            return
        turn = self.take("turn", 0)
        stage = self.value(turn, "stage", 0, 2)
        if stage == 1:
            self.turn_content()
            return
        if stage == 0 and state.round == 1 and not state.automa_revealed:
            self.setup()
            return
        reset = self.take("reset", 0)
        if self.value(reset, "final", 0, 0) != 0:
            raise self.fail("a solo reset is never marked final (solo.final_reset is)")
        self.reset_content(reset)

    def setup(self) -> None:
        state = self.state
        n = state.num_players
        if state.round != 1 or state.active != 0 or state.end_round:
            raise self.fail("setup decisions come before the first turn of round 1", 0)
        expected = [("unlock", s) for s in reversed(range(n))] + \
                   [("accessory", s) for s in reversed(range(n))]
        rest = [(f.kind, f.seat) for f in self.frames[1:]]
        if rest != expected[:len(rest)]:
            raise self.fail("setup decisions are every player's starting disk, then every "
                            "player's accessory, the start player's on top", 1)
        self.i = len(self.frames)

    # -- a turn ------------------------------------------------------------------------------
    def turn_content(self) -> None:
        state = self.state
        active = state.active
        frame = self.peek()
        if frame is None:
            raise self.fail("a turn in progress has a decision pending")
        empty = sum(n == 0 for n in state.furnaces)
        if frame.kind == "action":
            self.take("action", active)
            self.value(frame, "discarded", 0, 1)
            if empty > 1:
                raise self.fail("a turn starts with at most one empty furnace", self.i - 1)
            return
        if empty > 2:
            raise self.fail("a turn empties at most one furnace", self.i - 1)
        if frame.kind == "unlock":
            self.take("unlock", active)
        elif frame.kind == "effect":
            self.take("effect", active)
            self.value(frame, "factory", 0, len(SMALL_FACTORIES) - 1)
        elif frame.kind == "acquire":
            self.acquire(active, either=False)
        else:
            self.activations(active)

    def activations(self, first: int) -> None:
        state = self.state
        n = state.num_players
        order = [(first + k) % n for k in range(n)]
        seats = []
        place = None
        while (frame := self.peek()) is not None and frame.kind == "activation":
            self.take("activation")
            where = self.value(frame, "place", 0, len(PLACES) - 1)
            used = self.value(frame, "used", 0, (1 << 18) - 1)
            workers = len(row_workers(state, frame.seat, where))
            if used >> workers:
                raise self.fail(f"context.used names a worker seat {frame.seat} does not have "
                                f"in the row", self.i - 1)
            if used == (1 << workers) - 1:
                raise self.fail(f"seat {frame.seat} has no worker left to collect in the "
                                f"activated row", self.i - 1)
            if place is not None and where != place:
                raise self.fail("one row is activated at a time", self.i - 1)
            place = where
            if used and self.peek() is not None and self.peek().kind == "activation":  # type: ignore[union-attr]
                raise self.fail("only the player deciding now may have collected in part",
                                self.i - 1)
            seats.append(frame.seat)
        positions = [order.index(s) for s in seats]
        if positions != sorted(set(positions), reverse=True):
            raise self.fail("the players of an activated row decide in turn order from the "
                            "active player, each once", self.i - 1)
        gained = self.peek()
        if gained is not None:
            self.colours(gained.seat)
        elif not seats:
            raise self.fail("a turn in progress has a decision pending")

    def colours(self, seat: int) -> None:
        for kind in ("accessories", "cubes"):
            frame = self.peek()
            if frame is not None and frame.kind == kind:
                self.exchange(self.take(kind, seat))

    def exchange(self, frame: Frame) -> None:
        # Only plans exchange cubes, and one plan pays and gains few "any" cubes (1 and
        # 5 in the catalogue); six colours make many exchanges of more (12 and 12:
        # 648,855, beyond the kernel's moves).
        most_paid, most_gained = most_any_cubes(self.state.catalogue) \
            if frame.kind == "cubes" else (MOST_ANY, MOST_ANY)
        paid = self.value(frame, "paid", 0, most_paid)
        gained = self.value(frame, "gained", 0, most_gained)
        player = self.state.players[frame.seat]
        held = sum(player.cubes if frame.kind == "cubes" else player.accessories)
        if not paid and not gained or paid > held + gained:
            raise self.fail(f"the {frame.kind} frame exchanges something the player holds or "
                            f"gains", self.i - 1)

    def acquire(self, seat: int, either: bool) -> None:
        frame = self.take("acquire", seat)
        pile = self.value(frame, "pile", 0, 2)
        if pile == 2 and not either:
            raise self.fail("an acquisition of either kind comes from a supply bonus",
                            self.i - 1)
        left = self.value(frame, "left", 1, 2)
        first = self.value(frame, "first", -1, 4)
        row = self.value(frame, "row", -1, len(self.state.catalogue.board.investment_rows) - 1)
        self.value(frame, "discount", 0, 1)
        self.value(frame, "cheapest", 0, 1)
        top = self.i == len(self.frames)
        if first >= 0 and (not top or pile == 2 or left != 1):
            raise self.fail("only the acquisition on top may have taken its first card, "
                            "with one card left", self.i - 1)
        if (row >= 0) != (first >= 0 and pile == INVESTMENTS):
            raise self.fail("the row is that of the first investment taken", self.i - 1)
        if first >= 0 and display(self.state, pile)[first] != EMPTY:
            raise self.fail("the first card taken left its space empty", self.i - 1)

    # -- a reset --------------------------------------------------------------------------------
    def reset_content(self, reset: Frame) -> None:
        state = self.state
        step = self.value(reset, "step", ARMY, DONE)
        final = reset.num("final")
        if final and step < RESET_VP:
            raise self.fail("the final reset skips the army and the refill", self.i - 1)
        if not final and step > RESET_VP and 0 in state.furnaces:
            raise self.fail("the reset refilled the empty furnaces", self.i - 1)
        order = [(reset.seat + k) % state.num_players for k in range(state.num_players)]
        reserved = [s for s in range(state.num_players) if any(state.players[s].reserved)]
        steps = hooks_of(state).reset_steps  # the step named is the next one to run
        after = {k: step_after(steps, k) for k in (INVESTMENT_STEP, SUPPLY_STEP, FULFIL_STEP)}
        if reserved and not (steps.index(INVESTMENT_STEP) < steps.index(step)
                             <= steps.index(after[SUPPLY_STEP])):
            raise _Fail(f"players[{reserved[0]}].reserved: cubes are reserved on investments "
                        f"only between the investments and the supply steps of a reset")
        if self.peek() is None:
            raise self.fail("the reset is running: a decision of its step is pending")
        if step == after[INVESTMENT_STEP]:
            self.players_in_order("columns", order, self.columns)
        elif step == after[SUPPLY_STEP]:
            self.supplies(order)
        elif step == after[FULFIL_STEP]:
            self.players_in_order("fulfil", order, self.fulfil)
        else:
            raise self.fail("no decision is asked at this step of the reset")

    def players_in_order(self, kind: str, order: list[int], check) -> list[int]:  # type: ignore[no-untyped-def]
        seats = []
        while (frame := self.peek()) is not None and frame.kind == kind:
            self.take(kind)
            check(frame)
            seats.append(frame.seat)
        positions = [order.index(s) for s in seats]
        if positions != sorted(set(positions), reverse=True):
            raise self.fail(f"the {kind!r} decisions come in turn order from the trigger "
                            f"player, each player once", self.i - 1)
        return seats

    def columns(self, frame: Frame) -> None:
        if not investment_columns(self.state, frame.seat):
            raise self.fail("a player without investments activates no column", self.i - 1)

    def fulfil(self, frame: Frame) -> None:
        self.value(frame, "type", 0, len(self.state.catalogue.contract_types) - 1)

    def supplies(self, order: list[int]) -> None:
        state = self.state
        waiting = self.players_in_order("supply", order, self.supply)
        follow_ups = self.peek() is not None
        if follow_ups:
            seat = self.frames[self.i].seat
            if waiting and order.index(seat) >= order.index(waiting[-1]):
                raise self.fail("the bonuses belong to the player who supplied last",
                                self.i)
            if any(state.players[seat].reserved):
                raise _Fail(f"players[{seat}].reserved: every cube is supplied before the "
                            f"bonuses are collected")
            self.bonuses(seat)
        for s in range(state.num_players):
            if any(state.players[s].reserved) and s not in waiting:
                raise _Fail(f"players[{s}].reserved: cubes left after the player supplied")
        if not waiting and not follow_ups:
            raise self.fail("the supply step is running: a decision is pending")

    def supply(self, frame: Frame) -> None:
        state = self.state
        cat = state.catalogue
        last = self.value(frame, "last", -1, len(cat.bonuses) - 1)
        for name in ("accessories", "influence", "assign", "acquire"):
            self.value(frame, name, 0, MOST_ANY)
        reserved = tuple(state.players[frame.seat].reserved)
        if not any(reserved) or not completable(deliveries_of(cat), max(last, 0),
                                                (reserved[0], reserved[1], reserved[2])):
            raise self.fail("the reserved cubes cannot be supplied in catalogue order from "
                            "the last combination", self.i - 1)

    def bonuses(self, seat: int) -> None:
        while (frame := self.peek()) is not None and frame.kind == "acquire":
            self.acquire(seat, either=True)
        frame = self.peek()
        if frame is not None and frame.kind == "influence":
            self.take("influence", seat)
            self.value(frame, "n", 1, MOST_ANY * 2)
        while (frame := self.peek()) is not None and frame.kind == "assign":
            self.take("assign", seat)
        frame = self.peek()
        if frame is not None and frame.kind == "unlock":
            self.take("unlock", seat)
        frame = self.peek()
        if frame is not None and frame.kind == "accessories":
            self.exchange(self.take("accessories", seat))
            if frame.num("paid"):
                raise self.fail("a supply bonus pays no accessory", self.i - 1)
