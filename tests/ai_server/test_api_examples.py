"""docs/api.md's worked examples are run against a live server, in order, and must hold.

The examples are fenced JSON blocks whose info string says what they are (see
"Reading the examples" in docs/api.md):

* ```` ```json rpc:METHOD ```` a request to ``furnace.v1.FurnaceService/METHOD``, in
  protobuf's JSON mapping; ``"<state>"`` stands for the state of the latest answer
  that carried one (as the value of a state form, ``"ohMyGoods": "<state>"``, for
  that form's content only);
* the block after it is the expected answer: ```` ```json reply ```` (a unary
  answer), ```` ```json stream ```` (one streamed message per line, a ``"…"`` line
  for any number of messages) or ```` ```json error ```` (the ``google.rpc.Status``
  of a failed call).

An expected answer is compared as a subset of the real one (``MessageToDict``, as
grpcurl prints it): a field shown must match, a field not shown is not checked
(``"…": "…"`` says so to the reader), ``null`` means the field is absent (its default), ``"…"`` matches any value, the
default included (in an array: any number of elements), ``…`` inside a text stands for any text, and a
number shown with d decimals matches the real value rounded to d decimals.

So an outdated example fails here, and every example runs on both engine paths
(compiled kernel and ``FURNACE_PURE_PYTHON=1``), which answer alike.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2  # noqa: F401 - registers BadRequest/ErrorInfo for Any
from grpc_status import rpc_status

from ai_server.server import BackgroundServer
from furnace_proto.furnace.v1 import furnace_pb2 as pb
from furnace_proto.furnace.v1 import furnace_pb2_grpc as pb_grpc

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ELLIPSIS = "…"
STATE = "<state>"
#: GameState's oneof fields, by their JSON names.
FORMS = ("samara", "ohMyGoods", "opaque", "json", "jsonObject", "record")
ANSWERS = ("reply", "stream", "error")
FENCE = re.compile(r"^```(?P<lang>\w*)(?P<info>[^\n]*)\n(?P<body>.*?)^```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#+ (?P<title>.+)$", re.MULTILINE)
#: Deadline of each call: generous, for the pure-Python engine.
CALL_TIMEOUT = 300.0


@dataclass
class Example:
    """One request of the document and the answer it documents."""

    method: str
    request: str
    kind: str
    expected: str
    line: int
    section: str

    def where(self) -> str:
        return f"docs/api.md line {self.line} ({self.section}), {self.method}"


def _tag(info: str) -> str | None:
    words = info.split()
    if not words:
        return None
    if words[0].startswith("rpc:") or words[0] in ANSWERS:
        return words[0]
    return None


def parse_examples(text: str) -> list[Example]:
    """The examples of ``text`` in order; raises ValueError for a request without an answer."""
    headings = [(m.start(), m.group("title")) for m in HEADING.finditer(text)]
    examples: list[Example] = []
    pending: tuple[str, str, int, str] | None = None
    for block in FENCE.finditer(text):
        tag = _tag(block.group("info"))
        if tag is None:
            continue
        if block.group("lang") != "json":
            raise ValueError(f"line {text.count(chr(10), 0, block.start()) + 1}: "
                             f"example blocks are ```json, not ```{block.group('lang')}")
        line = text.count("\n", 0, block.start()) + 1
        section = next((t for start, t in reversed(headings) if start < block.start()), "")
        body = block.group("body")
        if tag.startswith("rpc:"):
            if pending is not None:
                raise ValueError(f"line {pending[2]}: request without an answer block")
            pending = (tag[4:], body, line, section)
            continue
        if pending is None:
            raise ValueError(f"line {line}: {tag} block without a request before it")
        method, request, request_line, request_section = pending
        examples.append(Example(method, request, tag, body, request_line, request_section))
        pending = None
    if pending is not None:
        raise ValueError(f"line {pending[2]}: request without an answer block")
    return examples


def substitute(value: Any, state: dict[str, Any] | None, key: str | None = None) -> Any:
    """``value`` with every ``"<state>"`` replaced by (a form of) ``state``."""
    if value == STATE:
        if state is None:
            raise ValueError("<state> before any answer carried a state")
        if key in FORMS:
            if key not in state:
                raise ValueError(f"<state> as {key}, but the latest state is {sorted(state)}")
            return copy.deepcopy(state[key])
        return copy.deepcopy(state)
    if isinstance(value, dict):
        return {k: substitute(v, state, k) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, state) for v in value]
    return value


def _number_matches(expected: float, actual: float) -> bool:
    if isinstance(expected, int):
        return bool(actual == expected)
    exponent = Decimal(repr(expected)).as_tuple().exponent
    assert isinstance(exponent, int)
    return abs(actual - expected) <= 0.5 * 10.0 ** exponent + 1e-12


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """How ``actual`` fails to match ``expected`` (empty when it matches)."""
    where = path or "the answer"
    if expected == ELLIPSIS:
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        problems = []
        for key, value in expected.items():
            if key == ELLIPSIS or value == ELLIPSIS:
                continue  # any value, the default (absent) included; "…": "…" is a reminder
            if value is None:
                if key in actual:
                    problems.append(f"{path}.{key}: expected absent, got {actual[key]!r}")
            elif key not in actual:
                problems.append(f"{path}.{key}: missing (the answer has {sorted(actual)})")
            else:
                problems.extend(mismatches(value, actual[key], f"{path}.{key}"))
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected an array, got {actual!r}"]
        if _list_matches(expected, actual, path):
            return []
        if ELLIPSIS not in expected and len(expected) == len(actual):
            return [p for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                    for p in mismatches(e, a, f"{path}[{i}]")]
        return [f"{where}: {json.dumps(actual, ensure_ascii=False)[:400]} does not match "
                f"{json.dumps(expected, ensure_ascii=False)[:400]}"]
    if isinstance(expected, str):
        if isinstance(actual, str) and _text_matches(expected, actual):
            return []
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, bool) or expected is None:
        return [] if actual is expected else [f"{where}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, int | float):
        if isinstance(actual, int | float) and not isinstance(actual, bool) \
                and _number_matches(expected, actual):
            return []
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    raise TypeError(f"{where}: unexpected {expected!r} in an example")


def _text_matches(expected: str, actual: str) -> bool:
    """Glob match of texts: each ``…`` in ``expected`` stands for any text."""
    parts = expected.split(ELLIPSIS)
    if len(parts) == 1:
        return actual == expected
    if not (actual.startswith(parts[0]) and actual.endswith(parts[-1])
            and len(actual) >= len(parts[0]) + len(parts[-1])):
        return False
    at = len(parts[0])
    end = len(actual) - len(parts[-1])
    for part in parts[1:-1]:
        found = actual.find(part, at, end)
        if found < 0:
            return False
        at = found + len(part)
    return True


def _list_matches(expected: list[Any], actual: list[Any], path: str) -> bool:
    """Glob match: each ``"…"`` element of ``expected`` stands for any run of elements."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == ELLIPSIS:
        return any(_list_matches(rest, actual[i:], path) for i in range(len(actual) + 1))
    return bool(actual) and not mismatches(head, actual[0], path) \
        and _list_matches(rest, actual[1:], path)


def _lines(body: str) -> list[Any]:
    return [json.loads(line) for line in body.splitlines() if line.strip()]


def _to_dict(message: Any) -> dict[str, Any]:
    result: dict[str, Any] = json_format.MessageToDict(message)
    return result


class Session:
    """Sends the examples in order, keeping the latest state."""

    def __init__(self, stub: pb_grpc.FurnaceServiceStub) -> None:
        self.stub = stub
        self.state: dict[str, Any] | None = None

    def run(self, example: Example) -> list[str]:
        request_type = getattr(pb, f"{example.method}Request")
        body = substitute(json.loads(example.request), self.state)
        request = json_format.ParseDict(body, request_type())
        call = getattr(self.stub, example.method)
        try:
            if example.kind == "stream":
                actual: Any = [_to_dict(m) for m in call(request, timeout=CALL_TIMEOUT)]
            else:
                actual = _to_dict(call(request, timeout=CALL_TIMEOUT))
        except grpc.RpcError as error:
            status = rpc_status.from_call(error)  # type: ignore[arg-type]
            got = _to_dict(status) if status is not None else {
                "code": error.code().value[0], "message": error.details()}
            if example.kind != "error":
                return [f"the call failed: {json.dumps(got, ensure_ascii=False)}"]
            return mismatches(json.loads(example.expected), got)
        if example.kind == "error":
            return ["the call succeeded, the example documents an error"]
        if example.kind == "stream":
            expected_lines = _lines(example.expected)
            if _list_matches(expected_lines, actual, ""):
                return []
            return [f"the stream {json.dumps(actual, ensure_ascii=False)[:1500]} does not "
                    f"match the lines shown"]
        if "state" in actual:
            self.state = actual["state"]
        return mismatches(json.loads(example.expected), actual)


# -- the matcher itself ----------------------------------------------------------------------
def test_matcher_rules() -> None:
    actual = {"a": 1, "b": [1, 2, 3], "c": "Samara, 2 players", "d": 0.46853, "e": "7"}
    assert mismatches({"a": 1}, actual) == []
    assert mismatches({"a": 2}, actual)
    assert mismatches({"z": None}, actual) == []
    assert mismatches({"a": None}, actual)
    assert mismatches({"b": [1, ELLIPSIS]}, actual) == []
    assert mismatches({"b": [ELLIPSIS, 3]}, actual) == []
    assert mismatches({"b": [1, 3]}, actual)
    assert mismatches({"b": [1, 2, 3, ELLIPSIS]}, actual) == []
    assert mismatches({"c": "Samara, …"}, actual) == []
    assert mismatches({"c": "Samara, 3…"}, actual)
    assert mismatches({"c": "…2 players"}, actual) == []
    assert mismatches({"c": "Sa…2…s"}, actual) == []
    assert mismatches({"c": "Sa…3…s"}, actual)
    assert mismatches({"c": "Samara…ara, 2 players"}, actual)
    assert mismatches({"d": 0.4685}, actual) == []
    assert mismatches({"d": 0.469}, actual) == []
    assert mismatches({"d": 0.4684}, actual)
    assert mismatches({"e": "7", "d": ELLIPSIS}, actual) == []
    assert mismatches({"e": "7", ELLIPSIS: ELLIPSIS}, actual) == []
    assert mismatches({"f": ELLIPSIS}, actual) == []  # absent: the default
    assert mismatches({"e": 7}, actual)
    assert substitute({"state": {"ohMyGoods": STATE, "observerSeat": 0}},
                      {"ohMyGoods": {"round": 1}, "observerSeat": 1}) \
        == {"state": {"ohMyGoods": {"round": 1}, "observerSeat": 0}}
    assert substitute({"state": STATE}, {"samara": {}}) == {"state": {"samara": {}}}


def test_examples_are_well_formed() -> None:
    examples = parse_examples(DOC.read_text(encoding="utf-8"))
    methods = {m.name for m in pb.DESCRIPTOR.services_by_name["FurnaceService"].methods}
    assert len(examples) >= 20
    # Every RPC has at least one example, and every example names a real one.
    assert {e.method for e in examples} == methods
    for example in examples:
        request_type = getattr(pb, f"{example.method}Request")
        request = json.loads(example.request)
        # Any state of the right form will do to check the request's own fields.
        forms = [f for f in re.findall(r'"(\w+)": "<state>"', example.request) if f in FORMS]
        dummy = {form: "" if form in ("opaque", "json") else {} for form in forms}
        json_format.ParseDict(substitute(request, dummy or {"samara": {}}), request_type())
        if example.kind == "stream":
            _lines(example.expected)
        else:
            json.loads(example.expected)


# -- the examples, live ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def docs_stub() -> Iterator[pb_grpc.FurnaceServiceStub]:
    """A server as the docs start it: ``furnace serve --workers 2``, other settings default."""
    server = BackgroundServer(workers=2)
    server.start()
    try:
        with grpc.insecure_channel(server.address) as channel:
            yield pb_grpc.FurnaceServiceStub(channel)
    finally:
        server.stop(grace=0.5)


def test_worked_examples_hold(docs_stub: pb_grpc.FurnaceServiceStub) -> None:
    session = Session(docs_stub)
    failures = []
    for example in parse_examples(DOC.read_text(encoding="utf-8")):
        problems = session.run(example)
        if problems:
            failures.append(f"{example.where()}:\n    " + "\n    ".join(problems[:8]))
    assert not failures, "docs/api.md examples are out of date:\n" + "\n".join(failures)
