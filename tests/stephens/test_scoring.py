"""Final scoring (the rulebook's 111 VP example), ranking and tie-breaks."""

from __future__ import annotations

from engine.stephens.scoring import (
    accessory_sets,
    contract_points,
    final_score,
    ranking,
    scores,
)
from engine.stephens.state import StephensState
from tests.stephens.helpers import attach, blank, contract, cubes, round_trip, settle_disks

MARIA = 0


def marias_final_position() -> StephensState:
    """The final-scoring example (L1401-L1427), on a 4-player board."""
    state = blank(4, seed=1)
    cat = state.catalogue
    # Her masters: 2 at the Stephens' factory, 4 at the lower and 2 at the upper
    # small factories; 4 of those cards hold another player's apprentice.
    attach(state, "glass-cutter", "SF-UL", MARIA, apprentice=1)
    attach(state, "fishwife", "SF-LL", MARIA, apprentice=2)
    attach(state, "woodcutter", "SF-LL", MARIA)
    attach(state, "furnace-keeper", "FN-UL", MARIA, apprentice=3)
    attach(state, "washerwoman", "SF-UR", MARIA, apprentice=1)
    attach(state, "sawyer", "SF-LR", MARIA)
    attach(state, "gatherer", "SF-LR", MARIA)
    attach(state, "priest", "FN-UR", MARIA)
    # Other players' professions below, so that the placement rule holds.
    attach(state, "batch-mixer", "FN-UL", 1)
    attach(state, "stoker", "FN-UL", 2)
    attach(state, "annealer", "FN-UR", 2)
    attach(state, "pot-maker", "FN-UR", 3)
    settle_disks(state, {MARIA: ["V1", "V2", "V3", "V4", "V5", "I5", "PR2", "S1"]})
    maria = state.players[MARIA]
    maria.vp = 38
    maria.forest = 5  # in the 7 VP sector
    maria.dune = 2  # in the 0 VP sector
    # One column of fulfilled contracts: Crown 1 pink, Colonies 1 green, UK white + black.
    for ident in ("crown-01", "colonies-01", "uk-03"):
        card = contract(state, ident)
        row = cat.board.contract_rows.index(cat.contracts[card].type)
        maria.fulfilled[row].append(card)
    maria.cubes = cubes(green=3, blue=2, white=4, orange=2, pink=1, black=2)  # 14
    maria.coins = 11
    maria.influence = 9
    maria.accessories = [1, 1, 1]
    return round_trip(state)


def test_e14_maria_scores_111_category_by_category() -> None:
    state = marias_final_position()
    score = final_score(state, MARIA)
    assert score.rows() == [
        ("track", 38), ("forest", 7), ("dune", 0),
        ("masters_stephens", 2), ("masters_lower", 12), ("masters_upper", 10),
        ("apprentices", 4), ("contracts", 12),
        ("cubes", 7), ("coins", 5), ("influence", 9), ("accessories", 5)]
    assert (score.masters, score.abilities) == (24, 26)  # as the text sums them
    assert score.total == 111
    assert scores(state)[MARIA] == 111
    assert state.scores()[MARIA] == 111.0


def test_abilities_score_only_when_unlocked() -> None:
    state = marias_final_position()
    maria = state.players[MARIA]
    for ident in ("V2", "V3", "V4", "V5"):
        maria.unlocked[state.catalogue.disk_ids[ident]] = 0
    score = final_score(state, MARIA)
    assert (score.cubes, score.coins, score.influence, score.accessories) == (0, 0, 0, 0)
    assert score.total == 111 - 26


def test_apprentice_points_go_to_the_master_only() -> None:
    state = marias_final_position()
    # Player 2 has apprentices on two of Maria's cards and no master with one.
    assert final_score(state, 1).apprentices == 0
    assert final_score(state, MARIA).apprentices == 4


def test_contract_columns_multiply_cards_by_cubes() -> None:
    state = blank(2)
    cat = state.catalogue
    me = state.players[0]
    for ident in ("crown-03", "crown-01", "uk-04"):  # 2 white, 1 pink, 2 blue
        card = contract(state, ident)
        me.fulfilled[cat.board.contract_rows.index(cat.contracts[card].type)].append(card)
    # Column 1: crown-03 and uk-04, 2 cards x 4 cubes; column 2: crown-01, 1 x 1.
    assert contract_points(cat, me) == 2 * 4 + 1 * 1


def test_accessories_on_contracts_count_for_sets() -> None:
    state = blank(2)
    me = state.players[0]
    me.accessories = [2, 0, 1]
    assert accessory_sets(state.catalogue, me) == 0
    me.placed_accessories = [0, 1, 0]
    assert accessory_sets(state.catalogue, me) == 1


def _tied(state: StephensState) -> None:
    for p in state.players:
        p.vp = 20


def test_ties_break_on_influence_then_coins_then_share() -> None:
    state = blank(3)
    _tied(state)
    assert ranking(state) == [[0, 1, 2]]
    state.players[2].influence = 3
    assert ranking(state) == [[2], [0, 1]]
    state.players[0].coins = 5
    assert ranking(state) == [[2], [0], [1]]
    state.players[1].vp = 21  # points first
    assert ranking(state) == [[1], [2], [0]]
    assert state.ranking() == ranking(state)


def test_coins_and_influence_break_ties_on_their_own_scale() -> None:
    """More coins never beat more influence in a tie (influence is asked first)."""
    state = blank(2)
    _tied(state)
    state.players[0].influence, state.players[0].coins = 3, 0
    state.players[1].influence, state.players[1].coins = 2, 9
    # Player 2's coins are worth nothing at the end without the coin ability.
    assert scores(state) == [34, 34] and ranking(state) == [[0], [1]]
