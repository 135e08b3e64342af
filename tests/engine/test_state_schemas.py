"""The games' JSON Schemas: valid draft 2020-12, true of every real state, no looser than
the loaders on shape, and their reference pages up to date.

Each game describes its JSON state once (``Game.state_description()``); the schema
(``json_schema(Game.state_description())``), the reference (``docs/states/``) and, for Samara and Oh My
Goods!, the loader's shape checks come from it.  Here, with the reference validator
(``jsonschema``):

* every state of seeded random games of every game and player count (Stephens' solo
  game included) validates;
* mutated real states: whenever the loader refuses one for a type or shape reason (a
  JSON type never met there, a required field missing, an unknown field, a negative
  number where only counts were met, a number past every bound), the schema refuses
  it too.  Refusals the schema cannot express (a card in two places, a bound that
  depends on another field) are the loader's alone: a mutation of a value into
  another value of a type met there is no shape mutation.
"""

from __future__ import annotations

import copy
import importlib.util
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine import registry
from engine.game import InvalidStateError
from engine.state_schema import Array, Node, Object, OneOf, field_rows, json_schema
from fuzzers.states import path_text as fuzz_path
from fuzzers.states import pattern, walk

ROOT = Path(__file__).resolve().parents[2]
#: Random games per game and player count, and their seed.
GAMES = 1
SEED = 20261126
#: Mutated states per game (each a shape mutation of a random real state).
MUTANTS = 360

GAME_COUNTS = [(name, n) for name in registry.game_names()
               for n in registry.get_game(name).info.player_counts]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(json_schema(registry.get_game(name).state_description()))


@cache
def _states(name: str, players: int) -> tuple[dict[str, Any], ...]:
    """Every state of :data:`GAMES` seeded random games (default options)."""
    game = registry.get_game(name)
    states = []
    for g in range(GAMES):
        seed = SEED + 31 * players + g
        rng = random.Random(seed)
        state = game.new_game(seed, players)
        states.append(state.to_json())
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            states.append(state.to_json())
    return tuple(states)


@cache
def _corpus(name: str) -> tuple[tuple[dict[str, Any], ...], dict[str, set[str]], set[str]]:
    """Real states of every player count, the JSON types met at each field, and the
    fields where a negative number was met."""
    game = registry.get_game(name)
    states = [s for n in game.info.player_counts for s in _states(name, n)]
    types: dict[str, set[str]] = {}
    negative: set[str] = set()
    for doc in states:
        for path, value in walk(doc):
            types.setdefault(pattern(path), set()).add(_json_type(value))
            if _json_type(value) == "integer" and value < 0:
                negative.add(pattern(path))
    return tuple(states), types, negative


# -- the schema itself ----------------------------------------------------------------------

@pytest.mark.parametrize("name", registry.game_names())
def test_schema_is_valid_draft_2020_12_and_describes_every_field(name: str) -> None:
    game = registry.get_game(name)
    schema = json_schema(game.state_description())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema == json_schema(game.state_description())

    def described(node: dict[str, Any], where: str) -> None:
        assert node.get("description"), f"{name}: {where} has no description"
        assert node.get("x-visible-to", "everyone") in ("everyone", "owner", "nobody")
        for key, sub in node.get("properties", {}).items():
            described(sub, f"{where}.{key}")
        if isinstance(node.get("items"), dict):
            described(node["items"], f"{where}[]")
        for option in node.get("oneOf", []):
            if option != {"type": "null"}:
                described(option, f"{where}(option)")

    described(schema, name)
    rows = field_rows(game.state_description())
    assert len({row.path for row in rows}) == len(rows)


def test_hidden_information_is_annotated() -> None:
    def visible(name: str, *path: str) -> str:
        node = json_schema(registry.get_game(name).state_description())
        seen = "everyone"
        for key in path:
            node = node["items"] if key == "[]" else node["properties"][key]
            seen = node.get("x-visible-to", seen)
        return seen

    assert visible("oh-my-goods", "players", "[]", "hand") == "owner"
    assert visible("oh-my-goods", "players", "[]", "hand", "[]") == "owner"
    assert visible("oh-my-goods", "deck") == visible("oh-my-goods", "rng") == "nobody"
    assert visible("oh-my-goods", "discard") == "everyone"
    assert visible("stephens", "contracts", "deck") == "nobody"
    assert visible("stephens", "solo", "automa_deck") == "nobody"
    assert visible("stephens", "contracts", "display") == "everyone"
    assert visible("samara", "foremen", "[]", "tools") == "everyone"
    deal = json_schema(registry.get_game("oh-my-goods").state_description())["properties"]["deck"]["x-deal"]
    assert "top last" in deal


def test_stephens_decision_stack_may_be_left_out() -> None:
    schema = json_schema(registry.get_game("stephens").state_description())
    assert "decisions" not in schema["required"]
    assert "omit at the start of a turn; the server builds it" in \
        schema["properties"]["decisions"]["description"].lower()
    state = registry.get_game("stephens").new_game(3, 2).to_json()
    del state["decisions"]
    assert _validator("stephens").is_valid(state)


def test_solo_and_per_seat_rules_follow_the_player_count() -> None:
    validator = _validator("stephens")
    solo = registry.get_game("stephens").new_game(2, 1).to_json()
    duo = registry.get_game("stephens").new_game(2, 2).to_json()
    assert validator.is_valid(solo) and validator.is_valid(duo)
    assert not validator.is_valid({k: v for k, v in solo.items() if k != "solo"})
    assert not validator.is_valid({**duo, "solo": solo["solo"]})
    assert not validator.is_valid({**duo, "options": solo["options"]})
    assert not validator.is_valid({**solo, "options": {}})
    samara = registry.get_game("samara").new_game(2, 3).to_json()
    assert not _validator("samara").is_valid({**samara, "foremen": samara["foremen"][:2]})


def test_the_schema_says_what_the_loaders_check_of_seats_sizes_and_order() -> None:
    """Issue 38: seat numbers past the player count, the Automa in a 2-4 player game,
    an eighth building before the last round, the board's spots out of order were
    valid for the schema though every loader refuses them."""
    omg = registry.get_game("oh-my-goods").new_game(3, 2).to_json()
    assert _validator("oh-my-goods").is_valid(omg)
    for field in ("active", "turn"):
        assert not _validator("oh-my-goods").is_valid({**omg, field: 2})
    players = copy.deepcopy(omg["players"])
    players[0]["buildings"] = omg["deck"][:7]
    players[0]["goods"] += [[] for _ in range(7)]
    assert _validator("oh-my-goods").is_valid({**omg, "players": players})
    players[0]["buildings"].append(omg["deck"][7])
    players[0]["goods"].append([])
    assert not _validator("oh-my-goods").is_valid({**omg, "players": players})
    assert _validator("oh-my-goods").is_valid({**omg, "players": players, "final_round": 1})
    players[0]["work"] = {"slot": -1, "mode": "sloppy"}
    assert not _validator("oh-my-goods").is_valid({**omg, "players": players, "final_round": 1})

    def with_master(state: dict[str, Any], master: Any) -> dict[str, Any]:
        state = copy.deepcopy(state)
        state["places"]["FN-UL"][0]["master"] = master
        return state

    solo = registry.get_game("stephens").new_game(2, 1).to_json()
    duo = registry.get_game("stephens").new_game(2, 2).to_json()
    assert solo["places"]["FN-UL"] and duo["places"]["FN-UL"]
    assert _validator("stephens").is_valid(with_master(solo, "automa"))
    assert not _validator("stephens").is_valid(with_master(duo, "automa"))
    assert not _validator("stephens").is_valid(with_master(duo, 2))
    assert _validator("stephens").is_valid(with_master(duo, 1))
    display = duo["professions"]["display"]
    swapped = copy.deepcopy(duo)
    swapped["professions"]["display"] = [display[2], display[1], display[0], display[3]]
    assert not _validator("stephens").is_valid(swapped)
    samara = registry.get_game("samara").new_game(2, 3).to_json()
    spots = copy.deepcopy(samara["spots"])
    spots[0], spots[1] = spots[1], spots[0]
    assert not _validator("samara").is_valid({**samara, "spots": spots})
    assert not _validator("samara").is_valid({**samara, "pending": [
        {"kind": "weaken", "player": 0, "target": 0}] * 3})


def test_the_reference_prints_each_type_once() -> None:
    """Issue 38: docs/states/stephens.md printed `seat or "automa" or null or null`."""
    text = (ROOT / "docs" / "states" / "stephens.md").read_text(encoding="utf-8")
    assert "or null or null" not in text
    assert ('| `places.FN-UL[].apprentice` | integer 0..num_players-1 (a seat) or `"automa"` '
            '(1 player only) or null |') in text


# -- every real state validates ---------------------------------------------------------------

@pytest.mark.parametrize(("name", "players"), GAME_COUNTS)
def test_every_state_of_random_games_validates(name: str, players: int) -> None:
    validator = _validator(name)
    states = _states(name, players)
    assert len(states) > 10 and states[-1] != states[0]
    for k, doc in enumerate(states):
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        assert not errors, (f"{name} {players}p state {k}: "
                            + "; ".join(f"{list(e.absolute_path)}: {e.message[:200]}"
                                        for e in errors[:3]))


# -- what the loader refuses for its shape, the schema refuses ------------------------------

def _node_at(root: Object, path: tuple[str | int, ...]) -> Node | None:
    """The description's node of a path (None inside alternatives)."""
    node: Node = root
    for key in path:
        if isinstance(node, Object) and isinstance(key, str):
            node = node.prop(key).node
        elif isinstance(node, Array) and isinstance(key, int):
            node = node.items
        else:
            return None
        if isinstance(node, OneOf):
            return None
    return node


def _mutants(name: str, rng: random.Random
             ) -> Iterator[tuple[str, tuple[str | int, ...], Any]]:
    """(what, the path mutated, mutant) shape mutations of real states."""
    states, types, negative = _corpus(name)
    others = (None, True, 1.5, "x", 7, [], {}, [1], {"a": 1})
    while True:
        doc = rng.choice(states)
        nodes = list(walk(doc))
        path, value = rng.choice(nodes)
        field = pattern(path)
        mutant = copy.deepcopy(doc)
        parent = mutant
        for key in path[:-1]:
            parent = parent[key]
        kind = rng.randrange(5)
        if kind == 0:  # a JSON type never met at this field
            new = rng.choice([v for v in others if _json_type(v) not in types[field]] or [None])
            if _json_type(new) in types[field]:
                continue
            parent[path[-1]] = new
            yield f"{field}: {new!r} (a type never met there)", path, mutant
        elif kind == 1 and isinstance(parent, dict):  # a field left out
            del parent[path[-1]]
            yield "left out", path, mutant
        elif kind == 2:  # an unknown field, beside this one or inside it
            target = parent if isinstance(parent, dict) else value
            if not isinstance(target, dict):
                continue
            if target is value:
                target = _get(mutant, path)
            target["extra_field"] = 1
            yield "an unknown field beside or in it", path, mutant
        elif kind == 3 and _json_type(value) == "integer" and field not in negative:
            parent[path[-1]] = -1
            yield "-1 where only counts were met", path, mutant
        elif kind == 4 and _json_type(value) == "integer":
            parent[path[-1]] = 10 ** 30
            yield "10**30", path, mutant


def _get(doc: Any, path: tuple[str | int, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _loads(name: str, data: Any) -> str | None:
    """None if the loader accepts ``data``, else its reason."""
    try:
        registry.get_game(name).state_from_json(data)
    except InvalidStateError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", registry.game_names())
def test_what_the_loader_refuses_for_its_shape_the_schema_refuses(name: str) -> None:
    validator = _validator(name)
    root = registry.get_game(name).state_description().root
    rng = random.Random(f"{SEED}:{name}")
    refused = schema_refused = 0
    missed = []
    for what, path, mutant in _take(_mutants(name, rng), MUTANTS):
        reason = _loads(name, mutant)
        if reason is None:
            continue
        refused += 1
        if not validator.is_valid(mutant):
            schema_refused += 1
            continue
        if what == "left out":
            # An optional field left out: the loader uses its default (the same as
            # writing it: test_defaults_of_optional_fields_are_the_loaders) or works it
            # out (Stephens' decision stack at the start of a turn); whether that fits
            # the position is a rule, not a shape.
            parent = _node_at(root, path[:-1])
            if isinstance(parent, Object) and not parent.prop(str(path[-1])).required:
                continue
        missed.append(f"{fuzz_path(path)}: {what}: the loader says {reason!r}")
    assert not missed, "\n".join(missed[:10])
    assert refused >= MUTANTS // 3 and schema_refused >= refused * 0.9, (refused,
                                                                         schema_refused)


def test_defaults_of_optional_fields_are_the_loaders() -> None:
    """Leaving an optional field out loads as writing its default."""
    for name in ("samara", "oh-my-goods"):
        game = registry.get_game(name)
        states, _, _ = _corpus(name)
        root = game.state_description().root
        for doc in states[:: max(1, len(states) // 12)]:
            for path, _ in walk(doc):
                node = _node_at(root, path[:-1])
                if not isinstance(node, Object) or not isinstance(path[-1], str):
                    continue
                prop = node.prop(path[-1])
                if prop.required or not prop.has_default:
                    continue
                left_out, filled = copy.deepcopy(doc), copy.deepcopy(doc)
                del _get(left_out, path[:-1])[path[-1]]
                _get(filled, path[:-1])[path[-1]] = copy.deepcopy(prop.default)
                assert _loads(name, left_out) == _loads(name, filled), (name, path)


def _take(items: Iterator[Any], count: int) -> Iterator[Any]:
    for _, item in zip(range(count), items, strict=False):
        yield item


# -- the reference ------------------------------------------------------------------------------

def test_reference_pages_are_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_state_docs",
                                                  ROOT / "scripts" / "gen_state_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.stale() == [], "run python scripts/gen_state_docs.py"
    page = (ROOT / "docs" / "states" / "stephens.md").read_text(encoding="utf-8")
    assert "start of a turn" in page and "`decisions`" in page
    for name in registry.game_names():
        text = (ROOT / "docs" / "states" / f"{name}.md").read_text(encoding="utf-8")
        for row in field_rows(registry.get_game(name).state_description()):
            assert f"| `{row.path}` |" in text
