"""The player board's disks: which abilities are unlocked, which may be next, and
the Influence track they block.

Each disk taken off the player board unlocks what it covered (L286-L287): an
ability, or a space of the Influence track.  An influence disk blocks its space:
the marker can neither stand on nor pass a space still holding a disk (L726-L730),
so the cap is the lowest blocked space minus one, or 25 once all four are gone.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=0, num_players=2)
>>> cat, me = state.catalogue, state.players[0]
>>> influence_cap(cat, me)
4
>>> unlock(cat, me, cat.disk_ids["I5"]); influence_cap(cat, me)
9
>>> gain_influence(cat, me, 10), me.influence
(7, 9)
"""

from __future__ import annotations

from engine.game import IllegalMoveError
from engine.stephens.components import Catalogue
from engine.stephens.position import Player
from engine.stephens.vocabulary import INFLUENCE_DISK


def has_ability(cat: Catalogue, player: Player, effect: str) -> bool:
    """Whether any disk with ``effect`` is off ``player``'s board."""
    return any(player.unlocked[d] for d in cat.disks_with(effect))


def influence_cap(cat: Catalogue, player: Player) -> int:
    """The highest Influence space ``player``'s marker may reach now."""
    blocked = [cat.disks[d].space for d in cat.influence_disks if not player.unlocked[d]]
    if blocked and player.influence_stack:  # opponent card: all four stacked on one space
        return player.influence_stack - 1
    return min(blocked) - 1 if blocked else cat.board.influence_max


def gain_influence(cat: Catalogue, player: Player, n: int) -> int:
    """Advance the marker by ``n`` up to the cap; returns the spaces actually gained
    (a gain beyond the cap is lost)."""
    gained = max(0, min(n, influence_cap(cat, player) - player.influence))
    player.influence += gained
    return gained


def products_limit(cat: Catalogue, player: Player) -> int:
    """Cubes ``player`` may take from one small factory: 1, or the best unlocked
    ``products`` ability's number (L958-L971)."""
    return max([1] + [cat.disks[d].n for d in cat.disks_with("products") if player.unlocked[d]])


def unlock_reason(cat: Catalogue, player: Player, disk: int) -> str | None:
    """Why ``player`` may not take ``disk`` off the board now, or None."""
    if not 0 <= disk < len(cat.disks):
        return f"there is no disk {disk}"
    spec = cat.disks[disk]
    if player.unlocked[disk]:
        return f"{spec.id} is already unlocked"
    if disk == player.lost_disk:
        return f"{spec.id} is unavailable to you throughout the game (the opponent card)"
    missing = [cat.disks[r].id for r in spec.requires if not player.unlocked[r]]
    if missing:
        return f"{spec.id} needs {', '.join(missing)} unlocked first"
    return None


def unlockable_disks(cat: Catalogue, player: Player, *, lowest_influence_only: bool = True
                     ) -> list[int]:
    """The disks ``player`` may take next, in catalogue order.

    With ``lowest_influence_only`` only the influence disk on the lowest space is
    offered: taking a higher one first raises no cap and is never better (the cap
    is set by the lowest disk left), so the others are dominated choices.
    """
    options = [d for d in range(len(cat.disks)) if unlock_reason(cat, player, d) is None]
    if lowest_influence_only:
        blockers = [d for d in options if cat.disks[d].effect == INFLUENCE_DISK]
        if blockers:
            lowest = min(blockers, key=lambda d: (cat.disks[d].space, d))
            options = [d for d in options
                       if cat.disks[d].effect != INFLUENCE_DISK or d == lowest]
    return options


def unlock(cat: Catalogue, player: Player, disk: int) -> None:
    """Take ``disk`` off ``player``'s board (:class:`IllegalMoveError` if it may not)."""
    reason = unlock_reason(cat, player, disk)
    if reason is not None:
        raise IllegalMoveError(reason)
    player.unlocked[disk] = 1
