"""Invariants of a Stephens position, as sentences: what ``furnace check-games`` checks
after every move on top of the protocol (:meth:`engine.stephens.state.StephensState.audit`).

Every player's 21 disks are accounted for (on the player board, on profession cards,
the 3 track markers), nobody holds more than 3 contracts to fulfil, the placement
rule holds on the board, influence stays within its cap and the tracks within their
spaces, every card is in exactly one place, reserved cubes exist only in a reset
phase, and a player is to move unless the game is over.

>>> from engine.stephens.rules import StephensGame
>>> audit(StephensGame().new_game(seed=1, num_players=3))
[]
"""

from __future__ import annotations

from collections import Counter

from engine.stephens.abilities import has_ability, influence_cap
from engine.stephens.catalogue import MARKER_DISKS
from engine.stephens.flow import legal_moves
from engine.stephens.placement import placement_holds
from engine.stephens.position import EMPTY, Position
from engine.stephens.vocabulary import AUTOMA
from engine.stephens.workers import SOLO_WORKER_LEAD


def audit(state: Position) -> list[str]:
    cat = state.catalogue
    problems = []
    pending = Counter(f.seat for f in state.decisions if f.kind == "unlock")
    for seat, player in enumerate(state.players):
        who = f"P{seat + 1}"
        on_board = len(cat.disks) - player.disks_taken - pending[seat]
        workers = state.workers_of(seat)
        if on_board < 0 or on_board + workers + MARKER_DISKS != cat.board.disks:
            problems.append(f"{who}: {on_board} disks on the board, {workers} workers and "
                            f"{MARKER_DISKS} markers are not {cat.board.disks} disks")
        if len(player.contracts) > cat.board.contract_slots:
            problems.append(f"{who} holds {len(player.contracts)} contracts to fulfil")
        if not 0 <= player.influence <= influence_cap(cat, player):
            problems.append(f"{who}: influence {player.influence} outside 0.."
                            f"{influence_cap(cat, player)}")
        if not (0 <= player.forest <= cat.forest.top and 0 <= player.dune <= cat.dune.top):
            problems.append(f"{who}: Forest {player.forest} or Dune {player.dune} off the track")
        if min(player.coins, *player.cubes, *player.accessories, *player.reserved) < 0:
            problems.append(f"{who}: a negative count of coins, cubes or accessories")
        if any(player.reserved) and not any(f.kind == "reset" for f in state.decisions):
            problems.append(f"{who}: cubes reserved on investments outside a reset")
    if state.solo:
        if state.workers_of(0) > state.workers_of(AUTOMA) + SOLO_WORKER_LEAD:
            problems.append(f"P1 has {state.workers_of(0)} workers, more than the Automa's "
                            f"{state.workers_of(AUTOMA)} + {SOLO_WORKER_LEAD}")
        if sorted(state.automa_deck + state.automa_revealed) != \
                list(range(len(cat.solo.automa_cards))):
            problems.append("the Automa's cards are not each in its deck or revealed pile")
    equal = any(has_ability(cat, p, "equal-placement") for p in state.players)
    placement = placement_holds(state, equal)
    if placement is not None:
        problems.append(f"placement rule: {placement}")
    problems += _cards(state)
    if min(state.furnaces) < 0 or any(min(f) < 0 for f in state.factories):
        problems.append("a negative number of cubes in a furnace or small factory")
    if state.decisions and not legal_moves(state):
        problems.append(f"P{state.decisions[-1].seat + 1} has no legal move")
    return problems


def _cards(state: Position) -> list[str]:
    """Each profession, contract and investment in exactly one place."""
    cat = state.catalogue
    professions = [*state.profession_decks[0], *state.profession_decks[1],
                   *state.profession_display, *state.profession_discards[0],
                   *state.profession_discards[1], *state.box,
                   *(c for cards in state.places for c in cards)]
    contracts = [*state.contract_deck, *state.contract_display, *state.contract_discard]
    investments = [*state.investment_deck, *state.investment_display,
                   *state.investment_discard]
    for player in state.players:
        contracts += player.contracts + [c for row in player.fulfilled for c in row]
        investments += [c for row in player.investments for c in row]
    out = []
    for name, cards, total in (("professions", professions, len(cat.professions)),
                               ("contracts", contracts, len(cat.contracts)),
                               ("investments", investments, len(cat.investments))):
        present = sorted(c for c in cards if c != EMPTY)
        if present != list(range(total)):
            out.append(f"{name}: {len(present)} cards in play, {len(set(present))} distinct, "
                       f"of {total}")
    return out
