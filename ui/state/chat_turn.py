"""How a turn moves on the stream's events (pure): Sending → Streaming ⇄ Compacting → (Stopping | Failing) …; the
stream's end and the read-back are the reducer's."""

from __future__ import annotations

from ui.state.chat_events import (
    CompactionEnded,
    CompactionStarted,
    ProviderWaiting,
    ReplyFailed,
    StopRequested,
    StreamActive,
)
from ui.state.chat_state import Compacting, Failed, Failing, Idle, Sending, Stopping, Streaming, Turn

StreamEvent = StreamActive | ProviderWaiting | ReplyFailed | CompactionStarted | CompactionEnded | StopRequested


def next_turn(turn: Turn, event: StreamEvent) -> Turn:
    """The turn after a stream event (or a compaction the user asked for); unchanged where it does not apply."""
    match event, turn:
        case StreamActive(), Sending() | Streaming():
            return Streaming()
        case ProviderWaiting(seconds=seconds), Sending() | Streaming():
            return Streaming(seconds)
        case ReplyFailed(error=error), Sending() | Streaming() | Compacting(in_turn=True):
            return Failing(error)
        case CompactionStarted(in_turn=True), Sending() | Streaming():
            return Compacting(in_turn=True)
        case CompactionStarted(in_turn=False), Idle() | Failed():
            return Compacting(in_turn=False)
        case CompactionEnded(), Compacting(in_turn=True):
            return Streaming()
        case CompactionEnded(), Compacting(in_turn=False):
            return Idle()
        case StopRequested(), Sending() | Streaming() | Compacting(in_turn=True):
            return Stopping()
    return turn
