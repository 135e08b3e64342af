"""``furnace.v1.FurnaceService``: admit a call, run its game work in a worker, answer.

The servicer runs no game code on the event loop: every call's game work (decoding
the position, the game's validation, legal moves, checks, applies, searches) runs in
a worker process of one of the server's two pools (:mod:`ai_server.pool`), as the
jobs of :mod:`ai_server.calls`, so that no request can hold up another, nor the
health service.  What stays here is scheduling and translation:

* ListGames answers the response built once when the server started;
* NewGame, LegalMoves, CheckMove and ApplyMove run whole in the *call pool*, under
  the call's deadline and the server's ``max_call_time`` (a call that outruns them
  is stopped by killing its worker: DEADLINE_EXCEEDED, reason ``TOO_EXPENSIVE``);
* BestMove, Analyze and EstimateScores run whole in the *search pool*, refused at
  once (RESOURCE_EXHAUSTED) when the pool could not take them, stopping by their
  budget, the server's ``max_time`` or a little before the call's deadline;
* ReviewGame checks its record in the call pool (:mod:`ai_server.reviews`), then
  runs each decision as one search-pool job, one after the other, each admitted,
  queued, stopped and counted like a search;
* both pools give each client a fair share of their workers (per-client quotas,
  fair queueing: :mod:`ai_server.pool`), counted by
  :func:`~ai_server.identity.client_identity` (the token's name, else the host).

Every failure is answered with a status from :mod:`ai_server.errors`, never UNKNOWN.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from ai_server import calls, codecs, errors, messages, reviews, stops
from ai_server.calls import Answer
from ai_server.config import ServerConfig
from ai_server.errors import RequestError
from ai_server.identity import AddressGrouping, client_identity
from ai_server.observe import note
from ai_server.pool import MIN_RETRY, Job, WorkerPool
from ai_server.search_requests import (
    read_playouts,
    read_review_budget,
    read_search,
    read_update_interval,
)
from engine.game import FurnaceError
from engine.search.review import Decision, summarize
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

Request = TypeVar("Request")
Response = TypeVar("Response")



async def abort(context: grpc.aio.ServicerContext, error: RequestError) -> None:
    """End the call with ``error`` (raises; never returns)."""
    note(reason=error.reason)
    await errors.abort_call(context, errors.to_grpc_status(error))


def _internal(exc: BaseException) -> RequestError:
    return RequestError(grpc.StatusCode.INTERNAL,
                        f"internal server error ({type(exc).__name__}); see the server log",
                        reason=errors.INTERNAL)


def _translate(exc: Exception, method: str) -> RequestError:
    if isinstance(exc, RequestError):
        return exc
    if isinstance(exc, FurnaceError):
        return errors.refused(exc)
    log.exception("unexpected error in %s", method)
    return _internal(exc)


def unary(
    fn: Callable[[Any, Request, grpc.aio.ServicerContext], Awaitable[Response]],
) -> Callable[[Any, Request, grpc.aio.ServicerContext], Awaitable[Response]]:
    """Map exceptions of a unary handler to statuses (RequestError as is, others INTERNAL)."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Request, context: grpc.aio.ServicerContext) -> Response:
        try:
            return await fn(self, request, context)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception as exc:  # noqa: BLE001 - every failure gets a proper status
            await abort(context, _translate(exc, fn.__name__))
            raise  # pragma: no cover - abort raises

    return wrapper


def streaming(
    fn: Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]],
) -> Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]]:
    """:func:`unary` for server-streaming handlers."""

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Request,
                      context: grpc.aio.ServicerContext) -> AsyncIterator[Response]:
        items = fn(self, request, context)
        try:
            async for item in items:
                yield item
        except (asyncio.CancelledError, grpc.aio.AbortError, GeneratorExit):
            raise
        except Exception as exc:  # noqa: BLE001
            await abort(context, _translate(exc, fn.__name__))
        finally:
            await items.aclose()  # type: ignore[attr-defined]

    return wrapper


#: Seconds a review keeps back from its call's deadline beyond the usual margin: a
#: decision the deadline stops still ends its other searches and comes back from its
#: worker, and the summaries must follow it before the deadline, on a loaded machine too.
REVIEW_RESERVE = 0.5


class FurnaceServicer(pb_grpc.FurnaceServiceServicer):
    """The service: ``pool`` runs searches and estimates, ``call_pool`` every other
    call's game work; ``games`` is the ListGames answer."""

    def __init__(self, config: ServerConfig, pool: WorkerPool, call_pool: WorkerPool,
                 games: pb.ListGamesResponse) -> None:
        self.config = config
        self.pool = pool
        self.call_pool = call_pool
        self.games = games
        self.grouping = AddressGrouping(config.client_ipv4_prefix, config.client_ipv6_prefix)

    def _client(self, context: grpc.aio.ServicerContext) -> str:
        """Who the call counts against (:func:`~ai_server.identity.client_identity`)."""
        return client_identity(context, self.grouping)

    def close(self) -> None:
        """Release what the servicer holds (the pools are closed by their owner)."""

    # -- scheduling ----------------------------------------------------------------------
    def _deadline(self, context: grpc.aio.ServicerContext, reserve: float = 0.0
                  ) -> float | None:
        """``time.monotonic()`` the work must stop by, or None without a deadline.

        A margin is kept for the answer's way back: the work stops early enough that
        its answer, or the status saying it was stopped, arrives before the deadline;
        ``reserve`` seconds more for what must still follow it (a review's summaries).
        """
        remaining = context.time_remaining()
        if remaining is None or remaining > 1e7:
            return None
        margin = self.config.deadline_margin + self.config.deadline_fraction * remaining
        return time.monotonic() + max(remaining - margin - reserve, 0.0)

    @staticmethod
    async def _finish(job: Job) -> Any:
        try:
            return await job.result()
        finally:
            job.cancel()
            if job.started is not None:
                note(queue_ms=(job.started - job.submitted) * 1000)

    @staticmethod
    def _response(method: str, answer: Answer) -> Any:
        """The response of a job's :class:`Answer` (its error raised, its bug logged)."""
        note(**answer.notes)
        if answer.bug is not None:
            log.error("unexpected error in %s (in a worker process):\n%s", method,
                      answer.bug.rstrip())
        if answer.error is not None:
            raise answer.error
        if answer.response is None:
            raise RequestError(grpc.StatusCode.UNAVAILABLE,
                               "the search was stopped before it started; retry the call",
                               reason=errors.SHUTTING_DOWN)
        return answer.response

    async def _call(self, method: str, request: Message,
                    context: grpc.aio.ServicerContext) -> Any:
        """Run ``method``'s game work in the call pool, within its time, and answer."""
        end = time.monotonic() + self.config.max_call_time
        deadline = self._deadline(context)
        job = self.call_pool.submit(
            calls.run_call, method, request, sealer=self.config.sealer,
            allow_sealed_seeds=self.config.allow_sealed_seeds,
            client=self._client(context),
            stop_by=end if deadline is None else min(end, deadline), killable=True,
            what=f"{method} of this position")
        return self._response(method, await self._finish(job))

    def _search(self, context: grpc.aio.ServicerContext, fn: Callable[..., Any],
                *args: Any, time_limit: float | None, timed: bool, what: str,
                progress: Callable[[Any], None] | None = None, reserve: float = 0.0,
                received: bool = False, **kwargs: Any) -> Job:
        """Queue ``fn`` in the search pool for this call's client.

        The job gets ``time_end``: ``time_limit`` (if any) capped by the server's
        ``max_time``, both counted from now, so time spent waiting for a worker
        counts; and ``deadline``.  It may wait for a worker until the deadline (at
        most the server's ``max_queue_wait``): one that starts after its time budget
        ran out still answers, with what it searched in the time left.
        ``received``: the job is also told when the call was received and how long
        it waited for a worker (a search reports its wait).
        """
        now = time.monotonic()
        limit = self.config.max_time if time_limit is None else \
            min(time_limit, self.config.max_time)
        time_end = now + limit
        deadline = self._deadline(context, reserve)
        stop_by = time_end if deadline is None else min(time_end, deadline)
        if received:
            kwargs["received"] = now
        return self.pool.submit(fn, *args, client=self._client(context), stop_by=stop_by,
                                report_wait=received,
                                start_by=now + self.config.max_queue_wait if deadline is None
                                else deadline, timed=timed, progress=progress, what=what,
                                time_end=time_end, deadline=deadline, **kwargs)

    def _admit(self, context: grpc.aio.ServicerContext) -> None:
        """Refuse a search at once, before any work, when the pool could not take it.

        Called after the checks that need no position (a missing state, a range): a
        request the client must fix is answered so at once, neither refused as if a
        retry could help nor queued behind the searches that hold the pool."""
        self.pool.admit(self._client(context))

    # -- RPCs ----------------------------------------------------------------------------
    @unary
    async def ListGames(self, request: pb.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> pb.ListGamesResponse:
        return self.games

    @unary
    async def NewGame(self, request: pb.NewGameRequest,
                      context: grpc.aio.ServicerContext) -> pb.NewGameResponse:
        response: pb.NewGameResponse = await self._call("NewGame", request, context)
        return response

    @unary
    async def LegalMoves(self, request: pb.LegalMovesRequest,
                         context: grpc.aio.ServicerContext) -> pb.LegalMovesResponse:
        response: pb.LegalMovesResponse = await self._call("LegalMoves", request, context)
        return response

    @unary
    async def CheckMove(self, request: pb.CheckMoveRequest,
                        context: grpc.aio.ServicerContext) -> pb.CheckMoveResponse:
        response: pb.CheckMoveResponse = await self._call("CheckMove", request, context)
        return response

    @unary
    async def ApplyMove(self, request: pb.ApplyMoveRequest,
                        context: grpc.aio.ServicerContext) -> pb.ApplyMoveResponse:
        response: pb.ApplyMoveResponse = await self._call("ApplyMove", request, context)
        return response

    @unary
    async def BestMove(self, request: pb.BestMoveRequest,
                       context: grpc.aio.ServicerContext) -> pb.BestMoveResponse:
        codecs.check_state_given(request.state, "state", request.HasField("state"))
        asked = read_search(request, self.config, analyze=False)
        self._admit(context)
        job = self._search(context, calls.search_call, "BestMove", request, asked, self.config,
                           time_limit=asked.time_limit, timed=asked.timed, what="the search",
                           received=True)
        response: pb.BestMoveResponse = self._response("BestMove", await self._finish(job))
        return response

    @streaming
    async def Analyze(self, request: pb.AnalyzeRequest,
                      context: grpc.aio.ServicerContext) -> AsyncIterator[pb.AnalyzeResponse]:
        cfg = self.config
        codecs.check_state_given(request.state, "state", request.HasField("state"))
        interval = read_update_interval(request, cfg)
        asked = read_search(request, cfg, analyze=True)
        self._admit(context)
        loop = asyncio.get_running_loop()
        # Only the newest update waits to be sent: a client that reads slowly gets
        # fewer updates, never a growing backlog.
        latest: list[pb.Analysis] = []
        arrived = asyncio.Event()

        def keep(update: pb.Analysis) -> None:
            latest[:] = [update]
            arrived.set()

        def on_progress(update: pb.Analysis) -> None:  # in the pool's dispatcher thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                loop.call_soon_threadsafe(keep, update)

        job = self._search(context, calls.search_call, "Analyze", request, asked, cfg,
                           time_limit=asked.time_limit, timed=asked.timed, what="the search",
                           progress=on_progress, progress_interval=interval,
                           received=True)
        outcome = asyncio.ensure_future(self._finish(job))
        sequence = 0
        try:
            while True:
                waiter = asyncio.ensure_future(arrived.wait())
                try:
                    await asyncio.wait({outcome, waiter}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
                if outcome.done():
                    break
                arrived.clear()
                if latest:
                    yield pb.AnalyzeResponse(analysis=latest.pop(), final=False,
                                             sequence=sequence)
                    sequence += 1
            # The search ends by its time budget (at most the server's max_time), so
            # the stream does too, with its final message.
            analysis: pb.Analysis = self._response("Analyze", outcome.result())
            yield pb.AnalyzeResponse(analysis=analysis, final=True, sequence=sequence)
        finally:
            outcome.cancel()
            job.cancel()

    @unary
    async def EstimateScores(self, request: pb.EstimateScoresRequest,
                             context: grpc.aio.ServicerContext) -> pb.EstimateScoresResponse:
        codecs.check_state_given(request.state, "state", request.HasField("state"))
        playouts = read_playouts(request, self.config)
        self._admit(context)
        job = self._search(context, calls.estimate_call, request, playouts, self.config,
                           time_limit=None, timed=False, what="the estimate")
        response: pb.EstimateScoresResponse = self._response(
            "EstimateScores", await self._finish(job))
        return response

    @streaming
    async def ReviewGame(self, request: pb.ReviewGameRequest, context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[pb.ReviewGameResponse]:
        reviews.review_form(request)
        budget = read_review_budget(request.budget, self.config)
        self._admit(context)
        end = time.monotonic() + self.config.max_call_time
        deadline = self._deadline(context)
        job = self.call_pool.submit(
            reviews.plan_call, request, budget, self.config, client=self._client(context),
            stop_by=end if deadline is None else min(end, deadline), killable=True,
            what="reading the record to review")
        plan: reviews.ReviewPlan = self._response("ReviewGame", await self._finish(job))
        total = len(plan.decisions)
        judged: list[Decision] = []
        iterations = 0
        interrupted: RequestError | None = None
        for index in range(total):
            deadline = self._deadline(context, REVIEW_RESERVE)
            if deadline is not None and time.monotonic() >= deadline:
                break  # the summaries say what was left out
            try:
                job = await self._review_job(context, plan, index)
                step: reviews.ReviewStep = self._response("ReviewGame",
                                                          await self._finish(job))
            except RequestError as error:
                if not judged:
                    raise  # nothing reviewed yet: refused or failed like any search
                # A worker that died, a refusal past the queue wait, the server
                # stopping: the decisions judged are summed up, then the status says why.
                interrupted = error
                break
            decision = plan.with_swing(index, step.decision, judged)
            judged.append(decision)
            iterations += decision.iterations
            note(iterations=iterations, searches=len(judged))
            yield pb.ReviewGameResponse(decision=messages.review_decision_message(
                decision, step.stop_reason, index, total, step.view, step.status))
            if step.stop_reason in (stops.DEADLINE, stops.SHUTDOWN):
                break
        note(iterations=iterations, searches=len(judged), stop_reason=None)
        for seat in plan.seats:
            planned = sum(1 for _, s in plan.decisions if s == seat)
            summary = summarize(seat, judged)
            yield pb.ReviewGameResponse(summary=messages.review_summary_message(
                summary, complete=summary.decisions == planned,
                key_moments=plan.key_moments(seat, judged),
                indices={d.turn: i for i, d in enumerate(judged)}))
        if interrupted is not None:
            raise interrupted

    async def _review_job(self, context: grpc.aio.ServicerContext, plan: reviews.ReviewPlan,
                          index: int) -> Job:
        """Queue decision ``index`` of ``plan`` as a search of this call's client.

        The first decision is admitted or refused like any search.  A later one that
        finds the client at its quota (its own other searches) or the queue full
        waits for the advised retry delay and asks again, for at most the server's
        ``max_queue_wait``, as a queued search would wait for a worker: a review
        under way is not cut short by a search its client started meanwhile.
        """
        waited = 0.0
        while True:
            try:
                return self._search(context, reviews.decision_call, plan, index,
                                    time_limit=plan.time_limit,
                                    timed=plan.iterations is None, what="a decision's review",
                                    reserve=REVIEW_RESERVE)
            except RequestError as error:
                delay = max(error.retry_after or 0.0, MIN_RETRY)
                if not index or error.reason not in (errors.CLIENT_QUOTA, errors.QUEUE_FULL) \
                        or waited + delay > self.config.max_queue_wait:
                    raise
            await asyncio.sleep(delay)
            waited += delay
