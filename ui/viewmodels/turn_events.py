"""What a turn's stream reports besides its text, shown: tool calls and results in the live rows, a failure, a
compaction, the context measured, notices and the generated title."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    CompactStarted,
    ContextStatusChanged,
    MemoryFlushed,
    Notice,
    ResponseComplete,
    SourcesCited,
    TitleGenerated,
    ToolCallStarted,
    ToolProgress,
    ToolResultStored,
    ToolRoundLimitReached,
)
from ui.error_text import notice_text
from ui.signals import emit
from ui.state.chat_events import (
    CompactionEnded,
    CompactionStarted,
    Measured,
    ReplyFailed,
    SessionUpdated,
)
from ui.viewmodels.chat_context import compaction_notice
from ui.viewmodels.live_turn import LiveTurn

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel


def show_event(vm: ChatViewModel, event: ChatEvent, live: LiveTurn) -> None:
    """Shows one stream event other than text: in the live rows (tools, sources, errors) or as a reducer event
    (a compaction, the context measured, a title) or a notice."""
    if isinstance(event, ToolCallStarted):
        live.tool_started(event)
    elif isinstance(event, ToolResultStored):
        live.tool_finished(event)
    elif isinstance(event, ToolProgress):
        live.tool_progress(event)
    elif isinstance(event, ResponseComplete):
        live.finish()
    elif isinstance(event, SourcesCited):
        live.cite(event.record)
    elif isinstance(event, ChatError):
        vm.rows.error_row = live.failed(event)
        vm.dispatch(ReplyFailed(vm.rows.error_row.text))
    elif isinstance(event, ToolRoundLimitReached):
        vm.rows.error_row = live.round_limit(event)
    elif isinstance(event, CompactStarted):
        live.finish()
        vm.dispatch(CompactionStarted())
    elif isinstance(event, CompactCompleted):
        vm.dispatch(CompactionEnded())
        text = compaction_notice(event)
        if text and (event.fallback or event.did_compact):
            emit(vm.notice, text)
    elif isinstance(event, ContextStatusChanged):
        vm.dispatch(Measured(context=event.status))
    elif isinstance(event, MemoryFlushed) and event.saved_count:
        emit(vm.notice, f"Saved {event.saved_count} fact(s) to long-term memory before summarizing.")
    elif isinstance(event, Notice):
        emit(vm.notice, notice_text(event))
    elif isinstance(event, TitleGenerated) and vm.state.session is not None:
        session = replace(vm.state.session, title=event.title)
        vm.dispatch(SessionUpdated(session))
        emit(vm.session_changed, session)
