"""How seats are named to people: one convention for the CLI, renders, events and errors.

Seats are 0-based everywhere a number is given or taken (every RPC field, every
``--seat``/``--observer`` flag): seat 0 is the first player.  People read players as
``P1``, ``P2``, ...: renders and events name them so.  Prose that gives a seat's
number names the player too, ``P1 (seat 0)``, so the two never get mixed up.

>>> player_name(0), seat_label(0), seat_label(2)
('P1', 'P1 (seat 0)', 'P3 (seat 2)')
"""

from __future__ import annotations

#: The convention in a sentence, for command help (``furnace play --help``).
SEAT_CONVENTION = ("Seats are 0-based, as in the API and in every command: --seat 0 is "
                   "the first player, shown as P1 on the board and in events; messages "
                   "that give a seat's number say P1 (seat 0).")


def player_name(seat: int) -> str:
    """The name of the player in ``seat`` (0-based) in renders and events: ``P1`` for seat 0."""
    return f"P{seat + 1}"


def seat_label(seat: int) -> str:
    """``P1 (seat 0)``: the player's name and its 0-based seat, for messages that name a seat."""
    return f"P{seat + 1} (seat {seat})"


def seat_range(num_players: int) -> str:
    """The seats of a game, for error messages: ``0..2 (0 is P1)``."""
    return f"0..{num_players - 1} (0 is P1)"
