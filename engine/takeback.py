"""Taking back a seat's last move in a recorded game (``undo`` in ``furnace play``).

The game goes back to the position before the seat's last move, with the moves played
since (the other seats' replies) taken back too: the record is cut there and replayed,
so the position is exactly the one the seat stood at, deals and all (a game's future
draws are part of its state, which the replay rebuilds from the seed).

A take-back is refused when the moves taken back showed the seat anything it could
not know before them (a card drawn, another seat's hand or secret choice, the next
cards of a deck): playing the move again, the seat would know what comes.  Whether they
did is measured on the seat's own information: from the position before its move,
worlds the seat cannot tell apart from it (``determinize``) each replay the same moves;
when every world shows the seat what the game showed it, the moves revealed nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine import records
from engine.game import FurnaceError, State
from engine.records import GameRecord, MoveEntry

#: Worlds a take-back's moves are replayed in (see :func:`reveals`): a move that shows
#: a hidden card shows another card in most of them, so with this many a card drawn
#: from as few as two possible ones goes unnoticed once in 2**32.
WORLDS = 32


class TakeBackRefused(FurnaceError):
    """The seat's last move cannot be taken back: the message says why."""


@dataclass(frozen=True)
class TakeBack:
    """The game as it stood before ``seat``'s last move."""

    record: GameRecord
    state: State
    #: The seat's own move, as it was written, and how many moves of others followed it.
    move_text: str
    replies: int


def take_back(record: GameRecord, seat: int) -> TakeBack:
    """``record`` cut before ``seat``'s last move, and the position there.

    Raises :class:`TakeBackRefused` when the seat has made no move in the record, or
    when the moves from there on showed the seat something it could not see before
    them (:func:`reveals`).
    """
    steps = records.replay_steps(record)
    own = [k for k, (player, _) in enumerate(steps) if player == seat]
    if not own:
        raise TakeBackRefused("there is no move of yours to take back: you have not "
                              "moved yet in this game")
    cut = own[-1]
    before = records.replay(replace(record, moves=list(record.moves[:cut])))
    moves = [move for _, move in steps[cut:]]
    move_text = before.move_to_text(moves[0])
    if reveals(before, moves, seat):
        raise TakeBackRefused(
            f"your move {move_text!r} cannot be taken back: since it you have seen what "
            "was hidden before it (a card drawn, a hand, a secret choice), and you would "
            "play it again knowing that")
    kept: list[MoveEntry] = list(record.moves[:cut])
    return TakeBack(replace(record, moves=kept), before, move_text, len(moves) - 1)


def reveals(before: State, moves: Sequence[int], seat: int, *, worlds: int = WORLDS,
            seed: int = 0) -> bool:
    """Whether playing ``moves`` from ``before`` showed ``seat`` anything its
    information at ``before`` did not settle: in some world the seat cannot tell from
    ``before`` (``determinize(seat)``), a move is not legal or the seat's observation
    after a move differs from the game's.  A game of perfect information without chance
    hides nothing.  ``seed`` seeds the worlds: the same question, the same answer."""
    if before.info.perfect_information and not before.info.has_chance:
        return False
    game = before.clone()
    seen = []
    for move in moves:
        game.apply(move)
        seen.append(game.observation(seat))
    rng = random.Random(seed)
    for _ in range(worlds):
        world = before.determinize(seat, rng)
        for move, view in zip(moves, seen, strict=True):
            if world.why_illegal(move) is not None:
                return True
            world.apply(move)
            if world.observation(seat) != view:
                return True
    return False
