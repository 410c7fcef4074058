"""An in-memory ChatBackend for UI tests: scripted replies, real bookkeeping, recorded calls."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from domain.attachment import Attachment
from domain.errors import InvalidInput, NotFound
from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    ContextBreakdown,
    ContextStatus,
    ResponseComplete,
    TextDelta,
    ThinkingDelta,
    TitleGenerated,
)
from domain.models import (
    AiModel,
    Message,
    MessageType,
    Session,
    ToolStatus,
    Usage,
    WindowSource,
)
from domain.ports import MATCH_CLOSE, MATCH_OPEN, SessionSearchHit
from domain.settings import MAX_SYSTEM_PROMPT_CHARS
from domain.web_support import mcp_search_tools
from tests.ui.fake_attachments import FakeAttachments
from tests.ui.fake_paging import FakePaging
from tests.ui.fake_settings import T0, FakeSettings
from tests.ui.gate import Gate
from ui.backend import (
    ChatBackend,
    ConversationPage,
    ImportProgress,
    Selection,
    SessionMcpServer,
    SessionPrompt,
    StartupInfo,
    UsageSummary,
)

Script = list[ChatEvent | Exception | float | Gate]  # a float is a pause in seconds; a Gate waits to be opened


class FakeChatBackend(FakePaging, FakeAttachments, FakeSettings, ChatBackend):
    """Stores sessions and messages in dicts; send() plays the next queued script (default: echo)."""

    def __init__(self, *, keys: dict[str, str] | None = None, keychain_problem: str | None = None) -> None:
        FakeAttachments.__init__(self)
        self.refuse_attachments: str | None = None  # a ChatError message for any message with files
        FakeSettings.__init__(self, keys=keys, keychain_problem=keychain_problem)
        self.thinking_ms, self.reasoning_tokens = 12_400, 1_380  # what a reply that reasoned is stored with
        self.sessions: dict[str, Session] = {}
        self.messages: dict[str, list[Message]] = {}
        self.off_path: dict[str, list[Message]] = {}  # a message id on another branch -> that branch's path
        self.scripts: deque[Script] = deque()
        self.compact_results: deque[CompactCompleted] = deque()
        self.calls: list[tuple[object, ...]] = []
        self.full_outputs: dict[str, str] = {}
        self.context = ContextStatus(12_400, 200_000, ContextBreakdown(900, 0, 9_000, 2_000, 500))
        self.automatic_window = 200_000  # what use_automatic_window gives a model back
        self._n = 0
        self.cancelled = asyncio.Event()
        self.cancel_gate: Gate | None = None  # a stopped turn winds down (closes the provider's stream) once it opens
        self.import_gate: Gate | None = None  # an import holds after its third conversation until it opens
        self.load_gate: Gate | None = None  # a conversation (a turn's read-back among them) is read once it opens
        self.newer_gate: Gate | None = None  # a newer page is read once it opens
        self.versions: dict[str, tuple[str, ...]] = {}  # message id -> the ids of its versions (older pages)
        self.fits_chars: int | None = None  # like the domain: a longer message is refused before it is stored

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    # --- helpers for tests ---------------------------------------------------------------------------
    def add_session(self, title: str, texts: Sequence[str] = (), *, minutes_ago: int = 0) -> Session:
        """A stored session with alternating user / assistant messages."""
        sid = self._id("s")
        when = T0 - timedelta(minutes=minutes_ago)
        session = Session(sid, title, "general", when, when, current_provider_id="anthropic",
                          current_model_id="claude-sonnet-4-5-20250929")
        self.sessions[sid] = session
        self.messages[sid] = []
        for i, text in enumerate(texts):
            self._store(sid, MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE, text)
        return self.sessions[sid]

    def _store(self, sid: str, type_: MessageType, text: str = "", **fields: object) -> Message:
        messages = self.messages[sid]
        message = Message(self._id("m"), sid, type_, text, T0, seq=len(messages) + 1, **fields)  # type: ignore[arg-type]
        messages.append(message)
        s = self.sessions[sid]
        preview = text[:80] if text else s.last_message_preview
        self.sessions[sid] = replace(s, message_count=len(messages), last_message_preview=preview,
                                     updated_at=s.updated_at + timedelta(seconds=1))
        return message

    def add_tool_round(self, sid: str, name: str, arguments: str, output: str, original: int | None = None) -> None:
        """A stored tool call and its result."""
        call_id = self._id("call")
        self._store(sid, MessageType.TOOL_CALL, tool_call_id=call_id, tool_name=name, tool_input=arguments)
        self._store(sid, MessageType.TOOL_RESULT, tool_call_id=call_id, tool_name=name, tool_output=output,
                    tool_status=ToolStatus.SUCCESS, tool_output_original_chars=original or len(output))

    def compact(self, sid: str, keep_last: int, summary: str) -> None:
        """Marks all but the last `keep_last` messages as summarized."""
        messages = self.messages[sid]
        boundary = messages[-keep_last].seq if keep_last else len(messages) + 1
        s = self.sessions[sid]
        self.sessions[sid] = replace(s, compacted_summary=summary, compact_boundary=boundary,
                                     compaction_count=s.compaction_count + 1)

    # --- the protocol ------------------------------------------------------------------------------
    async def startup(self) -> StartupInfo:
        providers = tuple(await self.list_providers())
        default = Selection("anthropic", "claude-sonnet-4-5-20250929")
        has_sessions = any(s.deleted_at is None for s in self.sessions.values())
        searching = tuple(t.name for t in mcp_search_tools(self.mcp_servers, None))
        return StartupInfo(providers, self.keychain_problem_text, default, tuple(self.agents), has_sessions,
                           mcp_search_tools=searching)

    async def list_sessions(self, archived: bool = False) -> Sequence[Session]:
        live = [s for s in self.sessions.values() if s.deleted_at is None and s.is_active != archived]
        return sorted(live, key=lambda s: s.updated_at, reverse=True)

    async def archive_session(self, session_id: str, archived: bool) -> Session:
        self.sessions[session_id] = replace(self._session(session_id), is_active=not archived)
        return self.sessions[session_id]

    async def search_sessions(self, query: str) -> Sequence[SessionSearchHit]:
        self.calls.append(("search", query))
        hits = []
        for sid, messages in self.messages.items():
            session = self.sessions[sid]
            if session.deleted_at is not None:
                continue
            for m in messages:
                at = m.content.lower().find(query.lower())
                if at >= 0:  # the match marked, as the real search's snippet does
                    end = at + len(query)
                    snippet = f"{m.content[:at]}{MATCH_OPEN}{m.content[at:end]}{MATCH_CLOSE}{m.content[end:]}"[:80]
                    hits.append(SessionSearchHit(sid, session.title, snippet, m.id, not session.is_active))
                    break
            else:
                if query.lower() in (session.title or "").lower():  # like the real search: titles match too
                    hits.append(SessionSearchHit(sid, session.title, ""))
        return hits

    async def create_session(self, agent_id: str | None, selection: Selection | None) -> Session:
        session = self.add_session("New chat")
        if selection is not None:
            session = replace(session, current_provider_id=selection.provider_id,
                              current_model_id=selection.model_id, updated_at=datetime.now(UTC))
            self.sessions[session.id] = session
        return session

    async def rename_session(self, session_id: str, title: str) -> Session:
        if not title.strip():
            raise InvalidInput("A session title cannot be empty.")
        self.sessions[session_id] = replace(self._session(session_id), title=title)
        return self.sessions[session_id]

    async def delete_session(self, session_id: str) -> None:
        self.sessions[session_id] = replace(self._session(session_id), deleted_at=T0)

    async def restore_session(self, session_id: str) -> None:
        self.sessions[session_id] = replace(self.sessions[session_id], deleted_at=None)

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None or session.deleted_at is not None:
            raise NotFound("session", session_id)
        return session

    async def load_conversation(self, session_id: str, tail: int) -> ConversationPage:
        if self.load_gate is not None:
            await self.load_gate.passed()
        session = self._session(session_id)
        messages = self.messages[session_id]
        boundary = session.compact_boundary if session.compacted_summary else None
        behind = sum(1 for m in messages if boundary is not None and m.seq < boundary)
        return ConversationPage(session, tuple(messages[-tail:]), len(messages), (), boundary, behind)

    async def load_older(self, session_id: str, before_seq: int, limit: int) -> ConversationPage:
        older = tuple([m for m in self.messages[session_id] if m.seq < before_seq][-limit:])
        versions = {m.id: self.versions[m.id] for m in older if m.id in self.versions}
        return ConversationPage(self._session(session_id), older, len(self.messages[session_id]), siblings=versions)

    async def send(self, session_id: str, text: str, selection: Selection,
                   attachments: Sequence[Attachment] = ()) -> AsyncIterator[ChatEvent]:
        self.calls.append(("send", session_id, text, selection, *([tuple(attachments)] if attachments else [])))
        if attachments and self.refuse_attachments is not None:
            yield ChatError("attachment_unsupported", self.refuse_attachments, retryable=False)
            return
        if self.fits_chars is not None and len(text) > self.fits_chars:
            yield ChatError("invalid_input", f"This message is too long for {selection.model_id}: {len(text):,} "
                            f"characters, and at most about {self.fits_chars:,} fit.", retryable=False)
            return
        self._store(session_id, MessageType.USER, text, attachments=tuple(attachments))
        async for event in self._play(session_id, f"You said: {text}"):
            yield event

    async def import_file(self, kind: str, path: str) -> AsyncIterator[ImportProgress]:
        """Eight conversations, held after the third while `import_gate` is closed (the real one runs in a thread)."""
        self.calls.append(("import", kind, path))
        for done in range(1, 9):
            if done == 4 and self.import_gate is not None:
                await self.import_gate.passed()
            await asyncio.sleep(0)
            yield ImportProgress(done, 8)
        yield ImportProgress(8, 8, True, 8, 0, 120)

    async def retry(self, session_id: str, selection: Selection) -> AsyncIterator[ChatEvent]:
        self.calls.append(("retry", session_id, selection))
        async for event in self._play(session_id, "Retried reply."):
            yield event

    async def _play(self, session_id: str, default: str) -> AsyncIterator[ChatEvent]:
        script: Script = self.scripts.popleft() if self.scripts else [TextDelta(default)]
        text, thinking = "", ""
        try:
            for item in script:
                if isinstance(item, float):
                    await asyncio.sleep(item)
                elif isinstance(item, Gate):
                    await item.passed()
                elif isinstance(item, Exception):
                    self._keep_partial(session_id, text)  # like the domain: what arrived is kept, marked incomplete
                    raise item
                else:
                    if isinstance(item, TextDelta):
                        text += item.text
                    if isinstance(item, ThinkingDelta):
                        thinking += item.text
                    if isinstance(item, TitleGenerated):
                        self.sessions[session_id] = replace(self.sessions[session_id], title=item.title)
                    yield item
                    if isinstance(item, ChatError):  # the turn ended with an error: nothing more is stored
                        self._keep_partial(session_id, text)
                        return
        except asyncio.CancelledError:
            if self.cancel_gate is not None:
                await self.cancel_gate.passed()
            self._store(session_id, MessageType.AI_RESPONSE, text, incomplete=True)
            self.cancelled.set()
            raise
        reply = self._store(session_id, MessageType.AI_RESPONSE, text, model_id="claude-sonnet-4-5-20250929",
                            thinking_content=thinking or None, thinking_ms=self.thinking_ms if thinking else None,
                            reasoning_tokens=self.reasoning_tokens if thinking else None)
        if not any(isinstance(i, ResponseComplete) for i in script):
            yield ResponseComplete(reply.id, Usage(10, 5))

    def _keep_partial(self, session_id: str, text: str) -> None:
        if text:
            self._store(session_id, MessageType.AI_RESPONSE, text, incomplete=True)

    async def compact_now(self, session_id: str, selection: Selection, instructions: str | None) -> CompactCompleted:
        self.calls.append(("compact", session_id, instructions))
        result = self.compact_results.popleft() if self.compact_results else CompactCompleted(True, False, 900, 300)
        if result.did_compact:
            self.compact(session_id, 2, "Goal: test things.")
        return result

    async def reset_context(self, session_id: str) -> Session:
        self.sessions[session_id] = replace(self._session(session_id), compacted_summary=None, compact_boundary=None)
        return self.sessions[session_id]

    async def edit_summary(self, session_id: str, summary: str) -> Session:
        self.sessions[session_id] = replace(self._session(session_id), compacted_summary=summary)
        return self.sessions[session_id]

    async def set_pinned(self, message_id: str, pinned: bool) -> Message:
        for messages in self.messages.values():
            for i, m in enumerate(messages):
                if m.id == message_id:
                    messages[i] = replace(m, pinned=pinned)
                    return messages[i]
        raise NotFound("message", message_id)

    async def select(self, session_id: str, selection: Selection, agent_id: str | None) -> Session:
        self.calls.append(("select", session_id, selection, agent_id))
        self.sessions[session_id] = replace(self._session(session_id), current_provider_id=selection.provider_id,
                                            current_model_id=selection.model_id, current_agent_id=agent_id)
        return self.sessions[session_id]

    async def set_web_search(self, session_id: str, on: bool | None) -> Session:
        self.calls.append(("set_web_search", session_id, on))
        self.sessions[session_id] = replace(self._session(session_id), web_search=on)
        return self.sessions[session_id]

    async def set_reasoning(self, session_id: str, level: str | None) -> Session:
        self.calls.append(("set_reasoning", session_id, level))
        self.sessions[session_id] = replace(self._session(session_id), reasoning=level)
        return self.sessions[session_id]

    async def session_prompt(self, session_id: str) -> SessionPrompt:
        session = self._session(session_id)
        agent = next((a for a in self.agents if a.id == session.current_agent_id), self.agents[0])
        return SessionPrompt(session.system_prompt, agent.name, agent.system_prompt)

    async def set_session_prompt(self, session_id: str, prompt: str | None) -> Session:
        self.calls.append(("set_session_prompt", session_id, prompt))
        text = (prompt or "").strip()
        if len(text) > MAX_SYSTEM_PROMPT_CHARS:  # the use case's own limit and wording
            raise InvalidInput(f"A system prompt may have at most {MAX_SYSTEM_PROMPT_CHARS:,} characters.")
        self.sessions[session_id] = replace(self._session(session_id), system_prompt=text or None)
        return self.sessions[session_id]

    async def context_status(self, session_id: str, selection: Selection) -> ContextStatus:
        window = next((m.context_window_size for m in self.models if m.id == selection.model_id), None)
        return replace(self.context, window=window)

    async def usage_summary(self, session_id: str) -> UsageSummary:
        return UsageSummary(48_200, 3_900, 30_000, 0.21)

    async def full_tool_output(self, message_id: str) -> str | None:
        return self.full_outputs.get(message_id)

    async def session_mcp_servers(self, session_id: str | None) -> Sequence[SessionMcpServer]:
        return [SessionMcpServer(s.name, session_id not in s.disabled_sessions, len(s.tools))
                for s in self.mcp_servers]

    async def use_automatic_window(self, provider_id: str, model_id: str) -> AiModel:
        self.calls.append(("automatic_window", provider_id, model_id))
        index = next(i for i, m in enumerate(self.models) if (m.provider_id, m.id) == (provider_id, model_id))
        self.models[index] = model = replace(self.models[index], context_window_size=self.automatic_window,
                                             user_window=False, window_source=WindowSource.REGISTRY)
        self.context = replace(self.context, window_source=WindowSource.REGISTRY.value)
        return model

    async def set_session_mcp_server(self, session_id: str, name: str, enabled: bool) -> None:
        self.calls.append(("session_mcp_server", session_id, name, enabled))
        index = next(i for i, s in enumerate(self.mcp_servers) if s.name == name)
        server = self.mcp_servers[index]
        off = tuple(x for x in server.disabled_sessions if x != session_id) + (() if enabled else (session_id,))
        self.mcp_servers[index] = replace(server, disabled_sessions=off)
