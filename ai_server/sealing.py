"""Sealed states: a whole position handed to a client it must not be shown to.

A browser playing one seat of a hidden-information game would otherwise hold the
whole position (every hand, the deck order) and could read it, or edit its own
hand, before sending it back.  A *sealed* state is that position encrypted and
authenticated with the server's key: the holder can pass it back but neither read
the hidden parts nor alter a byte of it, and the seat it was sealed for travels
inside, so it cannot be looked at through another seat's eyes either.  Answers
carry the seat's view beside it (``view``).

The blob (``GameState.sealed``)::

    version (1 byte) | key id (8 bytes) | nonce (12 bytes) | AES-256-GCM ciphertext + tag

The header (version, key id, nonce) is the associated data, so it is authenticated
too.  The plaintext is ``{"seat": S, "state": <the game's JSON>}`` as canonical
compact JSON, zlib-compressed and padded with zeros to a multiple of
:data:`PAD_BYTES`, so the blob's length tells little about what it holds.

A state may carry its game's record beside it, ``"record": <a record file's JSON>``
(:func:`engine.records.record_to_json`: NewGame's seed and options and every move
since, the hidden ones too), so that the holder can have its own decisions reviewed
(ReviewGame) without ever holding the moves it did not see.  The member is optional
within version 1: a blob without it (sealed before records were, or of a game that did
not start from NewGame's seed) opens with no record, and a server that predates it
ignores it.

Keys are 32 random bytes (AES-256), read from files (:func:`read_key_file`), newest
first: new states are sealed with the first; every listed key still opens the
states it sealed, found by the key id in the header (the first bytes of a hash of
the key, which shows nothing of the key).  A removed key's states no longer open.
A server given no key file seals with a key of its own (:meth:`Sealer.for_this_process`),
so a hidden position never leaves it in clear; only that process opens those states.

>>> sealer = Sealer([bytes(range(32))])
>>> blob = sealer.seal({"game": "samara", "month": 8}, seat=1)
>>> sealer.open(blob)
({'game': 'samara', 'month': 8}, 1)
>>> sealer.unseal(sealer.seal({"game": "samara"}, 0, record={"moves": [3]})).record
{'moves': [3]}
>>> sealer.open(blob[:-1] + bytes([blob[-1] ^ 1]))
Traceback (most recent call last):
...
ai_server.sealing.SealError: the sealed state was altered: it does not authenticate with the key it names
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import logging
import os
import secrets
import zlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_server.security import readable_by_others

log = logging.getLogger(__name__)

#: The blob's first byte: its layout (a new layout gets a new version).
VERSION = 1
KEY_BYTES = 32
KEY_ID_BYTES = 8
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = 1 + KEY_ID_BYTES + NONCE_BYTES
#: The compressed plaintext is padded to a multiple of this many bytes.
PAD_BYTES = 256
#: Largest state JSON a sealed blob may expand to (as for the opaque form).
MAX_PLAIN_BYTES = 1 << 20


@dataclass(frozen=True)
class Unsealed:
    """What a sealed state holds: the game's JSON state, the seat it was sealed for
    and, when it carries one, its game's record (a record file's JSON)."""

    state: dict[str, Any]
    seat: int
    record: dict[str, Any] | None = None


class SealError(ValueError):
    """A sealed state that does not open: altered, truncated, of another version, or
    sealed with a key this server does not hold."""


def key_id(key: bytes) -> bytes:
    """The id of ``key`` written in the header: a hash's first bytes (not the key).

    >>> key_id(bytes(32)).hex()
    'b3bec787434de881'
    """
    return hashlib.sha256(b"furnace seal key id\0" + key).digest()[:KEY_ID_BYTES]


class Sealer:
    """Seals and opens states with ``keys`` (32 bytes each), newest first.

    Pickles by its keys, so it travels to the worker processes with their jobs;
    its ``repr`` shows the key ids only.  ``per_process``: the key was made at start
    for this process alone (no key file), so no other process opens its states.
    """

    def __init__(self, keys: Sequence[bytes], per_process: bool = False) -> None:
        if not keys:
            raise ValueError("a sealer needs at least one key")
        ids: dict[bytes, bytes] = {}
        for number, key in enumerate(keys):
            if not isinstance(key, bytes) or len(key) != KEY_BYTES:
                raise ValueError(f"sealing key {number + 1} is not {KEY_BYTES} bytes")
            kid = key_id(key)
            if kid in ids:
                raise ValueError(f"sealing key {number + 1} is listed twice "
                                 f"(key id {kid.hex()})")
            ids[kid] = key
        self._keys = tuple(keys)
        self._by_id = ids
        self._newest = key_id(keys[0])
        self._aead: dict[bytes, AESGCM] = {}
        self.per_process = per_process

    @classmethod
    def for_this_process(cls) -> Sealer:
        """A sealer of a fresh key that lives in this process's memory only: what a
        server seals with when it is given no key file.  A restart, or another
        replica, cannot open the states it seals."""
        return cls([new_key()], per_process=True)

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike[str]]) -> Sealer:
        """A sealer of the key files ``paths``, newest first (ValueError, in words,
        when one cannot be read or holds no key)."""
        return cls([read_key_file(path) for path in paths])

    @property
    def key_ids(self) -> list[str]:
        """The keys' ids in hex, newest first (what logs and docs may show)."""
        return [key_id(key).hex() for key in self._keys]

    def __repr__(self) -> str:
        return f"Sealer(key ids {', '.join(self.key_ids)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sealer) and other._keys == self._keys

    def __hash__(self) -> int:
        return hash(self._newest)

    def __reduce__(self) -> tuple[Any, ...]:
        return Sealer, (list(self._keys), self.per_process)

    def _cipher(self, kid: bytes) -> AESGCM:
        aead = self._aead.get(kid)
        if aead is None:
            aead = self._aead[kid] = AESGCM(self._by_id[kid])
        return aead

    def seal(self, data: dict[str, Any], seat: int,
             record: dict[str, Any] | None = None) -> bytes:
        """``data`` (a game's JSON state) sealed for ``seat`` with the newest key, with
        its game's ``record`` when given (a record file's JSON)."""
        envelope: dict[str, Any] = {"seat": seat, "state": data}
        if record is not None:
            envelope["record"] = record
        text = json.dumps(envelope, separators=(",", ":"), sort_keys=True,
                          ensure_ascii=False)
        packed = zlib.compress(text.encode("utf-8"), 9)
        packed += bytes(-len(packed) % PAD_BYTES)
        header = bytes([VERSION]) + self._newest + secrets.token_bytes(NONCE_BYTES)
        return header + self._cipher(self._newest).encrypt(header[1 + KEY_ID_BYTES:],
                                                           packed, header)

    def open(self, blob: bytes) -> tuple[dict[str, Any], int]:
        """The state and seat ``blob`` was sealed with (:class:`SealError` if it does
        not open here)."""
        opened = self.unseal(blob)
        return opened.state, opened.seat

    def unseal(self, blob: bytes) -> Unsealed:
        """Everything ``blob`` holds (:class:`SealError` if it does not open here)."""
        if len(blob) < HEADER_BYTES + TAG_BYTES:
            raise SealError(f"the sealed state is truncated ({len(blob)} bytes; a sealed "
                            f"state has at least {HEADER_BYTES + TAG_BYTES})")
        if blob[0] != VERSION:
            raise SealError(f"the sealed state is of version {blob[0]}; this server "
                            f"opens version {VERSION}")
        kid = blob[1:1 + KEY_ID_BYTES]
        if kid not in self._by_id:
            raise SealError(f"the sealed state was sealed with a key this server does not "
                            f"hold (key id {kid.hex()}): it was retired, or belongs to "
                            f"another server process (a restart or another replica "
                            f"without a shared --seal-key), or the state is altered")
        header = blob[:HEADER_BYTES]
        try:
            packed = self._cipher(kid).decrypt(header[1 + KEY_ID_BYTES:],
                                               blob[HEADER_BYTES:], header)
        except InvalidTag:
            raise SealError("the sealed state was altered: it does not authenticate "
                            "with the key it names") from None
        return _unpack(packed)


def _unpack(packed: bytes) -> Unsealed:
    """The plaintext of an authentic blob: only this server wrote it, so a fault here
    is a server of another make (or a bug), told in words all the same."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(packed, MAX_PLAIN_BYTES)
    except zlib.error as exc:
        raise SealError(f"the sealed state does not decompress: {exc}") from None
    if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data.strip(b"\0"):
        raise SealError("the sealed state's content is malformed")
    try:
        envelope = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SealError(f"the sealed state's content is not JSON: {exc}") from None
    except RecursionError:
        # Nesting past the parser's recursion limit, as the unsealed JSON path bounds it
        # (codecs._parse_json): a malformed state, not a crash (INTERNAL).
        raise SealError("the sealed state's content is malformed: its JSON nests too "
                        "deep") from None
    if not isinstance(envelope, dict):
        raise SealError("the sealed state's content is malformed")
    seat, data, record = envelope.get("seat"), envelope.get("state"), envelope.get("record")
    if not isinstance(seat, int) or not isinstance(data, dict) \
            or not isinstance(data.get("game"), str) \
            or not (record is None or isinstance(record, dict)):
        raise SealError("the sealed state's content is malformed")
    return Unsealed(data, seat, record)


# -- key files ---------------------------------------------------------------------------
def new_key() -> bytes:
    """A fresh key: 32 bytes from the operating system's secure generator."""
    return secrets.token_bytes(KEY_BYTES)


def parse_key(data: bytes, source: str = "the key") -> bytes:
    """The 32-byte key held by ``data``: exactly 32 raw bytes, or text (surrounding
    white space ignored) of 64 hex digits or of standard base64 (what
    ``openssl rand -hex 32`` and ``openssl rand -base64 32`` print).

    >>> parse_key(b"00" * 32 + b"\\n") == bytes(32)
    True
    >>> parse_key(base64.b64encode(bytes(range(32)))) == bytes(range(32))
    True
    >>> parse_key(b"short")
    Traceback (most recent call last):
    ...
    ValueError: the key holds no 32-byte key: give 32 raw bytes, 64 hex digits or the base64 of 32 bytes (furnace seal-key new FILE writes one)
    """
    if len(data) == KEY_BYTES:
        return data
    text = data.strip()
    key = b""
    if len(text) == 2 * KEY_BYTES:
        with contextlib.suppress(ValueError):
            key = bytes.fromhex(text.decode("ascii"))
    elif text:
        with contextlib.suppress(binascii.Error, ValueError):
            key = base64.b64decode(text, validate=True)
    if len(key) != KEY_BYTES:
        raise ValueError(f"{source} holds no {KEY_BYTES}-byte key: give {KEY_BYTES} raw "
                         f"bytes, {2 * KEY_BYTES} hex digits or the base64 of {KEY_BYTES} "
                         f"bytes (furnace seal-key new FILE writes one)")
    return key


def read_key_file(path: str | os.PathLike[str]) -> bytes:
    """The key of a key file (:func:`parse_key`); warns when other users may read it."""
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read the sealing key {name}: {exc.strerror or exc}") from None
    if readable_by_others(path):
        log.warning("sealing key %s can be read by other users (chmod 600 it)", name)
    return parse_key(data, f"sealing key {name}")


def write_key_file(path: str | os.PathLike[str]) -> str:
    """Write a fresh key to ``path`` (a new file, readable by its owner only) as base64
    text; returns the key's id in hex.  Refuses to replace an existing file."""
    key = new_key()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(base64.b64encode(key) + b"\n")
    return key_id(key).hex()


# -- the sealer of the current call (in the worker processes) -----------------------------
#: The server's sealer while a worker runs a call (None: outside a call).
SEALER: ContextVar[Sealer | None] = ContextVar("furnace_sealer", default=None)


@contextlib.contextmanager
def using(sealer: Sealer | None) -> Iterator[None]:
    """Run a call with ``sealer`` as :data:`SEALER`."""
    token = SEALER.set(sealer)
    try:
        yield
    finally:
        SEALER.reset(token)
