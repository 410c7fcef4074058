"""A provider error in the middle of a streamed reply prints the message and nothing after it (no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.harness import Cli
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain

KEY = "sk-midstream-test-key-1"
FLAVOURS = {
    "anthropic": (FakeAnthropicServer, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": (FakeOpenAIServer, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": (FakeGeminiServer, "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
}


@pytest.mark.parametrize("provider", sorted(FLAVOURS))
def test_an_error_mid_stream_prints_only_the_message(tmp_path: Path, provider: str) -> None:
    server_class, key_var, url_var = FLAVOURS[provider]
    with server_class(ScriptedBrain([ErrorReply("midstream_error")]), api_key=KEY) as server:
        (tmp_path / "keychain").mkdir()
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", {key_var: KEY, url_var: server.base_url})
        result = cli.run("chat", "-p", provider, "hello")
    assert result.code == 1 and result.out == "partial \n"
    lines = result.err_lines
    assert len(lines) == 2, result.err  # `session: ID`, then the one error line: no traceback, no asyncio noise
    assert lines[0].startswith("session: ")
    assert lines[1].startswith("palimpsest: The provider is unavailable or overloaded right now")
