"""The chat screen's context verbs: compact now, reset, edit the summary, pin, switch model or agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from domain.events import CompactCompleted
from domain.models import AgentId, AiModel, Message, Session
from ui.backend import Selection
from ui.signals import emit
from ui.state.chat_events import CompactionEnded, CompactionStarted, Measured, Picked, SessionUpdated

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel


def compaction_notice(event: CompactCompleted) -> str | None:
    """The snackbar text for a finished compaction (None when nothing worth telling happened)."""
    if event.fallback:
        return "Couldn't summarize older messages this time; the conversation continues and it will retry later."
    if event.did_compact:
        return f"Older messages summarized: {event.tokens_before:,} → {event.tokens_after:,} tokens."
    return event.reason or "Nothing to summarize yet."

MEASURE_AFTER_MS = 80  # a page just shown is laid out and painted before the worker's estimate of its whole path
# (about 150 ms of Python for 10,000 messages) competes with it for the GIL


class ContextController:
    """The context gauge's measures and the verbs that change what the next request sends."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm
        self.reasoning_unsaved = 0  # reasoning choices sent and not stored yet: a page read before keeps them
        self.due = 0  # the page shown (the view model's `shown`) whose measure is still to come (0: none)

    @property
    def pending(self) -> bool:
        """Whether the page shown is still to be measured (its context and usage asked for)."""
        return self.due != 0

    def measure_later(self, shown: int) -> None:
        """Measures page `shown` once it is laid out and painted; only the newest page shown (‹ › clicked
        repeatedly), and not one left meanwhile (`due` set to 0)."""
        self.due = shown
        QTimer.singleShot(MEASURE_AFTER_MS, self._vm, lambda: self._measure(shown))

    def _measure(self, shown: int) -> None:
        if shown == self.due == self._vm.shown:
            self.due = 0
            self.refresh()

    def refresh(self) -> None:
        """Re-estimates the context and reloads token totals."""
        session, selection = self._vm.state.session, self._vm.state.selection
        if session is None or selection is None:
            return
        vm = self._vm
        vm.worker.call(lambda: vm.backend.context_status(session.id, selection),
                       lambda s: vm.dispatch(Measured(context=s)), vm.fail)
        vm.worker.call(lambda: vm.backend.usage_summary(session.id), lambda u: vm.dispatch(Measured(usage=u)), vm.fail)
        vm.worker.call(lambda: vm.backend.session_mcp_servers(session.id),
                       lambda servers: vm.dispatch(Measured(mcp_servers=tuple(servers))), vm.fail)

    def set_mcp_server_enabled(self, name: str, enabled: bool) -> None:
        """Turns an MCP server on or off for this conversation, then measures the context again."""
        session = self._vm.state.session
        if session is None:
            return

        def done(_: object) -> None:
            emit(self._vm.notice, f"{name} is {'on' if enabled else 'off'} in this conversation.")
            self.refresh()

        vm = self._vm
        vm.worker.call(lambda: vm.backend.set_session_mcp_server(session.id, name, enabled), done, vm.fail)

    def use_automatic_window(self) -> None:
        """Undoes a window the user set or the app learned or guessed for the gauge's model: its registry's, provider's
        or server's window applies again; then measures the context again."""
        status = self._vm.state.context
        if status is None or status.provider_id is None or status.model_id is None:
            return
        provider_id, model_id = status.provider_id, status.model_id

        def done(model: AiModel) -> None:
            size = f"{model.context_window_size:,} tokens" if model.context_window_size else "unknown"
            emit(self._vm.notice, f"{model.id} uses its automatic context window again ({size}).")
            self.refresh()

        self._vm.worker.call(lambda: self._vm.backend.use_automatic_window(provider_id, model_id), done, self._vm.fail)

    def replace_message(self, message: Message) -> None:
        """Swaps in an updated stored message (after pinning)."""
        rows = self._vm.rows
        rows.messages = [message if m.id == message.id else m for m in rows.messages]
        rows.forget_cache()
        self._vm.sync_rows()

    def compact_now(self, instructions: str | None = None) -> None:
        """Summarizes the older part of the conversation now, optionally focused by instructions."""
        state = self._vm.state
        if state.session is None or state.selection is None or state.streaming or state.compacting:
            return
        session_id, selection = state.session.id, state.selection
        focus = (instructions or "").strip() or None
        self._vm.dispatch(CompactionStarted(in_turn=False))

        def done(event: CompactCompleted) -> None:
            self._vm.dispatch(CompactionEnded())
            self._vm.queue.turn_ended(failed=False, unsent=None)  # a message queued meanwhile goes now
            text = compaction_notice(event)
            if text:
                emit(self._vm.notice, text)
            if event.did_compact:
                self._vm.reload()

        self._vm.worker.call(lambda: self._vm.backend.compact_now(session_id, selection, focus), done, self._vm.fail)

    def reset_context(self) -> None:
        """Forgets the summary: every original message is sent again (nothing is deleted)."""
        session = self._vm.state.session
        if session is None or self._vm.state.streaming:
            return

        def done(updated: Session) -> None:
            emit(self._vm.notice, "Context reset: the summary is cleared and all messages will be sent again.")
            self._vm.dispatch(SessionUpdated(updated))
            self._vm.reload()

        self._vm.worker.call(lambda: self._vm.backend.reset_context(session.id), done, self._vm.fail)

    def edit_summary(self, summary: str) -> None:
        """Replaces the compacted summary with the user's text."""
        session = self._vm.state.session
        if session is None:
            return

        def done(updated: Session) -> None:
            self._vm.dispatch(SessionUpdated(updated))
            emit(self._vm.notice, "Summary saved.")
            self.refresh()

        self._vm.worker.call(lambda: self._vm.backend.edit_summary(session.id, summary), done, self._vm.fail)

    def set_pinned(self, message_id: str, pinned: bool) -> None:
        """Pins (or unpins) a message so it is always sent verbatim, even behind the boundary."""
        self._vm.worker.call(
            lambda: self._vm.backend.set_pinned(message_id, pinned), self._pinned, self._vm.fail
        )

    def _pinned(self, message: Message) -> None:
        self.replace_message(message)
        emit(self._vm.notice, "Pinned: always sent verbatim." if message.pinned else "Unpinned.")
        self.refresh()

    def select_model(self, selection: Selection) -> None:
        """Switches provider/model mid-session; the next send compacts first when the new window is too small."""
        if selection == self._vm.state.selection:
            return
        self._vm.dispatch(Picked(selection=selection))
        session = self._vm.state.session
        if session is None:
            return
        agent = self._vm.state.agent_id

        def switched(updated: Session) -> None:
            self._vm.dispatch(SessionUpdated(updated))
            self.refresh()

        self._vm.worker.call(lambda: self._vm.backend.select(session.id, selection, agent), switched, self._vm.fail)

    def select_reasoning(self, level: str | None) -> None:
        """Sets the conversation's own reasoning level (None: its agent's or the app's); before the first message
        it is kept and stored with the new session."""
        if level == self._vm.state.reasoning:
            return
        self._vm.dispatch(Picked(reasoning=level, set_reasoning=True))
        session = self._vm.state.session
        if session is None:
            return
        self.reasoning_unsaved += 1

        def stored(updated: Session) -> None:
            self.reasoning_unsaved -= 1
            if not self.reasoning_unsaved:  # the newest choice is stored: the session says it now
                self._vm.dispatch(SessionUpdated(updated, reasoning=True))
            self.refresh()

        def failed(error: Exception) -> None:
            self.reasoning_unsaved -= 1
            self._vm.fail(error)

        self._vm.worker.call(lambda: self._vm.backend.set_reasoning(session.id, level), stored, failed)

    def set_web_search(self, on: bool) -> None:
        """Stores the conversation's web search choice; the header follows the session read back."""
        session = self._vm.state.session
        if session is None:  # kept, and stored with the session the first message makes
            self._vm.dispatch(Picked(web_search=on, set_web_search=True))
            return
        if session.web_search is on:
            return
        self._vm.worker.call(lambda: self._vm.backend.set_web_search(session.id, on),
                             lambda updated: self._vm.dispatch(SessionUpdated(updated)), self._vm.fail)

    def set_system_prompt(self, prompt: str | None) -> None:
        """Sets the conversation's own system prompt (None or blank: its agent's again); the gauge follows."""
        session = self._vm.state.session
        if session is None:
            return

        def stored(updated: Session) -> None:
            self._vm.dispatch(SessionUpdated(updated))
            self.refresh()
            emit(self._vm.notice, "This conversation now uses its own system prompt." if updated.system_prompt
                 else "This conversation now uses its agent's system prompt.")

        self._vm.worker.call(lambda: self._vm.backend.set_session_prompt(session.id, prompt), stored, self._vm.fail)

    def select_agent(self, agent_id: AgentId) -> None:
        """Switches the session's agent (its system prompt and tools apply from the next message)."""
        if agent_id == self._vm.state.agent_id:
            return
        self._vm.dispatch(Picked(agent_id=agent_id))
        session, selection = self._vm.state.session, self._vm.state.selection
        if session is None or selection is None:
            return
        def switched(updated: Session) -> None:
            self._vm.dispatch(SessionUpdated(updated))
            self.refresh()

        self._vm.worker.call(lambda: self._vm.backend.select(session.id, selection, agent_id), switched, self._vm.fail)

    def open_full_output(self, message_id: str, tool_name: str) -> None:
        """Fetches the untruncated original of a tool result (kept beside the stored, truncated one)."""

        def fetched(text: str | None) -> None:
            if text is None:
                emit(self._vm.notice, "The full original of this result was not kept (it was not truncated).")
            else:
                emit(self._vm.text_ready, f"{tool_name} — full original ({len(text):,} characters)", text)

        self._vm.worker.call(lambda: self._vm.backend.full_tool_output(message_id), fetched, self._vm.fail)
