"""``furnace selfplay`` over several games: in worker processes it prints and saves what
one process does, in game order whatever order the games finish in, and leaving early
cancels the games not finished."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from furnace_cli import main


def _selfplay(capsys: pytest.CaptureFixture[str], path: Path,
              *argv: str) -> tuple[int, str, str, str]:
    code = main(["selfplay", *argv, "--save", str(path)])
    out, err = capsys.readouterr()
    return code, out, err, path.read_text(encoding="utf-8")


def test_selfplay_in_workers_prints_and_saves_what_one_process_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["samara", "--bots", "greedy,random", "--games", "4", "--seed", "2"]
    code, out, _, saved = _selfplay(capsys, tmp_path / "one.jsonl", *argv, "--workers", "1")
    assert code == 0
    assert [line.split(" (")[0] for line in out.splitlines() if line.startswith("game ")] \
        == ["game 1", "game 2", "game 3", "game 4"]
    assert len(saved.splitlines()) == 4
    code, pooled_out, err, pooled_saved = _selfplay(capsys, tmp_path / "pool.jsonl", *argv,
                                                    "--workers", "2")
    assert code == 0
    assert (pooled_out, pooled_saved) == (out, saved)
    assert "4/4" in err  # the progress bar


class _LastFirstBatch:
    """A batch that runs its jobs here, the last one first, and notes when its run is
    closed and when it is left."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __enter__(self) -> _LastFirstBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.events.append("left")

    def run(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]],
            on_lost: Callable[[int], None] | None = None,
            ) -> Generator[tuple[int, Any], None, None]:
        try:
            for index in reversed(range(len(jobs))):
                yield index, fn(*jobs[index])
        finally:
            self.events.append("closed")  # where a real batch cancels what is not done


@pytest.fixture
def last_first(monkeypatch: pytest.MonkeyPatch) -> _LastFirstBatch:
    batch = _LastFirstBatch()
    monkeypatch.setattr("engine.batch.open_batch", lambda *args, **kwargs: batch)
    return batch


ARGV = ["oh-my-goods", "--bots", "random", "--games", "3", "--seed", "7", "--json"]


def test_games_finished_out_of_order_are_written_in_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        last_first: _LastFirstBatch) -> None:
    code, out, _, saved = _selfplay(capsys, tmp_path / "batch.jsonl", *ARGV, "--workers", "2")
    assert code == 0 and last_first.events == ["closed", "left"]
    last_first.events.clear()
    _, one_out, _, one_saved = _selfplay(capsys, tmp_path / "one.jsonl", *ARGV)
    assert (one_out, one_saved) == (out, saved)
    assert last_first.events == []  # one worker: played here, no batch
    assert len(out.splitlines()) == len(saved.splitlines()) == 3


def test_an_interrupted_selfplay_cancels_its_games_before_letting_its_workers_go(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        last_first: _LastFirstBatch) -> None:
    def interrupting_bar(label: str) -> Callable[[int, int], None]:
        def show(done: int, total: int) -> None:
            raise KeyboardInterrupt  # Ctrl-C once a game has finished

        return show

    monkeypatch.setattr("furnace_cli._progress_bar", interrupting_bar)
    code, out, err, saved = _selfplay(capsys, tmp_path / "cut.jsonl", *ARGV, "--workers", "2")
    assert code == 130 and "interrupted" in err
    # The run is closed (its jobs cancelled) before the batch is left; the last game,
    # finished first, was waiting for the first two: nothing written.
    assert last_first.events == ["closed", "left"]
    assert (out, saved) == ("", "")


def test_selfplay_needs_a_worker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "samara", "--games", "2", "--workers", "0"]) == 2
    assert "--workers must be at least 1, not 0" in capsys.readouterr().err
