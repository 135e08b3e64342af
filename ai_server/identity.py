"""Who is calling: the identity per-client quotas count searches against.

With token authentication (:mod:`ai_server.security`) a client is its token's
name, which the authentication interceptor publishes for the call in the
``contextvars.ContextVar`` ``ai_server.security.CLIENT``.  Without it (or when the
value is not set), a client is its peer address without the port, grouped into
its network (:class:`AddressGrouping`): by default an IPv4 address is one client
and an IPv6 /64 is one (a host or a site usually holds a whole /64, so counting
its addresses apart would let one machine be thousands of clients).  Everything
behind one proxy or NAT is one client.

>>> peer_host("ipv4:10.1.2.3:52114")
'ipv4:10.1.2.3'
>>> peer_host("ipv6:[::1]:52114")
'ipv6:[::1]'
>>> peer_host("unix:/run/furnace.sock")
'unix:/run/furnace.sock'
>>> AddressGrouping().group("ipv6:[2001:db8:0:7:a::1]")
'ipv6:[2001:db8:0:7::]/64'
>>> AddressGrouping(ipv4_prefix=24).group("ipv4:10.1.2.3")
'ipv4:10.1.2.0/24'
"""

from __future__ import annotations

import importlib
import ipaddress
import logging
from dataclasses import dataclass
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


@dataclass(frozen=True)
class AddressGrouping:
    """How many leading bits of a client's address name it (the server's
    ``client_ipv4_prefix`` and ``client_ipv6_prefix``)."""

    ipv4_prefix: int = 32
    ipv6_prefix: int = 64

    def group(self, host: str) -> str:
        """``host`` (:func:`peer_host`'s form) as its network; other peers unchanged."""
        kind, _, address = host.partition(":")
        if kind not in ("ipv4", "ipv6"):
            return host
        try:
            ip = ipaddress.ip_address(address.strip("[]").partition("%")[0])
        except ValueError:
            return host
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # an IPv4 client on a dual-stack socket
        if isinstance(ip, ipaddress.IPv4Address):
            if self.ipv4_prefix >= 32:
                return f"ipv4:{ip}"
            net4 = ipaddress.IPv4Network((ip, self.ipv4_prefix), strict=False)
            return f"ipv4:{net4.network_address}/{self.ipv4_prefix}"
        if self.ipv6_prefix >= 128:
            return f"ipv6:[{ip}]"
        net6 = ipaddress.IPv6Network((ip, self.ipv6_prefix), strict=False)
        return f"ipv6:[{net6.network_address}]/{self.ipv6_prefix}"


#: The grouping the server uses unless configured otherwise.
DEFAULT_GROUPING = AddressGrouping()


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


def client_identity(context: Any, grouping: AddressGrouping = DEFAULT_GROUPING) -> str:
    """The client a call counts against: ``token:NAME`` when authenticated, else its
    host's network by ``grouping``."""
    var = _security_client_var()
    if var is not None:
        name = var.get(None)
        if name:
            return f"token:{name}"
    try:
        peer = context.peer()
    except Exception:  # noqa: BLE001 - no peer known: one shared "unknown" client
        return "unknown"
    return grouping.group(peer_host(peer)) if isinstance(peer, str) and peer else "unknown"
