"""Continuing an imported ChatGPT conversation on each provider (its real SDK against the fake server) sends exactly
the visible conversation: the custom instructions as the system prompt, the questions and replies, the code
interpreter's call and output; never the hidden memory, the model's thoughts, or an invented reply between two
questions in a row (they go as one user turn)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from tests.cli.harness import Cli
from tests.fakeservers.brain import NormalizedRequest, Reply, ScriptedBrain, TextPart, ToolCallPart, ToolResultPart
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.trio import fake_provider_servers

KEY = "sk-continue-imported-4d1e"
FIXTURE = Path(__file__).parents[1] / "importers" / "fixtures" / "chatgpt" / "conversations.json"
SID = "chatgpt-6790c2a1-3f4e-8000-9d2b-1a2b3c4d5e6f"
NEVER_SENT = ("Möwe", "quick script", "Thought for", "Hidden in ChatGPT", "no reply was recorded", "[continue]",
              "user_editable_context", "content_type")


def _visible(request: NormalizedRequest) -> list[tuple[str, str]]:
    """The request's conversation as (role, what) pairs: text, tool calls by name and code, results by text."""
    out: list[tuple[str, str]] = []
    for message in request.messages:
        role = "user" if message.role == "tool" else message.role
        for part in message.parts:
            if isinstance(part, TextPart) and part.text.strip():
                out.append((role, part.text))
            elif isinstance(part, ToolCallPart):
                out.append((role, f"call {part.name}: {part.input.get('code')}"))
            elif isinstance(part, ToolResultPart):
                out.append((role, f"result: {part.text}"))
    merged: list[tuple[str, str]] = []  # one user turn's texts, whether a provider sends them as blocks or joined
    for role, what in out:
        texts = not what.startswith(("call ", "result: "))
        if merged and merged[-1][0] == role and texts and not merged[-1][1].startswith(("call ", "result: ")):
            merged[-1] = (role, f"{merged[-1][1]}\n\n{what}")
        else:
            merged.append((role, what))
    return merged


def _continued(cli: Cli, provider: str) -> None:
    imported = cli.run("import", "chatgpt", str(FIXTURE), subprocess_run=False)
    assert imported.code == 0, imported.err
    done = cli.run("chat", "-s", SID, "-p", provider, "How many masts?", subprocess_run=False)
    assert done.code == 0, done.err


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "openai-responses"])
def test_continuing_an_imported_conversation_sends_exactly_the_visible_conversation(tmp_path: Path,
                                                                                    provider: str) -> None:
    brain = ScriptedBrain(default=Reply.of_text("Two masts."))
    if provider == "openai-responses":
        with FakeResponsesServer(brain, api_key=KEY) as responses:
            cli = Cli(tmp_path / "home", tmp_path / "keys.json",
                      {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": responses.base_url})
            assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
            _continued(cli, "openai")
            requests = list(responses.requests)
    else:
        with fake_provider_servers(brain, api_key=KEY) as fakes:
            _continued(Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY)), provider)
            requests = list({"anthropic": fakes.anthropic, "openai": fakes.openai, "gemini": fakes.gemini}[
                provider].requests)
    turn = next(r for r in requests if r.stream and r.last_user_text.endswith("How many masts?"))
    assert "I live in Kiel and sail on weekends." in turn.system and "Use metric units." in turn.system
    sent = _visible(turn)
    question = sent[0]
    assert question[0] == "user" and question[1].startswith("[image: file-service://file-Harbour01]\nHow many boats")
    code = 'boats = ["sloop", "ketch", "dinghy"] * 2 + ["ferry"]\nprint(len(boats))'
    assert sent[1:] == [
        ("assistant", f"call python: {code}"), ("user", "result: 7"),
        ("assistant", "There are **7 boats** in the harbour."),
        ("user", "Thanks! And the gulls?\n\nSorry, I meant: how many gulls?"),
        ("assistant", "I count 4 gulls on the pier."), ("user", "How many masts?")]
    roles = [m.role for m in turn.messages]
    assert all(a != b or a == "tool" for a, b in pairwise(roles)), roles
    text = turn.serialized()
    assert not [word for word in NEVER_SENT if word in text]
