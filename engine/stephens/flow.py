"""The flow of a game: whose decision it is, what it may do, and what runs by itself.

The decision stack (:mod:`engine.stephens.frames`) says where the game is.  A
decision frame on top is the seat to move; its kind fixes the legal moves
(:data:`HANDLERS`).  Procedure frames (a turn, a reset phase, an influence gain)
run when they come on top.  After every move :func:`advance` runs procedures and
plays decisions that have a single legal move, until a real choice or the end.

The turn frame: stage 0 starts the active player's turn (its ``action``); stage
1, once the action and its follow-ups are done, ends it: a reset phase if two
furnaces are empty, unless this was the last turn of the game, which is followed by
the final reset instead (docs/rules/stephens.md A-13); stage 2 passes the turn to
the next player in clockwise order, a new round starting with the first player.

The end of the game is triggered when the French army reaches or passes a score on
the Scoring track, or a score reaches the army (L1028-L1030, L1769-L1775); it is
checked after every step.  The round it happens in is then played out (every
player has had as many turns), one more round follows, then the final reset
phase and the final scoring (L1298-L1301, L1341-L1350).

Where the solo game differs (no end by score, the Automa's turn between the
player's, its supply in every reset, its own frames), the flow calls the game's
:class:`~engine.stephens.hooks.Hooks`: :data:`MULTI_PLAYER` here, ``solo.SOLO``
for one player.
"""

from __future__ import annotations

from engine.game import Event
from engine.stephens import acquisition, reset, solo, turn
from engine.stephens.frames import FRAME_KINDS, PROCEDURES, Frame
from engine.stephens.hooks import Handler, Hooks, nothing
from engine.stephens.moves import (
    ACCESSORIES,
    ACTIVATE,
    ACTIVATE_PART,
    COLUMNS,
    CONTRACT,
    CREATE,
    CUBES,
    DISCARD,
    DISCARD_CHEAPEST,
    EFFECT,
    FULFIL,
    GLASS,
    INVESTMENT,
    PRODUCTS,
    REINFORCE,
    SKIP,
    SUPPLY,
    UNLOCK,
    encode,
    kind_of,
)
from engine.stephens.position import Position


def _assign_moves(state: Position, frame: Frame) -> list[int]:
    return turn.worker_moves(state, frame.seat) + [encode(SKIP)]


def _assign_reason(state: Position, frame: Frame, move: int) -> str | None:
    if kind_of(move) == SKIP:
        return "skip takes nothing more"
    return turn.worker_reason(state, frame.seat, move)


def _assign_apply(state: Position, frame: Frame, move: int, events: list[Event]) -> None:
    state.decisions.pop()
    if kind_of(move) == SKIP:
        events.append(Event(f"P{frame.seat + 1} assigns no worker"))
        return
    turn.worker_apply(state, frame.seat, move, events)


HANDLERS: dict[str, Handler] = {
    "accessory": Handler("take an accessory tile", (ACCESSORIES,), turn.colour_moves,
                         turn.colour_reason, turn.apply_colours),
    "accessories": Handler("choose the types of accessories gained", (ACCESSORIES,),
                           turn.colour_moves, turn.colour_reason, turn.apply_colours),
    "cubes": Handler("choose the colours of cubes gained", (CUBES,), turn.colour_moves,
                     turn.colour_reason, turn.apply_colours),
    "unlock": Handler("choose the ability the disk unlocks", (UNLOCK,), turn.unlock_moves,
                      turn.unlock_reason, turn.apply_unlock),
    "action": Handler("choose the turn's action",
                      (DISCARD, GLASS, PRODUCTS, CREATE, REINFORCE), turn.action_moves,
                      turn.action_reason, turn.apply_action),
    "effect": Handler("activate the row or an empty furnace's effect", (EFFECT,),
                      turn.effect_moves, turn.effect_reason, turn.apply_effect),
    "activation": Handler("collect the benefits of the activated row",
                          (ACTIVATE, ACTIVATE_PART), turn.activation_moves,
                          turn.activation_reason, turn.apply_activation_move),
    "acquire": Handler("acquire contracts or investments",
                       (DISCARD_CHEAPEST, CONTRACT, INVESTMENT, SKIP),
                       acquisition.acquire_moves, acquisition.acquire_reason,
                       acquisition.apply_acquire),
    "assign": Handler("assign a worker (supply bonus)", (CREATE, REINFORCE, SKIP),
                      _assign_moves, _assign_reason, _assign_apply),
    "columns": Handler("choose the investment columns to activate", (COLUMNS,),
                       reset.columns_moves, reset.columns_reason, reset.apply_columns),
    "supply": Handler("supply the small factories with the reserved cubes", (SUPPLY,),
                      reset.supply_moves, reset.supply_move_reason, reset.apply_supply),
    "fulfil": Handler("fulfil contracts", (FULFIL, SKIP), reset.fulfil_moves,
                      reset.fulfil_reason, reset.apply_fulfil),
}

BEGIN, END, PASS = 0, 1, 2


# -- the multi-player game -----------------------------------------------------------------
def check_end(state: Position, events: list[Event]) -> None:
    """Note the round in which some score first meets the French army."""
    if state.end_round == 0 and max(p.vp for p in state.players) >= state.army:
        state.end_round = state.round
        events.append(Event(f"the French army ({state.army}) meets a score: the game ends "
                            f"after round {state.round + 1}"))


def last_turn(state: Position) -> bool:
    return (state.end_round > 0 and state.round == state.end_round + 1
            and state.active == state.num_players - 1)


def last_turn_over(state: Position, events: list[Event]) -> bool:
    """After the last turn of the round after the end was triggered, the final reset,
    triggered by the player whose turn that was (docs/rules/stephens.md A-14)."""
    if not last_turn(state):
        return False
    reset.start_reset(state, state.active, True, events)
    return True


def next_player(state: Position, events: list[Event]) -> None:
    """The turn passes clockwise; a new round starts with the first player."""
    state.active = (state.active + 1) % state.num_players
    if state.active == 0:
        state.round += 1
    state.decisions.append(Frame.make("turn", state.active, stage=BEGIN))


MULTI_PLAYER = Hooks(check_end=check_end, last_turn_over=last_turn_over,
                     next_turn=next_player, army_advanced=nothing,
                     reset_steps=reset.STEPS, supplying=nothing,
                     procedures={}, decisions={})
#: The solo game's decisions: the flow's own and the Automa's.
SOLO_HANDLERS = {**HANDLERS, **solo.SOLO.decisions}
assert set(SOLO_HANDLERS) | PROCEDURES == set(FRAME_KINDS)


def hooks_of(state: Position) -> Hooks:
    """The game's hooks: the solo game's for one player."""
    return solo.SOLO if state.solo else MULTI_PLAYER


def handlers_of(state: Position) -> dict[str, Handler]:
    """The game's decisions by frame kind: the flow's, and the solo game's for one player."""
    return SOLO_HANDLERS if state.solo else HANDLERS


# -- the turn -------------------------------------------------------------------------------
def turn_start(seat: int) -> list[Frame]:
    """The whole decision stack at the start of ``seat``'s turn, as :func:`run_turn`
    leaves it (the turn frame is always the bottom one): the turn, waiting to end, and
    its action, the ability P1 not used yet.  The loader builds it for a position
    written without ``decisions`` (docs/rules/stephens.md, "Writing a position at
    the start of a turn").

    >>> [(f.kind, f.seat, dict(f.context)) for f in turn_start(1)]
    [('turn', 1, {'stage': 1}), ('action', 1, {'discarded': 0})]
    """
    return [Frame.make("turn", seat, stage=END), Frame.make("action", seat, discarded=0)]


def run_turn(state: Position, frame: Frame, events: list[Event], hooks: Hooks) -> None:
    stage = frame.num("stage")
    if stage == BEGIN:
        assert state.decisions == [frame], "a turn begins on an otherwise empty stack"
        state.decisions[:] = turn_start(state.active)
        return
    if stage == END:
        state.decisions.pop()
        if hooks.last_turn_over(state, events):
            return
        state.decisions.append(Frame.make("turn", state.active, stage=PASS))
        if sum(n == 0 for n in state.furnaces) >= 2:
            reset.start_reset(state, state.active, False, events)
        return
    state.decisions.pop()
    hooks.next_turn(state, events)


def run_procedure(state: Position, frame: Frame, events: list[Event], hooks: Hooks) -> None:
    if frame.kind == "turn":
        run_turn(state, frame, events, hooks)
    elif frame.kind == "reset":
        reset.run_reset_step(state, frame, events, hooks)
    elif frame.kind == "influence":
        reset.run_influence(state, frame, events)
    else:
        hooks.procedures[frame.kind](state, frame, events)


# -- moves ----------------------------------------------------------------------------------
def legal_moves(state: Position) -> list[int]:
    if not state.decisions:
        return []
    frame = state.decisions[-1]
    return handlers_of(state)[frame.kind].moves(state, frame)


def reason(state: Position, move: int) -> str:
    """Why an illegal ``move`` is refused, in words."""
    if not state.decisions:
        return "the game is over"
    frame = state.decisions[-1]
    handler = handlers_of(state)[frame.kind]
    if kind_of(move) not in handler.kinds:
        return f"it is P{frame.seat + 1}'s decision: {handler.what}"
    found = handler.reason(state, frame, move)
    return found or f"not a legal move now (P{frame.seat + 1} must {handler.what})"


def play(state: Position, move: int, events: list[Event]) -> list[int]:
    """Play a legal move, then :func:`advance`; returns the legal moves after it."""
    frame = state.decisions[-1]
    handlers_of(state)[frame.kind].apply(state, frame, move, events)
    return advance(state, events)


def advance(state: Position, events: list[Event]) -> list[int]:
    """Run procedures and single-option decisions until a real choice or the end;
    returns the legal moves of that choice (none at the end)."""
    hooks, handlers = hooks_of(state), handlers_of(state)
    while True:
        hooks.check_end(state, events)
        if not state.decisions:
            return []
        frame = state.decisions[-1]
        if frame.kind in PROCEDURES:
            run_procedure(state, frame, events, hooks)
            continue
        handler = handlers[frame.kind]
        moves = handler.moves(state, frame)
        if len(moves) != 1:
            return moves
        handler.apply(state, frame, moves[0], events)
