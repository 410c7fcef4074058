"""A key a server echoes back in its 401 body never leaves the process: not with --debug, not in any file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.harness import Cli, CliResult
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain
from tests.fakeservers.server import FakeProviderServer

SENTINEL = "sk-SENTINEL-q7Zr2Lx9Vb4Np1Kc"
RIGHT_KEY = "sk-the-right-key-0000"
PROVIDERS = {
    "anthropic": (FakeAnthropicServer, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": (FakeOpenAIServer, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": (FakeGeminiServer, "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
}


@contextmanager
def rejecting_server(flavour: str) -> Iterator[tuple[str, FakeProviderServer]]:
    """A fake server of the provider that rejects the sentinel key and echoes it in its error body."""
    name = flavour.removesuffix("-401")
    server_class, _, _ = PROVIDERS[name]
    server = server_class(ScriptedBrain(["never sent"] * 4), api_key=RIGHT_KEY)
    if flavour == "gemini-401":  # Gemini answers a bad key with 400 API_KEY_INVALID or, behind some fronts, 401
        assert isinstance(server, FakeGeminiServer)
        server.auth_status = 401
    with server:
        yield name, server


def _texts_under(folder: Path) -> Iterator[tuple[Path, bytes]]:
    for path in folder.rglob("*"):
        if path.is_file():
            yield path, path.read_bytes()


def _assert_clean(results: list[CliResult], home: Path) -> None:
    for result in results:
        assert SENTINEL not in result.out, result.out
        assert SENTINEL not in result.err, result.err
    for path, content in _texts_under(home):  # the database, its WAL, backups and any log file
        assert SENTINEL.encode() not in content, f"the key was written to {path}"


@pytest.mark.parametrize(("flavour", "source"), [
    ("anthropic", "keychain"), ("openai", "environment"), ("gemini", "environment"), ("gemini-401", "keychain")])
def test_a_rejected_key_echoed_by_the_server_is_nowhere_in_output_tracebacks_or_files(
    tmp_path: Path, flavour: str, source: str
) -> None:
    with rejecting_server(flavour) as (name, server):
        _check_no_leak(tmp_path, name, server, source)


def _check_no_leak(tmp_path: Path, name: str, server: FakeProviderServer, source: str) -> None:
    _, key_var, url_var = PROVIDERS[name]
    (tmp_path / "keychain").mkdir()
    env = {url_var: server.base_url, "NO_PROXY": "127.0.0.1,localhost"}
    if source == "environment":
        env[key_var] = SENTINEL
    cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)
    results = []
    if source == "keychain":
        stored = cli.run("keys", "set", name, stdin=SENTINEL + "\n")
        assert stored.code == 0, stored.err
        results.append(stored)
    refresh = cli.run("--debug", "models", "list", "-p", name, "--refresh")
    assert refresh.code == 1 and "rejected the API key" in refresh.err
    assert "Traceback" in refresh.err and "[redacted]" in refresh.err  # the echoed key was there, and removed
    chat = cli.run("--debug", "chat", "-p", name, "hello")
    assert chat.code == 1 and "rejected the API key" in chat.err
    jsonl = cli.run("--debug", "chat", "-p", name, "--jsonl", "hello again")
    assert jsonl.code == 1 and '"kind":"authentication"' in jsonl.out
    results += [refresh, chat, jsonl]
    results += [cli.run("--debug", "keys", "status"), cli.run("--debug", "providers", "list")]
    results += [cli.run("--debug", "sessions", "list", "--json")]
    assert len(server.log) >= 3 and all(r.code in (0, 1) for r in results)
    _assert_clean(results, cli.home)
