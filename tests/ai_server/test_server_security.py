"""Hosting: TLS, mutual TLS, bearer tokens, open health, reflection off, the serve guard.

Certificates are made in the test by ``trustme`` (a throwaway CA): one for the
server (``localhost``), one for a client, and a client certificate of another,
untrusted CA.  Everything goes through the client library, the ``furnace
client`` command line and ``furnace play --server``.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
import trustme
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from ai_server import cli as server_cli
from ai_server import security
from ai_server.security import SecurityConfig
from ai_server.server import BackgroundServer
from clients import cli as client_cli
from clients.furnace_client import FurnaceClient
from tests.ai_server.helpers_furnace import rpc_error_info

ALICE = "alice-0123456789abcdef0123456789"
BOB = "bob-fedcba9876543210fedcba98765"
SETTINGS: dict[str, Any] = {"workers": 1, "max_queue": 2, "max_iterations": 2000,
                            "max_time": 2.0, "default_iterations": 20}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    folder = tmp_path_factory.mktemp("pki")
    ca, rogue = trustme.CA(), trustme.CA()
    server_cert = ca.issue_cert("localhost", "127.0.0.1")
    client_cert = ca.issue_cert("client.example.org")
    rogue_cert = rogue.issue_cert("client.example.org")
    paths = SimpleNamespace(dir=folder)
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    (folder / "server.pem").write_bytes(b"".join(b.bytes() for b in server_cert.cert_chain_pems))
    server_cert.private_key_pem.write_to_path(str(folder / "server.key"))
    for name, cert in (("client", client_cert), ("rogue", rogue_cert)):
        (folder / f"{name}.pem").write_bytes(b"".join(b.bytes() for b in cert.cert_chain_pems))
        cert.private_key_pem.write_to_path(str(folder / f"{name}.key"))
    (folder / "tokens.txt").write_text(f"# who may call\nalice:{ALICE}\n\nbob:{BOB}\n")
    (folder / "tokens.txt").chmod(0o600)
    for name in ("ca", "server", "client", "rogue"):
        setattr(paths, name, str(folder / f"{name}.pem"))
    paths.server_key = str(folder / "server.key")
    paths.client_key = str(folder / "client.key")
    paths.rogue_key = str(folder / "rogue.key")
    paths.tokens = str(folder / "tokens.txt")
    return paths


@pytest.fixture(scope="module")
def token_server(pki: SimpleNamespace) -> Iterator[BackgroundServer]:
    """TLS and tokens required."""
    hosting = SecurityConfig.from_files(tls_cert=pki.server, tls_key=pki.server_key,
                                        token_file=pki.tokens)
    with BackgroundServer(security=hosting, **SETTINGS) as srv:
        yield srv


@pytest.fixture(scope="module")
def mtls_server(pki: SimpleNamespace) -> Iterator[BackgroundServer]:
    """Mutual TLS (client certificates of the test CA), no tokens, reflection off."""
    hosting = SecurityConfig.from_files(tls_cert=pki.server, tls_key=pki.server_key,
                                        tls_client_ca=pki.ca, reflection=False)
    with BackgroundServer(security=hosting, **SETTINGS) as srv:
        yield srv


def address(server: BackgroundServer) -> str:
    return f"localhost:{server.port}"


def error_of(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


# -- TLS and tokens through the client library ---------------------------------------------
def test_tls_and_token_through_the_client_library(token_server, pki) -> None:
    with FurnaceClient(address(token_server), ca_cert=pki.ca, token=ALICE,
                       timeout=30) as client:
        assert {g.name for g in client.list_games().games} >= {"samara"}
        game = client.new_game("samara", 2, seed=1)
        assert client.best_move(game.state, iterations=10, seed=1).move.text
        updates = list(client.analyze(game.state, iterations=10, update_interval=0.05))
        assert updates[-1].final


def test_missing_or_wrong_token_is_unauthenticated(token_server, pki, caplog) -> None:
    answers = []
    with caplog.at_level(logging.DEBUG):
        for token in (None, "not-a-token-but-long-enough", ALICE + "x", ALICE[:-1]):
            with FurnaceClient(address(token_server), ca_cert=pki.ca, token=token,
                               timeout=30) as client:
                for call in (client.list_games,
                             lambda c=client: list(c.analyze(b"", iterations=1))):
                    error = error_of(call)
                    code, _fields, reason = rpc_error_info(error)
                    assert code == grpc.StatusCode.UNAUTHENTICATED, error.details()
                    assert reason == security.UNAUTHENTICATED
                    answers.append(error.details())
        # A scheme other than Bearer, sent by hand.
        channel = grpc.secure_channel(address(token_server), grpc.ssl_channel_credentials(
            Path(pki.ca).read_bytes()))
        try:
            stub = channel.unary_unary("/furnace.v1.FurnaceService/ListGames")
            error = error_of(lambda: stub(b"", metadata=[("authorization", f"Basic {ALICE}")],
                                          timeout=30))
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            answers.append(error.details())
        finally:
            channel.close()
    assert len(set(answers)) == 1  # the same words whatever was wrong
    assert ALICE not in caplog.text and ALICE[:-1] not in caplog.text


def test_health_answers_without_a_token(token_server, pki) -> None:
    with FurnaceClient(address(token_server), ca_cert=pki.ca, timeout=30) as client:
        assert client.health() == "SERVING"
        assert client.health("furnace.v1.FurnaceService") == "SERVING"


def test_the_token_name_is_published_for_the_call(token_server, pki, monkeypatch) -> None:
    from ai_server import service

    seen: list[str | None] = []
    identity = service.client_identity

    def spy(context: Any, *grouping: Any) -> str:
        seen.append(security.CLIENT.get())
        return identity(context, *grouping)

    monkeypatch.setattr(service, "client_identity", spy)
    for token in (ALICE, BOB):
        with FurnaceClient(address(token_server), ca_cert=pki.ca, token=token,
                           timeout=30) as client:
            client.new_game("samara", 2)
    assert seen == ["alice", "bob"]
    assert security.CLIENT.get() is None  # nothing leaks into other contexts


def test_plaintext_or_untrusted_connections_fail(token_server, pki) -> None:
    for kwargs in ({"token": ALICE}, {"tls": True, "token": ALICE}):
        with FurnaceClient(address(token_server), timeout=10, **kwargs) as client:
            assert error_of(client.list_games).code() == grpc.StatusCode.UNAVAILABLE


def test_reflection_needs_the_token_and_can_be_switched_off(token_server, mtls_server,
                                                           pki) -> None:
    for token, expected in ((None, grpc.StatusCode.UNAUTHENTICATED), (ALICE, None)):
        with FurnaceClient(address(token_server), ca_cert=pki.ca, token=token) as client:
            database = ProtoReflectionDescriptorDatabase(client.channel)
            if expected is None:
                assert "furnace.v1.FurnaceService" in database.get_services()
                continue
            with pytest.raises(grpc.RpcError) as info:
                database.get_services()
            assert info.value.code() == expected
    with FurnaceClient(address(mtls_server), ca_cert=pki.ca, client_cert=pki.client,
                       client_key=pki.client_key) as client:
        with pytest.raises(grpc.RpcError) as info:
            ProtoReflectionDescriptorDatabase(client.channel).get_services()
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_unknown_methods_are_refused_alike_without_a_token(token_server, pki) -> None:
    with FurnaceClient(address(token_server), ca_cert=pki.ca) as client:
        stub = client.channel.unary_unary("/furnace.v1.FurnaceService/NoSuchMethod")
        assert error_of(lambda: stub(b"", timeout=30)).code() == \
            grpc.StatusCode.UNAUTHENTICATED
    with FurnaceClient(address(token_server), ca_cert=pki.ca, token=ALICE) as client:
        stub = client.channel.unary_unary("/furnace.v1.FurnaceService/NoSuchMethod")
        assert error_of(lambda: stub(b"", timeout=30)).code() == \
            grpc.StatusCode.UNIMPLEMENTED


# -- mutual TLS ------------------------------------------------------------------------------
def test_mutual_tls_requires_a_trusted_client_certificate(mtls_server, pki) -> None:
    with FurnaceClient(address(mtls_server), ca_cert=pki.ca, client_cert=pki.client,
                       client_key=pki.client_key, timeout=30) as client:
        assert client.list_games().games
    for kwargs in ({}, {"client_cert": pki.rogue, "client_key": pki.rogue_key}):
        with FurnaceClient(address(mtls_server), ca_cert=pki.ca, timeout=10,
                           **kwargs) as client:
            assert error_of(client.list_games).code() == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(ValueError, match="needs its key"):
        FurnaceClient(address(mtls_server), client_cert=pki.client)


# -- the command lines -----------------------------------------------------------------------
def test_furnace_client_command_line(token_server, mtls_server, pki, capsys,
                                     monkeypatch) -> None:
    base = ["list-games", "--server", address(token_server), "--ca-cert", pki.ca]
    assert client_cli.main([*base, "--token", BOB]) == 0
    assert "samara" in capsys.readouterr().out
    monkeypatch.setenv(client_cli.TOKEN_ENV, ALICE)
    assert client_cli.main(base) == 0
    assert client_cli.main(["health", "--server", address(token_server), "--tls",
                            "--ca-cert", pki.ca]) == 0
    capsys.readouterr()
    monkeypatch.delenv(client_cli.TOKEN_ENV)
    assert client_cli.main(base) == 1
    err = capsys.readouterr().err
    assert "refused the credentials" in err and err.count("\n") == 1
    assert client_cli.main(["list-games", "--server", address(mtls_server),
                            "--ca-cert", pki.ca, "--client-cert", pki.client,
                            "--client-key", pki.client_key]) == 0
    capsys.readouterr()
    assert client_cli.main(["list-games", "--server", address(mtls_server),
                            "--ca-cert", pki.ca, "--timeout", "10"]) == 1
    assert "over TLS" in capsys.readouterr().err


def test_furnace_play_server_takes_the_connection_flags(token_server, pki, capsys,
                                                        monkeypatch) -> None:
    from furnace_cli import build_parser

    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    argv = ["play", "samara", "--server", address(token_server), "--ca-cert", pki.ca,
            "--iterations", "5"]
    monkeypatch.setenv(client_cli.TOKEN_ENV, ALICE)
    args = build_parser().parse_args(argv)
    assert args.func(args) == 0
    assert "you are P1" in capsys.readouterr().out
    monkeypatch.delenv(client_cli.TOKEN_ENV)
    args = build_parser().parse_args(argv)
    assert args.func(args) == 1
    assert "refused the credentials" in capsys.readouterr().out


def _serve(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    import argparse

    parser = argparse.ArgumentParser(prog="furnace")
    server_cli.add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", "--workers", "1", *argv])
    code = args.func(args)
    return code, capsys.readouterr().err


#: What a refusal to serve an open address must offer: tokens, client certificates (mutual
#: TLS) or the explicit flag of a server meant to be open.
FIXES = ("--token-file", "--token-env", "--tls-client-ca", "--allow-unauthenticated")


def _hosting(argv: list[str]) -> tuple[SecurityConfig, list[str]]:
    import argparse

    parser = argparse.ArgumentParser(prog="furnace")
    server_cli.add_commands(parser.add_subparsers(dest="command", required=True))
    return security.config_from_args(parser.parse_args(["serve", *argv]))


def test_serve_refuses_an_open_address_without_authentication(capsys, pki) -> None:
    """TLS alone is not authentication: anyone who reaches the port gets in (issue 22)."""
    tls = ["--tls-cert", pki.server, "--tls-key", pki.server_key]
    for host in ("0.0.0.0", "::", "192.0.2.7", "example.org"):
        code, err = _serve(["--host", host, "--port", "0"], capsys)
        assert code == 2, err
        assert "without authenticating callers" in err
        assert all(fix in err for fix in FIXES), err
        with pytest.raises(ValueError, match="without authenticating callers") as info:
            _hosting(["--host", host, *tls])
        assert "TLS alone" in str(info.value)
        assert all(fix in str(info.value) for fix in FIXES), info.value
    code, err = _serve(["--token-file", str(Path(pki.dir) / "missing.txt")], capsys)
    assert code == 2 and "cannot read the token file" in err
    code, err = _serve(["--tls-cert", pki.server], capsys)
    assert code == 2 and "--tls-key" in err
    code, err = _serve(["--tls-cert", pki.server, "--tls-key", pki.client_key], capsys)
    assert code == 2 and "do not load as a pair" in err


def test_an_open_address_is_served_with_tokens_client_certificates_or_the_flag(pki) -> None:
    tls = ["--tls-cert", pki.server, "--tls-key", pki.server_key]
    open_ = ["--host", "0.0.0.0"]
    assert _hosting([*open_, *tls, "--token-file", pki.tokens])[1] == []
    assert _hosting([*open_, *tls, "--tls-client-ca", pki.ca])[1] == []
    _, warnings = _hosting([*open_, "--token-file", pki.tokens])
    assert len(warnings) == 1 and "clear text" in warnings[0]
    # Meant to be open: said explicitly, and warned about.
    for flags, words in (([*tls, "--allow-unauthenticated"], "anyone who can reach it"),
                         (["--allow-unauthenticated"], "plaintext"),
                         (["--insecure"], "plaintext")):
        _, warnings = _hosting([*open_, *flags])
        assert len(warnings) == 1 and words in warnings[0], warnings
        assert "without authenticating callers" in warnings[0]
    # Loopback needs nothing.
    assert _hosting(["--host", "127.0.0.1"])[1] == []


def test_the_refusal_docs_api_md_shows_is_what_serve_prints(capsys, pki) -> None:
    """docs/api.md's ```console block: the command as written (its certificate files
    made here), and exactly the line it prints."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    block = re.search(r"^```console\n\$ (?P<command>[^\n]+)\n(?P<output>.*?)^```", doc,
                      re.MULTILINE | re.DOTALL)
    assert block is not None
    words = shlex.split(block.group("command"))
    assert words[:2] == ["furnace", "serve"]
    files = {"server.pem": pki.server, "server.key": pki.server_key}
    code, err = _serve([files.get(w, w) for w in words[2:]], capsys)
    assert code == 2
    assert err.strip() == block.group("output").strip()


def test_check_exposure() -> None:
    plain = SecurityConfig()
    tokens = SecurityConfig(tokens=security.parse_tokens(ALICE, "test"))
    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.8.9.10"):
        assert security.check_exposure(host, plain) == []
    with pytest.raises(ValueError, match="--allow-unauthenticated"):
        security.check_exposure("0.0.0.0", plain)
    assert security.check_exposure("0.0.0.0", plain, allow_unauthenticated=True)  # a warning
    assert security.check_exposure("0.0.0.0", plain, insecure=True)  # its former name
    assert "clear text" in security.check_exposure("0.0.0.0", tokens)[0]


def test_metrics_stay_on_loopback_unless_a_metrics_host_is_given(pki) -> None:
    """A public server no longer publishes its unauthenticated metrics on every interface."""
    hosting = SecurityConfig.from_files(tls_cert=pki.server, tls_key=pki.server_key,
                                        token_file=pki.tokens)
    with BackgroundServer(host="0.0.0.0", security=hosting, metrics_port=0,
                          **SETTINGS) as srv:
        assert srv.server is not None and srv.server.metrics is not None
        assert srv.server.metrics.host == "127.0.0.1"
    with BackgroundServer(host="127.0.0.1", metrics_port=0, metrics_host="0.0.0.0",
                          **SETTINGS) as srv:
        assert srv.server is not None and srv.server.metrics is not None
        assert srv.server.metrics.host == "0.0.0.0"
    tls = ["--tls-cert", pki.server, "--tls-key", pki.server_key, "--token-file", pki.tokens]
    assert _hosting(["--host", "0.0.0.0", *tls, "--metrics-port", "9090"])[1] == []
    _, warnings = _hosting(["--host", "0.0.0.0", *tls, "--metrics-port", "9090",
                            "--metrics-host", "0.0.0.0"])
    assert len(warnings) == 1 and "metrics" in warnings[0]


def test_token_files(tmp_path) -> None:
    tokens = security.parse_tokens(f"alice:{ALICE}\n  {BOB}  \n# comment\n", "t")
    assert [t.name for t in tokens] == ["alice", "token-2"]
    assert ALICE not in repr(tokens)
    for bad, words in ((f"alice:{ALICE}\nbob:{ALICE}", "twice"), ("short", "at least"),
                       ("", "no token"), (f"two words:{ALICE}", "one word")):
        with pytest.raises(ValueError, match=words):
            security.parse_tokens(bad, "t")
    interceptor = security.TokenInterceptor(tokens)
    assert interceptor.identify([("authorization", f"Bearer {ALICE}")]) == "alice"
    assert interceptor.identify([("authorization", f"bearer  {BOB}")]) == "token-2"
    for metadata in ([], [("authorization", ALICE)], [("authorization", "Bearer ")],
                     [("authorization", f"Bearer {ALICE}x")], None):
        assert interceptor.identify(metadata) is None
    env = {"FURNACE_TOKENS": f"alice:{ALICE},{BOB}"}
    assert [t.name for t in security.read_token_env("FURNACE_TOKENS", env)] == \
        ["alice", "token-2"]
    with pytest.raises(ValueError, match="not set"):
        security.read_token_env("NOPE", {})


def test_a_token_file_shared_with_the_servers_group_alone_is_not_warned(tmp_path,
                                                                        caplog) -> None:
    """Kubernetes mounts a Secret's files as root, readable by the pod's group: that
    is how the deployment reads its token file, and no reason for a warning."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    path = tmp_path / "tokens"
    path.write_text(f"alice:{ALICE}\n")
    others = next(gid for gid in range(54321, 60000) if gid not in os.getgroups())
    for owner, group, mode, warned in (
            (os.geteuid(), os.getegid(), 0o600, False),
            (os.geteuid(), os.getegid(), 0o640, True),   # our own file needs no group
            (12345, os.getegid(), 0o440, False),         # shared with us by its owner
            (12345, others, 0o440, True),                # with a group we are not in
            (12345, os.getegid(), 0o444, True)):         # with anyone
        os.chown(path, owner, group)
        path.chmod(mode)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ai_server.security"):
            security.read_token_file(path)
        assert ("can be read by other users" in caplog.text) == warned, (owner, group, mode)
