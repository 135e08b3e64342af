"""The worker process's loop and replies, run in this process (the pool's tests run
them in workers)."""

from __future__ import annotations

import gc
import time
import weakref
from typing import Any

import pytest

from ai_server import jobs, worker
from engine import registry
from engine.collector import NO_FULL_PASSES


class RecordingConnection:
    """A pipe end that notes, at each send, whether the watched object was still alive."""

    def __init__(self, watched: weakref.ref[Any]) -> None:
        self.watched = watched
        self.sent: list[tuple[Any, ...]] = []
        self.alive_at_send: list[bool] = []

    def send(self, message: tuple[Any, ...]) -> None:
        self.alive_at_send.append(self.watched() is not None)
        self.sent.append(message)


@pytest.fixture
def trees(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref[Any]]:
    """Weak references to every tree the jobs make."""
    made: list[weakref.ref[Any]] = []
    make_tree = jobs.make_tree

    def recording_make_tree(*args: Any, **kwargs: Any) -> Any:
        tree = make_tree(*args, **kwargs)
        made.append(weakref.ref(tree))
        return tree

    monkeypatch.setattr(jobs, "make_tree", recording_make_tree)
    return made


def test_a_search_tree_is_freed_only_after_the_reply_is_sent(
        trees: list[weakref.ref[Any]]) -> None:
    # Freeing a big tree takes a tenth of a second; before the reply, it delayed
    # answers a call near its deadline was waiting for (a CI run missed one).
    state = registry.get_game("samara").new_game(5, num_players=2)
    result = jobs.run_search(state, iterations=300, time_end=time.monotonic() + 60,
                             deadline=None, seed=1, c=None)
    assert result is not None and result.analysis.iterations == 300
    [tree] = trees
    assert tree() is not None
    connection = RecordingConnection(tree)
    assert worker.send_reply(connection, ("result", 7, result))
    assert connection.sent == [("result", 7, result)] and connection.alive_at_send == [True]
    assert tree() is None


def test_a_reply_that_does_not_pickle_goes_back_as_a_plain_error() -> None:
    class Unpicklable(Exception):
        pass

    class PicklingConnection:
        def __init__(self) -> None:
            self.sent: list[tuple[Any, ...]] = []

        def send(self, message: tuple[Any, ...]) -> None:
            if isinstance(message[2], Unpicklable):
                raise TypeError("cannot pickle")
            self.sent.append(message)

    connection = PicklingConnection()
    assert worker.send_reply(connection, ("error", 3, Unpicklable("x")))
    [(kind, job_id, error)] = connection.sent
    assert (kind, job_id, type(error), str(error)) == ("error", 3, RuntimeError,
                                                       "TypeError: cannot pickle")


def test_a_closed_pool_connection_ends_the_worker_loop() -> None:
    class ClosedConnection:
        def send(self, message: tuple[Any, ...]) -> None:
            raise BrokenPipeError

    worker.drop_after_reply(object())
    assert not worker.send_reply(ClosedConnection(), ("result", 1, {}))
    assert not worker._DROPPED_AFTER_REPLY


def test_no_full_collection_between_the_job_and_its_reply() -> None:
    # A search holds the collector's full passes off; released at its end, the first
    # pass walked the whole tree (0.25 s of CPU after a 5 s Samara search, seconds for a
    # worker at nice 10 on a busy machine) before the answer went out.  The worker holds
    # them until the reply is sent and the tree dropped.
    original = gc.get_threshold()
    during_send: list[tuple[int, ...]] = []

    class Connection:
        def send(self, message: tuple[Any, ...]) -> None:
            during_send.append(gc.get_threshold())

    def job(*, slot: int | None = None) -> str:
        during_job.append(gc.get_threshold())
        return "done"

    during_job: list[tuple[int, ...]] = []
    assert worker.run_job(Connection(), 5, job, (), {}, None)
    assert during_job[0][2] == during_send[0][2] == NO_FULL_PASSES
    assert gc.get_threshold() == original
