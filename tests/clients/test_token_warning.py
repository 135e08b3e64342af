"""The client says so, once, when it would send a token in plaintext to another machine."""

from __future__ import annotations

import warnings

from clients import furnace_client
from clients.furnace_client import InsecureTokenWarning, open_channel

TOKEN = "tok-0123456789abcdef0123456789"


def _warnings(address: object, **kwargs: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        open_channel(address, token=kwargs.pop("token", TOKEN), **kwargs).close()  # type: ignore[arg-type]
    return [str(w.message) for w in caught if issubclass(w.category, InsecureTokenWarning)]


def test_a_plaintext_token_to_another_host_is_warned_once_per_address() -> None:
    first = _warnings("192.0.2.10:50051")
    assert len(first) == 1
    assert "192.0.2.10:50051" in first[0] and "plaintext" in first[0]
    assert TOKEN not in first[0]
    assert _warnings("192.0.2.10:50051") == []  # once per process and address
    assert len(_warnings("dns:///furnace.games.svc.cluster.local:50051")) == 1
    assert len(_warnings(["192.0.2.11:50051", "192.0.2.12:50051"])) == 1
    # TLS, loopback, a local socket, or no token: nothing to say.
    assert _warnings("192.0.2.13:50051", tls=True) == []
    assert _warnings("192.0.2.14:50051", token=None) == []
    for local in ("localhost:50051", "127.0.0.1:50051", "[::1]:50051", "ipv4:127.0.0.1:1",
                  "unix:/tmp/furnace.sock", ["127.0.0.1:1", "127.0.0.2:1"]):
        assert _warnings(local) == [], local
    assert "192.0.2.10:50051" in furnace_client._TOKEN_WARNED
