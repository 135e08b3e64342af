"""Answer the fuzzer's generated requests on a fresh loopback server and write one line
per request: its status, its error words, and a digest of its answer.

Two runs (before and after a refactor, each from its own checkout) are compared line by
line with ``diff``: a change in behaviour shows as a changed line.  An answer that
depends on the machine's speed (a search stopped by its time, the call's deadline or
a wait for a worker) is compared by its status only, and the fields that time the work
(``elapsed_seconds``, ``queued_seconds``) are cleared before the digest.

    python scripts/answer_digests.py --requests 5000 --keep-cases cases.pickle > before.jsonl
    python scripts/answer_digests.py --cases cases.pickle > after.jsonl   # the other checkout

The generator's cases are kept with ``--keep-cases`` and answered again with ``--cases``:
a case holding a protobuf map is serialized in an order that may differ from one
process to the next, so two runs that each generate their cases answer different bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from google.protobuf.message import Message

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from fuzzers.server import SERVICE, Case, Generator

#: Stop reasons of a search whose answer depends on the machine's speed.
TIMED = {pb.SEARCH_STOP_REASON_TIME_LIMIT, pb.SEARCH_STOP_REASON_DEADLINE,
         pb.SEARCH_STOP_REASON_QUEUE_WAIT, pb.SEARCH_STOP_REASON_PREEMPTED}
#: Statuses that depend on the machine's speed or the other calls in flight.
TIMED_STATUSES = {"DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "CANCELLED"}


def _untimed(message: Message) -> bool:
    """Clear the timing fields of ``message`` and its sub-messages; False when an
    analysis in it was stopped by time."""
    steady = True
    for field, value in message.ListFields():
        if field.name in ("elapsed_seconds", "queued_seconds"):
            message.ClearField(field.name)
        elif field.name == "stop_reason" and value in TIMED:
            steady = False
        elif field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                continue
            values = value if isinstance(value, Sequence) or hasattr(value, "add") \
                else [value]
            for item in values:
                steady = _untimed(item) and steady
    return steady


def answer(channel: grpc.Channel, case: Case, timeout: float) -> dict[str, Any]:
    path = f"/{SERVICE}/{case.method}"
    response_type = getattr(pb, f"{case.method}Response")
    try:
        if case.method in ("Analyze", "ReviewGame"):
            call = channel.unary_stream(path, request_serializer=None,
                                        response_deserializer=None)
            replies = [response_type.FromString(r) for r in call(case.body, timeout=timeout)]
        else:
            call = channel.unary_unary(path, request_serializer=None,
                                       response_deserializer=None)
            replies = [response_type.FromString(call(case.body, timeout=timeout))]
    except grpc.RpcError as error:
        status = error.code().name
        words = "" if status in TIMED_STATUSES else error.details()
        return {"case": case.index, "method": case.method, "status": status,
                "details": words}
    steady = True
    digest = hashlib.sha256()
    if case.method == "Analyze":
        replies = replies[-1:]  # the updates come as the machine allows; the final does not
    for reply in replies:
        steady = _untimed(reply) and steady
        digest.update(reply.SerializeToString(deterministic=True))
    return {"case": case.index, "method": case.method, "status": "OK",
            "answer": digest.hexdigest()[:16] if steady else "timed"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--cases", metavar="FILE",
                        help="answer the cases kept in FILE (made by --keep-cases), so that "
                             "two checkouts answer the very same bytes")
    parser.add_argument("--keep-cases", metavar="FILE", help="keep the cases made in FILE")
    args = parser.parse_args()
    if args.cases:
        with open(args.cases, "rb") as kept:
            cases = pickle.load(kept)[:args.requests]
    else:
        cases = list(Generator(args.seed).cases(args.requests))
    if args.keep_cases:
        with open(args.keep_cases, "wb") as keep:
            pickle.dump(cases, keep)
    with BackgroundServer(workers=2, max_queue=64, max_searches_per_client=0,
                          max_queue_wait=60.0) as server, \
            grpc.insecure_channel(server.address) as channel, \
            ThreadPoolExecutor(args.concurrency) as pool:
        lines = pool.map(lambda case: answer(channel, case, args.timeout),
                         cases)
        for done, line in enumerate(lines, 1):
            print(json.dumps(line, sort_keys=True))
            if done % 500 == 0:
                print(f"answer_digests: {done}/{len(cases)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
