"""The rows of the conversation shown: the stored messages of the pages read, the running turn's live rows and an
error row, set into the list model when they change (no state of its own besides what it shows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from domain.models import Message
from ui.backend import ConversationPage
from ui.models.chat_rows import ChatRow, rows_from_messages
from ui.models.message_list import MessageListModel
from ui.state.chat_state import ChatState
from ui.viewmodels.live_turn import LiveTurn


class Transcript:
    """Holds what the rows are made of and rebuilds the stored ones only when their inputs changed."""

    def __init__(self, model: MessageListModel, state: Callable[[], ChatState]) -> None:
        self.model = model
        self._state = state
        self.messages: list[Message] = []
        self.page: ConversationPage | None = None
        self.live: LiveTurn | None = None
        self.error_row: ChatRow | None = None
        self._stored_rows: list[ChatRow] = []
        self._stored_inputs: tuple[object, ...] = ()

    def reset(self) -> None:
        """Shows nothing (a new chat)."""
        self.messages, self.page, self.live, self.error_row = [], None, None, None
        self.model.set_rows([])

    def forget_cache(self) -> None:
        """A stored message changed in place (pinned): the stored rows are rebuilt at the next sync."""
        self._stored_inputs = ()

    @property
    def newest_seq(self) -> int:
        """The newest stored message's seq shown (0: none)."""
        return self.messages[-1].seq if self.messages else 0

    def sync(self) -> int:
        """Sets the rows into the model; returns how many messages the running turn has added so far."""
        state, page, messages = self._state(), self.page, self.messages
        inputs = (id(page), len(messages), messages[-1] if messages else None, messages[0] if messages else None,
                  state.summarized_count, state.show_originals, state.has_older, state.has_newer)
        if inputs != self._stored_inputs:  # rebuilt only when the stored messages or their view changed
            self._stored_rows = rows_from_messages(
                messages,
                boundary_seq=page.boundary_seq if page else None,
                summarized_count=state.summarized_count,
                show_originals=state.show_originals,
                has_older=state.has_older, has_newer=state.has_newer,
                siblings=page.siblings if page else None,
            )
            self._stored_inputs = inputs
        rows = list(self._stored_rows)
        error_retries = self.error_row is not None and self.error_row.retryable
        if rows and rows[-1].retryable and (self.live is not None or error_retries):
            rows[-1] = replace(rows[-1], retryable=False)  # a turn runs, or its error row offers Retry itself
        if self.live is not None:
            rows += self.live.rows
        elif self.error_row is not None:
            rows.append(self.error_row)
        self.model.set_rows(rows)
        return self.live.message_count if self.live is not None else 0
