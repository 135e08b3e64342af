"""A cheap estimate of each player's standing, in VP: the provisional final score
(:func:`engine.stephens.scoring.scores`) plus what the player's unspent resources,
workers and unlocked abilities should still bring.  The greedy bot plays one ply on
it, and the search values its truncated playouts' leaves by it.

Read only from public information:

* coins, influence, cubes and accessories in the supply are worth a little more
  than their final-scoring value (they pay for professions, contracts, trades);
* a contract to fulfil is worth part of its cubes, more the more of them the
  player holds; cubes reserved on investments (during a reset) what a supply
  bonus gives;
* investments are worth their columns' VP and cubes once per reset still to come,
  and the abilities that act later (1 VP per reset, more products, the contract and
  investment abilities, the influence spaces) a fixed amount each;
* every master and apprentice is an income: its card's best benefit once per reset
  still to come (:func:`worker_income`), and an activation already under way is
  worth its best plan (:func:`pending_activations`);
* Forest and Dune score by sector, so the spaces climbed towards the next sector
  earn part of it (:func:`track_progress`).

The weights were measured with greedy bots against each other (docs/rules/stephens.md,
"The heuristic and the search"): without the worker income the greedy bot took cubes
from the furnaces turn after turn and lost to random play.

>>> from engine.stephens.rules import StephensGame
>>> state = StephensGame().new_game(seed=1, num_players=2)
>>> [round(v, 1) for v in heuristic(state)]
[20.7, 20.7]
"""

from __future__ import annotations

from functools import cache

from engine.stephens import activation as act
from engine.stephens.abilities import has_ability, influence_cap
from engine.stephens.components import Benefit, Track
from engine.stephens.investments import investment_columns
from engine.stephens.position import Position
from engine.stephens.scoring import scores
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
#: Solo: a one-seat search compares a leaf's value with a target final score
#: (``State.solo_target()``), so there the value must forecast the final score without
#: bias, not only rank positions.  Measured as the mean of (final score - heuristic) over
#: greedy and random solo games, by resets still to come: the terms above project about
#: 35 VP more than a solo game against the Automa delivers from the middle of the game
#: on, and early on (more than 4 resets to come, few workers yet) they miss about 30 VP
#: per reset beyond the fourth (docs/rules/stephens.md).
SOLO_BIAS = 35.0
SOLO_EARLY_RESETS = 4.0
SOLO_EARLY_VP = 30.0
#: Share of the next Forest/Dune sector's VP credited per space already climbed
#: towards it: the tracks score by sector (0/7/15), so without it a step that
#: crosses no boundary would look worthless and nobody would start climbing.
TRACK_PROGRESS = 0.6


def track_progress(track: Track, position: int) -> float:
    """The credit for the spaces climbed towards ``track``'s next sector."""
    # Each sector paired with the one below it: the lists are one apart in length.
    for first, vp, prev_first, prev_vp in zip(track.sector_from[1:], track.sector_vp[1:],
                                               track.sector_from, track.sector_vp,
                                               strict=False):
        if position < first:
            return TRACK_PROGRESS * (vp - prev_vp) * (position - prev_first) / (first - prev_first)
    return 0.0


def _resource_value(state: Position, r: act.Resources) -> float:
    """Worth of a resource vector of :mod:`.activation`, in the heuristic's VP."""
    cat = state.catalogue
    return (r[act.VP] + COIN * r[act.COIN] + INFLUENCE * r[act.INFLUENCE]
            + CUBE * r[act.CUBES] + ACCESSORY * r[act.ACCESSORIES]
            + cat.forest.vp_at(r[act.FOREST]) + track_progress(cat.forest, r[act.FOREST])
            + cat.dune.vp_at(r[act.DUNE]) + track_progress(cat.dune, r[act.DUNE]))


#: Activations of a row per reset phase still to come, for the worth of a worker.
ROW_ACTIVATIONS = 1.0
#: VP per Forest/Dune space gained by a benefit (a sector of 7-8 VP is 4 spaces).
TRACK_STEP = 1.0


def benefit_value(state: Position, card: int) -> float:
    """What one collection of ``card``'s benefit is worth: its best option's gain less
    its payment, valued like the supply."""
    return _benefit_worth(state.catalogue.professions[card].benefit)


# Asked for every worker at every leaf a search values, and fixed by the card.
@cache
def _benefit_worth(benefit: Benefit) -> float:
    weights = {act.VP: 1.0, act.COIN: COIN, act.INFLUENCE: INFLUENCE, act.CUBES: CUBE,
               act.ACCESSORIES: ACCESSORY, act.FOREST: TRACK_STEP, act.DUNE: TRACK_STEP}
    best = 0.0
    for choice in act.concrete_options(benefit):
        best = max(best, sum(w * (choice.gain[k] - choice.pay[k]) for k, w in weights.items()))
    return best


def worker_income(state: Position, resets: float) -> list[float]:
    """Per seat, what its masters and apprentices should still collect: a worker is an
    income, and one ply of lookahead on the score alone never pays for one."""
    income = [0.0] * state.num_players
    for cards in state.places:
        for card in cards:
            value = None
            for owner in (state.master[card], state.apprentice[card]):
                if 0 <= owner < state.num_players:
                    if value is None:
                        value = benefit_value(state, card)
                    income[owner] += ROW_ACTIVATIONS * resets * value
    return income


def pending_activations(state: Position) -> list[float]:
    """Per seat, what the activations still to be chosen on the stack will bring: the
    best plan's gain.  Without it a move that activates a row (a glass action) looks
    worth nothing to its player until the plan is chosen, and its gifts to the other
    players in the row are not seen either."""
    gains = [0.0] * state.num_players
    for frame in state.decisions:
        if frame.kind != "activation":
            continue
        seat = frame.seat
        player = state.players[seat]
        now = _resource_value(state, act.resources(state.catalogue, player))
        best = max((_resource_value(state, plan.outcome) for plan in act.activation_plans(
            state, seat, frame.num("place"), exclude=frame.num("used"))), default=now)
        gains[seat] += max(0.0, best - now)
    return gains


def resets_left(state: Position) -> float:
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


def heuristic(state: Position) -> list[float]:
    cat = state.catalogue
    base = scores(state)
    resets = resets_left(state)
    reset_vp = cat.disks[cat.disk_with("reset-vp")].vp
    pending = pending_activations(state)
    income = worker_income(state, resets)
    out = []
    for seat, player in enumerate(state.players):
        value = float(base[seat]) + pending[seat] + income[seat]
        value += track_progress(cat.forest, player.forest) + track_progress(cat.dune, player.dune)
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
            value += SOLO_EARLY_VP * max(0.0, resets - SOLO_EARLY_RESETS) - SOLO_BIAS
        out.append(value)
    return out
