"""checks.kernel_fields: every field of a game's state description survives its kernel's copies."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from checks.kernel_fields import (
    VALUES_NEEDED,
    FieldsReport,
    _key,
    alternatives,
    check_kernel_fields,
    described_fields,
    leaves,
)
from engine import registry
from engine.game import FurnaceError, Game, InvalidStateError, State
from engine.state_schema import Array, Boolean, Integer, Object, OneOf, Prop, String

GAMES = ("samara", "oh-my-goods", "stephens")


def _has_kernel(name: str) -> bool:
    state = registry.get_game(name).new_game(1, 2)
    return state.search_state() is not state


@pytest.mark.parametrize("name", GAMES)
def test_every_described_field_survives_the_kernel(name: str) -> None:
    """The kernel's from_reference/to_reference lose no field, and every field of the
    description came back in at least two values."""
    if not _has_kernel(name):
        pytest.skip("kernel not built (or FURNACE_PURE_PYTHON set)")
    report = check_kernel_fields(registry.get_game(name))
    assert report.losses == []
    assert report.uncovered == []
    assert report.constants == ["game", "version"]
    assert len(report.values) > 30
    summary = report.summary()
    assert summary["losses"] == 0 and summary["uncovered"] == []


def _writes_one_value(game: Game, key: str, value: Any) -> Callable[[State], State]:
    """A twin whose copy writes ``value`` at field ``key`` whatever the state holds there
    (the copy a field forgotten by ``from_reference`` makes), where the loader lets it."""
    def twin_of(state: State) -> State:
        doc = copy.deepcopy(state.to_json())
        for path, _, is_list in list(leaves(doc)):
            if path and not is_list and _key(path, is_list) == key:
                parent = doc
                for step in path[:-1]:
                    parent = parent[step]
                parent[path[-1]] = value
        try:
            return game.state_from_json(doc)
        except InvalidStateError:
            return state
    return twin_of


@pytest.mark.parametrize("name, key, value", [
    ("samara", "options.powers", False),
    ("oh-my-goods", "options.second_edition", False),
    ("stephens", "army", 40),
])
def test_a_copy_that_forgets_a_field_is_caught(name: str, key: str, value: Any) -> None:
    """Whatever engine path runs: the check compares what the twin gives back with
    the state it was made from, so a copy that loses a field is named."""
    game = registry.get_game(name)
    report = check_kernel_fields(game, games=4, twin_of=_writes_one_value(game, key, value))
    assert report.losses, "the forgotten field went unnoticed"
    assert all("differs" in what and key.rsplit(".", 1)[-1] in what
               for _, what in report.losses), report.losses[:3]


def test_a_field_play_never_varies_is_uncovered_until_varied() -> None:
    report = FieldsReport("toy", values={"a": {"1"}, "b": {"1", "2"}, "game": {"x"}},
                          constants=["game"])
    assert report.uncovered == ["a"]
    report.values["a"].add("3")
    assert report.uncovered == [] and len(report.values["a"]) == VALUES_NEEDED


def test_described_fields_name_values_and_list_lengths() -> None:
    frame = Object(fields=(Prop("kind", String(choices=("a", "b"))),))
    root = Object(fields=(
        Prop("n", Integer(lo=0, hi=3)),
        Prop("hand", Array(items=String(choices=("x",)))),
        Prop("seats", Array(items=Boolean(), per_seat=True)),
        Prop("stack", Array(items=OneOf(options=(frame, frame)))),
    ))
    assert [k for k, _ in described_fields(root)] == [
        "n", "hand#length", "hand[]", "seats[]", "stack#length", "stack[].kind",
        "stack[].kind"]


def test_alternatives_stay_within_the_description() -> None:
    assert alternatives(Integer(lo=0, hi=9), 4) == [0, 1, 8, 9, 3, 5]
    assert alternatives(Integer(lo=0, hi=9, values=(0, 5, 9), nullable=True), 5) == [0, 9, None]
    assert alternatives(Boolean(), True) == [False]
    assert alternatives(String(choices=("a", "b")), "a") == ["b"]


def test_no_kernel_is_refused_by_name() -> None:
    if _has_kernel("samara"):
        pytest.skip("the kernel is built: this is the pure path's answer")
    with pytest.raises(FurnaceError, match="kernel for samara is not built"):
        check_kernel_fields(registry.get_game("samara"), games=1)
