"""The replay benchmark's simulated model: follows the script, fetches pages, recalls facts, summarizes ideally."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench.replay_script import FACT_LINE, Script, Turn, turn_index
from domain.context.flush import FLUSH_PROMPT, SILENT_TOKEN
from domain.context.memory_section import MEMORY_HEADER
from domain.context.prompts import SUMMARIZER_SYSTEM
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import (
    Answer,
    NormalizedRequest,
    Reply,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
)

RequestKind = Literal["chat", "summary", "flush", "title"]
SUMMARY_QUOTES = 8
QUOTE_CHARS = 100


def classify(request: NormalizedRequest) -> RequestKind:
    """What a request is for: a chat round, a compaction summary, the memory flush, or a title."""
    if request.system.startswith(SUMMARIZER_SYSTEM[:60]):
        return "summary"
    if request.system.startswith(TITLE_SYSTEM[:40]):
        return "title"
    user_text, _ = last_user_turn(request)
    if user_text.startswith(FLUSH_PROMPT[:40]):
        return "flush"
    return "chat"


def last_user_turn(request: NormalizedRequest) -> tuple[str, list[ToolResultPart]]:
    """The last user text of the request and the tool results that came after it."""
    flat = [(m.role, p) for m in request.messages for p in m.parts]
    for index in range(len(flat) - 1, -1, -1):
        role, part = flat[index]
        if role == "user" and isinstance(part, TextPart) and part.text.strip():
            return part.text, [p for _, p in flat[index + 1 :] if isinstance(p, ToolResultPart)]
    return "", []


def request_text(request: NormalizedRequest) -> str:
    """Everything the model can read in the request: system prompt and every text, call and result."""
    pieces = [request.system]
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart | ToolResultPart):
                pieces.append(part.text)
            elif isinstance(part, ToolCallPart):
                pieces.append(str(dict(part.input)))
    return "\n".join(pieces)


def facts_in(text: str) -> dict[str, str]:
    """Every `FACT: key = value` line of the text, first value per key, in order of appearance."""
    found: dict[str, str] = {}
    for key, value in FACT_LINE.findall(text):
        found.setdefault(key.strip(), value.strip())
    return found


def ideal_summary(prompt: str) -> str:
    """A checkpoint-format summary keeping every FACT line of the prompt verbatim (bounded otherwise)."""
    facts = facts_in(prompt)
    quotes = []
    for line in prompt.splitlines():
        turn = turn_index(line)
        if turn is not None and "FACT:" not in line and line.startswith("[t"):
            quotes.append(line[:QUOTE_CHARS].replace('"', "'"))
    fact_lines = "\n".join(f"- FACT: {k} = {v}" for k, v in facts.items()) or "- (none yet)"
    quote_lines = "\n".join(f'- "{q}"' for q in quotes[-SUMMARY_QUOTES:]) or '- "(none)"'
    return (
        "## Goal\nKeep operating the order service and review its reports, payloads and code with the user.\n\n"
        "## Constraints & Preferences\n- Keep every fact the user stated verbatim.\n\n"
        "## Progress\n### Done\n- [x] Reviewed the reports, payloads and modules discussed so far.\n\n"
        "### In Progress\n- [ ] Continue the review with the user's next request.\n\n"
        "## Key Decisions\n- **Facts**: the user's facts are kept in Critical Context.\n\n"
        "## Next Steps\n1. Answer the next request.\n\n"
        f"## Critical Context\n{fact_lines}\n\n"
        f"## User Requests\n{quote_lines}"
    )


@dataclass
class BrainLog:
    """Counts of what the brain answered, by kind."""

    chat: int = 0
    summary: int = 0
    flush: int = 0
    title: int = 0
    unknown_turns: int = 0


class ReplayBrain:
    """Answers every request of the scripted session (any flavour); stateless apart from its counters."""

    def __init__(self, script: Script, page_root: str) -> None:
        self._turns = script.by_index()
        self._page_root = page_root.rstrip("/")
        self.log = BrainLog()

    def respond(self, request: NormalizedRequest) -> Answer:
        """The answer for one request."""
        kind = classify(request)
        if kind == "summary":
            self.log.summary += 1
            prompt = "\n".join(m.text for m in request.messages)
            return Reply.of_text(ideal_summary(prompt), chunk=256)
        if kind == "title":
            self.log.title += 1
            return Reply.of_text("Order service review")
        if kind == "flush":
            self.log.flush += 1
            return self._flush(request)
        self.log.chat += 1
        return self._chat(request)

    def _flush(self, request: NormalizedRequest) -> Answer:
        """An ideal agent saves each visible fact that long-term memory does not hold yet."""
        memory = request.system.split(MEMORY_HEADER, 1)[1] if MEMORY_HEADER in request.system else ""
        known = facts_in(memory)
        visible = facts_in(request_text(request))
        calls = tuple(
            ToolCall("save_memory", {"content": f"FACT: {k} = {v}"}) for k, v in visible.items() if k not in known
        )
        return Reply(tool_calls=calls) if calls else Reply.of_text(SILENT_TOKEN)

    def _chat(self, request: NormalizedRequest) -> Answer:
        user_text, results = last_user_turn(request)
        index = turn_index(user_text)
        turn = self._turns.get(index) if index is not None else None
        if turn is None:
            self.log.unknown_turns += 1
            return Reply.of_text("I am not sure what you mean; could you say it again?")
        if turn.kind == "recall":
            return Reply.of_text(recall_answer(turn, request_text(request)), chunk=32)
        if turn.kind == "tool" and not results:
            return Reply(tool_calls=(ToolCall("http_request", {"url": self._page_root + (turn.page_path or "")}),))
        return Reply.of_text(turn.reply_text, chunk=32)


def recall_answer(turn: Turn, visible: str) -> str:
    """Answers a recall question from what the request shows, or admits not knowing."""
    key = turn.fact_key or ""
    value = facts_in(visible).get(key)
    if value is None:
        return f"I do not have the {key} in front of me any more."
    return f"The {key} is {value}."


def answered_correctly(turn: Turn, reply: str) -> bool:
    """True when a recall turn's reply states the fact's value."""
    return bool(turn.fact_value) and f"is {turn.fact_value}." in reply


def page_paths(turns: Sequence[Turn]) -> list[str]:
    """The page paths the script will fetch."""
    return [t.page_path for t in turns if t.page_path]
