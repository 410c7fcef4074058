"""A simulated model for the end-to-end CLI test: chats, calls tools on cue, and summarizes extractively.

Cues in the user's message: `FETCH <url>` asks for http_request; `FETCHREAD <url>` also pages on with
read_tool_result from the truncation marker. A summarization request (the summarizer's system prompt) is answered
like an ideal extractive summarizer: every `FACT: ... .` line it was given, nothing else. A title request gets a
title; the memory-flush notice gets one save_memory call and then the silent token.
"""

from __future__ import annotations

import re
import threading

from domain.context.flush import FLUSH_PROMPT, SILENT_TOKEN
from domain.context.prompts import SUMMARIZER_SYSTEM
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import (
    Answer,
    NormalizedRequest,
    Reply,
    TextPart,
    ToolCall,
    ToolResultPart,
)

FACT = re.compile(r"FACT: [^.\n]*\.")
MARKER_ID = re.compile(r'message_id="([^"]+)"')
FLUSH_NOTICE = FLUSH_PROMPT[:40]


def facts_in(text: str) -> list[str]:
    """Every FACT line in the text, first occurrence order, without repeats."""
    return list(dict.fromkeys(FACT.findall(text)))


class SimulatedBrain:
    """Answers every request of a long CLI session; records what it saw by kind (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.chat_requests: list[NormalizedRequest] = []
        self.summary_requests: list[NormalizedRequest] = []
        self.flush_requests: list[NormalizedRequest] = []
        self.title_requests: list[NormalizedRequest] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        """The answer for one request of any flavour."""
        if SUMMARIZER_SYSTEM[:40] in request.system:
            return self._summarize(request)
        if TITLE_SYSTEM in request.system:
            self._record(self.title_requests, request)
            return Reply.of_text("Harbour log")
        user_text, results = _last_turn(request)
        if FLUSH_NOTICE in user_text:
            self._record(self.flush_requests, request)
            if results:
                return Reply.of_text(SILENT_TOKEN)
            return Reply(tool_calls=(ToolCall("save_memory", {"content": "The user keeps a harbour log of facts."}),))
        self._record(self.chat_requests, request)
        return _chat(user_text, results)

    def _summarize(self, request: NormalizedRequest) -> Answer:
        self._record(self.summary_requests, request)
        prompt = "\n".join(m.text for m in request.messages)
        lines = [f"- {fact}" for fact in facts_in(prompt)] or ["- (no facts yet)"]
        return Reply.of_text("## Critical Context\n" + "\n".join(lines), chunk=64)

    def _record(self, bucket: list[NormalizedRequest], request: NormalizedRequest) -> None:
        with self._lock:
            bucket.append(request)


def _last_turn(request: NormalizedRequest) -> tuple[str, list[ToolResultPart]]:
    """The text of the last user text part, and the tool results that came after it."""
    flat = [(m.role, p) for m in request.messages for p in m.parts]
    for index in range(len(flat) - 1, -1, -1):
        role, part = flat[index]
        if role == "user" and isinstance(part, TextPart) and part.text.strip():
            results = [p for _, p in flat[index + 1 :] if isinstance(p, ToolResultPart)]
            return part.text, results
    return "", []


def _chat(user_text: str, results: list[ToolResultPart]) -> Answer:
    words = user_text.split()
    if "FETCHREAD" in words or "FETCH" in words:
        url = words[words.index("FETCHREAD" if "FETCHREAD" in words else "FETCH") + 1]
        if not results:
            return Reply(tool_calls=(ToolCall("http_request", {"url": url}),))
        if "FETCHREAD" in words and len(results) == 1:
            marker = MARKER_ID.search(results[0].text)
            if marker is not None:
                args = {"message_id": marker.group(1), "offset": 30_000, "length": 2_000}
                return Reply(tool_calls=(ToolCall("read_tool_result", args),))
        sizes = ", ".join(f"{r.name} gave {len(r.text)} characters" for r in results)
        return Reply.of_text(f"I looked it up: {sizes}. The page lists harbour tide readings. " + _filler(user_text))
    return Reply.of_text(_filler(user_text))


def _filler(user_text: str) -> str:
    """A reply of a few hundred characters that echoes the cue's flavour (CJK, JSON)."""
    parts = ["Noted; I will keep that in mind for the rest of our log."]
    if any("\u3040" <= ch <= "\u9fff" for ch in user_text):
        parts.append("了解しました。潮位の記録を続けます。港の記録は順調です。")
    if "{" in user_text:
        parts.append('Here is the entry as JSON: {"entry": {"kind": "tide", "ok": true, "levels": [1.2, 3.4, 0.8]}}')
    parts.append("The weather on the quay stays calm, the gulls are loud, and the ferry keeps its schedule. " * 3)
    return " ".join(parts)
