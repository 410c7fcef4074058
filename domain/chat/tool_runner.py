"""Runs the tools a reply asked for and stores each result through the truncator."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Collection
from dataclasses import replace

from domain.attachment import Attachment, AttachmentKind
from domain.chat.records import MessageFactory
from domain.context.truncator import ToolResultTruncator
from domain.events import Notice, ToolCallRequested, ToolCallStarted, ToolProgress, ToolResultStored
from domain.models import Message
from domain.ports import MessageRepository
from domain.provider_ports import ToolContext, ToolExecutor, ToolOutcome

log = logging.getLogger(__name__)

INTERRUPTED_OUTPUT = "Error: the turn was stopped before this tool returned a result."
NOT_RUN_OUTPUT = "Error: not run — the limit of {rounds} tool rounds for one message was reached."


class ToolRunner:
    """Executes tool calls one by one; failures and bad arguments become error results, never a raise."""

    def __init__(
        self,
        messages: MessageRepository,
        executor: ToolExecutor,
        factory: MessageFactory,
        truncator: ToolResultTruncator,
        context: ToolContext,
        offered: Collection[str],
    ) -> None:
        self._messages = messages
        self._executor = executor
        self._factory = factory
        self._truncator = truncator
        self._context = context
        self._offered = set(offered)
        self._stored: list[Message] = []

    async def run(
        self, call: ToolCallRequested
    ) -> AsyncIterator[ToolCallStarted | ToolProgress | ToolResultStored | Notice]:
        """Announces the call, runs it (announcing the progress it reports meanwhile), stores the (truncated) result
        and announces that (and any notice). Closing the stream early (Stop) cancels the running tool."""
        yield ToolCallStarted(call.id, call.name, call.input)
        reports: asyncio.Queue[ToolProgress] = asyncio.Queue()

        def report(progress: float, total: float | None, message: str | None) -> None:
            reports.put_nowait(ToolProgress(call.id, call.name, progress, total, message))

        running = asyncio.ensure_future(self._execute(call, replace(self._context, progress=report)))
        waiting: asyncio.Future[ToolProgress] | None = None
        try:
            while not running.done():
                waiting = asyncio.ensure_future(reports.get())
                await asyncio.wait({running, waiting}, return_when=asyncio.FIRST_COMPLETED)
                if waiting.done():
                    yield waiting.result()
                else:
                    waiting.cancel()
            while not reports.empty():  # reported just before the tool returned
                yield reports.get_nowait()
            outcome = running.result()
        finally:
            if waiting is not None and not waiting.done():
                waiting.cancel()
            if not running.done():
                running.cancel()
                with contextlib.suppress(BaseException):
                    await running
        yield self.store(call.id, call.name, outcome.output, is_error=outcome.is_error,
                         attachments=outcome.attachments)
        if outcome.notice:
            yield Notice(outcome.notice)

    async def _execute(self, call: ToolCallRequested, context: ToolContext) -> ToolOutcome:
        if call.name not in self._offered:
            offered = ", ".join(sorted(self._offered)) or "none"
            return ToolOutcome(f"Error: tool {call.name!r} is not available here (available: {offered}).", True)
        try:
            return await self._executor.execute(call.name, call.input, context)
        except Exception as err:  # a tool's own failure must not end the turn: the model reads it instead
            log.exception("tool %s raised", call.name)
            return ToolOutcome(f"Error: {call.name} failed: {type(err).__name__}: {err}", is_error=True)

    def take_stored(self) -> list[Message]:
        """The result messages stored since the last call (with their seq), for the turn's context."""
        taken, self._stored = self._stored, []
        return taken

    def store(self, call_id: str, name: str, output: str, *, is_error: bool,
              attachments: tuple[Attachment, ...] = ()) -> ToolResultStored:
        """Stores one result (its id is made first so the truncation marker can name it)."""
        message_id = self._factory.new_id()
        cut = self._truncator.truncate(output, message_id)
        message: Message = self._factory.tool_result(
            message_id, call_id, name, cut.stored, is_error=is_error, original_chars=cut.original_chars
        )
        if attachments:
            message = replace(message, attachments=attachments)
        stored = self._messages.add(message, full_output=cut.original)
        self._stored.append(stored)
        images = sum(1 for a in attachments if a.kind is AttachmentKind.IMAGE)  # (a tool's audio is no image)
        return ToolResultStored(call_id, name, len(cut.stored), cut.truncated, is_error, stored.id, images)
