"""The default catalogue against the rulebook, and the loader against broken files."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.stephens.catalogue import (
    CatalogueError,
    default_catalogue,
    load_catalogue,
    parse_catalogue,
)
from engine.stephens.vocabulary import ANY, COLOURS, FURNACES, PLACES, SMALL_FACTORIES
from engine.validation import packaged_catalogue_json

CAT = default_catalogue()


def raw() -> dict[str, Any]:
    return copy.deepcopy(packaged_catalogue_json("engine.stephens"))


def entry(data: dict[str, Any], section: str, ident: str) -> dict[str, Any]:
    return next(e for e in data[section] if e["id"] == ident)


# -- counts and values the rulebook states --------------------------------------------
def test_component_counts_are_the_rulebooks() -> None:
    assert [len(CAT.deck(d)) for d in ("red", "blue", "start")] == [23, 23, 4]
    assert len(CAT.contracts) == 39 and len(CAT.investments) == 32
    assert len(CAT.accessories) == 3 and sum(CAT.accessory_counts) == 24
    assert len(CAT.contract_types) == 3
    assert len(CAT.solo.automa_cards) == 10 and len(CAT.solo.opponents) == 5
    assert len(CAT.solo.worker_supply) == 10
    abilities = [d for d in CAT.disks if d.effect != "influence-disk"]
    assert len(abilities) == 14
    assert len(CAT.influence_disks) == 4
    # 4 influence disks + 14 abilities + Scoring, Forest and Dune markers = 21 (L142)
    assert CAT.board.disks == 21 == len(CAT.disks) + 3
    starting_sides = sorted(CAT.professions[c].side for c in CAT.deck("start"))
    assert starting_sides == [0, 0, 1, 1]
    assert all(CAT.professions[c].side == 0 for c in CAT.deck("red"))
    assert all(CAT.professions[c].side == 1 for c in CAT.deck("blue"))


def test_stated_values() -> None:
    board = CAT.board
    assert (board.coins, board.influence_start, board.influence_max) == (4, 2, 25)
    assert [CAT.disks[d].space for d in CAT.influence_disks] == [5, 10, 15, 20]
    assert board.contract_slots == 3
    assert [COLOURS[c] for c in board.investment_rows] == ["orange", "pink", "black"]
    assert [(f.id, COLOURS[f.colour], f.start_cubes, f.solo_start_cubes)
            for f in CAT.furnaces] == [("FN-UL", "green", 4, 3), ("FN-UR", "blue", 4, 3),
                                       ("FN-LL", "white", 4, 3), ("FN-LR", "white", 4, 3)]
    assert [f.action for f in CAT.furnaces] == ["activate", "activate", "contract",
                                                "investment"]
    assert dict(zip(PLACES, CAT.master_vp, strict=True)) == {
        "SF-UL": 5, "SF-LL": 3, "FN-UL": 1, "SF-UR": 5, "SF-LR": 3, "FN-UR": 1}
    assert (CAT.army.start, CAT.army.step) == (55, 5)
    assert CAT.army.refill(45, 4) == 3  # "from 50 to 45 ... 3 cubes each" (L1054-L1063)
    assert CAT.army.spaces == tuple(range(50, -1, -5))
    assert CAT.contract_costs[0] == 1 and CAT.investment_costs[2] == 3
    assert 5 in CAT.contract_costs and 5 in CAT.investment_costs
    for track in (CAT.forest, CAT.dune):
        assert track.sector_vp == (0, 7, 15)
        assert track.start >= 2  # an opponent card sets the markers 2 spaces lower
    assert CAT.profession_display == 2
    assert [d.final_reset for d in CAT.solo.difficulties] == [20, 25, 30]
    assert [d.opponent_target for d in CAT.solo.difficulties] == [100, 130, 160]
    assert [d.ranks for d in CAT.solo.difficulties] == [(140, 180), (120, 160), (100, 140)]
    assert CAT.solo.bag == (7, 7, 7) and CAT.solo.furnace_cubes == 3
    assert CAT.solo.opponent_final_reset == 25


def test_the_fourteen_abilities_and_their_order() -> None:
    def disk(ident: str):
        return CAT.disks[CAT.disk_ids[ident]]

    effects = sorted(d.effect for d in CAT.disks if d.effect != "influence-disk")
    assert effects == sorted(["reset-vp", "final-cubes", "final-coins", "final-influence",
                              "final-accessories", "discard-professions", "equal-placement",
                              "cube-replacement", "two-cards", "discard-cheapest", "discount",
                              "products", "products", "products"])
    v1 = CAT.disk_ids["V1"]
    assert all(disk(v).requires == (v1,) for v in ("V2", "V3", "V4", "V5"))
    assert disk("PR1").requires == disk("PR2").requires == ()
    assert [disk(s).n for s in ("S1", "S2", "S3")] == [2, 3, 4]
    assert disk("S3").requires == (CAT.disk_ids["S2"],)
    assert disk("S2").requires == (CAT.disk_ids["S1"],)
    assert (disk("V2").per, disk("V3").per, disk("V4").per, disk("V5").vp) == (2, 2, 1, 5)


# -- cards the rulebook's examples need (analysis §1.5) ----------------------------------
def _has(cards, test) -> bool:
    return any(test(c) for c in cards)


def test_cards_the_examples_need() -> None:
    reds = [CAT.professions[c] for c in CAT.deck("red")]
    left = [p for p in CAT.professions if p.side == 0]
    # André pays 3 coins for the upper space of a red profession (L533-L536).
    assert _has(reds, lambda p: p.spaces[0].coins == 3)
    # Pedro's apprentice space costs nothing (L662-L665).
    assert _has(CAT.professions, lambda p: p.has_apprentice_space
                and p.spaces[1] == type(p.spaces[1])(0, 0))

    def options(p):
        return [(tuple((a.kind, a.of, a.n) for a in o.pay),
                 tuple((a.kind, a.of, a.n) for a in o.gain)) for o in p.benefit.options]

    coin, influence, dune = ("coin", 0, 1), ("influence", 0, 1), ("dune", 0, 1)
    # The activation example on the left furnace (L739-L752), with room for apprentices.
    assert _has(left, lambda p: p.has_apprentice_space
                and options(p) == [((), (coin,)), ((), (influence,))])
    assert _has(left, lambda p: p.has_apprentice_space and options(p) == [((influence,), (dune,))])
    assert _has(left, lambda p: options(p) == [((), (coin, influence))])
    # "pay any 1 translucent/wooden cube ... advance 3 spaces on your Influence track"
    assert _has(CAT.professions,
                lambda p: options(p) == [((("cube", ANY, 1),), (("influence", 0, 3),))])
    # Maria's contracts: Crown = 1 pink, United Kingdom = 1 white + 1 black (L1273-L1284).
    crown, uk = CAT.contract_types.index("crown"), CAT.contract_types.index("uk")
    assert _has(CAT.contracts, lambda c: c.type == crown and c.cubes == (0, 0, 0, 0, 1, 0)
                and not any(c.accessories) and not c.any_accessories)
    assert _has(CAT.contracts, lambda c: c.type == uk and c.cubes == (0, 0, 1, 0, 0, 1)
                and not any(c.accessories) and not c.any_accessories)
    # Small-factory bonuses: Ângela's 2 orange at the lower left give 4 influence, 2
    # black at the upper right 2 coins; the lower right takes orange (L1157-L1196).
    by_id = {b.id: b for b in CAT.bonuses}
    assert (SMALL_FACTORIES[by_id["b1"].factory], by_id["b1"].deliver,
            by_id["b1"].gain, by_id["b1"].n) == ("SF-LL", (1, 0, 0), "influence", 2)
    assert (SMALL_FACTORIES[by_id["b2"].factory], by_id["b2"].deliver,
            by_id["b2"].gain, by_id["b2"].n) == ("SF-UR", (0, 0, 1), "coin", 1)
    assert _has(CAT.bonuses, lambda b: SMALL_FACTORIES[b.factory] == "SF-LR" and b.deliver[0])
    # Pedro's column: -1 Forest, -1 Dune, +3 VP, 1 orange + 2 black (L1140-L1148).
    column = [CAT.investment(i) for i in ("utensils-3", "theatre", "pottery-6")]
    assert sum(c.forest for c in column) == 1 and sum(c.dune for c in column) == 1
    assert sum(c.vp for c in column) == 3
    assert [(COLOURS[c.colour] if c.colour != ANY else None, c.cubes) for c in column] == [
        ("orange", 1), (None, 0), ("black", 2)]


def test_every_entry_says_where_it_comes_from() -> None:
    data = raw()
    sources = set()
    for section in ("professions", "contracts", "investments", "accessories",
                    "contract_types"):
        sources |= {e["source"] for e in data[section]}
    assert sources <= {"rulebook", "public-list", "reconstructed"}
    # The values the text states carry "rulebook" on the fields that hold them.
    assert entry(data, "contracts", "crown-01")["field_sources"] == {"cubes": "rulebook"}
    assert entry(data, "professions", "glass-cutter")["field_sources"]["spaces[0]"] == "rulebook"
    assert data["player_board"]["coins"] == {"value": 4, "source": "rulebook", "ref": "L173"}
    names_from_public_list = {e["id"] for e in data["professions"]
                              if e.get("field_sources", {}).get("name") == "public-list"}
    assert names_from_public_list == {"chair-caner", "glass-cutter", "fishwife", "doctor",
                                      "washerwoman", "carpenter", "clerk"}


def test_loading_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(raw()), encoding="utf-8")
    assert load_catalogue(path) == CAT
    path.write_text("{", encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid JSON"):
        load_catalogue(path)


# -- broken catalogues are rejected, naming the entry and field --------------------------
def _drop_contract(d):
    d["contracts"].pop()


def _red_on_the_right(d):
    entry(d, "professions", "stoker")["side"] = "right"


def _empty_pay(d):
    entry(d, "professions", "doctor")["benefit"]["pay"] = []


def _unknown_colour(d):
    entry(d, "contracts", "crown-03")["cubes"] = {"purple": 1}


def _duplicate_id(d):
    d["contracts"][1]["id"] = "crown-01"


def _two_colours(d):
    entry(d, "investments", "utensils-1")["cubes"] = {"orange": 1, "pink": 1}


def _missing_source(d):
    del entry(d, "investments", "garden")["source"]


def _cycle(d):
    d["player_board"]["abilities"][0]["requires"] = ["V2"]


def _unknown_prerequisite(d):
    d["player_board"]["abilities"][8]["requires"] = ["C9"]


def _fourth_accessory(d):
    d["accessories"].append({"id": "fan", "name": "Fan", "count": 1, "source": "reconstructed"})


def _orange_furnace(d):
    d["board"]["furnaces"][0]["colour"] = "orange"


def _no_single_pink(d):
    d["board"]["supply_bonuses"] = [b for b in d["board"]["supply_bonuses"] if b["id"] != "b4"]


def _bad_refills(d):
    d["board"]["army"]["refills"].pop(3)


def _typo_field(d):
    entry(d, "contracts", "uk-01")["cubs"] = {"blue": 1}


def _bad_field_source(d):
    entry(d, "contracts", "uk-01")["field_sources"] = {"colour": "rulebook"}


def _twelve_abilities(d):
    del d["player_board"]["abilities"][-2:]


def _blue_in_red_deck(d):
    entry(d, "professions", "packer")["deck"] = "red"


def _wrong_start_split(d):
    entry(d, "professions", "annealer")["side"] = "left"


def _pay_vp(d):
    entry(d, "professions", "baker")["benefit"] = {"pay": [{"vp": 1}], "gain": [{"coin": 2}]}


def _pay_pink(d):
    entry(d, "professions", "doctor")["benefit"]["pay"] = [{"cube": "pink"}]


def _gain_green(d):
    entry(d, "professions", "carter")["benefit"]["gain"] = [{"cube": "green"}]


def _empty_contract(d):
    entry(d, "contracts", "uk-01")["cubes"] = {}


def _unknown_accessory(d):
    entry(d, "contracts", "crown-05")["accessories"] = {"hat": 1}


@pytest.mark.parametrize(("breaker", "message"), [
    (_drop_contract, "contracts: the game has 39 contracts, not 38"),
    (_red_on_the_right, r"professions\[6\] \(stoker\): field 'side': a red profession "
                        r"belongs on the left side"),
    (_empty_pay, r"professions\[3\] \(doctor\)\.benefit\.pay: a trade must pay something"),
    (_unknown_colour, r"contracts\[2\] \(crown-03\): field 'cubes' has unknown colour "
                      r"'purple'"),
    (_duplicate_id, r"contracts\[1\] \(crown-01\): duplicate id"),
    (_two_colours, r"investments\[0\] \(utensils-1\): field 'cubes': an investment depicts "
                   r"cubes of one colour only"),
    (_missing_source, r"investments\[31\] \(garden\): field 'source' must be one of"),
    (_cycle, r"\(V1\): field 'requires' makes a cycle"),
    (_unknown_prerequisite, r"player_board\.abilities\[8\] \(C2\): field 'requires' names "
                            r"unknown ability 'C9'"),
    (_fourth_accessory, "accessories: the game has 3 accessory types"),
    (_orange_furnace, r"board\.furnaces\[0\] \(FN-UL\): field 'colour': furnaces make glass"),
    (_no_single_pink, "board.supply_bonuses: no combination takes a single pink cube"),
    (_bad_refills, r"board\.army\.refills: field 'space' must list the army's stops"),
    (_typo_field, r"contracts\[26\] \(uk-01\): unknown field 'cubs'"),
    (_bad_field_source, r"contracts\[26\] \(uk-01\): field 'field_sources' names 'colour', "
                        r"which is not a field"),
    (_twelve_abilities, "player_board.abilities: the player board has 14 abilities, not 12"),
    (_blue_in_red_deck, r"professions\[24\] \(packer\): field 'side': a red profession "
                        r"belongs on the left side, not the right"),
    (_wrong_start_split, "professions: 2 starting professions belong on the left side, not 3"),
    (_pay_vp, r"professions\[15\] \(baker\)\.benefit\.pay\[0\]: victory points cannot be paid"),
    (_pay_pink, r"professions\[3\] \(doctor\)\.benefit\.pay\[0\]: a profession pays 'any' "
                r"cube, not 'pink'"),
    (_gain_green, r"professions\[16\] \(carter\)\.benefit\.gain\[0\]: a profession gives "
                  r"'any' cube, not 'green'"),
    (_empty_contract, r"contracts\[26\] \(uk-01\): fields 'cubes' and 'accessories': a "
                      r"contract requires something"),
    (_unknown_accessory, r"contracts\[4\] \(crown-05\): field 'accessories' has unknown "
                         r"accessory type 'hat'"),
])
def test_broken_catalogues_are_rejected_naming_entry_and_field(breaker, message: str) -> None:
    data = raw()
    breaker(data)
    with pytest.raises(CatalogueError, match=message):
        parse_catalogue(data)


def test_catalogue_error_is_a_value_error() -> None:
    assert issubclass(CatalogueError, ValueError)
    with pytest.raises(ValueError, match="top level must be a JSON object"):
        parse_catalogue([])
    with pytest.raises(CatalogueError, match="field 'game' must be 'stephens'"):
        parse_catalogue({**raw(), "game": "samara"})


def test_a_value_of_an_unforeseen_shape_is_a_catalogue_error() -> None:
    data = raw()
    data["player_board"]["contract_rows"]["value"][2] = [1, 2]
    with pytest.raises(CatalogueError, match="player_board.contract_rows"):
        parse_catalogue(data)



def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    children: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        items = ()
    for key, child in items:
        children += [path + (key,), *_paths(child, path + (key,))]
    return children


def test_any_field_set_to_any_json_value_is_accepted_or_a_catalogue_error() -> None:
    rng = random.Random(7)
    paths = _paths(raw())
    values = [None, "x", -1, 10**9, [], {}, [1, 2], {"a": 1}, 1.5, True]
    for _ in range(300):
        data = raw()
        *parents, last = rng.choice(paths)
        target = data
        for key in parents:
            target = target[key]
        target[last] = rng.choice(values)
        try:
            parse_catalogue(data)
        except CatalogueError:
            pass


def test_the_board_has_its_fixed_places() -> None:
    assert [f.id for f in CAT.furnaces] == list(FURNACES)
    assert len(CAT.master_vp) == len(PLACES)
