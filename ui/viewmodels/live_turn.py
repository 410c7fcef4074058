"""The rows of a reply while it streams: user text, reply segments, tool calls, errors (no Qt, no I/O)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from domain.attachment import Attachment
from domain.events import ChatError, ToolCallStarted, ToolProgress, ToolResultStored, ToolRoundLimitReached
from domain.web import WebSearchRecord
from ui.error_text import retired_without_successor, settings_page, successor_of, turn_error_text
from ui.markdown_sources import with_sources
from ui.models.chat_rows import ChatRow, RowKind, format_arguments


class LiveTurn:
    """Accumulates one turn's events into ChatRows; the stored messages replace them when the turn ends."""

    def __init__(self, user_text: str | None, turn: int, clock: Callable[[], float] = time.monotonic,
                 attachments: tuple[Attachment, ...] = ()) -> None:
        self._turn = turn
        self._rows: list[ChatRow] = []
        self._segment = 0
        self._reply: ChatRow | None = None
        self._thinking: ChatRow | None = None  # the reasoning streaming now (open until the reply starts)
        self._thinking_began = 0.0
        self._clock = clock
        self._web: WebSearchRecord | None = None  # the sources the reply closing now cites
        self._pending = True  # nothing has come back yet: a pending reply (a typing indicator) shows at once
        if user_text is not None:
            self._rows.append(ChatRow(RowKind.USER, f"live-{turn}-user", text=user_text, attachments=attachments))

    @property
    def rows(self) -> list[ChatRow]:
        """The rows so far, the streaming reply last (the pending reply while nothing has come back)."""
        if self._pending:
            return [*self._rows, ChatRow(RowKind.ASSISTANT, f"live-{self._turn}-reply-1", streaming=True)]
        return self._real_rows()

    def _real_rows(self) -> list[ChatRow]:
        live = [row for row in (self._thinking, self._reply) if row is not None]
        return [*self._rows, *live]

    @property
    def pending(self) -> bool:
        """Whether nothing has come back yet (the pending reply shows)."""
        return self._pending

    @property
    def message_count(self) -> int:
        """How many stored messages the rows so far stand for (a finished tool row is a call and its result)."""
        count = 0
        for row in self._real_rows():
            if row.kind is RowKind.TOOL:
                count += 1 if row.tool_running else 2
            elif row.kind in (RowKind.USER, RowKind.ASSISTANT):
                count += 1
        return count

    def add_thinking(self, text: str) -> None:
        """Appends streamed reasoning to the open Thinking section (starting one when needed)."""
        self._pending = False
        if self._thinking is None:
            self._close_segment()
            self._segment += 1
            self._thinking_began = self._clock()
            self._thinking = ChatRow(RowKind.THINKING, f"live-{self._turn}-thinking-{self._segment}", text=text,
                                     streaming=True)
        else:
            self._thinking = replace(self._thinking, text=self._thinking.text + text)

    def _close_thinking(self) -> None:
        """The reply (or a tool call) began: the Thinking section closes, with how long the model thought."""
        if self._thinking is not None:
            elapsed = round((self._clock() - self._thinking_began) * 1000)
            self._rows.append(replace(self._thinking, streaming=False, thinking_ms=elapsed))
            self._thinking = None

    def add_text(self, text: str) -> None:
        """Appends streamed text to the current reply segment (starting one when needed)."""
        self._pending = False
        if text:
            self._close_thinking()
        if self._reply is None:
            self._segment += 1
            self._reply = ChatRow(
                RowKind.ASSISTANT, f"live-{self._turn}-reply-{self._segment}", text=text, streaming=True
            )
        else:
            self._reply = replace(self._reply, text=self._reply.text + text)

    def tool_started(self, event: ToolCallStarted) -> None:
        """Closes the current reply segment and adds a running tool row."""
        self._pending = False
        self._close_segment()
        self._rows.append(
            ChatRow(
                RowKind.TOOL, f"live-{self._turn}-tool-{event.call_id}", tool_name=event.name,
                tool_input=format_arguments(event.input), tool_running=True,
            )
        )

    def tool_progress(self, event: ToolProgress) -> None:
        """Shows a running tool's latest progress report on its row."""
        key = f"live-{self._turn}-tool-{event.call_id}"
        for i, row in enumerate(self._rows):
            if row.key == key and row.tool_running:
                self._rows[i] = replace(row, tool_progress=event.text)
                return

    def tool_finished(self, event: ToolResultStored) -> None:
        """Marks the tool's row done with its result size and whether it was truncated."""
        self._pending = False
        key = f"live-{self._turn}-tool-{event.call_id}"
        for i, row in enumerate(self._rows):
            if row.key == key:
                self._rows[i] = replace(
                    row, tool_running=False, tool_chars=event.chars, tool_truncated=event.truncated,
                    tool_error=event.is_error, message_id=event.message_id,
                )
                return
        self._rows.append(
            ChatRow(
                RowKind.TOOL, key, tool_name=event.name, tool_chars=event.chars, tool_truncated=event.truncated,
                tool_error=event.is_error, message_id=event.message_id,
            )
        )

    def failed(self, event: ChatError) -> ChatRow:
        """Adds the error row (with Retry when the error is retryable) and returns it; when part of the reply had
        arrived, the row says the reply was cut off and kept rather than that the provider was never reached."""
        self._pending = False
        cut_off = self._reply is not None and bool(self._reply.text.strip())
        self._close_segment(incomplete=True, ended="cut")
        text = turn_error_text(event, cut_off=cut_off)
        successor = successor_of(event.error)
        row = ChatRow(RowKind.ERROR, f"live-{self._turn}-error", text=text, retryable=event.retryable,
                      fix_page=settings_page(event.error), switch_to=successor[:2] if successor else None,
                      switch_label=successor[2] if successor else "",
                      choose_model=retired_without_successor(event.error))
        self._rows.append(row)
        return row

    def round_limit(self, event: ToolRoundLimitReached) -> ChatRow:
        """Adds a notice that the turn stopped after too many tool rounds."""
        self._pending = False
        self._close_segment()
        row = ChatRow(
            RowKind.ERROR, f"live-{self._turn}-rounds",
            text=f"Stopped after {event.rounds} tool rounds. Ask again to let the model continue.",
            retryable=False,
        )
        self._rows.append(row)
        return row

    def cite(self, record: WebSearchRecord) -> None:
        """The stored reply cites web sources (it is whole: the event follows its last text): its superscripts and
        sources list show now, not only once the stored rows are read back."""
        if self._reply is not None:
            self._web = record
            self._close_segment()
            return
        last = max((i for i, row in enumerate(self._rows) if row.kind is RowKind.ASSISTANT), default=None)
        if last is not None:
            self._rows[last] = replace(self._rows[last], text=with_sources(self._rows[last].text, record))

    def finish(self, *, incomplete: bool = False) -> None:
        """Ends streaming of the current segment."""
        self._pending = False
        self._close_segment(incomplete=incomplete, ended="stopped" if incomplete else "")

    def _close_segment(self, *, incomplete: bool = False, ended: str = "") -> None:
        self._close_thinking()
        if self._reply is not None:
            if self._reply.text.strip() or incomplete:
                text = with_sources(self._reply.text, self._web) if self._web is not None else self._reply.text
                self._rows.append(replace(self._reply, text=text, streaming=False, incomplete=incomplete, ended=ended))
            self._reply = None
            self._web = None
