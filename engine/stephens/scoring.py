"""Final scoring by category (L1302-L1399), the ranking with its tie-breaks
(L1384-L1388), and the provisional score of a game in progress.

The categories follow the rulebook's numbering: 1 the Scoring track, 2 Forest,
3 Dune, 4 masters by factory (4a Stephens' factory, 4b lower small factories, 4c
upper small factories), 5 apprentices on one's masters' cards, 6 fulfilled
contracts by column, 7 unlocked abilities (7a cubes, 7b coins, 7c influence, 7d
accessory sets).  ``scores()`` during a game is that final score as if the game
ended now: the track alone shows a fraction of a player's points.

>>> from engine.stephens.setup import new_state
>>> state = new_state(seed=0, num_players=2)
>>> final_score(state, 0).total, ranking(state)
(15, [[0, 1]])
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from engine.game import rank_groups
from engine.stephens.abilities import has_ability
from engine.stephens.components import Catalogue
from engine.stephens.position import Player, Position
from engine.stephens.vocabulary import (
    LOWER_FACTORY,
    NOBODY,
    STEPHENS,
    UPPER_FACTORY,
    tier_of_place,
)


@dataclass(frozen=True)
class ScoreBreakdown:
    """One player's final score, category by category."""

    track: int  # 1
    forest: int  # 2
    dune: int  # 3
    masters_stephens: int  # 4a: masters at the Stephens' factory
    masters_lower: int  # 4b: masters at the lower small factories
    masters_upper: int  # 4c: masters at the upper small factories
    apprentices: int  # 5: other players' apprentices on one's cards
    contracts: int  # 6
    cubes: int  # 7a
    coins: int  # 7b
    influence: int  # 7c
    accessories: int  # 7d

    @property
    def masters(self) -> int:
        return self.masters_stephens + self.masters_lower + self.masters_upper

    @property
    def abilities(self) -> int:
        return self.cubes + self.coins + self.influence + self.accessories

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    def rows(self) -> list[tuple[str, int]]:
        """(category, VP) in the rulebook's order."""
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def parts(self) -> list[tuple[str, float]]:
        """(category in words, VP) in the rulebook's order: the protocol's
        ``score_breakdown`` of one seat."""
        return [(CATEGORY_WORDS[name], float(points)) for name, points in self.rows()]


#: The scoring categories as a player reads them (the rulebook's numbering in brackets).
CATEGORY_WORDS = {
    "track": "scoring track (1)",
    "forest": "Forest (2)",
    "dune": "Dune (3)",
    "masters_stephens": "masters at the Stephens' factory (4a)",
    "masters_lower": "masters at the lower small factories (4b)",
    "masters_upper": "masters at the upper small factories (4c)",
    "apprentices": "apprentices on your masters' cards (5)",
    "contracts": "fulfilled contracts (6)",
    "cubes": "abilities: cubes (7a)",
    "coins": "abilities: coins (7b)",
    "influence": "abilities: influence (7c)",
    "accessories": "abilities: accessory sets (7d)",
}


def final_score(state: Position, seat: int) -> ScoreBreakdown:
    """``seat``'s score by the final-scoring rules, on the position as it stands."""
    cat = state.catalogue
    player = state.players[seat]
    masters = [0, 0, 0]  # by tier
    apprentices = 0
    for place, cards in enumerate(state.places):
        for card in cards:
            if state.master[card] == seat:
                masters[tier_of_place(place)] += cat.master_vp[place]
                if state.apprentice[card] != NOBODY:
                    apprentices += 1
    return ScoreBreakdown(
        track=player.vp,
        forest=cat.forest.vp_at(player.forest),
        dune=cat.dune.vp_at(player.dune),
        masters_stephens=masters[STEPHENS],
        masters_lower=masters[LOWER_FACTORY],
        masters_upper=masters[UPPER_FACTORY],
        apprentices=apprentices,
        contracts=contract_points(cat, player),
        **_ability_points(cat, player))


def contract_points(cat: Catalogue, player: Player) -> int:
    """Per column of fulfilled contracts: cards in it times the cubes they depict
    (L1335-L1339).  Column k holds the k-th card of each row from the board."""
    total = 0
    for k in range(max((len(row) for row in player.fulfilled), default=0)):
        column = [row[k] for row in player.fulfilled if k < len(row)]
        total += len(column) * sum(cat.contracts[c].cube_count for c in column)
    return total


def accessory_sets(cat: Catalogue, player: Player) -> int:
    """Complete sets of one accessory of each type, in the supply or placed on
    fulfilled contracts (L866-L869)."""
    return min(a + b for a, b in zip(player.accessories, player.placed_accessories,
                                     strict=True))


def _ability_points(cat: Catalogue, player: Player) -> dict[str, int]:
    def per(effect: str, amount: int) -> int:
        if not has_ability(cat, player, effect):
            return 0
        disk = cat.disks[cat.disk_with(effect)]
        return amount // disk.per * disk.vp

    sets = cat.disks[cat.disk_with("final-accessories")]
    return {
        "cubes": per("final-cubes", sum(player.cubes)),
        "coins": per("final-coins", player.coins),
        "influence": per("final-influence", player.influence),
        "accessories": (sets.vp * accessory_sets(cat, player)
                        if has_ability(cat, player, "final-accessories") else 0),
    }


def scores(state: Position) -> list[int]:
    """Every seat's final score as if the game ended now (no final reset)."""
    return [final_score(state, seat).total for seat in range(state.num_players)]


def ranking(state: Position) -> list[list[int]]:
    """Seats by place: most VP, then most influence, then most coins; still tied
    players share the place (L1384-L1388)."""
    totals = scores(state)
    return rank_groups([(totals[s], p.influence, p.coins) for s, p in enumerate(state.players)])
