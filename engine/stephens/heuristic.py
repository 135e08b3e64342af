"""A cheap estimate of each player's standing, in VP: the provisional final score
(:func:`engine.stephens.scoring.scores`) plus what the player's unspent resources and
unlocked abilities should still bring.

A first version, read only from each player's own public position:

* coins, influence, cubes and accessories in the supply are worth a little more
  than their final-scoring value (they pay for professions, contracts, trades);
* a contract to fulfil is worth part of its cubes, more the more of them the
  player holds; cubes reserved on investments (during a reset) what a supply
  bonus gives;
* investments are worth their columns' VP and cubes once per reset still to come,
  and the abilities that act later (1 VP per reset, more products, the contract and
  investment abilities, the influence spaces) a fixed amount each.

>>> from engine.stephens.rules import StephensGame
>>> state = StephensGame().new_game(seed=1, num_players=2)
>>> [round(v, 1) for v in heuristic(state)]
[16.8, 16.8]
"""

from __future__ import annotations

from engine.stephens.abilities import has_ability, influence_cap
from engine.stephens.investments import investment_columns
from engine.stephens.scoring import scores
from engine.stephens.state import StephensState
from engine.stephens.vocabulary import INFLUENCE_DISK

COIN = 0.3
INFLUENCE = 0.3
CUBE = 0.3
ACCESSORY = 0.4
RESERVED = 0.7
#: Share of a contract's depicted cubes (its column points) counted before it is
#: fulfilled, and the extra share by the fraction of its cubes the player holds.
CONTRACT_BASE = 0.3
CONTRACT_HELD = 0.7
#: Value of an unlocked ability that acts during the game, by effect.
ABILITY_VALUE = {"products": 1.0, "cube-replacement": 1.0, "two-cards": 1.0,
                 "discard-cheapest": 0.5, "discount": 1.0, "discard-professions": 0.5,
                 "equal-placement": 0.5, INFLUENCE_DISK: 0.3}
#: Investment columns are valued at this share of what they give, once per reset left.
COLUMN_SHARE = 0.6
#: Solo: VP still to come per reset left (random solo games score about 115 over 6-7
#: resets).  A one-seat search values a leaf against a target final score, so the
#: heuristic must project the final score, not the provisional one; a first setting.
SOLO_RESET_VP = 17.0


def resets_left(state: StephensState) -> float:
    """A rough count of the reset phases still to come, the final one included."""
    if state.solo:  # the army's steps to the difficulty's space; nothing after the final
        if state.final_reset:
            return 0.0
        return max(1.0, (state.army - state.final_space()) / state.catalogue.army.step)
    if state.end_round:
        return 1.0
    leader = max(p.vp for p in state.players)
    step = state.catalogue.army.step
    return max(1.0, (state.army - leader) / (2 * step) + 1)


def heuristic(state: StephensState) -> list[float]:
    cat = state.catalogue
    base = scores(state)
    resets = resets_left(state)
    reset_vp = cat.disks[cat.disk_with("reset-vp")].vp
    out = []
    for seat, player in enumerate(state.players):
        value = float(base[seat])
        value += COIN * player.coins + ACCESSORY * sum(player.accessories)
        value += INFLUENCE * min(player.influence, influence_cap(cat, player))
        value += CUBE * sum(player.cubes) + RESERVED * sum(player.reserved)
        for contract in player.contracts:
            spec = cat.contracts[contract]
            held = sum(min(n, h) for n, h in zip(spec.cubes, player.cubes, strict=True))
            need = max(1, spec.cube_count)
            value += spec.cube_count * (CONTRACT_BASE + CONTRACT_HELD * held / need)
        for column in investment_columns(state, seat):
            value += COLUMN_SHARE * resets * (column.vp + RESERVED * sum(column.cubes))
        if has_ability(cat, player, "reset-vp"):
            value += reset_vp * resets
        for disk, flag in enumerate(player.unlocked):
            if flag:
                value += ABILITY_VALUE.get(cat.disks[disk].effect, 0.0)
        if state.solo:
            value += SOLO_RESET_VP * resets
        out.append(value)
    return out
