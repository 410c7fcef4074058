"""Drives one chat screen: a thin QObject that feeds the pure reducer events (from the backend, the turn's stream and
the widgets) and emits the new state whole; its verbs live in small controllers composed into it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from domain.attachment import Attachment
from domain.models import AgentId, Message, MessageId, SessionId
from ui.backend import ConversationBackend, ConversationPage, Selection
from ui.error_text import describe
from ui.models.message_list import MessageListModel
from ui.signals import emit
from ui.state.chat_events import (
    ChatEvent,
    ChoicesOffered,
    Cleared,
    DraftChanged,
    DraftReturned,
    DraftSent,
    LiveCounted,
    OpenStarted,
    PageOpened,
    VerbFailed,
)
from ui.state.chat_reducer import initial, reduce
from ui.state.chat_state import ChatState, Edit, ModelChoice
from ui.viewmodels.chat_attachments import AttachmentsController
from ui.viewmodels.chat_branches import BranchesController
from ui.viewmodels.chat_context import ContextController
from ui.viewmodels.chat_mcp import McpController
from ui.viewmodels.chat_paging import PAGE, PagingController
from ui.viewmodels.chat_queue import QueueController
from ui.viewmodels.chat_transcript import Transcript
from ui.viewmodels.chat_turns import TurnController
from ui.worker import AsyncWorker


class ChatViewModel(QObject):
    """The chat screen's verbs; rows go to `model`, everything else to the ChatState emitted by state_changed."""

    state_changed = Signal(object)  # ChatState
    notice = Signal(str)  # a non-blocking message for the snackbar
    focus = Signal(str)  # a message id: the view scrolls to it and highlights it briefly (a search hit)
    text_ready = Signal(str, str)  # title, text: a long text to show in a reader (a tool's full output)
    session_changed = Signal(object)  # Session: title or totals changed, the sidebar refreshes
    text_returned = Signal(str)  # a message that was not sent went back to the draft (the composer takes the focus)
    edit_requested = Signal(str)  # a message's text to edit in the composer
    open_requested = Signal(str)  # a session to open (a fork just made)
    file_ready = Signal(str)  # a stored attachment copied out under its name, to open in the system's viewer
    thumbnails_changed = Signal()

    def __init__(self, backend: ConversationBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self.backend = backend
        self.worker = worker
        self.model = MessageListModel()
        self._state: ChatState = initial()
        self.rows = Transcript(self.model, lambda: self._state)
        self.queue = QueueController(self)
        self.turns = TurnController(self)
        self.paging = PagingController(self)
        self.files = AttachmentsController(self)
        self.branches = BranchesController(self)
        self.context = ContextController(self)
        self.mcp = McpController(self)  # MCP prompts, resources and resource links
        self.shown = 0  # pages shown or left so far: a read answered after another page opened is stale

    @property
    def state(self) -> ChatState:
        """The current state."""
        return self._state

    def dispatch(self, event: ChatEvent) -> None:
        """Moves the state on by one event and emits it when it changed."""
        state = reduce(self._state, event)
        if state is not self._state and state != self._state:
            self._state = state
            emit(self.state_changed, state)

    def fail(self, error: Exception) -> None:
        """A read or a verb failed: the error shows and the snackbar tells it."""
        self.paging.reset()
        self.dispatch(VerbFailed(describe(error)))
        emit(self.notice, describe(error))

    def sync_rows(self) -> None:
        """Sets the rows into the model; the header counts what the running turn added."""
        self.dispatch(LiveCounted(self.rows.sync()))

    # --- opening -------------------------------------------------------------------------------------------------
    def set_choices(self, choices: Sequence[ModelChoice], agents: Sequence[Any], default: Selection | None) -> None:
        """Fills the provider/model and agent pickers; keeps the current selection when it is still offered."""
        self.dispatch(ChoicesOffered(tuple(choices), tuple(agents), default))

    def clear(self) -> None:
        """Shows no session (a new chat not yet sent)."""
        self.turns.leave()
        self.rows.reset()
        self.context.due = 0
        self.dispatch(Cleared())

    def open(self, session_id: SessionId) -> None:
        """Loads a session's newest messages; older ones page in on demand."""
        state = self._state  # the session shown: opened again only from a window around a search hit (to its newest)
        if state.session is not None and state.session.id == session_id and not state.loading and not state.has_newer:
            return
        self.leave()
        self.worker.call(lambda: self.backend.load_conversation(session_id, PAGE), self._opened, self.fail)
        self.files.refresh_knowledge(session_id)  # its agent's changed knowledge files, indexed in the background

    def leave(self) -> None:
        """Another page opens: the running turn is left (storage keeps it), the queue goes back to the composer."""
        self.turns.leave()
        self.rows.live, self.rows.error_row = None, None
        self.shown += 1
        self.context.due = 0  # the page left is not measured
        self.dispatch(OpenStarted())

    def reload(self) -> None:
        """Reloads the open session from storage (after a turn, a compaction or a reset)."""
        session = self._state.session
        if session is not None:
            self.worker.call(lambda: self.backend.load_conversation(session.id, PAGE), self._opened, self.fail)

    def _opened(self, page: ConversationPage) -> None:
        if self._state.has_newer:  # a window around a search hit replaced: the view starts anew (at the newest)
            self.model.set_rows([])
        self.rows.page = page
        self.rows.messages = list(page.messages)
        self.dispatch(PageOpened(page.session, page.summarized_count, page.total_count, page.has_older,
                                 page.has_newer, keep_reasoning=self.context.reasoning_unsaved > 0))
        self.sync_rows()
        self.shown += 1
        self.context.measure_later(self.shown)

    # --- the composer's draft ------------------------------------------------------------------------------------
    def set_draft(self, text: str) -> None:
        """The composer's text changed (typed, pasted, cut)."""
        self.dispatch(DraftChanged(text))

    def submit(self, text: str) -> bool:
        """Sends (or queues) the composer's text; the draft empties when it is taken (or gets back the draft from
        before an edit). False: not sent now, the draft stays."""
        sent = self.send(text)
        if sent:
            self.dispatch(DraftSent())
        return sent

    def give_back(self, text: str, edit: Edit | None = None) -> None:
        """A message that was not sent goes back to the composer, above anything typed since (an edit: as that
        edit, when no other one is open)."""
        self.dispatch(DraftReturned(text, edit))
        emit(self.text_returned, text)

    # --- the turn (TurnController) ---------------------------------------------------------------------------------
    def send(self, text: str) -> bool:
        """Sends a user message (creating the session first when needed); False when it cannot be sent now."""
        return self.turns.send(text)

    def retry(self) -> None:
        """Runs the failed turn again."""
        self.turns.retry()

    def stop(self) -> None:
        """Stops the streaming reply; what arrived so far is kept (stored as incomplete)."""
        self.turns.stop()

    def cancel_queued(self) -> None:
        """Withdraws the queued message; its text goes back to the composer."""
        self.queue.cancel()

    # --- reading (PagingController) --------------------------------------------------------------------------------
    def open_at(self, session_id: SessionId, message_id: MessageId) -> None:
        """Opens a session paged back to a message (a search hit) and asks the view to show it."""
        self.paging.open_at(session_id, message_id)

    def load_older(self) -> None:
        """Prepends the previous page of messages."""
        self.paging.load_older()

    def load_newer(self) -> None:
        """Appends the next page below a window around a search hit."""
        self.paging.load_newer()

    def jump_to_latest(self) -> None:
        """Replaces a window around a search hit with the conversation's newest page."""
        self.paging.jump_to_latest()

    def set_show_originals(self, show: bool) -> None:
        """Shows (dimmed) or hides the original messages behind the compaction boundary."""
        self.paging.set_show_originals(show)

    def last_reply(self) -> str | None:
        """The text of the newest assistant reply (for Ctrl+Shift+C)."""
        return self.paging.last_reply()

    # --- files (AttachmentsController) -----------------------------------------------------------------------------
    @property
    def thumbnails(self) -> dict[str, bytes]:
        """PNG thumbnails by sha256 (filled as they arrive)."""
        return self.files.thumbnails

    def attach_paths(self, paths: Sequence[str]) -> None:
        """Takes files in; each shows in the composer, or a notice says why not."""
        self.files.attach_paths(paths)

    def attach_image(self, png: bytes, name: str | None = None) -> None:
        """Takes a pasted image in (PNG bytes from the clipboard)."""
        self.files.attach_image(png, name)

    def remove_pending(self, index: int) -> None:
        """Takes a file out of the composer before sending."""
        self.files.remove_pending(index)

    def reattach(self, attachments: Sequence[Attachment]) -> None:
        """Puts earlier attachments back into the composer."""
        self.files.reattach(attachments)

    def open_attachment(self, attachment: Attachment) -> None:
        """Opens the stored copy full size in the system's viewer."""
        self.files.open_attachment(attachment)

    def open_cited_document(self, name: str) -> None:
        """Opens the knowledge file a citation names (no attachment of that name is shown)."""
        self.files.open_cited_document(name)

    def want_thumbnail(self, attachment: Attachment) -> None:
        """Fetches an image's thumbnail once."""
        self.files.want_thumbnail(attachment)

    # --- branches and edits (BranchesController) -----------------------------------------------------------------
    def switch_branch(self, message_id: str) -> None:
        """Shows the branch through another version of a message."""
        self.branches.switch_branch(message_id)

    def fork(self, message_id: str) -> None:
        """Copies the path up to a message into a new session and opens it."""
        self.branches.fork(message_id)

    def delete_branch(self, message_id: str) -> None:
        """Deletes the branch through a message."""
        self.branches.delete_branch(message_id)

    def start_edit(self, message_id: str, text: str) -> None:
        """Puts a message's text in the composer; the next Send sends it as a new version of that message."""
        self.branches.start_edit(message_id, text)

    def cancel_edit(self) -> None:
        """Leaves edit mode: the next Send is an ordinary message again."""
        self.branches.cancel_edit()

    def edit_last(self) -> bool:
        """Starts editing the newest user message shown (Up in an empty composer); False when none."""
        return self.branches.edit_last()

    def regenerate(self, message_id: str) -> None:
        """Answers again the user message a reply answered; the old reply stays."""
        self.branches.regenerate(message_id)

    # --- context and header (ContextController) --------------------------------------------------------------------
    def refresh_context(self) -> None:
        """Re-estimates the context and reloads token totals."""
        self.context.refresh()

    def set_mcp_server_enabled(self, name: str, enabled: bool) -> None:
        """Turns an MCP server on or off for this conversation."""
        self.context.set_mcp_server_enabled(name, enabled)

    def use_automatic_window(self) -> None:
        """Undoes a window set or learned for the gauge's model."""
        self.context.use_automatic_window()

    def replace_message(self, message: Message) -> None:
        """Swaps in an updated stored message (after pinning)."""
        self.context.replace_message(message)

    def compact_now(self, instructions: str | None = None) -> None:
        """Summarizes the older part of the conversation now."""
        self.context.compact_now(instructions)

    def reset_context(self) -> None:
        """Forgets the summary: every original message is sent again."""
        self.context.reset_context()

    def edit_summary(self, summary: str) -> None:
        """Replaces the compacted summary with the user's text."""
        self.context.edit_summary(summary)

    def set_pinned(self, message_id: str, pinned: bool) -> None:
        """Pins (or unpins) a message."""
        self.context.set_pinned(message_id, pinned)

    def select_model(self, selection: Selection) -> None:
        """Switches provider/model mid-session."""
        self.context.select_model(selection)

    def select_reasoning(self, level: str | None) -> None:
        """Sets the conversation's own reasoning level."""
        self.context.select_reasoning(level)

    def set_web_search(self, on: bool) -> None:
        """Turns the conversation's web search on or off (stored with the session)."""
        self.context.set_web_search(on)

    def set_system_prompt(self, prompt: str | None) -> None:
        """Sets the conversation's own system prompt."""
        self.context.set_system_prompt(prompt)

    def select_agent(self, agent_id: AgentId) -> None:
        """Switches the session's agent."""
        self.context.select_agent(agent_id)

    def open_full_output(self, message_id: str, tool_name: str) -> None:
        """Fetches the untruncated original of a tool result."""
        self.context.open_full_output(message_id, tool_name)
