"""Why a search job stopped: the server's one vocabulary of stop reasons.

A job's result carries one of these names (``stop_reason``); :mod:`ai_server.messages`
maps each to the wire's ``SearchStopReason``.  The engine's search knows only three
reasons of its own (:mod:`engine.search.budget`: its iterations, its time limit, or
asked to stop); :func:`job_stop_reason` says which of the server's it was.
"""

from __future__ import annotations

from engine.search.budget import STOP_REQUESTED, STOP_TIME_LIMIT

#: The iteration budget was spent.
ITERATIONS = "ITERATIONS"
#: The time budget ran out.
TIME_LIMIT = "TIME_LIMIT"
#: Stopped a little before the call's deadline.
DEADLINE = "DEADLINE"
#: The caller went away.
CANCELLED = "CANCELLED"
#: The worker's resident memory passed the pool's cap.
MEMORY = "MEMORY"
#: The server is stopping: the best move so far.
SHUTDOWN = "SHUTDOWN"
#: Stopped early for a waiting client's job (the pool's fair shares).
PREEMPTED = "PREEMPTED"
#: Its time budget ran out mostly while it waited for a worker.
QUEUE_WAIT = "QUEUE_WAIT"

ALL = (ITERATIONS, TIME_LIMIT, DEADLINE, CANCELLED, MEMORY, SHUTDOWN, PREEMPTED, QUEUE_WAIT)


def job_stop_reason(search_reason: str, requested: str, out_of_time: str) -> str:
    """The server's reason for a search that stopped with the engine's ``search_reason``:
    ``requested`` is what made the job ask it to stop (its flag, the memory cap, an end
    time), ``out_of_time`` the reason its own time limit stands for."""
    if search_reason == STOP_REQUESTED:
        return requested
    if search_reason == STOP_TIME_LIMIT:
        return out_of_time
    return ITERATIONS
