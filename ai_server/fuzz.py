"""Hostile requests against a live server: ``furnace fuzz-server`` and the fuzz test.

Every case is a method and the raw bytes sent as its request (the stubs'
serializers are bypassed, so anything can be sent), reproducible from
``(seed, index)``.  Kinds:

* ``random``: random bytes;
* ``truncated`` and ``flipped``: a valid request's encoding cut short, or with a
  few bits flipped;
* ``hostile``: well-formed requests built to hurt: huge repeated fields and maps,
  deep nesting (unknown groups, JSON), out-of-range numbers, long and non-ASCII
  strings (game names, move texts, option names, card ids), unknown games, zip
  bombs, crafted typed states, oversized messages;
* ``mutated``: a valid request with a few fields changed at random (typed states
  included);
* ``valid``: a well-formed request of a real position (tiny search budgets).

An answer passes when its status is OK, INVALID_ARGUMENT, FAILED_PRECONDITION,
OUT_OF_RANGE or RESOURCE_EXHAUSTED (:data:`ALLOWED`); UNKNOWN, INTERNAL and
anything else are failures.  :func:`run` sends the cases and tallies the codes;
``furnace fuzz-server [--server ADDR] --requests N --seed S`` is its command
line (without ``--server`` it starts a loopback server with small search caps
and also checks that its workers survived, its health and its memory).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ai_server import codecs
from furnace_proto.furnace.v1 import furnace_pb2 as pb

SERVICE = "furnace.v1.FurnaceService"
#: Answers that are fine for any input.
ALLOWED = frozenset({"OK", "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE",
                     "RESOURCE_EXHAUSTED"})
#: Settings of the loopback server ``fuzz-server`` starts: small caps keep any
#: search a hostile budget asks for short.
LOCAL_SETTINGS: dict[str, Any] = {
    "workers": 2, "max_queue": 32, "max_iterations": 500, "max_time": 0.5,
    "default_iterations": 20, "default_analyze_time": 0.2, "max_playouts": 20,
    "default_playouts": 5,
}
#: Kinds of cases and their weights.
KINDS = {"random": 3, "truncated": 3, "flipped": 4, "hostile": 6, "mutated": 4, "valid": 1}
METHODS = ("ListGames", "NewGame", "LegalMoves", "CheckMove", "ApplyMove", "BestMove",
           "Analyze", "EstimateScores")
STATE_METHODS = METHODS[2:]


@dataclass(frozen=True)
class Case:
    index: int
    kind: str
    label: str
    method: str
    body: bytes


# -- wire format helpers ---------------------------------------------------------------
def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint((number << 3) | wire_type)


def length_delimited(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def _field_number(message: type[Message] | Message, name: str) -> int:
    number: int = message.DESCRIPTOR.fields_by_name[name].number
    return number


def wrap_state(state_bytes: bytes, request: type[Message] = pb.LegalMovesRequest) -> bytes:
    """A request whose ``state`` field holds ``state_bytes`` (an encoded GameState)."""
    return length_delimited(_field_number(request, "state"), state_bytes)


def typed_state(form: str, payload: bytes) -> bytes:
    """An encoded GameState whose typed field ``form`` holds ``payload``."""
    return length_delimited(_field_number(pb.GameState, form), payload)


# -- positions -------------------------------------------------------------------------
def base_positions(seed: int, count: int = 12) -> list[dict[str, Any]]:
    """JSON states of seeded random games of every registered typed game, some deep."""
    from engine import registry  # the engine is only needed to make cases

    rng = random.Random(seed)
    positions: list[dict[str, Any]] = []
    names = [n for n in registry.game_names() if codecs.has_typed(n)] or \
        list(registry.game_names())
    for i in range(count):
        game = registry.get_game(names[i % len(names)])
        players = rng.choice(list(game.info.player_counts))
        state = game.new_game(seed=rng.randrange(10**6), num_players=players)
        for _ in range(rng.choice([0, 3, 15, 60, 400])):
            player = state.current_player()
            if state.is_terminal():
                break
            if player < 0:
                outcomes = state.chance_outcomes()
                state.apply(outcomes[rng.randrange(len(outcomes))][0])
            else:
                moves = state.legal_moves()
                state.apply(moves[rng.randrange(len(moves))])
        positions.append(state.to_json())
    return positions


class Generator:
    """Cases from a seed: ``case(i)`` is the same for the same seed and positions."""

    def __init__(self, seed: int, positions: list[dict[str, Any]] | None = None) -> None:
        self.seed = seed
        self.positions = positions if positions is not None else base_positions(seed)
        self._moves: dict[int, list[str]] = {}
        kinds, weights = zip(*KINDS.items(), strict=True)
        self._kinds: tuple[str, ...] = kinds
        self._weights: tuple[int, ...] = weights

    def cases(self, count: int, start: int = 0) -> Iterator[Case]:
        for index in range(start, start + count):
            yield self.case(index)

    def case(self, index: int) -> Case:
        rng = random.Random(f"{self.seed}:{index}")
        kind = rng.choices(self._kinds, self._weights)[0]
        make: Callable[[random.Random], tuple[str, str, bytes]] = getattr(self, f"_{kind}")
        label, method, body = make(rng)
        return Case(index, kind, label, method, body)

    # -- valid requests ------------------------------------------------------------
    def _state(self, rng: random.Random) -> tuple[pb.GameState, dict[str, Any]]:
        data = rng.choice(self.positions)
        form = rng.choice(["typed", "typed", codecs.OPAQUE, codecs.JSON, codecs.JSON_OBJECT])
        message = codecs.encode_state(data, form)
        if rng.random() < 0.3:
            message.observer_seat = rng.randrange(int(data.get("num_players", 2)))
        return message, data

    def _move_texts(self, data: dict[str, Any]) -> list[str]:
        key = id(data)
        if key not in self._moves:
            from engine import registry

            state = registry.get_game(data["game"]).state_from_json(data)
            texts = []
            if state.current_player() >= 0:
                texts = [state.move_to_text(m) for m in state.legal_moves()[:30]]
            self._moves[key] = texts or ["wait"]
        return self._moves[key]

    def request(self, method: str, rng: random.Random) -> Message:
        """A well-formed request of ``method`` with small budgets."""
        if method == "ListGames":
            return pb.ListGamesRequest()
        if method == "NewGame":
            game = rng.choice(["samara", "oh-my-goods"])
            request = pb.NewGameRequest(game=game, num_players=rng.choice([2, 3, 4]),
                                        seed=rng.randrange(1000))
            request.state_format = rng.randrange(4)  # type: ignore[assignment]
            if game == "samara" and rng.random() < 0.3:
                request.options["powers"].bool_value = rng.random() < 0.5
            return request
        state, data = self._state(rng)
        if method == "LegalMoves":
            return pb.LegalMovesRequest(state=state, include_render=rng.random() < 0.5)
        if method in ("CheckMove", "ApplyMove"):
            move = pb.Move(text=rng.choice(self._move_texts(data)))
            move_request: Message = getattr(pb, f"{method}Request")(state=state, move=move)
            return move_request
        if method in ("BestMove", "Analyze"):
            search = getattr(pb, f"{method}Request")(state=state, budget=pb.SearchBudget(iterations=rng.randrange(1, 20)),
                         seed=rng.randrange(100), max_candidates=rng.randrange(4))
            if method == "Analyze":
                search.update_interval_ms = 100
            return search
        return pb.EstimateScoresRequest(state=state, playouts=rng.randrange(1, 6),
                                        seed=rng.randrange(100))

    def _valid(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(METHODS)
        return "valid", method, self.request(method, rng).SerializeToString()

    # -- damaged encodings ---------------------------------------------------------
    def _random(self, rng: random.Random) -> tuple[str, str, bytes]:
        size = rng.choice([0, 1, 2, 5, 16, 100, 1000, 5000, 70_000])
        body = rng.randbytes(rng.randrange(size + 1))
        if body and rng.random() < 0.5:  # a plausible first byte: field 1, length-delimited
            body = b"\x0a" + body[1:]
        return "random bytes", rng.choice(METHODS), body

    def _truncated(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(STATE_METHODS)
        body = self.request(method, rng).SerializeToString()
        return "truncated", method, body[:rng.randrange(max(len(body), 1))]

    def _flipped(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(METHODS)
        body = bytearray(self.request(method, rng).SerializeToString())
        if body:
            for _ in range(rng.choice([1, 1, 2, 3, 8])):
                body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
        return "bit flips", method, bytes(body)

    def _mutated(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(STATE_METHODS)
        request = self.request(method, rng)
        mutate(request, rng, rng.randrange(1, 5))
        return "mutated fields", method, request.SerializeToString()

    # -- hostile, well-formed ------------------------------------------------------
    def _hostile(self, rng: random.Random) -> tuple[str, str, bytes]:
        name = rng.choice(sorted(n[len("_h_"):] for n in dir(self) if n.startswith("_h_")))
        method, body = getattr(self, f"_h_{name}")(rng)
        return name, method, body

    def _h_huge_repeated(self, rng: random.Random) -> tuple[str, bytes]:
        """Millions of empty entries (or packed numbers) in a typed state."""
        count = rng.choice([5_001, 60_000, 400_000, 1_800_000])
        method = rng.choice(STATE_METHODS)
        request_type = getattr(pb, f"{method}Request")
        if rng.random() < 0.5:
            entry = tag(_field_number(pb.SamaraState, rng.choice(
                ["spots", "track", "foremen", "pending"])), 2) + b"\x00"
            payload = typed_state("samara", entry * count)
        else:
            numbers = b"\x01" * count
            payload = typed_state("oh_my_goods", length_delimited(
                _field_number(pb.OhMyGoodsState, "starting_hands"), numbers))
        return method, wrap_state(payload, request_type)

    def _h_many_strings(self, rng: random.Random) -> tuple[str, bytes]:
        """A deck of thousands of (real-looking or long) card ids."""
        data = rng.choice([p for p in self.positions if p["game"] == "oh-my-goods"]
                          or self.positions)
        message = codecs.encode_state(data, "typed")
        if message.HasField("oh_my_goods"):
            card = rng.choice(["mill-1", "x" * 2000, "é" * 600])
            message.oh_my_goods.deck.extend([card] * rng.choice([10, 6000]))
        return "LegalMoves", pb.LegalMovesRequest(state=message).SerializeToString()

    def _h_deep_nesting(self, rng: random.Random) -> tuple[str, bytes]:
        """Nested unknown groups, or nested JSON in a json/opaque state."""
        depth = rng.choice([50, 200, 5000, 100_000])
        method = rng.choice(STATE_METHODS)
        request_type = getattr(pb, f"{method}Request")
        choice = rng.randrange(3)
        if choice == 0:
            groups = tag(99, 3) * depth + tag(99, 4) * depth
            return method, groups + pb.ListGamesRequest().SerializeToString()
        text = "[" * depth + "]" * depth
        if choice == 1:
            text = '{"game": "samara", "spots": ' + text + "}"
            state = pb.GameState(json=text)
        else:
            state = pb.GameState(opaque=zlib.compress(text.encode()))
        return method, request_type(state=state).SerializeToString()

    def _h_nested_messages(self, rng: random.Random) -> tuple[str, bytes]:
        """Known messages nested through a repeated field, many times over."""
        inner = length_delimited(_field_number(pb.SamaraForeman, "pawns"), b"\x08\x01")
        payload = length_delimited(_field_number(pb.SamaraState, "foremen"), inner) * \
            rng.choice([10, 3000])
        return "EstimateScores", wrap_state(typed_state("samara", payload),
                                            pb.EstimateScoresRequest)

    def _h_numbers(self, rng: random.Random) -> tuple[str, bytes]:
        """Out-of-range numbers in every numeric field of a valid request."""
        method = rng.choice(METHODS)
        request = self.request(method, rng)
        extremes = [-(2**63), -(2**31), -1, 0, 2**31 - 1, 2**32 - 1, 2**63 - 1, 10**9]
        floats = [float("nan"), float("inf"), -float("inf"), -0.0, 1e308, -1e-308]
        set_numbers(request, rng, extremes, floats)
        return method, request.SerializeToString()

    def _h_long_strings(self, rng: random.Random) -> tuple[str, bytes]:
        """Long game names, move texts, option names (some non-ASCII, some with quotes)."""
        length = rng.choice([61, 1000, 1024, 1025, 20_000, 60_000, 100_000])
        text = "".join(rng.choice(["a", " ", "é", "'", '"', "\\", "😀", "r1c1 "])
                       for _ in range(min(length, 200)))
        text = (text * (length // max(len(text), 1) + 1))[:length]
        target = rng.randrange(4)
        if target == 0:
            return "NewGame", pb.NewGameRequest(game=text, num_players=2).SerializeToString()
        if target == 1:
            request = pb.NewGameRequest(game="samara", num_players=2)
            request.options[text].bool_value = True
            return "NewGame", request.SerializeToString()
        method = rng.choice(["CheckMove", "ApplyMove"])
        request = self.request(method, rng)
        request.move.text = text  # type: ignore[attr-defined]
        if target == 3:
            request.move.id = rng.choice([0, 1, 2**62])  # type: ignore[attr-defined]
        return method, request.SerializeToString()

    def _h_unknown_game(self, rng: random.Random) -> tuple[str, bytes]:
        name = rng.choice(["chess", "SAMARA", " samara", "samara\x00", "", "../samara",
                           "oh_my_goods", "x" * rng.choice([10, 500])])
        if rng.random() < 0.5:
            return "NewGame", pb.NewGameRequest(game=name, num_players=2).SerializeToString()
        data = dict(rng.choice(self.positions), game=name)
        method = rng.choice(STATE_METHODS)
        state = codecs.encode_state(data, rng.choice([codecs.OPAQUE, codecs.JSON]))
        return method, getattr(pb, f"{method}Request")(state=state).SerializeToString()

    def _h_zip_bomb(self, rng: random.Random) -> tuple[str, bytes]:
        blob = _zip_bomb(rng.choice([2 << 20, 64 << 20]))
        return "LegalMoves", pb.LegalMovesRequest(
            state=pb.GameState(opaque=blob)).SerializeToString()

    def _h_crafted_state(self, rng: random.Random) -> tuple[str, bytes]:
        """A real typed state with impossible contents (counts, seats, enums, copies)."""
        data = rng.choice(self.positions)
        message = codecs.encode_state(data, "typed")
        form = message.WhichOneof("state") or ""
        typed = message if form in (codecs.OPAQUE, codecs.JSON) else getattr(message, form)
        for _ in range(rng.randrange(1, 4)):
            action = rng.randrange(4)
            if action == 0:
                typed.num_players = rng.choice([0, 1, 6, 200, 2**31 - 1, -5])
            elif action == 1:
                duplicate_entries(typed, rng)
            elif action == 2:
                set_numbers(typed, rng, [-1, 7, 99, 2**31 - 1, -(2**31)], [])
            else:
                mutate(typed, rng, 3)
        method = rng.choice(STATE_METHODS)
        return method, self._with_state(method, rng, message)

    def _with_state(self, method: str, rng: random.Random, state: pb.GameState) -> bytes:
        request = self.request(method, rng)
        request.state.CopyFrom(state)  # type: ignore[attr-defined]
        return request.SerializeToString()

    def _h_map_flood(self, rng: random.Random) -> tuple[str, bytes]:
        request = pb.NewGameRequest(game="samara", num_players=2)
        for i in range(rng.choice([100, 6000])):
            request.options[f"o{i}"].int_value = i
        return "NewGame", request.SerializeToString()

    def _h_two_forms(self, rng: random.Random) -> tuple[str, bytes]:
        """A GameState with several oneof members on the wire (the last one wins)."""
        data = rng.choice(self.positions)
        parts = [codecs.encode_state(data, form).SerializeToString()
                 for form in ("typed", codecs.JSON, codecs.OPAQUE, codecs.JSON_OBJECT)]
        rng.shuffle(parts)
        return "LegalMoves", wrap_state(b"".join(parts))

    def _h_bad_utf8(self, rng: random.Random) -> tuple[str, bytes]:
        bad = b"\xff\xfe\xc3"
        field = _field_number(pb.NewGameRequest, "game")
        return "NewGame", length_delimited(field, b"samara" + bad)

    def _h_oversized(self, rng: random.Random) -> tuple[str, bytes]:
        """Beyond the method's limit, or beyond the transport's message limit."""
        size = rng.choice([70_000, 1_200_000, 5 << 20])
        method = rng.choice(["NewGame", "LegalMoves"])
        return method, length_delimited(_field_number(pb.NewGameRequest, "game"),
                                        b"a" * size)

    def _h_wrong_method(self, rng: random.Random) -> tuple[str, bytes]:
        """A valid request of one method sent to another."""
        body = self.request(rng.choice(METHODS), rng).SerializeToString()
        return rng.choice(METHODS), body


@functools.lru_cache(maxsize=4)
def _zip_bomb(size: int) -> bytes:
    """``size`` bytes of JSON-ish blanks, zlib-compressed to about a thousandth."""
    return zlib.compress(b"[" + b" " * size + b"]", 9)


def _numeric(field: FieldDescriptor) -> bool:
    return field.type not in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING,
                              FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_BOOL,
                              FieldDescriptor.TYPE_GROUP)


def _fits(field: FieldDescriptor, value: int | float) -> int | float | None:
    """``value`` converted to what ``field`` holds, or None if it cannot hold it."""
    t = field.type
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return float(value)
    if isinstance(value, float):
        return None
    bits = 64 if t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64,
                       FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_UINT64,
                       FieldDescriptor.TYPE_FIXED64) else 32
    unsigned = t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                     FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64)
    low, high = (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    return value if low <= value <= high else None


def set_numbers(message: Message, rng: random.Random, ints: list[int],
                floats: list[float], depth: int = 0) -> None:
    """Set numeric fields of ``message`` (and some of its sub-messages) to extremes."""
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry or depth > 4:
                continue
            items = list(value) if field.is_repeated else [value]
            for item in items[:3]:
                if rng.random() < 0.5:
                    set_numbers(item, rng, ints, floats, depth + 1)
            continue
        if not _numeric(field) or rng.random() < 0.5:
            continue
        pool: list[int | float] = [*ints, *floats]
        new = _fits(field, rng.choice(pool))
        if new is None:
            continue
        if field.is_repeated:
            if len(value):
                value[rng.randrange(len(value))] = new
            else:
                value.append(new)
        else:
            setattr(message, field.name, new)


def duplicate_entries(message: Message, rng: random.Random) -> None:
    """Repeat an entry of a repeated field of ``message`` (or of a sub-message)."""
    repeated = [f for f in message.DESCRIPTOR.fields
                if f.is_repeated and len(getattr(message, f.name))
                and not (f.message_type and f.message_type.GetOptions().map_entry)]
    if not repeated:
        return
    field = rng.choice(repeated)
    value = getattr(message, field.name)
    item = value[rng.randrange(len(value))]
    for _ in range(rng.choice([1, 1, 5, 300])):
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            value.add().CopyFrom(item)
        else:
            value.append(item)


def mutate(message: Message, rng: random.Random, budget: int) -> None:
    """Random edits of ``message``'s fields, walking into sub-messages."""
    strings = ["", "bridge", "hut-1", "r1c1", "samara", "mill-1", "x" * 70, "é"]
    for _ in range(budget):
        fields = list(message.DESCRIPTOR.fields)
        if not fields:
            return
        field = rng.choice(fields)
        value = getattr(message, field.name)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                continue
            if field.is_repeated:
                if len(value) and rng.random() < 0.6:
                    target = value[rng.randrange(len(value))]
                    if rng.random() < 0.25:
                        value.remove(target)
                        continue
                else:
                    target = value.add()
            else:
                target = value
            mutate(target, rng, 1)
            continue
        new: Any
        if field.type == FieldDescriptor.TYPE_STRING:
            new = rng.choice(strings)
        elif field.type == FieldDescriptor.TYPE_BYTES:
            new = rng.randbytes(rng.randrange(40))
        elif field.type == FieldDescriptor.TYPE_BOOL:
            new = rng.random() < 0.5
        elif field.type == FieldDescriptor.TYPE_ENUM:
            new = rng.choice([-1, 0, 1, 2, 3, 4, 5, 9, 2**31 - 1])
        else:
            new = _fits(field, rng.choice([-3, -1, 0, 1, 2, 3, 5, 12, 100, 2**31 - 1]))
            if new is None:
                continue
        if field.is_repeated:
            if len(value) and rng.random() < 0.5:
                del value[rng.randrange(len(value))]
            else:
                value.append(new)
        else:
            setattr(message, field.name, new)


# -- sending ---------------------------------------------------------------------------
@dataclass
class Outcome:
    case: Case
    code: str
    details: str
    seconds: float
    has_error_info: bool


def _error_info_present(trailing: Any) -> bool:
    for key, _ in trailing or ():
        if key == "grpc-status-details-bin":
            return True
    return False


def send(channel: grpc.Channel, case: Case, timeout: float, metadata: Any = None) -> Outcome:
    """Send ``case`` raw; the status code (``OK`` for a well-formed answer) and its words."""
    path = f"/{SERVICE}/{case.method}"
    started = time.monotonic()
    try:
        if case.method == "Analyze":
            stream = channel.unary_stream(path, request_serializer=None,
                                          response_deserializer=None)
            replies = list(stream(case.body, timeout=timeout, metadata=metadata))
            finals = [pb.AnalyzeResponse.FromString(r).final for r in replies]
            if finals.count(True) != 1 or not finals[-1]:
                return Outcome(case, "BAD_STREAM", f"finals {finals}",
                               time.monotonic() - started, False)
        else:
            call = channel.unary_unary(path, request_serializer=None,
                                       response_deserializer=None)
            reply = call(case.body, timeout=timeout, metadata=metadata)
            getattr(pb, f"{case.method}Response").FromString(reply)
        return Outcome(case, "OK", "", time.monotonic() - started, True)
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        details = str(error.details() if hasattr(error, "details") else error) or ""
        trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
        return Outcome(case, code.name if code is not None else "UNKNOWN", details,
                       time.monotonic() - started, _error_info_present(trailing))
    except DecodeError as error:  # an OK answer that is not the response message
        return Outcome(case, "BAD_RESPONSE", str(error), time.monotonic() - started, False)


def run(channel: grpc.Channel, generator: Generator, requests: int, *,
        concurrency: int = 4, timeout: float = 30.0, metadata: Any = None,
        progress: Callable[[int, Counter[str]], None] | None = None,
        start: int = 0) -> dict[str, Any]:
    """Send ``requests`` cases (``concurrency`` at a time); the tally as plain data.

    ``codes``: answers by status code; ``kinds``: the same per kind of case;
    ``failures``: the first cases answered with a code outside :data:`ALLOWED`
    (index, kind, label, method, code, clipped words: rerun one with the same seed
    and ``Generator.case(index)``); ``without_details``: error answers without
    ``grpc-status-details-bin`` (the transport's own size limit answers so);
    ``slowest_seconds``.
    """
    codes: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = {}
    failures: list[dict[str, Any]] = []
    without: Counter[str] = Counter()
    slowest = 0.0
    lock = threading.Lock()

    def record(outcome: Outcome) -> None:
        nonlocal slowest
        with lock:
            codes[outcome.code] += 1
            kinds.setdefault(outcome.case.kind, Counter())[outcome.code] += 1
            slowest = max(slowest, outcome.seconds)
            if outcome.code != "OK" and not outcome.has_error_info:
                without[outcome.code] += 1
            if outcome.code not in ALLOWED and len(failures) < 20:
                failures.append({"index": outcome.case.index, "kind": outcome.case.kind,
                                 "label": outcome.case.label, "method": outcome.case.method,
                                 "code": outcome.code, "details": outcome.details[:300]})

    started = time.monotonic()
    done = 0
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="fuzz") as pool:
        pending: set[Future[Outcome]] = set()
        for case in generator.cases(requests, start):
            if len(pending) >= concurrency * 2:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record(future.result())
                    done += 1
                    if progress is not None:
                        progress(done, codes)
            pending.add(pool.submit(send, channel, case, timeout, metadata))
        for future in pending:
            record(future.result())
            done += 1
            if progress is not None:
                progress(done, codes)
    return {
        "requests": done,
        "seed": generator.seed,
        "seconds": round(time.monotonic() - started, 1),
        "codes": dict(sorted(codes.items())),
        "kinds": {k: dict(sorted(v.items())) for k, v in sorted(kinds.items())},
        "failures": failures,
        "without_details": dict(without),
        "slowest_seconds": round(slowest, 2),
        "ok": all(code in ALLOWED for code in codes),
    }


def open_fuzz_channel(address: str, **connection: Any) -> grpc.Channel:
    """A channel that may send and receive messages past the server's limits."""
    from clients.furnace_client import open_channel

    options = [("grpc.max_send_message_length", 64 << 20),
               ("grpc.max_receive_message_length", 64 << 20)]
    return open_channel(address, options=options, **connection)


def health(channel: grpc.Channel, timeout: float = 10.0) -> str:
    reply = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=SERVICE), timeout=timeout)
    name: str = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return name


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (Linux /proc; 0 where unavailable)."""
    try:
        with open(f"/proc/{pid}/statm") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


# -- command line --------------------------------------------------------------------
def add_command(subparsers: Any) -> None:
    """``furnace fuzz-server``."""
    parser = subparsers.add_parser(
        "fuzz-server", help="send hostile requests to a server and tally the answers",
        description="Send random, damaged and hostile requests to a Furnace server and "
        "print a JSON tally of the status codes.  Fails (exit 1) on any answer other than "
        "OK, INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE or RESOURCE_EXHAUSTED. "
        "Without --server it starts a loopback server and also checks its workers, "
        "health and memory.")
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="server to fuzz (default: start one on loopback)")
    parser.add_argument("--requests", type=int, default=10_000, help="cases to send")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cases")
    parser.add_argument("--start", type=int, default=0, help="index of the first case")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    parser.add_argument("--timeout", type=float, default=30.0, help="deadline of each call")
    from clients.cli import add_connection_arguments

    add_connection_arguments(parser)
    parser.set_defaults(func=run_fuzz_server)


def run_fuzz_server(args: argparse.Namespace) -> int:
    from clients.cli import connection_kwargs

    if args.requests < 1 or args.concurrency < 1:
        print("furnace fuzz-server: error: --requests and --concurrency must be positive",
              file=sys.stderr)
        return 2
    print("fuzz-server: preparing positions...", file=sys.stderr, flush=True)
    generator = Generator(args.seed)
    every = max(1, args.requests // 20)

    def progress(done: int, codes: Counter[str]) -> None:
        if done % every == 0 or done == args.requests:
            print(f"fuzz-server: {done}/{args.requests} {dict(codes)}", file=sys.stderr,
                  flush=True)

    options = {"concurrency": args.concurrency, "timeout": args.timeout,
               "progress": progress, "start": args.start}
    if args.server:
        try:
            channel = open_fuzz_channel(args.server, **connection_kwargs(args))
        except ValueError as exc:
            print(f"furnace fuzz-server: error: {exc}", file=sys.stderr)
            return 2
        try:
            report = run(channel, generator, args.requests, **options)
        finally:
            channel.close()
    else:
        print("fuzz-server: starting a loopback server...", file=sys.stderr, flush=True)
        report = fuzz_local(generator, args.requests, **options)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


def fuzz_local(generator: Generator, requests: int, *, warm_up: int = 200,
               **options: Any) -> dict[str, Any]:
    """:func:`run` against a fresh loopback server (:data:`LOCAL_SETTINGS`), plus its checks.

    ``server`` in the report: health at the end, whether the worker processes are
    the same ones (none died) and the pool restarted none, and the resident memory
    of this process (which hosts the server) after ``warm_up`` cases and at the end.
    """
    import gc

    from ai_server.server import BackgroundServer

    with BackgroundServer(**LOCAL_SETTINGS) as srv:
        assert srv.server is not None
        pool = srv.server.pool
        pids_before = sorted(pool.worker_pids())
        restarts_before = getattr(pool, "restarts", 0)
        channel = open_fuzz_channel(srv.address)
        try:
            if warm_up:  # buffers and caches reach their working size first
                run(channel, generator, warm_up, start=10**9)
            gc.collect()
            rss_before = rss_bytes(os.getpid())
            report = run(channel, generator, requests, **options)
            gc.collect()
            rss_after = rss_bytes(os.getpid())
            status = health(channel)
        finally:
            channel.close()
        pids_after = sorted(pool.worker_pids())
        restarts = getattr(pool, "restarts", 0) - restarts_before
    report["server"] = {
        "health": status,
        "worker_pids_unchanged": pids_before == pids_after,
        "worker_restarts": restarts,
        "rss_before_mib": round(rss_before / (1 << 20), 1),
        "rss_after_mib": round(rss_after / (1 << 20), 1),
    }
    report["ok"] = bool(report["ok"] and status == "SERVING" and pids_before == pids_after
                        and restarts == 0)
    return report
