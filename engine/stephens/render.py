"""A text drawing of a Stephens position, made from an observation.

:func:`render_view` reads only the dict ``observation()`` returns (and the public
catalogue), so a drawing shows what the players see: deck sizes, the face-up
profession deck tops, never the order of a deck.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.seats import player_name
from engine.stephens.components import Catalogue, disk_effect_text
from engine.stephens.vocabulary import COLOURS, INFLUENCE_DISK, PLACES
from engine.wording import count


def _counts(counts: Mapping[str, int]) -> str:
    shown = [f"{n} {name}" for name, n in counts.items() if n]
    return ", ".join(shown) or "-"


def _cards(ids: list[str | None]) -> str:
    return " ".join(i or "--" for i in ids) or "-"


def _activation_options(view: Mapping[str, Any], cat: Catalogue, seat: int,
                        place: int) -> list[str]:
    """The options of the deciding player's workers in the activated row, numbered as
    the ``activate CARD:OPTION`` moves name them."""
    ids = cat.profession_ids
    cards = sorted(ids[e["card"]] for e in view["places"][PLACES[place]]
                   if seat in (e["master"], e["apprentice"]))
    lines = []
    for card in cards:
        options = cat.professions[card].benefit.options
        listed = "; ".join(f"{k + 1} = {o.describe(cat)}" for k, o in enumerate(options))
        lines.append(f"    {cat.professions[card].id}: {listed}")
    return lines


def _needs(cat: Catalogue, card: str) -> str:
    """What a contract asks for, e.g. ``1 white + 1 any accessory``."""
    contract = next(c for c in cat.contracts if c.id == card)
    parts = [f"{n} {COLOURS[k]}" for k, n in enumerate(contract.cubes) if n]
    parts += [f"{n} {cat.accessories[k]}" for k, n in enumerate(contract.accessories) if n]
    if contract.any_accessories:
        parts.append(f"{contract.any_accessories} any accessory")
    return " + ".join(parts) or "nothing"


def _ability(cat: Catalogue, disk_id: str) -> str:
    """A player-board disk with what it does."""
    return f"{disk_id}({disk_effect_text(cat.disks[cat.disk_ids[disk_id]])})"


#: Every symbol the board uses, explained at its foot.
KEY = ("key: furnace NAME N COLOUR = N glass pieces; CARD[P1+P2] = a profession with its "
       "master's and apprentice's owners (A = the Automa); COST:CARD = a card on a display "
       "and its cost, '--' = an empty space; contract [needs] = the cubes and accessories "
       "it takes",
       "key: player-board disks: I5/I10/I15/I20 block the influence track at that space; "
       "V1-V5 VP abilities, PR1-PR2 profession abilities, C1-C4 contract and investment "
       "abilities, S1-S3 small-factory products")


def _disk_key(cat: Catalogue) -> str:
    """What every ability disk does, unlocked or not (``unlock DISK`` names them)."""
    return "key: abilities: " + "; ".join(
        f"{d.id} = {disk_effect_text(d)}" for d in cat.disks if d.effect != INFLUENCE_DISK)


def _who(owner: int | str) -> str:
    return "A" if owner == "automa" else f"P{int(owner) + 1}"


def render_view(view: Mapping[str, Any], cat: Catalogue) -> str:
    """The position as ``view`` (an observation) shows it."""
    decisions = view["decisions"]
    # The seat whose decision is on top plays next: not always the round's active one.
    whose = f"{player_name(decisions[-1]['seat'])} to play" if decisions else "the game is over"
    ending = f"; the end was triggered in round {view['end_round']}" if view["end_round"] else ""
    lines = [f"Stephens, {count(view['num_players'], 'player')}, round {view['round']}, {whose}; "
             f"French army on {view['army']}{ending}"]
    if decisions:
        top = decisions[-1]
        lines.append(f"waiting for {player_name(top['seat'])}: {top['kind']} "
                     f"({count(len(decisions), 'decision')} pending)")
        if top["kind"] == "activation":
            lines += _activation_options(view, cat, top["seat"], top["context"]["place"])
    lines.append("furnaces: " + "  ".join(
        f"{name} {n} {COLOURS[cat.furnaces[k].colour]}"
        for k, (name, n) in enumerate(view["furnaces"].items())))
    lines.append("small factories: " + "  ".join(
        f"{name} [{_counts(cubes)}]" for name, cubes in view["small_factories"].items()))
    profs = view["professions"]
    red, blue = profs["red_deck"], profs["blue_deck"]
    lines.append(f"professions: red deck {red['count']} (top {red['top'] or '-'}) | "
                 f"{_cards(profs['display'])} | blue deck {blue['count']} "
                 f"(top {blue['top'] or '-'}); discards {len(profs['red_discard'])} red, "
                 f"{len(profs['blue_discard'])} blue")
    for kind, costs in (("contracts", cat.contract_costs), ("investments", cat.investment_costs)):
        section = view[kind]
        row = "  ".join(f"{cost}:{card or '--'}"
                        + (f" [{_needs(cat, card)}]" if card and kind == "contracts" else "")
                        for cost, card in zip(costs, section["display"], strict=True))
        lines.append(f"{kind}: {row}  (deck {section['deck']}, discard "
                     f"{len(section['discard'])})")
    for name in PLACES:
        cards = view["places"][name]
        if not cards:
            continue
        workers = []
        for entry in cards:
            text = f"{entry['card']}[{_who(entry['master'])}"
            if entry["apprentice"] is not None:
                text += f"+{_who(entry['apprentice'])}"
            workers.append(text + "]")
        lines.append(f"  {name}: " + " ".join(workers))
    solo = view.get("solo")
    if solo is not None:
        revealed = solo["automa_revealed"]
        lines.append(f"Automa ({view['options']['difficulty']}, opponent "
                     f"{view['options']['opponent']}): deck {solo['automa_deck']}, last card "
                     f"{revealed[-1] if revealed else '-'}, bag [{_counts(solo['bag'])}]"
                     + ("; the final reset has begun" if solo["final_reset"] else ""))
    for seat, p in enumerate(view["players"]):
        lines.append(f"P{seat + 1}: {p['vp']} VP on the scoring track, {count(p['coins'], 'coin')}, influence "
                     f"{p['influence']}, forest {p['forest']}, dune {p['dune']}")
        lines.append(f"    cubes: {_counts(p['cubes'])}; accessories: "
                     f"{_counts(p['accessories'])}; unlocked: "
                     f"{' '.join(_ability(cat, d) for d in p['unlocked']) or '-'}")
        if p["contracts"]:
            lines.append("    contracts to fulfil: " + ", ".join(
                f"{c} [{_needs(cat, c)}]" for c in p["contracts"]))
        for colour, row in p["investments"].items():
            if row:
                lines.append(f"    {colour} investments: {' '.join(row)}")
        if any(p["reserved"].values()):
            lines.append(f"    reserved: {_counts(p['reserved'])}")
        for kind, row in p["fulfilled"].items():
            if row:
                lines.append(f"    fulfilled {kind}: {' '.join(row)}")
        if any(p["placed_accessories"].values()):
            lines.append(f"    accessories on contracts: {_counts(p['placed_accessories'])}")
    lines += [*KEY, _disk_key(cat)]
    return "\n".join(lines)
