"""A tool's audio through the real CLI, from the real protocol server run as a subprocess
(tests/mcp/protocol_server.py's `say`), to the fake Gemini server through the SDK: the clip goes as audio right
after the function response, stored once as an audio attachment of the result, and is not counted as an image."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.harness import Cli
from tests.fakeservers import FakeGeminiServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart

KEY = "gemini-mcp-audio-31"
MODEL = "gemini-2.5-flash"  # the registry says it takes audio


class SpeakingBrain:
    """Calls proto__say once, then answers; keeps every request's tool results."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Audio test")
        results = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]
        if not results:
            return Reply(tool_calls=(ToolCall("proto__say", {"seconds": 1.0}),))
        self.results = results
        return Reply.of_text("I heard one second of silence.")


def test_a_tools_audio_reaches_gemini_as_audio_and_is_stored_with_the_result(tmp_path: Path) -> None:
    brain = SpeakingBrain()
    with FakeGeminiServer(brain, api_key=KEY) as fake:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json",
                  {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GEMINI_API_KEY": KEY})
        added = cli.run("mcp", "add", "proto", "--", sys.executable, "-m", "tests.mcp.protocol_server",
                        subprocess_run=False)
        assert added.code == 0, added.err
        result = cli.run("chat", "--jsonl", "-p", "gemini", "-m", MODEL, "--allow-tools", "Say something.",
                         subprocess_run=False)
        assert result.code == 0, result.err
        answered = [r for r in fake.requests if any(isinstance(p, ToolResultPart) for m in r.messages
                                                    for p in m.parts)]
    lines = [json.loads(line) for line in result.out.splitlines()]
    [said] = brain.results
    assert said.text.startswith("1.0 s of speech.\n[audio: audio/wav, 32,044 bytes, 1.0 s]") and said.media == ()
    [clip] = answered[-1].media  # the user part after the function response, decoded by the fake
    assert (clip.kind, clip.media_type, clip.size, clip.tokens) == ("audio", "audio/wav", 32_044, 32)
    with closing(sqlite3.connect(tmp_path / "home" / "palimpsest.db")) as db:
        [(stored,)] = db.execute("SELECT attachments FROM messages WHERE type = 'tool_result'").fetchall()
    [kept] = json.loads(stored)
    assert (kept["kind"], kept["name"], kept["duration_ms"], kept["sha256"]) == ("audio", "say-audio-1.wav", 1000,
                                                                               clip.sha256)
    [event] = [line for line in lines if line["type"] == "tool_result"]
    assert "images" not in event  # (the key is given only when a tool returned images)
