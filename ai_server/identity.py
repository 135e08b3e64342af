"""Who is calling: the identity per-client quotas count searches against.

With token authentication (:mod:`ai_server.security`) a client is its token's
name, which the authentication interceptor publishes for the call in the
``contextvars.ContextVar`` ``ai_server.security.CLIENT``.  Without it (or when the
value is not set), a client is its peer address without the port: every
connection from one host is one client (so is everything behind one proxy or NAT).

>>> peer_host("ipv4:10.1.2.3:52114")
'ipv4:10.1.2.3'
>>> peer_host("ipv6:[::1]:52114")
'ipv6:[::1]'
>>> peer_host("unix:/run/furnace.sock")
'unix:/run/furnace.sock'
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

log = logging.getLogger(__name__)

_UNSET = object()
#: ``ai_server.security.CLIENT`` once looked up (None: there is no such variable).
_client_var: Any = _UNSET


def peer_host(peer: str) -> str:
    """A gRPC peer string (``ipv4:ADDR:PORT``, ``ipv6:[ADDR]:PORT``, ``unix:PATH``) sans port."""
    kind, sep, rest = peer.partition(":")
    if not sep:
        return peer
    if kind in ("ipv4", "ipv6") and ":" in rest:
        host, _, port = rest.rpartition(":")
        if port.isdigit() and (kind == "ipv4" or host.endswith("]")):
            return f"{kind}:{host}"
    return peer


def _security_client_var() -> Any:
    """The ContextVar ``ai_server.security.CLIENT``, imported on first use (None if absent)."""
    global _client_var
    if _client_var is _UNSET:
        try:
            security = importlib.import_module("ai_server.security")
        except ImportError as exc:
            if exc.name not in ("ai_server.security", None):
                log.warning("ai_server.security does not import (%s): clients are counted "
                            "by address", exc)
            _client_var = None
        else:
            _client_var = getattr(security, "CLIENT", None)
    return _client_var


def client_identity(context: Any) -> str:
    """The client a call counts against: ``token:NAME`` when authenticated, else its host."""
    var = _security_client_var()
    if var is not None:
        name = var.get(None)
        if name:
            return f"token:{name}"
    try:
        peer = context.peer()
    except Exception:  # noqa: BLE001 - no peer known: one shared "unknown" client
        return "unknown"
    return peer_host(peer) if isinstance(peer, str) and peer else "unknown"
