"""The chat screen's context verbs: compact now, reset, edit the summary, pin, switch model or agent."""

from __future__ import annotations

from typing import Any

from domain.events import CompactCompleted
from domain.models import AgentId, AiModel, Message, Session
from ui.backend import ConversationBackend, Selection
from ui.signals import emit
from ui.viewmodels.chat_state import ChatState
from ui.worker import AsyncWorker


def compaction_notice(event: CompactCompleted) -> str | None:
    """The snackbar text for a finished compaction (None when nothing worth telling happened)."""
    if event.fallback:
        return "Couldn't summarize older messages this time; the conversation continues and it will retry later."
    if event.did_compact:
        return f"Older messages summarized: {event.tokens_before:,} → {event.tokens_after:,} tokens."
    return event.reason or "Nothing to summarize yet."



class ChatContextOps:
    """Mixed into ChatViewModel; relies on its state, worker and backend."""

    _backend: ConversationBackend
    _worker: AsyncWorker
    _state: ChatState
    _reasoning_unsaved = 0  # reasoning choices sent to the backend and not stored yet: a page read before keeps them
    notice: Any
    text_ready: Any

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    def _fail(self, error: Exception) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    _messages: list[Message]
    _stored_inputs: tuple[object, ...]

    def _sync_rows(self) -> None:
        raise NotImplementedError

    def refresh_context(self) -> None:
        """Re-estimates the context and reloads token totals."""
        session, selection = self._state.session, self._state.selection
        if session is None or selection is None:
            return
        self._worker.call(
            lambda: self._backend.context_status(session.id, selection), lambda s: self._set(context=s), self._fail
        )
        self._worker.call(
            lambda: self._backend.usage_summary(session.id), lambda u: self._set(usage=u), self._fail
        )
        self._worker.call(lambda: self._backend.session_mcp_servers(session.id),
                          lambda servers: self._set(mcp_servers=tuple(servers)), self._fail)

    def set_mcp_server_enabled(self, name: str, enabled: bool) -> None:
        """Turns an MCP server on or off for this conversation, then measures the context again."""
        session = self._state.session
        if session is None:
            return

        def done(_: object) -> None:
            emit(self.notice, f"{name} is {'on' if enabled else 'off'} in this conversation.")
            self.refresh_context()

        self._worker.call(lambda: self._backend.set_session_mcp_server(session.id, name, enabled), done, self._fail)

    def use_automatic_window(self) -> None:
        """Undoes a window the user set or the app learned or guessed for the gauge's model: its registry's, provider's
        or server's window applies again; then measures the context again."""
        status = self._state.context
        if status is None or status.provider_id is None or status.model_id is None:
            return
        provider_id, model_id = status.provider_id, status.model_id

        def done(model: AiModel) -> None:
            size = f"{model.context_window_size:,} tokens" if model.context_window_size else "unknown"
            emit(self.notice, f"{model.id} uses its automatic context window again ({size}).")
            self.refresh_context()

        self._worker.call(lambda: self._backend.use_automatic_window(provider_id, model_id), done, self._fail)

    def replace_message(self, message: Message) -> None:
        """Swaps in an updated stored message (after pinning)."""
        self._messages = [message if m.id == message.id else m for m in self._messages]
        self._stored_inputs = ()
        self._sync_rows()

    def compact_now(self, instructions: str | None = None) -> None:
        """Summarizes the older part of the conversation now, optionally focused by instructions."""
        state = self._state
        if state.session is None or state.selection is None or state.streaming or state.compacting:
            return
        session_id, selection = state.session.id, state.selection
        focus = (instructions or "").strip() or None
        self._set(compacting=True)

        def done(event: CompactCompleted) -> None:
            self._set(compacting=False)
            text = compaction_notice(event)
            if text:
                emit(self.notice, text)
            if event.did_compact:
                self.reload()

        self._worker.call(lambda: self._backend.compact_now(session_id, selection, focus), done, self._fail)

    def _compacted(self, event: CompactCompleted) -> None:
        """A compaction during a turn ended: a notice when it compacted or fell back."""
        self._set(compacting=False)
        text = compaction_notice(event)
        if text and (event.fallback or event.did_compact):
            emit(self.notice, text)

    def reset_context(self) -> None:
        """Forgets the summary: every original message is sent again (nothing is deleted)."""
        session = self._state.session
        if session is None or self._state.streaming:
            return

        def done(updated: Session) -> None:
            emit(self.notice, "Context reset: the summary is cleared and all messages will be sent again.")
            self._set(session=updated)
            self.reload()

        self._worker.call(lambda: self._backend.reset_context(session.id), done, self._fail)

    def edit_summary(self, summary: str) -> None:
        """Replaces the compacted summary with the user's text."""
        session = self._state.session
        if session is None:
            return

        def done(updated: Session) -> None:
            self._set(session=updated)
            emit(self.notice, "Summary saved.")
            self.refresh_context()

        self._worker.call(lambda: self._backend.edit_summary(session.id, summary), done, self._fail)

    def set_pinned(self, message_id: str, pinned: bool) -> None:
        """Pins (or unpins) a message so it is always sent verbatim, even behind the boundary."""
        self._worker.call(
            lambda: self._backend.set_pinned(message_id, pinned), self._pinned, self._fail
        )

    def _pinned(self, message: Message) -> None:
        self.replace_message(message)
        emit(self.notice, "Pinned: always sent verbatim." if message.pinned else "Unpinned.")
        self.refresh_context()

    def select_model(self, selection: Selection) -> None:
        """Switches provider/model mid-session; the next send compacts first when the new window is too small."""
        if selection == self._state.selection:
            return
        self._set(selection=selection)
        session = self._state.session
        if session is None:
            return
        agent = self._state.agent_id

        def switched(updated: Session) -> None:
            self._set(session=updated)
            self.refresh_context()

        self._worker.call(lambda: self._backend.select(session.id, selection, agent), switched, self._fail)

    def select_reasoning(self, level: str | None) -> None:
        """Sets the conversation's own reasoning level (None: its agent's or the app's); before the first message
        it is kept and stored with the new session."""
        if level == self._state.reasoning:
            return
        self._set(reasoning=level)
        session = self._state.session
        if session is None:
            return
        self._reasoning_unsaved += 1

        def stored(updated: Session) -> None:
            self._reasoning_unsaved -= 1
            if not self._reasoning_unsaved:  # the newest choice is stored: the session says it now
                self._set(session=updated, reasoning=updated.reasoning)
            self.refresh_context()

        def failed(error: Exception) -> None:
            self._reasoning_unsaved -= 1
            self._fail(error)

        self._worker.call(lambda: self._backend.set_reasoning(session.id, level), stored, failed)

    def set_system_prompt(self, prompt: str | None) -> None:
        """Sets the conversation's own system prompt (None or blank: its agent's again); the gauge follows."""
        session = self._state.session
        if session is None:
            return

        def stored(updated: Session) -> None:
            self._set(session=updated)
            self.refresh_context()
            emit(self.notice, "This conversation now uses its own system prompt." if updated.system_prompt
                 else "This conversation now uses its agent's system prompt.")

        self._worker.call(lambda: self._backend.set_session_prompt(session.id, prompt), stored, self._fail)

    def select_agent(self, agent_id: AgentId) -> None:
        """Switches the session's agent (its system prompt and tools apply from the next message)."""
        if agent_id == self._state.agent_id:
            return
        self._set(agent_id=agent_id)
        session, selection = self._state.session, self._state.selection
        if session is None or selection is None:
            return
        def switched(updated: Session) -> None:
            self._set(session=updated)
            self.refresh_context()

        self._worker.call(lambda: self._backend.select(session.id, selection, agent_id), switched, self._fail)

    def open_full_output(self, message_id: str, tool_name: str) -> None:
        """Fetches the untruncated original of a tool result (kept beside the stored, truncated one)."""

        def fetched(text: str | None) -> None:
            if text is None:
                emit(self.notice, "The full original of this result was not kept (it was not truncated).")
            else:
                emit(self.text_ready, f"{tool_name} — full original ({len(text):,} characters)", text)

        self._worker.call(lambda: self._backend.full_tool_output(message_id), fetched, self._fail)
