"""The chat screen's state as the widgets import it (defined in ui/state/chat_state.py, Qt-free)."""

from __future__ import annotations

from ui.state.chat_state import (
    ChatState,
    Compacting,
    Composer,
    Conversation,
    Empty,
    Failed,
    Failing,
    Header,
    Idle,
    Loading,
    ModelChoice,
    Queued,
    ReadingBack,
    Ready,
    Sending,
    Stopping,
    Streaming,
    Turn,
)

__all__ = [
    "ChatState", "Compacting", "Composer", "Conversation", "Empty", "Failed", "Failing", "Header", "Idle", "Loading",
    "ModelChoice", "Queued", "ReadingBack", "Ready", "Sending", "Stopping", "Streaming", "Turn",
]
