"""The set-up the MCP end-to-end tests share: a clean data directory driven through the real CLI, with a fake
Anthropic server (answering through a test's brain) as the model, and the brain's view of the latest user turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from tests.cli.harness import Cli, CliResult
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import NormalizedRequest, TextPart, ToolResultPart

B = TypeVar("B")


def last_turn(request: NormalizedRequest) -> tuple[str, list[ToolResultPart]]:
    """The text of the request's last user message with text, and the tool results that came after it."""
    flat = [(m.role, p) for m in request.messages for p in m.parts]
    for index in range(len(flat) - 1, -1, -1):
        role, part = flat[index]
        if role == "user" and isinstance(part, TextPart) and part.text.strip():
            return part.text, [p for _, p in flat[index + 1:] if isinstance(p, ToolResultPart)]
    return "", []


@dataclass
class Env(Generic[B]):
    """A clean data directory with a fake Anthropic model answering through `brain`; `chat_flags` go with every
    chat."""

    cli: Cli
    brain: B
    model: str
    chat_flags: tuple[str, ...] = ()

    def run(self, *args: str, stdin: str = "") -> CliResult:
        return self.cli.run(*args, stdin=stdin, subprocess_run=False)

    def chat(self, text: str, *flags: str) -> tuple[CliResult, list[dict[str, object]]]:
        result = self.run("chat", "--jsonl", "-p", "anthropic", "-m", self.model, *self.chat_flags, *flags, text)
        return result, [json.loads(line) for line in result.out.splitlines()]


@contextmanager
def cli_env(tmp_path: Path, brain: B, *, key: str, model: str, chat_flags: tuple[str, ...] = ()) -> Iterator[Env[B]]:
    """The data directory set up through the CLI: the Anthropic provider pointed at the fake, the model added with a
    200,000-token window, the key stored."""
    (tmp_path / "keychain").mkdir()
    with FakeAnthropicServer(brain, api_key=key) as server:
        env = Env(Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json"), brain, model, chat_flags)
        assert env.run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert env.run("models", "add", "anthropic", model, "--context-window", "200000").code == 0
        assert env.run("keys", "set", "anthropic", stdin=key + "\n").code == 0
        yield env
