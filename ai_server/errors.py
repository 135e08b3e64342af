"""The error model: every bad request becomes a gRPC status with rich details.

A :class:`RequestError` carries the status code, a one-line message, the request
field at fault and a machine-readable reason.  :func:`to_grpc_status` turns it into
a ``grpc.Status`` whose trailing metadata holds a ``google.rpc.Status`` with a
``google.rpc.BadRequest`` (the field) and a ``google.rpc.ErrorInfo`` (domain
``furnace.v1``, the reason, extra metadata): what ``grpc_status.rpc_status.from_call``
reads on the client side.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine.game import (
    FurnaceError,
    IllegalMoveError,
    InvalidOptionError,
    InvalidStateError,
    MoveParseError,
    UnknownGameError,
)

#: ``google.rpc.ErrorInfo.domain`` of every Furnace error.
DOMAIN = "furnace.v1"

# Machine-readable reasons (ErrorInfo.reason).
MISSING_FIELD = "MISSING_FIELD"
UNKNOWN_GAME = "UNKNOWN_GAME"
INVALID_PLAYER_COUNT = "INVALID_PLAYER_COUNT"
INVALID_OPTION = "INVALID_OPTION"
INVALID_STATE = "INVALID_STATE"
INVALID_MOVE = "INVALID_MOVE"
ILLEGAL_MOVE = "ILLEGAL_MOVE"
NOT_YOUR_TURN = "NOT_YOUR_TURN"
GAME_OVER = "GAME_OVER"
CHANCE_TO_MOVE = "CHANCE_TO_MOVE"
SEAT_OUT_OF_RANGE = "SEAT_OUT_OF_RANGE"
#: BestMove/Analyze: the observer cannot know the moves of the seat to move.
OBSERVER_CANNOT_SEE_MOVER = "OBSERVER_CANNOT_SEE_MOVER"
OUT_OF_RANGE = "OUT_OF_RANGE"
#: ``state_format`` asks a form this game (or this server) cannot answer.
UNSUPPORTED_STATE_FORMAT = "UNSUPPORTED_STATE_FORMAT"
#: A sealed state that does not open: altered, truncated, of another version, or sealed
#: with a key the server does not hold (any more).
INVALID_SEAL = "INVALID_SEAL"
#: The request contradicts its sealed state: another observer_seat than the sealed
#: seat, or an answer in a readable form; or a sealed NewGame given a seed (whoever
#: knows it deals the game again in clear).
SEAL_MISMATCH = "SEAL_MISMATCH"
#: ReviewGame: the record holds more decisions to review than the server's
#: ``max_review_decisions``.
TOO_MANY_DECISIONS = "TOO_MANY_DECISIONS"
QUEUE_FULL = "QUEUE_FULL"
#: RESOURCE_EXHAUSTED: the client has its quota of searches outstanding already.
CLIENT_QUOTA = "CLIENT_QUOTA"
#: RESOURCE_EXHAUSTED: no worker became free within the maximum queue wait.
QUEUE_TIMEOUT = "QUEUE_TIMEOUT"
WORKER_FAILED = "WORKER_FAILED"
#: UNAVAILABLE: the call's game work ran on a worker beyond its client's share while
#: other clients waited, and was stopped for theirs: retry after the advised delay.
PREEMPTED = "PREEMPTED"
#: DEADLINE_EXCEEDED: the call's game work outran its deadline (or the server's limit for
#: the call) and was stopped; the same request would take as long again.
TOO_EXPENSIVE = "TOO_EXPENSIVE"
SHUTTING_DOWN = "SHUTTING_DOWN"
INTERNAL = "INTERNAL"

#: Longest piece of a client's input an error quotes back (see :func:`clip`).
MAX_ECHO = 60
#: Longest error message: the message travels in metadata, which has a size limit.
MAX_MESSAGE = 1000


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """``text``, or its first ``limit`` characters, an ellipsis and its full length.

    >>> clip("samara")
    'samara'
    >>> clip("x" * 100, 5)
    'xxxxx… (100 characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


# A quoted text (as repr() writes it) or a long run without spaces: the shapes
# in which a message echoes a client's input.
_QUOTED = r"(?:[^{q}\\\n]|\\.){{{n},}}"
_ECHO = re.compile("'(" + _QUOTED.format(q="'", n=MAX_ECHO + 1) + ")'"
                   + '|"(' + _QUOTED.format(q='"', n=MAX_ECHO + 1) + ')"'
                   + r"|\S{" + str(2 * MAX_ECHO + 1) + ",}")


# One escape sequence of repr(): one character of the input.
_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")


def _clip_echo(match: re.Match[str]) -> str:
    for group, quote in ((1, "'"), (2, '"')):
        text = match.group(group)
        if text is not None:
            # The length of the input itself, not of its escaped form.
            length = len(text) - sum(len(e) - 1 for e in _ESCAPE.findall(text))
            return f"{quote}{text[:MAX_ECHO]}… ({length} characters){quote}"
    return clip(match.group(0))


def clip_message(message: str) -> str:
    """``message`` with every quoted input clipped (:func:`clip`), at most MAX_MESSAGE long."""
    return clip(_ECHO.sub(_clip_echo, message), MAX_MESSAGE)


class RequestError(Exception):
    """A request the server answers with an error status (never UNKNOWN)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        field: str | None = None,
        reason: str,
        metadata: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.metadata = dict(metadata or {})
        #: Seconds the client should wait before retrying (``google.rpc.RetryInfo``).
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return (
            f"RequestError({self.code.name}, {self.message!r}, field={self.field!r}, "
            f"reason={self.reason!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Errors cross from the worker processes to the server: pickle every field
        # (an exception pickles its positional args only, and these are keywords).
        return (_rebuild_error, (self.code, self.message, self.field, self.reason,
                                 self.metadata, self.retry_after))


def _rebuild_error(code: grpc.StatusCode, message: str, field: str | None, reason: str,
                   metadata: dict[str, str], retry_after: float | None) -> RequestError:
    return RequestError(code, message, field=field, reason=reason, metadata=metadata,
                        retry_after=retry_after)


def invalid(message: str, field: str | None, reason: str, **metadata: str) -> RequestError:
    """An INVALID_ARGUMENT error naming ``field``, with ``reason`` (one of the reasons
    docs/api.md lists: tests/ai_server/test_error_details_docs.py reads every call)."""
    return RequestError(grpc.StatusCode.INVALID_ARGUMENT, message, field=field, reason=reason,
                        metadata=metadata)


#: The reason of a game's refusal that no call translated itself, by its class.
_FURNACE_REASONS: tuple[tuple[type[FurnaceError], str], ...] = (
    (UnknownGameError, UNKNOWN_GAME), (InvalidOptionError, INVALID_OPTION),
    (IllegalMoveError, ILLEGAL_MOVE), (MoveParseError, INVALID_MOVE),
    (InvalidStateError, INVALID_STATE))


def refused(exc: FurnaceError) -> RequestError:
    """An INVALID_ARGUMENT error of a game's refusal no call translated itself (each
    names the request field it read): the reason of its class, ``INVALID_STATE`` for
    any other (the game found what it was given impossible)."""
    reason = next((r for kind, r in _FURNACE_REASONS if isinstance(exc, kind)), INVALID_STATE)
    return invalid(str(exc), None, reason)


def precondition(message: str, field: str | None, reason: str, **metadata: str) -> RequestError:
    """A FAILED_PRECONDITION error: the request is well formed but the position forbids it."""
    return RequestError(grpc.StatusCode.FAILED_PRECONDITION, message, field=field, reason=reason,
                        metadata=metadata)


def to_status_proto(error: RequestError) -> status_pb2.Status:
    """The ``google.rpc.Status`` of ``error`` with BadRequest and ErrorInfo details.

    Input the message quotes back is clipped (:func:`clip_message`), so an error
    about a huge field stays a small answer.
    """
    message = clip_message(error.message)
    details = []
    if error.field:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=clip_message(error.field), description=message
                )
            ]
        )
        packed = any_pb2.Any()
        packed.Pack(bad)
        details.append(packed)
    info = error_details_pb2.ErrorInfo(
        reason=error.reason, domain=DOMAIN,
        metadata={clip(k): clip(v, 200) for k, v in error.metadata.items()})
    packed = any_pb2.Any()
    packed.Pack(info)
    details.append(packed)
    if error.retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromMilliseconds(retry_after_ms(error))
        packed = any_pb2.Any()
        packed.Pack(retry)
        details.append(packed)
    return status_pb2.Status(code=error.code.value[0], message=message, details=details)


#: Trailing metadata key of the retry delay, read by gRPC's own retry policies.
RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"


def retry_after_ms(error: RequestError) -> int:
    """``error.retry_after`` in whole milliseconds (rounded up, at least 1)."""
    return max(1, -int(-(error.retry_after or 0.0) * 1000 // 1))


def to_grpc_status(error: RequestError) -> grpc.Status:
    """A ``grpc.Status`` ready for ``context.abort(status.code, status.details, ...)``.

    With ``retry_after`` the trailing metadata also holds ``grpc-retry-pushback-ms``.
    """
    status = rpc_status.to_status(to_status_proto(error))
    if error.retry_after is None:
        return status
    pushback = ((RETRY_PUSHBACK_KEY, str(retry_after_ms(error))),)
    return status._replace(trailing_metadata=tuple(status.trailing_metadata) + pushback)


# -- sending a status ---------------------------------------------------------------------
def _batch_errors() -> tuple[type[BaseException], ...]:
    """What gRPC's core raises when an operation is sent on a call it has ended."""
    try:
        from grpc._cython import cygrpc
    except ImportError:  # pragma: no cover - gRPC always has its core
        return ()
    found = getattr(cygrpc, "ExecuteBatchError", None)
    return (found,) if isinstance(found, type) else ()


_BATCH_ERRORS = _batch_errors()


class CallEnded(asyncio.CancelledError):
    """The call ended before its status could be sent: its deadline passed or its
    client left while the server was refusing it (a refusal raised just as the
    deadline came).  A ``CancelledError``, which gRPC takes quietly (one DEBUG line):
    the client has its own status already.  ``status`` is what the metrics and the
    access log count: ``DEADLINE_EXCEEDED`` or ``CANCELLED``."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def _call_over(context: Any, exc: BaseException) -> str | None:
    """Why ``context``'s call is over (a status name), or None while it runs."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        return "DEADLINE_EXCEEDED"
    cancelled = getattr(context, "cancelled", None)
    if isinstance(exc, _BATCH_ERRORS) or (cancelled is not None and cancelled()):
        return "CANCELLED"
    return None


async def abort_call(context: Any, status: grpc.Status) -> None:
    """End the call with ``status`` (``context.abort``: raises ``AbortError``).

    When the call is over already (its deadline passed, its client left), gRPC cannot
    send the status and abort() fails with an error of its core: that is raised as
    :class:`CallEnded`, so the call is counted as what ended it and nothing logs an
    error (the servicer's last resort would call abort() again, and gRPC would log
    both).  A failure of abort() on a call still running is raised as it is.
    """
    try:
        await context.abort(status.code, status.details, status.trailing_metadata)
    except grpc.aio.AbortError:
        raise
    except Exception as exc:  # noqa: BLE001 - only a call that is over is let off
        ended = _call_over(context, exc)
        if ended is None:
            raise
        raise CallEnded(ended) from exc
