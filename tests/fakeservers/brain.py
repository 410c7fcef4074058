"""What a fake provider server asks and answers: normalized requests, replies, error directives and brains."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.web_fetch import Fetch
from tests.fakeservers.web_search import Search

Flavour = Literal["anthropic", "openai", "gemini"]


@dataclass(frozen=True)
class TextPart:
    """Plain text inside a message."""

    text: str


@dataclass(frozen=True)
class ToolCallPart:
    """The model's request to run a tool (assistant side)."""

    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultPart:
    """A tool's output sent back to the model; `id` pairs it with its call."""

    id: str
    name: str
    text: str
    is_error: bool = False
    media: tuple[MediaPart, ...] = ()  # images inside the result (Anthropic, Gemini, Responses; Chat: none)


Part = TextPart | ToolCallPart | ToolResultPart | MediaPart


@dataclass(frozen=True)
class NormalizedMessage:
    """One provider-neutral message: role is 'user', 'assistant' or 'tool' (OpenAI tool messages)."""

    role: str
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class NormalizedRequest:
    """A generation request as any flavour sent it, plus the raw JSON body and headers."""

    flavour: Flavour
    model: str
    system: str
    messages: tuple[NormalizedMessage, ...]
    tool_names: tuple[str, ...]
    max_tokens: int | None
    stream: bool
    raw: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def last_user_text(self) -> str:
        """Text of the last user message (empty when there is none)."""
        for message in reversed(self.messages):
            if message.role == "user" and message.text:
                return message.text
        return ""

    @property
    def media(self) -> list[MediaPart]:
        """Every image and PDF of the request, in order (those inside tool results too: billed alike)."""
        return [q for m in self.messages for p in m.parts
                for q in ((p,) if isinstance(p, MediaPart) else p.media if isinstance(p, ToolResultPart) else ())]

    @property
    def media_tokens(self) -> int:
        """Input tokens of the request's images and PDFs, by the provider's own formula."""
        return sum(p.tokens for p in self.media)

    def serialized(self) -> str:
        """A canonical text of the prompt (system, tools, messages), used for token counts and prefix caching."""
        chunks = [f"system:{self.system}", "tools:" + ",".join(self.tool_names)]
        for message in self.messages:
            for part in message.parts:
                if isinstance(part, TextPart):
                    chunks.append(f"{message.role}:{part.text}")
                elif isinstance(part, ToolCallPart):
                    chunks.append(f"{message.role}:call {part.id} {part.name} {json.dumps(part.input, sort_keys=True)}")
                elif isinstance(part, MediaPart):  # priced apart (media_tokens); here only so caching sees it
                    chunks.append(f"{message.role}:{part.kind} {part.sha256}")
                else:
                    chunks.append(f"{message.role}:result {part.id} {part.name} {part.is_error} {part.text}")
                    chunks += [f"{message.role}:{m.kind} {m.sha256}" for m in part.media]
        return "\n".join(chunks)


@dataclass(frozen=True)
class ToolCall:
    """A tool call the brain wants the model to make; the server invents an id when none is given."""

    name: str
    input: Mapping[str, Any]
    id: str | None = None


StopReason = Literal["end_turn", "tool_use", "max_tokens", "other"]


@dataclass(frozen=True)
class Reply:
    """A successful answer: text chunks (streamed one by one), tool calls, optional thinking, a stop reason."""

    text_chunks: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: tuple[str, ...] = ()
    stop_reason: StopReason | None = None
    tool_argument_chunk: int = 7  # tool-call JSON is streamed in slices of this many characters
    redacted: int = 0  # Anthropic: this many redacted_thinking blocks after the thinking
    searches: tuple[Search, ...] = ()  # web searches run before the text (when the request offers web search)
    fetches: tuple[Fetch, ...] = ()  # Anthropic web fetches run after the searches (when the request offers it)

    @classmethod
    def of_text(cls, text: str, chunk: int = 8) -> Reply:
        """A text reply streamed in chunks of `chunk` characters."""
        return cls(text_chunks=tuple(text[i : i + chunk] for i in range(0, len(text), chunk)) or ("",))

    @property
    def text(self) -> str:
        """The whole reply text."""
        return "".join(self.text_chunks)

    @property
    def effective_stop_reason(self) -> StopReason:
        """The stop reason given, else tool_use when there are tool calls, else end_turn."""
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"


ErrorKind = Literal[
    "auth",  # 401 with the flavour's authentication error body
    "rate_limit",  # 429 with retry-after
    "overflow",  # 400 context overflow with tokens/limit in the real message
    "overloaded",  # Anthropic 529 overloaded_error; others 503
    "server_error",  # 500
    "bad_request",  # 400 with a generic invalid-request message
    "midstream_error",  # 200 stream, some text, then an error event (Anthropic `event: error`; others an error chunk)
    "cut_off",  # 200 stream, some text, then the connection drops without the end of the body
    "malformed",  # 200 stream, some text, then a data line that is not JSON
    "no_headers",  # the connection is accepted and the request read, then nothing is sent, ever
    "pings_only",  # 200 stream, `chunks_before`, then only keep-alive pings every `interval` s, never an end
    "endless",  # 200 stream, `chunks_before`, then one more text chunk every `interval` s, never an end
]
STREAMED_FAILURES = ("midstream_error", "cut_off", "malformed", "pings_only", "endless")  # begin with a 200 stream
STALLS = ("no_headers", "pings_only", "endless")  # never end on their own: only the client or stop() ends them


@dataclass(frozen=True)
class ErrorReply:
    """A directive to fail the request the way the real provider would."""

    kind: ErrorKind
    retry_after: float | None = None
    tokens: int | None = None
    limit: int | None = None
    message: str | None = None
    chunks_before: tuple[str, ...] = ("partial ",)
    status: int | None = None  # a flavour's variant, e.g. Gemini auth as 401 / 403 instead of 400 API_KEY_INVALID
    interval: float = 0.1  # seconds between the pings or chunks of a stall


Answer = Reply | ErrorReply


class Brain(Protocol):
    """Decides the answer to one request: the one thing a test or benchmark writes to drive a fake server.

    `respond` gets the request as the SDK sent it, normalized across flavours (system text, messages as
    (role, parts) with text / tool calls / tool results, tool names, max_tokens, stream flag, raw JSON), and
    returns a Reply (text chunks, tool calls, thinking, stop reason) or an ErrorReply (the failure to act out).
    Non-streamed requests (generate_simple_completion: titles, summaries) come with stream=False. The server
    computes usage itself. It is called on a server thread, one call per request; keep it quick and, when
    several requests may run at once, thread-safe. An exception in it is answered as HTTP 500 and kept in
    the server's `failures`.

        class Echo:
            def respond(self, request: NormalizedRequest) -> Answer:
                return Reply.of_text("You said: " + request.last_user_text)
    """

    def respond(self, request: NormalizedRequest) -> Answer: ...


class BrainExhausted(RuntimeError):
    """A scripted brain was asked more often than it has answers."""


class ScriptedBrain:
    """Answers with a queue of replies and error directives, in order; records every request it saw."""

    def __init__(self, answers: Iterable[Answer | str] = (), default: Answer | None = None) -> None:
        self.answers: deque[Answer] = deque(Reply.of_text(a) if isinstance(a, str) else a for a in answers)
        self.default = default
        self.seen: list[NormalizedRequest] = []

    def push(self, *answers: Answer | str) -> None:
        """Queues more answers."""
        self.answers.extend(Reply.of_text(a) if isinstance(a, str) else a for a in answers)

    def respond(self, request: NormalizedRequest) -> Answer:
        """The next queued answer, else the default; raises BrainExhausted when there is neither."""
        self.seen.append(request)
        if self.answers:
            return self.answers.popleft()
        if self.default is not None:
            return self.default
        raise BrainExhausted(f"ScriptedBrain has no answer left for request #{len(self.seen)}")
