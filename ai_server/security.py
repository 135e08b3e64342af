"""Hosting the server in the open: TLS, mutual TLS, bearer tokens, reflection switch.

Everything here is off by default, which is right on loopback (``furnace serve``
listens on 127.0.0.1 unless told otherwise) and refused elsewhere: ``furnace
serve --host 0.0.0.0`` needs callers who prove who they are (tokens or client
certificates), or an explicit ``--allow-unauthenticated`` (:func:`check_exposure`).
TLS alone encrypts; it does not say who calls.

* **TLS**: a server certificate chain and its key, from PEM files.
* **Mutual TLS**: with a client CA, every client must present a certificate
  signed by it (the TLS handshake fails otherwise).
* **Tokens**: every call but the health service's must carry
  ``authorization: Bearer <token>`` naming one of the configured tokens
  (:class:`TokenInterceptor`); anything else is UNAUTHENTICATED, with the same
  words whether the header is missing, malformed or wrong.  Tokens are kept as
  SHA-256 digests, compared with :func:`hmac.compare_digest` against every
  configured token, and never logged.  A token file has one token per line,
  ``name:token`` or a bare token (named ``token-N``, N its line), ``#`` comments
  and blank lines skipped; an environment variable holds the same, one entry per
  line or comma-separated.
* The authenticated token's name is published in :data:`CLIENT` for the rest of
  the call (per-client quotas read it and fall back to the peer address when it
  is ``None``).
* Health (``grpc.health.v1.Health``) stays open without a token, for load
  balancer probes; reflection can be switched off.
* **Renewal**: certificates, keys, the client CA and token files are read again by
  :meth:`SecurityConfig.reload` (``furnace serve``: on SIGHUP, and when they change
  on disk).  New handshakes present the new certificate on both doors, new calls
  need the new tokens; connections and calls already there go on.  A renewal that
  does not load keeps what is served and logs an error.
* **CORS** (the HTTP door only): pages of the named origins (``--cors-origin``,
  ``https://play.example.org`` or ``*``) may call the door from a browser
  (:func:`check_origin`).  It decides only what a browser lets such a page send and
  read; tokens still decide who may call.

>>> [t.name for t in parse_tokens("# clients\\nalice:0123456789abcdef0123\\n"
...                               "fedcba9876543210fedc\\n", "tokens.txt")]
['alice', 'token-3']
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import ipaddress
import logging
import os
import re
import ssl
import stat
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from ai_server import errors

log = logging.getLogger(__name__)

#: Name of the token that authenticated the current call (None: no token auth).
CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("furnace_client",
                                                                      default=None)

#: Methods reachable without a token (load balancer health probes).
OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})
#: Shortest token accepted (guessable tokens are a configuration error).
MIN_TOKEN_LENGTH = 16
#: Seconds between two looks at the credential files (``--reload-interval``).
DEFAULT_RELOAD_INTERVAL = 30.0
#: ErrorInfo reason of a refused call.
UNAUTHENTICATED = "UNAUTHENTICATED"
#: What a refused call is told (nothing about which part was wrong).
REFUSED_MESSAGE = "missing or invalid credentials: send 'authorization: Bearer <token>'"


@dataclass(frozen=True)
class Token:
    """A configured token: its name (for quotas and logs) and the SHA-256 of its text."""

    name: str
    digest: bytes = field(repr=False)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def parse_tokens(text: str, source: str) -> tuple[Token, ...]:
    """Tokens from ``text``: one ``name:token`` or bare token per line (ValueError if bad).

    ``source`` names where the text came from in error messages (never the token).
    """
    tokens: list[Token] = []
    seen: set[bytes] = set()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, secret = line.partition(":")
        if not sep:
            name, secret = f"token-{number}", line
        name, secret = name.strip(), secret.strip()
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"{source}, line {number}: a token's name must be one word")
        if len(secret) < MIN_TOKEN_LENGTH or any(c.isspace() for c in secret):
            raise ValueError(f"{source}, line {number}: a token must be at least "
                             f"{MIN_TOKEN_LENGTH} characters without spaces")
        digest = _digest(secret)
        if digest in seen:
            raise ValueError(f"{source}, line {number}: the same token appears twice")
        seen.add(digest)
        tokens.append(Token(name, digest))
    if not tokens:
        raise ValueError(f"{source} holds no token")
    return tuple(tokens)


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read the {what} {os.fspath(path)}: "
                         f"{exc.strerror or exc}") from None


def readable_by_others(path: str | os.PathLike[str]) -> bool:
    """Whether users other than the server's may read ``path``: anyone, or a group.

    One group is fine: the server's own, on a file someone else owns and shares with
    the server through it (Kubernetes mounts a Secret's files as root, readable by
    the pod's ``fsGroup``); the server's own files need no group.
    """
    try:
        info = os.stat(path)
    except OSError:  # pragma: no cover - it was just read
        return False
    shared_with_us = (hasattr(os, "geteuid") and info.st_uid != os.geteuid()
                      and info.st_gid in {os.getegid(), *os.getgroups()})
    return bool(info.st_mode & stat.S_IRWXO
                or (info.st_mode & stat.S_IRWXG and not shared_with_us))


def _warn_if_readable(path: str | os.PathLike[str]) -> None:
    if readable_by_others(path):
        log.warning("token file %s can be read by other users (chmod 600 it)",
                    os.fspath(path))


def read_token_file(path: str | os.PathLike[str], *, warn: bool = True
                    ) -> tuple[Token, ...]:
    """Tokens of a token file (warns, unless told not to, when others may read it)."""
    data = _read(path, "token file")
    if warn:
        _warn_if_readable(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"token file {os.fspath(path)} is not UTF-8 text") from None
    return parse_tokens(text, f"token file {os.fspath(path)}")


def read_token_env(name: str, environ: Any = None) -> tuple[Token, ...]:
    """Tokens of environment variable ``name`` (entries by line or comma)."""
    value = (os.environ if environ is None else environ).get(name)
    if not value:
        raise ValueError(f"environment variable {name} is not set or empty")
    return parse_tokens(value.replace(",", "\n"), f"environment variable {name}")


def _check_pem(cert: bytes, key: bytes | None, ca: bytes | None) -> None:
    """Fail early, in words, on PEM data gRPC would only reject at bind or handshake."""
    with tempfile.TemporaryDirectory() as tmp:
        cert_path = Path(tmp, "cert.pem")
        cert_path.write_bytes(cert)
        key_path = None
        if key is not None:
            key_path = Path(tmp, "key.pem")
            key_path.write_bytes(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(cert_path, key_path)
        except ssl.SSLError as exc:
            raise ValueError(f"the TLS certificate and key do not load as a pair: "
                             f"{exc.reason or exc}") from None
        if ca is not None:
            try:
                context.load_verify_locations(cadata=ca.decode("ascii", "replace"))
            except (ssl.SSLError, ValueError) as exc:
                raise ValueError(f"the client CA is not a PEM certificate: {exc}") from None


def _fingerprint(cert: bytes) -> str:
    """The SHA-256 of a PEM chain's first certificate, shortened (for logs)."""
    match = re.search(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", cert,
                      re.DOTALL)
    try:
        der = ssl.PEM_cert_to_DER_cert(match.group(0).decode("ascii")) if match else cert
    except ValueError:  # pragma: no cover - checked by _check_pem first
        der = cert
    return "sha256:" + hashlib.sha256(der).hexdigest()[:16]


@dataclass(frozen=True)
class TlsMaterial:
    """What TLS serves at one time: a certificate chain, its key, the client CA."""

    cert: bytes = field(repr=False)
    key: bytes = field(repr=False)
    client_ca: bytes | None = field(default=None, repr=False)

    def certificate_configuration(self) -> Any:
        """gRPC's form of it (:func:`grpc.ssl_server_certificate_configuration`)."""
        return grpc.ssl_server_certificate_configuration(
            [(self.key, self.cert)], root_certificates=self.client_ca)

    def ssl_context(self) -> ssl.SSLContext:
        """An HTTP server's TLS context: TLS 1.2 or later; client certificates signed by
        the client CA required when there is one."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        with tempfile.TemporaryDirectory() as tmp:  # ssl loads a chain from files only
            cert_path, key_path = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
            cert_path.write_bytes(self.cert)
            key_path.touch(mode=0o600)
            key_path.write_bytes(self.key)
            context.load_cert_chain(cert_path, key_path)
        if self.client_ca is not None:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(cadata=self.client_ca.decode("ascii", "replace"))
        context.set_alpn_protocols(["http/1.1"])
        return context


@dataclass(frozen=True)
class CredentialFiles:
    """Where a :class:`SecurityConfig`'s credentials are read from, to read them again."""

    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    token_file: str | None = None
    #: Tokens from elsewhere (an environment variable: read once), kept on reloads.
    other_tokens: tuple[Token, ...] = field(default=(), repr=False)

    def __bool__(self) -> bool:
        return bool(self.tls_cert or self.token_file)

    def describe(self) -> str:
        """What is read again: ``TLS certificate, key and token file``."""
        parts = ["TLS certificate", "key"] if self.tls_cert else []
        parts += ["client CA"] if self.tls_client_ca else []
        parts += ["token file"] if self.token_file else []
        return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else \
            "".join(parts) or "nothing"


class LiveCredentials:
    """The credentials served now, which :meth:`reload` may replace while serving.

    Each door reads them when a connection or call starts: gRPC's certificate
    fetcher (:meth:`SecurityConfig.server_credentials`), the HTTP door's TLS
    context (:meth:`SecurityConfig.ssl_context`), and the one
    :class:`TokenInterceptor` both doors share.  Replacing is one assignment each,
    so a handshake or call sees the old material or the new, never a mix.
    """

    def __init__(self, tls: TlsMaterial | None, tokens: tuple[Token, ...]) -> None:
        self.tls = tls
        self.tokens = tokens
        self.interceptor = TokenInterceptor(tokens) if tokens else None
        self._lock = threading.Lock()
        #: The last failure logged for each part, so that a poll says it once.
        self._failures: dict[str, str] = {}

    def reload(self, files: CredentialFiles, reason: str, announce: bool) -> bool:
        """Read ``files`` again and swap in what changed and loads; whether anything did.

        ``announce`` (a signal, a person asking) logs even when nothing changed and
        every failure; otherwise (a poll) only changes, and each failure once.
        """
        with self._lock:
            changes = []
            if files.tls_cert and files.tls_key and self.tls is not None:
                try:
                    change = self._reload_tls(files)
                except (ValueError, OSError) as exc:
                    self._fail("tls", f"{reason}: cannot reload the TLS certificate, key or "
                               f"client CA ({exc}); still serving the current ones", announce)
                else:
                    self._failures.pop("tls", None)
                    if change:
                        changes.append(change)
            if files.token_file and self.interceptor is not None:
                try:
                    change = self._reload_tokens(files)
                except (ValueError, OSError) as exc:
                    self._fail("tokens", f"{reason}: cannot reload the tokens ({exc}); the "
                               f"current ones stay in force", announce)
                else:
                    self._failures.pop("tokens", None)
                    if change:
                        changes.append(change)
            if changes:
                log.info("%s: reloaded %s", reason, "; ".join(changes))
            elif announce and not self._failures:
                log.info("%s: %s unchanged", reason, files.describe())
            return bool(changes)

    def _fail(self, part: str, message: str, announce: bool) -> None:
        if announce or self._failures.get(part) != message:
            log.error("%s", message)
        self._failures[part] = message

    def _reload_tls(self, files: CredentialFiles) -> str | None:
        assert files.tls_cert and files.tls_key and self.tls is not None
        cert = _read(files.tls_cert, "TLS certificate")
        key = _read(files.tls_key, "TLS key")
        ca = _read(files.tls_client_ca, "client CA") if files.tls_client_ca else None
        fresh = TlsMaterial(cert, key, ca)
        if fresh == self.tls:
            return None
        _check_pem(cert, key, ca)
        old, self.tls = self.tls, fresh
        said = []
        if (cert, key) != (old.cert, old.key):
            said.append(f"the TLS certificate and key ({_fingerprint(old.cert)} -> "
                        f"{_fingerprint(cert)})")
        if ca != old.client_ca:
            said.append("the client CA")
        return " and ".join(said)

    def _reload_tokens(self, files: CredentialFiles) -> str | None:
        assert files.token_file and self.interceptor is not None
        tokens = read_token_file(files.token_file, warn=False) + files.other_tokens
        if tokens == self.tokens:
            return None
        _warn_if_readable(files.token_file)
        old, self.tokens = self.tokens, tokens
        self.interceptor.replace(tokens)
        return (f"{len(tokens)} token{'s' if len(tokens) != 1 else ''} "
                f"(were {len(old)}) from {files.token_file}")


@dataclass(frozen=True)
class SecurityConfig:
    """How the server is reached: TLS material, tokens, reflection (all off: loopback use).

    Build it with :meth:`from_files` (paths, as the command line gives them: then
    :meth:`reload` reads them again) or directly with PEM bytes and
    :func:`parse_tokens` results.  The fields are what was read at the start; what is
    served now is :attr:`live`.
    """

    #: PEM certificate chain and private key of the server (both or neither).
    tls_cert: bytes | None = field(default=None, repr=False)
    tls_key: bytes | None = field(default=None, repr=False)
    #: PEM CA certificates: with it, clients must present a certificate it signed.
    client_ca: bytes | None = field(default=None, repr=False)
    #: Accepted bearer tokens; empty: no token needed.
    tokens: tuple[Token, ...] = ()
    #: Serve gRPC server reflection.
    reflection: bool = True
    #: Origins whose pages may call the HTTP door from a browser (CORS); ``("*",)``: any.
    cors_origins: tuple[str, ...] = ()
    #: Where the credentials came from (:meth:`from_files`), for :meth:`reload`.
    files: CredentialFiles = field(default_factory=CredentialFiles, compare=False)
    #: The credentials served now (:class:`LiveCredentials`).
    live: LiveCredentials = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for origin in self.cors_origins:
            check_origin(origin)
        if "*" in self.cors_origins and len(self.cors_origins) > 1:
            raise ValueError("CORS origin '*' (any origin) goes alone")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and its key")
        if self.client_ca is not None and self.tls_cert is None:
            raise ValueError("a client CA (mutual TLS) needs TLS: give a certificate and key")
        tls = None
        if self.tls_cert is not None and self.tls_key is not None:
            tls = TlsMaterial(self.tls_cert, self.tls_key, self.client_ca)
        object.__setattr__(self, "live", LiveCredentials(tls, self.tokens))

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    @property
    def mutual_tls(self) -> bool:
        return self.client_ca is not None

    @property
    def authenticated(self) -> bool:
        """Whether callers must prove who they are (tokens or client certificates)."""
        return bool(self.tokens) or self.mutual_tls

    @classmethod
    def from_files(cls, *, tls_cert: str | None = None, tls_key: str | None = None,
                   tls_client_ca: str | None = None, token_file: str | None = None,
                   token_env: str | None = None, reflection: bool = True,
                   cors_origins: Sequence[str] = ()) -> SecurityConfig:
        """Read and check the files (ValueError, in words, on any problem)."""
        if (tls_cert is None) != (tls_key is None):
            raise ValueError("--tls-cert and --tls-key go together")
        if tls_client_ca is not None and tls_cert is None:
            raise ValueError("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key")
        cert = _read(tls_cert, "TLS certificate") if tls_cert else None
        key = _read(tls_key, "TLS key") if tls_key else None
        ca = _read(tls_client_ca, "client CA") if tls_client_ca else None
        if cert is not None:
            _check_pem(cert, key, ca)
        tokens: tuple[Token, ...] = ()
        if token_file:
            tokens += read_token_file(token_file)
        env_tokens = read_token_env(token_env) if token_env else ()
        files = CredentialFiles(tls_cert=tls_cert or None, tls_key=tls_key or None,
                                tls_client_ca=tls_client_ca or None,
                                token_file=token_file or None, other_tokens=env_tokens)
        return cls(tls_cert=cert, tls_key=key, client_ca=ca, tokens=tokens + env_tokens,
                   reflection=reflection, cors_origins=tuple(cors_origins), files=files)

    def reload(self, reason: str = "reload", announce: bool = True) -> bool:
        """Read the certificate, key, client CA and token files again; whether anything
        new is served now (logged: what changed, or why it could not load).

        Only files :meth:`from_files` read are read again (tokens from an environment
        variable stay), and TLS stays TLS: a renewal replaces material, it does not
        switch TLS, mutual TLS or tokens on or off.
        """
        return self.live.reload(self.files, reason, announce)

    def describe(self) -> str:
        """One line for the log (never secrets)."""
        parts = ["mutual TLS" if self.mutual_tls else "TLS" if self.tls else "plaintext"]
        parts.append(f"{len(self.tokens)} token(s)" if self.tokens else "no tokens")
        parts.append("reflection on" if self.reflection else "reflection off")
        if self.cors_origins:
            parts.append("CORS: any origin" if self.cors_origins == ("*",)
                         else f"CORS: {len(self.cors_origins)} origin"
                              f"{'s' if len(self.cors_origins) > 1 else ''}")
        return ", ".join(parts)

    def server_credentials(self) -> grpc.ServerCredentials | None:
        """gRPC's TLS credentials; each new handshake takes what :attr:`live` holds then."""
        live, first = self.live, self.live.tls
        if first is None:
            return None
        served = [first]

        def fetch() -> Any:  # called by gRPC core at the start of every handshake
            try:
                current = live.tls
                if current is None or current is served[0]:
                    return None  # no change
                served[0] = current
                return current.certificate_configuration()
            except Exception:  # noqa: BLE001 - a handshake must never see it
                log.exception("cannot hand the renewed certificate to gRPC")
                return None

        return grpc.dynamic_ssl_server_credentials(
            first.certificate_configuration(), fetch,
            require_client_authentication=first.client_ca is not None)

    def add_port(self, server: grpc.aio.Server, address: str) -> int:
        """Bind ``address`` (TLS or plaintext); the port, 0 when gRPC could not bind."""
        credentials = self.server_credentials()
        if credentials is None:
            return server.add_insecure_port(address)
        return server.add_secure_port(address, credentials)

    def token_interceptor(self) -> TokenInterceptor | None:
        """The token check both doors share (it follows reloads); None without tokens."""
        return self.live.interceptor

    def interceptors(self) -> list[grpc.aio.ServerInterceptor]:
        interceptor = self.token_interceptor()
        return [interceptor] if interceptor is not None else []

    def ssl_context(self) -> ssl.SSLContext | None:
        """The same TLS (and mutual TLS) for an HTTP server; None without TLS.

        It follows :attr:`live`: a handshake after a reload is switched (at the
        ClientHello, with or without SNI) to a context of the new material.
        """
        live, first = self.live, self.live.tls
        if first is None:
            return None
        context = first.ssl_context()
        served: list[Any] = [first, context]

        def follow(connection: Any, _server_name: str | None, _context: Any) -> None:
            try:
                current = live.tls
                if current is not None and current is not served[0]:
                    served[:] = [current, current.ssl_context()]
                if served[1] is not context:
                    connection.context = served[1]
            except Exception:  # noqa: BLE001 - keep the handshake on what it has
                log.exception("cannot serve the renewed certificate over HTTP")

        context.sni_callback = follow
        return context


# -- CORS ------------------------------------------------------------------------------
_ORIGIN = re.compile(r"https?://(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
                     r"(?::[0-9]{1,5})?")


def check_origin(origin: str) -> None:
    """Raise ``ValueError`` unless ``origin`` is ``*`` or a web origin as a browser sends it
    in ``Origin``: ``http(s)://host[:port]``, no path, not even a final ``/``."""
    if origin != "*" and not (isinstance(origin, str) and _ORIGIN.fullmatch(origin)):
        raise ValueError(f"CORS origin {origin!r} is not an origin: give scheme, host and "
                         f"port as a browser sends them (https://play.example.org, "
                         f"http://localhost:3000) or '*' alone for any origin")


# -- exposure --------------------------------------------------------------------------
def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # another host name: assume it is reachable from outside


#: What a refusal to serve an open address offers (every way out).
AUTHENTICATION_FIXES = (
    "give callers tokens (--token-file or --token-env) or client certificates (mutual "
    "TLS: --tls-client-ca with --tls-cert/--tls-key), or say --allow-unauthenticated if "
    "the server is meant to be open to anyone (e.g. behind a proxy that authenticates "
    "callers)")


def check_exposure(host: str, security: SecurityConfig, insecure: bool = False,
                   allow_unauthenticated: bool = False) -> list[str]:
    """Refuse (ValueError) to serve a non-loopback ``host`` to callers who do not prove
    who they are (tokens or client certificates), unless ``allow_unauthenticated``
    (``insecure`` is its former name).  TLS alone is not enough: it encrypts, and
    lets anyone in.

    Returns warnings worth printing.
    """
    if is_loopback(host):
        return []
    if not security.authenticated:
        if not (allow_unauthenticated or insecure):
            hint = (" (TLS alone encrypts the calls; it does not say who makes them)"
                    if security.tls else "")
            raise ValueError(
                f"refusing to listen on {host} without authenticating callers: anyone who "
                f"can reach it could use the server{hint}. To fix it, {AUTHENTICATION_FIXES}")
        flag = "--allow-unauthenticated" if allow_unauthenticated else "--insecure"
        where = "" if security.tls else ", in plaintext"
        return [f"listening on {host} without authenticating callers{where} ({flag}): "
                "anyone who can reach it can use the server"]
    if security.tokens and not security.tls:
        return [f"listening on {host} with tokens but without TLS: tokens travel in clear "
                "text unless a TLS proxy is in front"]
    return []


# -- the token interceptor ---------------------------------------------------------------
def _bearer(metadata: Sequence[tuple[str, Any]] | None) -> str | None:
    for key, value in metadata or ():
        if key.lower() == "authorization":
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            scheme, _, credential = str(value).strip().partition(" ")
            if scheme.lower() == "bearer" and credential.strip():
                return credential.strip()
            return None
    return None


def _replace_behavior(handler: grpc.RpcMethodHandler, behavior: Callable[..., Any]
                      ) -> grpc.RpcMethodHandler:
    """A handler of ``handler``'s kind and serializers that runs ``behavior``."""
    kinds = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }
    make = kinds[(bool(handler.request_streaming), bool(handler.response_streaming))]
    return make(behavior, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)


class TokenInterceptor(grpc.aio.ServerInterceptor):
    """Bearer-token authentication of every method outside :data:`OPEN_METHODS`."""

    #: Seconds between two log lines about refused calls.
    LOG_INTERVAL = 60.0

    def __init__(self, tokens: Sequence[Token],
                 open_methods: frozenset[str] = OPEN_METHODS) -> None:
        if not tokens:
            raise ValueError("a TokenInterceptor needs at least one token")
        self._tokens = tuple(tokens)
        self._open = open_methods
        self._refused = 0
        self._last_log = -self.LOG_INTERVAL

    def replace(self, tokens: Sequence[Token]) -> None:
        """Accept ``tokens`` from now on, instead of the current ones (calls that passed
        the check go on)."""
        if not tokens:
            raise ValueError("a TokenInterceptor needs at least one token")
        self._tokens = tuple(tokens)  # one assignment: a check sees one set or the other

    def identify(self, metadata: Sequence[tuple[str, Any]] | None) -> str | None:
        """The name of the token ``metadata`` carries, or None (constant time per token)."""
        presented = _bearer(metadata)
        digest = _digest(presented if presented is not None else "")
        name = None
        for token in self._tokens:  # every token is compared: no early exit
            if hmac.compare_digest(digest, token.digest) and presented is not None:
                name = token.name
        return name

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails],
                                     Awaitable[grpc.RpcMethodHandler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method
        handler = await continuation(handler_call_details)
        if method in self._open:
            return handler
        name = self.identify(handler_call_details.invocation_metadata)
        if name is None:
            # Refused whether or not the method exists: no hint to an unknown caller.
            streaming = handler is not None and bool(handler.request_streaming)
            refusal = self._refuse(method, streaming)
            if handler is None:
                return grpc.unary_unary_rpc_method_handler(refusal)
            return _replace_behavior(handler, refusal)
        # The interceptor's context is the handler's (grpc.aio.ServerInterceptor).
        CLIENT.set(name)
        return handler

    def _note(self, method: str, peer: str) -> None:
        self._refused += 1
        now = time.monotonic()
        if now - self._last_log >= self.LOG_INTERVAL:
            log.warning("refused %d call(s) without a valid token (latest: %s from %s)",
                        self._refused, method, peer)
            self._refused = 0
            self._last_log = now

    def _refuse(self, method: str, streaming_request: bool) -> Callable[..., Any]:
        status = errors.to_grpc_status(errors.RequestError(
            grpc.StatusCode.UNAUTHENTICATED, REFUSED_MESSAGE, reason=UNAUTHENTICATED))

        async def refuse(request: Any, context: grpc.aio.ServicerContext) -> Any:
            self._note(method, context.peer())
            await errors.abort_call(context, status)

        if not streaming_request:
            return refuse

        async def refuse_stream(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            await refuse(None, context)

        return refuse_stream


# -- command line ------------------------------------------------------------------------
def add_arguments(parser: Any) -> None:
    """``furnace serve``'s hosting flags (an ``argparse`` parser)."""
    group = parser.add_argument_group(
        "hosting", "TLS, tokens and reflection (all off by default; a non-loopback --host "
        "needs tokens or client certificates, or --allow-unauthenticated)")
    group.add_argument("--tls-cert", metavar="PEM",
                       help="serve TLS with this certificate chain (needs --tls-key)")
    group.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    group.add_argument("--tls-client-ca", metavar="PEM",
                       help="mutual TLS: require client certificates signed by this CA")
    group.add_argument("--token-file", metavar="FILE",
                       help="require a bearer token: one 'name:token' or bare token per line")
    group.add_argument("--token-env", metavar="NAME",
                       help="require a bearer token: tokens in environment variable NAME")
    group.add_argument("--no-reflection", action="store_true",
                       help="do not serve gRPC server reflection")
    group.add_argument("--allow-unauthenticated", action="store_true",
                       help="serve a non-loopback --host to any caller, without tokens or "
                       "client certificates (an open server, or one behind a proxy that "
                       "authenticates callers)")
    group.add_argument("--insecure", action="store_true",
                       help="former name of --allow-unauthenticated")
    group.add_argument("--reload-interval", type=float, default=DEFAULT_RELOAD_INTERVAL,
                       metavar="SECONDS",
                       help="read the certificate, key, client CA and token files again "
                       "when they changed, looking this often (default %(default)g; 0: "
                       "only on SIGHUP)")
    group.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="let pages of ORIGIN (https://play.example.org; '*': any) call "
                            "the HTTP door from a browser; repeat for more origins")


def config_from_args(args: Any) -> tuple[SecurityConfig, list[str]]:
    """The :class:`SecurityConfig` of parsed ``serve`` arguments, and warnings to show.

    ValueError when invalid, or for a non-loopback ``--host`` whose callers need not
    authenticate, without ``--allow-unauthenticated`` (:func:`check_exposure`).
    """
    security = SecurityConfig.from_files(
        tls_cert=args.tls_cert, tls_key=args.tls_key, tls_client_ca=args.tls_client_ca,
        token_file=args.token_file, token_env=args.token_env,
        reflection=not args.no_reflection, cors_origins=args.cors_origin)
    if security.cors_origins and getattr(args, "http_port", None) is None:
        raise ValueError("--cors-origin needs --http-port: CORS is for the HTTP door")
    interval = getattr(args, "reload_interval", DEFAULT_RELOAD_INTERVAL)
    if not interval >= 0:
        raise ValueError(f"--reload-interval must be 0 or more seconds, not {interval}")
    warnings = check_exposure(args.host, security, args.insecure,
                              getattr(args, "allow_unauthenticated", False))
    metrics_host = getattr(args, "metrics_host", None)
    if getattr(args, "metrics_port", None) is not None and metrics_host and \
            not is_loopback(metrics_host):
        warnings.append(f"serving metrics on {metrics_host} (--metrics-host): they are "
                        "not authenticated, keep that address on an internal network")
    return security, warnings
