"""Fixtures: the server tests' live server and stubs (tests/ai_server/conftest.py), which
the request fuzzer sends its cases to."""

from tests.ai_server.conftest import channel, server, stub

__all__ = ["channel", "server", "stub"]
