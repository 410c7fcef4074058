"""The regenerate part of the branches benchmark: the real backend, except that regenerate() streams a scripted reply
at 200 tokens per second (as bench.gui_stream_lag does for send) after checking out the question on the worker, and
stores it as a new version of the reply."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from app.container import Container
from app.gui.bridge import ContainerBackend
from bench.gui_common import paced, scripted_reply
from domain.chat.paths import BranchSwitcher
from domain.events import ChatEvent, ResponseComplete
from domain.models import Message, MessageId, MessageType, SessionId, Usage
from ui.backend import Selection


class RegeneratingBackend(ContainerBackend):
    """The real backend; regenerate() answers the reply's question again with a paced, scripted stream."""

    seconds = 3.0

    def __init__(self, container: Container) -> None:
        super().__init__(container)
        self._container = container
        self.regenerated = 0

    async def regenerate(self, session_id: SessionId, message_id: MessageId, selection: Selection
                         ) -> AsyncIterator[ChatEvent]:
        c = self._container
        reply = c.messages.get(message_id)
        asked = reply.parent_id if reply is not None else None
        if asked is None:
            raise RuntimeError(f"no question above {message_id}")
        BranchSwitcher(c.store, c.sessions, c.messages).switch(session_id, asked)  # the new version's parent
        chunks = scripted_reply(20, self.seconds)
        async for delta in paced(chunks):
            yield delta
        self.regenerated += 1
        stored = c.messages.add(Message(f"regen-{time.time_ns()}", session_id, MessageType.AI_RESPONSE,
                                        "".join(chunks), model_id=selection.model_id))
        yield ResponseComplete(stored.id, Usage(1000, len(chunks)))
