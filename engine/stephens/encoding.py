"""A Stephens position as JSON: the field names and the writer.

:func:`state_to_json` writes every field of the position; :func:`engine.stephens.codec.state_from_json`
reads it back, checking it.  The format: ``docs/rules/stephens.md``.

>>> from engine.stephens.setup import new_state
>>> data = state_to_json(new_state(seed=5, num_players=3))
>>> tuple(data) == STATE_FIELDS, data["furnaces"]
(True, {'FN-UL': 4, 'FN-UR': 4, 'FN-LL': 4, 'FN-LR': 4})
"""

from __future__ import annotations

from typing import Any

from engine.stephens.components import Catalogue
from engine.stephens.position import EMPTY, Player, Position
from engine.stephens.vocabulary import (
    AUTOMA,
    COLOURS,
    DIFFICULTIES,
    FURNACES,
    NOBODY,
    PLACES,
    SMALL_FACTORIES,
    WOODEN_NAMES,
)

GAME = "stephens"
VERSION = 1
STATE_FIELDS = ("game", "version", "num_players", "options", "rng", "round", "end_round",
                "active", "army",
                "furnaces", "small_factories", "professions", "places", "contracts",
                "investments", "players", "decisions")
#: Fields a position may leave out.  Without ``decisions`` it is the start of the
#: ``active`` seat's turn: the loader builds the engine's stack for it (a position
#: whose other fields say a decision is pending is refused, naming the field).
OPTIONAL_FIELDS = ("decisions",)
#: Solo positions add this section (the Automa and the solo rules).
SOLO_FIELDS = ("automa_deck", "automa_revealed", "bag", "final_reset")
#: A worker of the Automa on a profession card, in JSON.
AUTOMA_WORD = "automa"
PLAYER_FIELDS = ("coins", "influence", "vp", "forest", "dune", "cubes", "accessories",
                 "unlocked", "contracts", "investments", "reserved", "fulfilled",
                 "placed_accessories")
#: Generous bounds for unbounded counters (VP beyond the printed 55, coins, cubes).
BIG = 10_000


def state_to_json(state: Position) -> dict[str, Any]:
    cat = state.catalogue
    prof = [p.id for p in cat.professions]
    con = [c.id for c in cat.contracts]
    inv = [c.id for c in cat.investments]

    def ids(names: list[str], cards: list[int]) -> list[str | None]:
        return [None if c == EMPTY else names[c] for c in cards]

    def owner(seat: int) -> int | str | None:
        return None if seat == NOBODY else AUTOMA_WORD if seat == AUTOMA else seat

    data = {
        "game": GAME,
        "version": VERSION,
        "num_players": state.num_players,
        "options": _options_to_json(state),
        "rng": format(state.rng[0], "016x"),
        "round": state.round,
        "end_round": state.end_round,
        "active": state.active,
        "army": state.army,
        "furnaces": dict(zip(FURNACES, state.furnaces, strict=True)),
        "small_factories": {name: dict(zip(WOODEN_NAMES, cubes, strict=True))
                            for name, cubes in zip(SMALL_FACTORIES, state.factories,
                                                   strict=True)},
        "professions": {
            "red_deck": ids(prof, state.profession_decks[0]),
            "blue_deck": ids(prof, state.profession_decks[1]),
            "display": ids(prof, state.profession_display),
            "red_discard": ids(prof, state.profession_discards[0]),
            "blue_discard": ids(prof, state.profession_discards[1]),
            "box": ids(prof, state.box),
        },
        "places": {name: [{"card": prof[c], "master": owner(state.master[c]),
                           "apprentice": owner(state.apprentice[c])} for c in cards]
                   for name, cards in zip(PLACES, state.places, strict=True)},
        "contracts": {"deck": ids(con, state.contract_deck),
                      "display": ids(con, state.contract_display),
                      "discard": ids(con, state.contract_discard)},
        "investments": {"deck": ids(inv, state.investment_deck),
                        "display": ids(inv, state.investment_display),
                        "discard": ids(inv, state.investment_discard)},
        "players": [_player_to_json(cat, p) for p in state.players],
        "decisions": [f.to_json() for f in state.decisions],
    }
    if state.solo:
        automa = [c.id for c in cat.solo.automa_cards]
        data["solo"] = {"automa_deck": [automa[c] for c in state.automa_deck],
                        "automa_revealed": [automa[c] for c in state.automa_revealed],
                        "bag": dict(zip(WOODEN_NAMES, state.bag, strict=True)),
                        "final_reset": state.final_reset}
    return data


def _options_to_json(state: Position) -> dict[str, str]:
    if not state.solo:
        return {}
    return {"difficulty": DIFFICULTIES[state.difficulty],
            "opponent": "none" if state.opponent < 0 else
            state.catalogue.solo.opponents[state.opponent].id}


def _player_to_json(cat: Catalogue, p: Player) -> dict[str, Any]:
    board = cat.board
    return {
        "coins": p.coins,
        "influence": p.influence,
        "vp": p.vp,
        "forest": p.forest,
        "dune": p.dune,
        "cubes": dict(zip(COLOURS, p.cubes, strict=True)),
        "accessories": dict(zip(cat.accessories, p.accessories, strict=True)),
        "unlocked": [d.id for d, flag in zip(cat.disks, p.unlocked, strict=True) if flag],
        "contracts": [cat.contracts[c].id for c in p.contracts],
        "investments": {COLOURS[colour]: [cat.investments[c].id for c in row]
                        for colour, row in zip(board.investment_rows, p.investments,
                                               strict=True)},
        "reserved": dict(zip(WOODEN_NAMES, p.reserved, strict=True)),
        "fulfilled": {cat.contract_types[kind]: [cat.contracts[c].id for c in row]
                      for kind, row in zip(board.contract_rows, p.fulfilled, strict=True)},
        "placed_accessories": dict(zip(cat.accessories, p.placed_accessories, strict=True)),
    }
