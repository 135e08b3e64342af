"""Game records (engine.records): a setup plus moves, replayed to the position played.

Replay must give the very state that NewGame's deal plus one ApplyMove per move gives,
on the kernel path and on the reference rules alike (run the suite with
FURNACE_PURE_PYTHON=1 for the second), and name the first bad move by its index.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import records, registry
from engine.game import InvalidStateError, State
from engine.move_checks import MoveFault
from engine.records import GameRecord, RecordError, RecordMoveError, replay

GAMES = [("samara", 2), ("oh-my-goods", 3), ("stephens", 2)]


def played_game(name: str, players: int, seed: int, max_moves: int | None = None
                ) -> tuple[State, list[int], list[str]]:
    """A random game from NewGame's deal of ``seed``: its final state, ids and texts."""
    state = registry.get_game(name).new_game(seed=seed, num_players=players)
    rng = random.Random(seed)
    ids: list[int] = []
    texts: list[str] = []
    while not state.is_terminal() and (max_moves is None or len(ids) < max_moves):
        move = rng.choice(state.legal_moves())
        ids.append(move)
        texts.append(state.move_to_text(move))
        state.apply(move)
    return state, ids, texts


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_whole_game_replays_to_the_same_state_on_both_paths(name: str, players: int) -> None:
    final, ids, texts = played_game(name, players, seed=11)
    assert final.is_terminal()
    for moves in (ids, texts, list(zip(ids, texts, strict=True))):
        record = GameRecord(name, players, seed=11, moves=list(moves))
        on_kernel = replay(record)
        on_reference = replay(record, kernel=False)
        assert type(on_kernel) is type(final)  # a reference-rules state, whatever the path
        assert on_kernel.to_json() == on_reference.to_json() == final.to_json()
        assert on_kernel.scores() == final.scores()


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_an_initial_position_plus_moves(name: str, players: int) -> None:
    middle, first, _ = played_game(name, players, seed=5, max_moves=20)
    final, ids, _ = played_game(name, players, seed=5, max_moves=45)
    assert ids[:20] == first
    record = GameRecord(name, players, initial=middle.to_json(), moves=list(ids[20:]))
    assert replay(record).to_json() == final.to_json()
    assert replay(record, kernel=False).to_json() == final.to_json()
    wrong = GameRecord(name, players + 1, initial=middle.to_json())
    with pytest.raises(RecordError) as info:
        replay(wrong)
    assert info.value.field == "num_players"


def test_no_moves_is_the_setup_itself() -> None:
    dealt = registry.get_game("oh-my-goods").new_game(seed=3, num_players=2,
                                                      options={"second_edition": True})
    record = GameRecord("oh-my-goods", 2, {"second_edition": True}, seed=3)
    assert replay(record).to_json() == dealt.to_json()
    with pytest.raises(RecordError, match="a seed .* or an initial position"):
        replay(GameRecord("oh-my-goods", 2))


def _bad(record: GameRecord, kernel: bool) -> RecordMoveError:
    with pytest.raises(RecordMoveError) as info:
        replay(record, kernel=kernel)
    return info.value


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_bad_move_is_named_by_its_index(name: str, players: int, kernel: bool) -> None:
    _, ids, texts = played_game(name, players, seed=2)
    k = 7
    before = replay(GameRecord(name, players, seed=2, moves=list(ids[:k])))
    # A move of the game played later on, not legal at move k.
    illegal = next(m for m in ids if before.why_illegal(m) is not None)
    assert before.is_move_code(illegal)
    cases: list[tuple[Any, str, str | None]] = [
        (illegal, MoveFault.RULES, None),
        ("no such move at all", MoveFault.UNPARSEABLE, "text"),
        (-1, MoveFault.NOT_A_MOVE, "id"),
        ((ids[k], texts[k + 1]) if ids[k] != ids[k + 1] else (illegal, texts[k]),
         MoveFault.ID_TEXT_MISMATCH, None),
        ("", MoveFault.EMPTY, None),
    ]
    for entry, kind, part in cases:
        moves: list[Any] = [*ids[:k], entry, *ids[k + 1:]]
        error = _bad(GameRecord(name, players, seed=2, moves=moves), kernel)
        assert (error.index, error.kind, error.part) == (k, kind, part), entry
        assert error.field == f"moves[{k}]" + (f".{part}" if part else "")
        assert str(error).startswith(f"moves[{k}]: ")
    reason = before.why_illegal(illegal)
    assert reason is not None and reason in str(
        _bad(GameRecord(name, players, seed=2, moves=[*ids[:k], illegal]), kernel))


@pytest.mark.parametrize("kernel", [True, False])
def test_a_move_after_the_end(kernel: bool) -> None:
    final, ids, _ = played_game("samara", 2, seed=4)
    error = _bad(GameRecord("samara", 2, seed=4, moves=[*ids, ids[-1]]), kernel)
    assert (error.index, error.kind) == (len(ids), MoveFault.GAME_OVER)


def test_too_many_moves_are_refused_before_any_replay() -> None:
    record = GameRecord("samara", 2, seed=1, moves=[0] * (records.MAX_RECORD_MOVES + 1))
    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.field == "moves"
    assert not isinstance(info.value, RecordMoveError)


def test_a_kernel_that_fails_hands_the_replay_to_the_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    final, ids, _ = played_game("oh-my-goods", 2, seed=9, max_moves=30)

    class Bounded:  # a twin whose fixed bounds the game outgrows at once
        def __init__(self, state: State) -> None:
            self.state = state

        def __getattr__(self, name: str) -> Any:
            return getattr(self.state, name)

        def apply(self, move: int) -> None:
            raise ValueError("the position outgrew the kernel's fixed bounds")

        play_legal = apply

        def to_reference(self) -> State:  # pragma: no cover - never reached
            raise AssertionError

    start = registry.get_game("oh-my-goods").new_game(seed=9, num_players=2)
    monkeypatch.setattr(type(start), "search_state", lambda self: Bounded(self.clone()))
    assert records.replay_from(start, ids).to_json() == final.to_json()


def test_record_files_round_trip() -> None:
    _, ids, texts = played_game("stephens", 2, seed=8, max_moves=10)
    record = GameRecord("stephens", 2, {}, seed=8, moves=list(ids))
    data = records.record_to_json(record, texts)
    assert data["format"] == "furnace-record" and data["version"] == 1
    assert data["moves"][0] == {"id": ids[0], "text": texts[0]}
    again = records.record_from_json(json.loads(json.dumps(data)))
    assert again.moves == list(zip(ids, texts, strict=True))
    assert replay(again).to_json() == replay(record).to_json()
    assert records.record_from_json(records.record_to_json(record)) == record
    assert not records.is_record_json(replay(record).to_json())


@pytest.mark.parametrize(("change", "field"), [
    ({"format": "other"}, "format"),
    ({"version": 2}, "version"),
    ({"game": 3}, "game"),
    ({"num_players": "two"}, "num_players"),
    ({"seed": None}, "seed"),
    ({"initial": {"game": "samara"}}, "seed"),
    ({"seed": -1}, "seed"),
    ({"moves": {"0": 1}}, "moves"),
    ({"moves": [{}]}, "moves[0]"),
    ({"moves": [1.5]}, "moves[0]"),
])
def test_bad_record_files_name_the_field(change: dict[str, Any], field: str) -> None:
    data = records.record_to_json(GameRecord("samara", 2, seed=1, moves=[0]))
    data.update(change)
    with pytest.raises(InvalidStateError) as info:
        records.record_from_json(data)
    assert info.value.path == field
