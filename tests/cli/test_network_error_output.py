"""`palimpsest chat` names why the provider could not be reached and the URL it tried: a refused port, an
unresolvable host, a stream the server cut after part of the reply was printed (through the real SDKs)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.cli.harness import Cli, CliResult
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain

KEY = "sk-network-test-key-7"
FLAVOURS = {
    "anthropic": (FakeAnthropicServer, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": (FakeOpenAIServer, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": (FakeGeminiServer, "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def chat(tmp_path: Path, provider: str, base_url: str) -> CliResult:
    _server, key_var, url_var = FLAVOURS[provider]
    (tmp_path / "keychain").mkdir(exist_ok=True)
    cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", {key_var: KEY, url_var: base_url})
    return cli.run("chat", "-p", provider, "hello")


def error_line(result: CliResult) -> str:
    lines = result.err_lines
    assert result.code == 1 and len(lines) == 2 and lines[0].startswith("session: "), result.err
    return lines[1]


@pytest.mark.parametrize("provider", sorted(FLAVOURS))
def test_a_refused_port_is_named_as_refused_with_its_url(tmp_path: Path, provider: str) -> None:
    port = closed_port()
    line = error_line(chat(tmp_path, provider, f"http://127.0.0.1:{port}"))
    assert line.startswith(f"palimpsest: Could not connect to http://127.0.0.1:{port}")
    assert "refused" in line and "timed out" not in line and KEY not in line


@pytest.mark.parametrize("provider", sorted(FLAVOURS))
def test_an_unresolvable_host_is_named(tmp_path: Path, provider: str) -> None:
    line = error_line(chat(tmp_path, provider, "http://palimpsest-test.invalid:8080"))
    assert "palimpsest-test.invalid" in line and "does not resolve" in line and "timed out" not in line


@pytest.mark.parametrize("provider", sorted(FLAVOURS))
def test_a_stream_cut_by_the_server_is_named_as_cut_not_as_unreachable(tmp_path: Path, provider: str) -> None:
    server_class = FLAVOURS[provider][0]
    brain = ScriptedBrain([ErrorReply("cut_off", chunks_before=("The first half, ",))])
    with server_class(brain, api_key=KEY) as server:
        result = chat(tmp_path, provider, server.base_url)
        address = server.base_url.split("//", 1)[1].split("/", 1)[0]
    assert result.out == "The first half, \n"
    line = error_line(result)
    assert line.startswith("palimpsest: The reply was cut off:") and address in line
    assert "closed the connection" in line and "kept" in line and "Could not reach" not in line


def test_a_local_server_that_is_not_running_is_named_as_refused(tmp_path: Path) -> None:
    port = closed_port()
    (tmp_path / "keychain").mkdir()
    cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
    added = cli.run("providers", "add", "Local", "--type", "openai_compatible", "--base-url",
                    f"http://127.0.0.1:{port}/v1")
    assert added.code == 0, added.err
    result = cli.run("chat", "-p", "Local", "-m", "llama3", "hello")
    line = result.err.splitlines()[-1]  # after the note that llama3 is not among its listed models
    assert result.code == 1
    assert line.startswith(f"palimpsest: Could not connect to http://127.0.0.1:{port}/v1/chat/completions")
    assert "refused" in line and "timed out" not in line
