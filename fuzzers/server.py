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
* ``valid``: a well-formed request of a real position (tiny search budgets);
* ``costly``: a well-formed request of a valid position that is expensive to
  answer (:func:`costly_positions`: Stephens rows of 13, 17 and 18 of one seat's
  workers at their activation).

Each case goes through one door, by its index: the native gRPC port, or the HTTP
door (``--http``: the Connect protocol with binary bodies, Analyze as a Connect
stream), so that both doors meet every kind.  An answer passes when its status is OK,
INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, RESOURCE_EXHAUSTED or
DEADLINE_EXCEEDED (a costly call stopped at its time, :data:`ALLOWED`); UNKNOWN,
INTERNAL and anything else are failures.  Meanwhile a thread checks the health
service every 100 ms (on every port that serves it) and the report gives the
probes' latency: a request that held the server up shows there.  :func:`run` sends
the cases and tallies the codes; ``furnace fuzz-server [--server ADDR] [--http
URL] --requests N --seed S`` is its command line (without ``--server`` it starts a
loopback server with small search caps, both doors and a health port, and also
checks that no worker died but those stopped on purpose, its health and its memory).
"""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import os
import random
import select
import ssl
import sys
import threading
import time
import urllib.parse
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
#: Answers that are fine for any input (DEADLINE_EXCEEDED: a costly call's work was
#: stopped at its deadline or the server's max_call_time).
ALLOWED = frozenset({"OK", "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE",
                     "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
#: Settings of the loopback server ``fuzz-server`` starts: small caps keep any
#: search a hostile budget asks for short.
LOCAL_SETTINGS: dict[str, Any] = {
    "workers": 2, "max_queue": 32, "max_iterations": 500, "max_time": 0.5,
    "default_iterations": 20, "default_analyze_time": 0.2, "max_playouts": 20,
    "default_playouts": 5, "call_workers": 2, "max_call_time": 2.0,
}
#: Kinds of cases and their weights.
KINDS: dict[str, float] = {"random": 3, "truncated": 3, "flipped": 4, "hostile": 6,
                          "mutated": 4, "valid": 1, "costly": 1}
#: Move texts sent with costly positions.
COSTLY_MOVES = ("activate nothing", "activate fishwife:1", "wait")
#: Doors a case may go through (``case.index % len(doors)`` picks one).
DOORS = ("grpc", "http")
#: Seconds between two health probes during a run.
PROBE_EVERY = 0.1
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
    """JSON states of seeded random games of every registered game, some deep."""
    from engine import registry  # the engine is only needed to make cases

    rng = random.Random(seed)
    positions: list[dict[str, Any]] = []
    names = list(registry.game_names())
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


def costly_positions() -> list[dict[str, Any]]:
    """Valid positions that are expensive to answer (``fuzzers/positions``):
    Stephens rows of 13, 17 and 18 of one seat's workers at their activation decision
    (a ladder game reached the first; 18 is every disk of a seat, the most a row may
    hold).  Validation, legal moves, checks, applies and searches of them all run."""
    from importlib import resources

    folder = resources.files("fuzzers").joinpath("positions")
    return [json.loads(entry.read_text()) for entry in sorted(folder.iterdir(),
                                                               key=lambda e: e.name)
            if entry.name.endswith(".json")]


class Generator:
    """Cases from a seed: ``case(i)`` is the same for the same seed and positions."""

    def __init__(self, seed: int, positions: list[dict[str, Any]] | None = None,
                 costly: list[dict[str, Any]] | None = None,
                 weights: dict[str, float] | None = None) -> None:
        self.seed = seed
        self.positions = positions if positions is not None else base_positions(seed)
        self.costly = costly if costly is not None else costly_positions()
        self._moves: dict[int, list[str]] = {}
        kinds, chances = zip(*(weights or KINDS).items(), strict=True)
        self._kinds: tuple[str, ...] = kinds
        self._weights: tuple[float, ...] = chances

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
    def _state(self, rng: random.Random, positions: list[dict[str, Any]] | None = None
               ) -> tuple[pb.GameState, dict[str, Any]]:
        data = rng.choice(positions or self.positions)
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

    def request(self, method: str, rng: random.Random,
                positions: list[dict[str, Any]] | None = None) -> Message:
        """A well-formed request of ``method`` with small budgets (a position of
        ``positions``, default the generator's)."""
        if method == "ListGames":
            return pb.ListGamesRequest()
        if method == "NewGame":
            game = rng.choice(["samara", "oh-my-goods", "stephens"])
            request = pb.NewGameRequest(game=game, num_players=rng.choice([2, 3, 4]),
                                        seed=rng.randrange(1000))
            request.state_format = rng.randrange(4)  # type: ignore[assignment]
            if game == "samara" and rng.random() < 0.3:
                request.options["powers"].bool_value = rng.random() < 0.5
            return request
        state, data = self._state(rng, positions)
        if method == "LegalMoves":
            return pb.LegalMovesRequest(state=state, include_render=rng.random() < 0.5)
        if method in ("CheckMove", "ApplyMove"):
            # A costly position's moves are not worked out here (that is the cost).
            texts = COSTLY_MOVES if positions is self.costly else self._move_texts(data)
            move = pb.Move(text=rng.choice(texts))
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
        return "valid", method, self.request(method, rng).SerializeToString(deterministic=True)

    def _costly(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(STATE_METHODS)
        if not self.costly:
            return self._valid(rng)
        request = self.request(method, rng, self.costly)
        return "costly position", method, request.SerializeToString(deterministic=True)

    # -- damaged encodings ---------------------------------------------------------
    def _random(self, rng: random.Random) -> tuple[str, str, bytes]:
        size = rng.choice([0, 1, 2, 5, 16, 100, 1000, 5000, 70_000])
        body = rng.randbytes(rng.randrange(size + 1))
        if body and rng.random() < 0.5:  # a plausible first byte: field 1, length-delimited
            body = b"\x0a" + body[1:]
        return "random bytes", rng.choice(METHODS), body

    def _truncated(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(STATE_METHODS)
        body = self.request(method, rng).SerializeToString(deterministic=True)
        return "truncated", method, body[:rng.randrange(max(len(body), 1))]

    def _flipped(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(METHODS)
        body = bytearray(self.request(method, rng).SerializeToString(deterministic=True))
        if body:
            for _ in range(rng.choice([1, 1, 2, 3, 8])):
                body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
        return "bit flips", method, bytes(body)

    def _mutated(self, rng: random.Random) -> tuple[str, str, bytes]:
        method = rng.choice(STATE_METHODS)
        request = self.request(method, rng)
        mutate(request, rng, rng.randrange(1, 5))
        return "mutated fields", method, request.SerializeToString(deterministic=True)

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
        return "LegalMoves", pb.LegalMovesRequest(state=message).SerializeToString(deterministic=True)

    def _h_deep_nesting(self, rng: random.Random) -> tuple[str, bytes]:
        """Nested unknown groups, or nested JSON in a json/opaque state."""
        depth = rng.choice([50, 200, 5000, 100_000])
        method = rng.choice(STATE_METHODS)
        request_type = getattr(pb, f"{method}Request")
        choice = rng.randrange(3)
        if choice == 0:
            groups = tag(99, 3) * depth + tag(99, 4) * depth
            return method, groups + pb.ListGamesRequest().SerializeToString(deterministic=True)
        text = "[" * depth + "]" * depth
        if choice == 1:
            text = '{"game": "samara", "spots": ' + text + "}"
            state = pb.GameState(json=text)
        else:
            state = pb.GameState(opaque=zlib.compress(text.encode()))
        return method, request_type(state=state).SerializeToString(deterministic=True)

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
        return method, request.SerializeToString(deterministic=True)

    def _h_long_strings(self, rng: random.Random) -> tuple[str, bytes]:
        """Long game names, move texts, option names (some non-ASCII, some with quotes)."""
        length = rng.choice([61, 1000, 1024, 1025, 20_000, 60_000, 100_000])
        text = "".join(rng.choice(["a", " ", "é", "'", '"', "\\", "😀", "r1c1 "])
                       for _ in range(min(length, 200)))
        text = (text * (length // max(len(text), 1) + 1))[:length]
        target = rng.randrange(4)
        if target == 0:
            return "NewGame", pb.NewGameRequest(game=text, num_players=2).SerializeToString(deterministic=True)
        if target == 1:
            request = pb.NewGameRequest(game="samara", num_players=2)
            request.options[text].bool_value = True
            return "NewGame", request.SerializeToString(deterministic=True)
        method = rng.choice(["CheckMove", "ApplyMove"])
        request = self.request(method, rng)
        request.move.text = text  # type: ignore[attr-defined]
        if target == 3:
            request.move.id = rng.choice([0, 1, 2**62])  # type: ignore[attr-defined]
        return method, request.SerializeToString(deterministic=True)

    def _h_unknown_game(self, rng: random.Random) -> tuple[str, bytes]:
        name = rng.choice(["chess", "SAMARA", " samara", "samara\x00", "", "../samara",
                           "oh_my_goods", "x" * rng.choice([10, 500])])
        if rng.random() < 0.5:
            return "NewGame", pb.NewGameRequest(game=name, num_players=2).SerializeToString(deterministic=True)
        data = dict(rng.choice(self.positions), game=name)
        method = rng.choice(STATE_METHODS)
        state = codecs.encode_state(data, rng.choice([codecs.OPAQUE, codecs.JSON]))
        return method, getattr(pb, f"{method}Request")(state=state).SerializeToString(deterministic=True)

    def _h_zip_bomb(self, rng: random.Random) -> tuple[str, bytes]:
        blob = _zip_bomb(rng.choice([2 << 20, 64 << 20]))
        return "LegalMoves", pb.LegalMovesRequest(
            state=pb.GameState(opaque=blob)).SerializeToString(deterministic=True)

    def _h_crafted_state(self, rng: random.Random) -> tuple[str, bytes]:
        """A real state with impossible contents (counts, seats, enums, copies): typed
        where the game has a typed form, else its JSON with hostile numbers."""
        data = rng.choice(self.positions)
        if not codecs.has_typed(str(data.get("game"))):
            crafted = json_with_hostile_numbers(data, rng)
            method = rng.choice(STATE_METHODS)
            return method, self._with_state(method, rng, pb.GameState(
                json=json.dumps(crafted, separators=(",", ":"))))
        message = codecs.encode_state(data, "typed")
        form = message.WhichOneof("state") or ""
        typed = getattr(message, form)
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
        return request.SerializeToString(deterministic=True)

    def _h_map_flood(self, rng: random.Random) -> tuple[str, bytes]:
        request = pb.NewGameRequest(game="samara", num_players=2)
        for i in range(rng.choice([100, 6000])):
            request.options[f"o{i}"].int_value = i
        return "NewGame", request.SerializeToString(deterministic=True)

    def _h_two_forms(self, rng: random.Random) -> tuple[str, bytes]:
        """A GameState with several oneof members on the wire (the last one wins)."""
        data = rng.choice(self.positions)
        parts = [codecs.encode_state(data, form).SerializeToString(deterministic=True)
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
        body = self.request(rng.choice(METHODS), rng).SerializeToString(deterministic=True)
        return rng.choice(METHODS), body


#: Numbers a crafted JSON state may hold where the game expects its own.
HOSTILE_NUMBERS = (-1, 0, 7, 99, 10**6, 2**31 - 1, 2**63, -(2**63), 1.5, True, None, "1")


def json_with_hostile_numbers(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of the JSON state ``data`` with one to four of its numbers (any depth,
    ``game`` and ``version`` spared) replaced by :data:`HOSTILE_NUMBERS`."""
    copy = json.loads(json.dumps(data))
    places: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(value, (dict, list)):
                walk(value)
            elif isinstance(value, int) and not isinstance(value, bool) \
                    and key not in ("version",):
                places.append((node, key))

    walk(copy)
    for node, key in rng.sample(places, min(len(places), rng.randrange(1, 5))):
        node[key] = rng.choice(HOSTILE_NUMBERS)
    return copy


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


#: Seconds the HTTP client waits for an answer beyond the call's deadline: a server
#: answers DEADLINE_EXCEEDED *at* the deadline (a search stopped by it, its answer on
#: the way), so a client that gave up at the deadline would see a transport error.
HTTP_TIMEOUT_MARGIN = 5.0


def _closed_by_peer(connection: http.client.HTTPConnection) -> bool:
    """Whether an idle keep-alive connection was closed by the server (its idle
    timeout): it then reads as ready, with an end of file (or an error)."""
    sock = connection.sock
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)  # nothing is due on an idle connection: EOF or garbage


class HttpDoor:
    """Sends cases to a server's HTTP door as the Connect protocol with binary bodies
    (``application/proto``; Analyze as a Connect stream), one connection per thread.

    ``url``: ``http://HOST:PORT`` or ``https://...`` (then ``ssl_context``); ``token``
    goes as ``Authorization: Bearer``.

    Each case is POSTed once: its answer is awaited until the call's deadline plus
    :data:`HTTP_TIMEOUT_MARGIN`, and a POST that fails is a transport error, never
    sent again (the server may have run it: a costly case would run twice, and a
    retried timeout hides the late answer).  A keep-alive connection the server closed
    while idle is noticed before a POST, and replaced.
    """

    def __init__(self, url: str, token: str | None = None,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the HTTP door's address must be http://HOST:PORT or "
                             f"https://HOST:PORT, not {url!r}")
        self.url = url
        self._tls = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._tls else 80)
        self._context = ssl_context
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._local = threading.local()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection",
                                                                None)
        if connection is not None and _closed_by_peer(connection):
            connection.close()
            connection = self._local.connection = None
        if connection is None:
            if self._tls:
                connection = http.client.HTTPSConnection(self._host, self._port,
                                                         timeout=timeout,
                                                         context=self._context)
            else:
                connection = http.client.HTTPConnection(self._host, self._port,
                                                        timeout=timeout)
            self._local.connection = connection
        connection.timeout = timeout
        return connection

    def _post(self, path: str, body: bytes, headers: dict[str, str],
              timeout: float) -> tuple[int, bytes]:
        """POST once; the answer awaited until ``timeout`` (the call's deadline) plus
        :data:`HTTP_TIMEOUT_MARGIN`."""
        connection = self._connection(timeout + HTTP_TIMEOUT_MARGIN)
        try:
            connection.request("POST", path, body, {**self._headers, **headers})
            reply = connection.getresponse()
            return reply.status, reply.read()
        except (ConnectionError, http.client.HTTPException, OSError):
            connection.close()
            self._local.connection = None
            raise

    def send(self, case: Case, timeout: float) -> Outcome:
        """Send ``case`` through the door; its status as a gRPC code name."""
        path = f"/{SERVICE}/{case.method}"
        started = time.monotonic()
        headers = {"Connect-Protocol-Version": "1",
                   "Connect-Timeout-Ms": str(int(timeout * 1000))}
        try:
            if case.method == "Analyze":
                status, body = self._post(path, _envelope(0, case.body), {
                    **headers, "Content-Type": "application/connect+proto"}, timeout)
                code, details, info = _connect_stream_outcome(status, body)
            else:
                status, body = self._post(path, case.body, {
                    **headers, "Content-Type": "application/proto"}, timeout)
                if status == 200:
                    getattr(pb, f"{case.method}Response").FromString(body)
                    code, details, info = "OK", "", True
                else:
                    code, details, info = _connect_error(status, body)
        except (OSError, http.client.HTTPException) as error:
            code, details, info = "TRANSPORT_ERROR", f"{type(error).__name__}: {error}", False
        except DecodeError as error:
            code, details, info = "BAD_RESPONSE", str(error), False
        return Outcome(case, code, details, time.monotonic() - started, info)


def _envelope(flags: int, data: bytes) -> bytes:
    return bytes([flags]) + len(data).to_bytes(4, "big") + data


def _connect_error(status: int, body: bytes) -> tuple[str, str, bool]:
    """Code name, words and whether an ErrorInfo came, of a Connect error answer."""
    try:
        error = json.loads(body)
        code = str(error["code"]).upper()
    except (ValueError, KeyError, TypeError):
        return f"HTTP_{status}", body[:200].decode("utf-8", "replace"), False
    info = any(d.get("type") == "google.rpc.ErrorInfo" for d in error.get("details", []))
    return code, str(error.get("message", "")), info


def _connect_stream_outcome(status: int, body: bytes) -> tuple[str, str, bool]:
    """The outcome of a Connect server stream: its end message's error, else OK when
    exactly its last update is final."""
    if status != 200:
        return _connect_error(status, body)
    finals: list[bool] = []
    at, end = 0, None
    while at + 5 <= len(body):
        flags, size = body[at], int.from_bytes(body[at + 1:at + 5], "big")
        data = body[at + 5:at + 5 + size]
        at += 5 + size
        if flags & 0x02:
            end = data
        else:
            finals.append(pb.AnalyzeResponse.FromString(data).final)
    if end is None:
        return "BAD_STREAM", "no end of stream", False
    error = json.loads(end or b"{}").get("error")
    if error:
        return _connect_error(200, json.dumps(error).encode())
    if finals.count(True) != 1 or not finals[-1]:
        return "BAD_STREAM", f"finals {finals}", False
    return "OK", "", True


class HealthProbe:
    """A thread that checks the health service on ``channels`` every
    :data:`PROBE_EVERY` seconds and keeps each probe's latency (failures as ``None``)."""

    def __init__(self, channels: dict[str, grpc.Channel], timeout: float = 10.0) -> None:
        self.channels = channels
        self.timeout = timeout
        self.latencies: dict[str, list[float | None]] = {name: [] for name in channels}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzz-health", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, channel in self.channels.items():
                started = time.monotonic()
                try:
                    ok = health(channel, self.timeout) == "SERVING"
                except grpc.RpcError:
                    ok = False
                self.latencies[name].append(time.monotonic() - started if ok else None)
            self._stop.wait(PROBE_EVERY)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(self.timeout + 5)

    def report(self) -> dict[str, Any]:
        """Per port: probes, failed ones, and the latency's p50, p99 and max in ms."""
        out: dict[str, Any] = {}
        for name, values in self.latencies.items():
            times = sorted(v for v in values if v is not None)

            def ms(q: float, times: list[float] = times) -> float | None:
                if not times:
                    return None
                return round(1000 * times[min(len(times) - 1, int(q * len(times)))], 1)

            out[name] = {"probes": len(values), "failed": len(values) - len(times),
                         "p50_ms": ms(0.5), "p99_ms": ms(0.99),
                         "max_ms": round(1000 * times[-1], 1) if times else None}
        return out


def run(channel: grpc.Channel, generator: Generator, requests: int, *,
        concurrency: int = 4, timeout: float = 30.0, metadata: Any = None,
        progress: Callable[[int, Counter[str]], None] | None = None,
        start: int = 0, http: HttpDoor | None = None,
        probes: dict[str, grpc.Channel] | None = None) -> dict[str, Any]:
    """Send ``requests`` cases (``concurrency`` at a time); the tally as plain data.

    With ``http``, every other case (by index) goes through the HTTP door instead of
    ``channel``; ``probes`` (name: channel) are checked for health meanwhile.

    ``codes``: answers by status code; ``kinds`` and ``doors``: the same per kind
    of case and per door;
    ``failures``: the first cases answered with a code outside :data:`ALLOWED`
    (index, kind, label, method, code, clipped words: rerun one with the same seed
    and ``Generator.case(index)``); ``without_details``: error answers without
    ``grpc-status-details-bin`` (the transport's own size limit answers so);
    ``slowest_seconds``; ``health``: the probes' latency (:class:`HealthProbe`).
    """
    codes: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = {}
    doors: dict[str, Counter[str]] = {}
    door_of: dict[int, str] = {}
    failures: list[dict[str, Any]] = []
    without: Counter[str] = Counter()
    slowest = 0.0
    lock = threading.Lock()

    def record(outcome: Outcome) -> None:
        nonlocal slowest
        with lock:
            codes[outcome.code] += 1
            kinds.setdefault(outcome.case.kind, Counter())[outcome.code] += 1
            door = door_of.pop(outcome.case.index, "grpc")
            doors.setdefault(door, Counter())[outcome.code] += 1
            slowest = max(slowest, outcome.seconds)
            if outcome.code != "OK" and not outcome.has_error_info:
                without[outcome.code] += 1
            if outcome.code not in ALLOWED and len(failures) < 20:
                failures.append({"index": outcome.case.index, "kind": outcome.case.kind,
                                 "label": outcome.case.label, "method": outcome.case.method,
                                 "door": door, "code": outcome.code,
                                 "details": outcome.details[:300]})

    def dispatch(case: Case) -> Outcome:
        door = DOORS[case.index % len(DOORS)] if http is not None else "grpc"
        with lock:
            door_of[case.index] = door
        if door == "http":
            assert http is not None
            return http.send(case, timeout)
        return send(channel, case, timeout, metadata)

    started = time.monotonic()
    done = 0
    prober = HealthProbe(probes or {})
    with prober, ThreadPoolExecutor(max_workers=concurrency,
                                    thread_name_prefix="fuzz") as pool:
        pending: set[Future[Outcome]] = set()
        for case in generator.cases(requests, start):
            if len(pending) >= concurrency * 2:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record(future.result())
                    done += 1
                    if progress is not None:
                        progress(done, codes)
            pending.add(pool.submit(dispatch, case))
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
        "doors": {k: dict(sorted(v.items())) for k, v in sorted(doors.items())},
        "health": prober.report(),
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
    from ai_server.worker import resident_bytes

    return resident_bytes(pid) or 0


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
    parser.add_argument("--http", metavar="URL",
                        help="with --server: also fuzz its HTTP door at this address "
                        "(http://HOST:PORT or https://...), every other case; without "
                        "--server both doors are fuzzed")
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
        connection = connection_kwargs(args)
        try:
            channel = open_fuzz_channel(args.server, **connection)
            door = None
            if args.http:
                context = None
                if args.http.startswith("https:"):
                    context = ssl.create_default_context(cafile=args.ca_cert)
                    if args.client_cert:
                        context.load_cert_chain(args.client_cert, args.client_key)
                door = HttpDoor(args.http, connection.get("token"), context)
        except (ValueError, OSError) as exc:
            print(f"furnace fuzz-server: error: {exc}", file=sys.stderr)
            return 2
        try:
            report = run(channel, generator, args.requests, http=door,
                         probes={"grpc": channel}, **options)
        finally:
            channel.close()
    else:
        print("fuzz-server: starting a loopback server...", file=sys.stderr, flush=True)
        report = fuzz_local(generator, args.requests, **options)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


def fuzz_local(generator: Generator, requests: int, *, warm_up: int = 200,
               settings: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    """:func:`run` against a fresh loopback server (:data:`LOCAL_SETTINGS`, updated with
    ``settings``), through both doors, with health probed on its port and its health
    port, plus its checks.

    ``server`` in the report: health at the end; per pool, the workers restarted and
    those killed on purpose (a costly call stopped at its time): ``workers_died``,
    the difference, must be 0; the event loop's stalls; and the resident memory of
    this process (which hosts the server) after ``warm_up`` cases and at the end.
    """
    import gc

    from ai_server.server import BackgroundServer

    with BackgroundServer(http_port=0, health_port=0,
                          **{**LOCAL_SETTINGS, **(settings or {})}) as srv:
        assert srv.server is not None
        pools = {"search": srv.server.pool, "call": srv.server.call_pool}
        channel = open_fuzz_channel(srv.address)
        probe_channel = grpc.insecure_channel(f"127.0.0.1:{srv.server.health_port}")
        door = HttpDoor(f"http://127.0.0.1:{srv.server.http_port}")
        try:
            if warm_up:  # buffers and caches reach their working size first
                run(channel, generator, warm_up, start=10**9, http=door)
            before = {name: (p.restarts, p.kills) for name, p in pools.items() if p}
            gc.collect()
            rss_before = rss_bytes(os.getpid())
            report = run(channel, generator, requests, http=door,
                         probes={"grpc": channel, "health_port": probe_channel}, **options)
            gc.collect()
            rss_after = rss_bytes(os.getpid())
            status = health(channel)
        finally:
            channel.close()
            probe_channel.close()
        workers = {name: {"restarts": p.restarts - before[name][0],
                          "killed": p.kills - before[name][1]}
                   for name, p in pools.items() if p}
        stalls = srv.server.watchdog.held if srv.server.watchdog is not None else 0
    died = sum(w["restarts"] - w["killed"] for w in workers.values())
    report["server"] = {
        "health": status,
        "workers": workers,
        "workers_died": died,
        "event_loop_stalls": stalls,
        "rss_before_mib": round(rss_before / (1 << 20), 1),
        "rss_after_mib": round(rss_after / (1 << 20), 1),
    }
    failed_probes = sum(h["failed"] for h in report["health"].values())
    report["ok"] = bool(report["ok"] and status == "SERVING" and died == 0
                        and failed_probes == 0)
    return report
