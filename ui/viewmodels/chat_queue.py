"""The chat screen's queue: a message refused before it is sent (too long), one typed while a turn runs (sent when
it ends), and what happens to both when the turn ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.error_text import MAX_MESSAGE_CHARS, too_long_text
from ui.models.chat_rows import ChatRow, RowKind
from ui.signals import emit
from ui.state.chat_events import MessageQueued, QueueEmptied, Refused
from ui.state.chat_state import Edit, Queued

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel

QUEUE_FULL = "One message already waits for the reply to end: send this one once it has gone."


def after_turn(queued: Queued | None, *, failed: bool, unsent: bool) -> bool:
    """Whether the queued message is sent when a turn ends (pure): not when the turn failed while part of it was
    typed (nothing is sent behind an error unseen), nor when the turn's own message was not stored (it goes back to
    the composer first, the queued one below it). A message queued after the error showed is sent."""
    return queued is not None and not (failed and queued.unseen) and not unsent


class QueueController:
    """Refuses, queues, withdraws and (at a turn's end) sends or returns the queued message."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm

    def refused_or_queued(self, text: str, turn_number: int, edit: Edit | None = None) -> bool | None:
        """True when the text was queued behind the running turn, False when it is refused as too long (it stays in
        the composer and an error says why, or it cannot join the message queued), None when it can be sent now.
        `edit`: the edit the text was sent from (it is queued as that edit)."""
        vm, state = self._vm, self._vm.state
        if len(text) > MAX_MESSAGE_CHARS:  # refused before the backend sees it, like the command line does
            message = too_long_text(len(text))
            if not state.streaming:
                vm.rows.error_row = ChatRow(RowKind.ERROR, f"too-long-{turn_number}", text=message)
                vm.sync_rows()
            vm.dispatch(Refused(message))
            emit(vm.notice, message)
            return False
        busy = state.streaming or state.compacting or state.reading_back
        if text and busy and not state.loading:
            vm.dispatch(MessageQueued(text, edit))
            if vm.state.composer.queued == state.composer.queued:  # not queued: an edit waits, or waits behind one
                emit(vm.notice, QUEUE_FULL)
                return False
            return True
        return None

    def cancel(self) -> None:
        """Withdraws the queued message; its text goes back to the composer (a queued edit, as that edit)."""
        queued = self._vm.state.composer.queued
        if queued is not None:
            self._vm.dispatch(QueueEmptied())
            self._vm.give_back(queued.text, queued.edit)

    def turn_ended(self, *, failed: bool, unsent: str | None, unsent_edit: Edit | None = None) -> None:
        """A turn (or a compaction) ended. `unsent`: the turn's own message when it was not stored (`unsent_edit`:
        the edit it was sent from); it goes back to the composer, above the queued one (the order they were typed
        in). The queued message is sent now when `after_turn` says so, else it goes back too. It is sent as what it
        was queued as (a new message, or a new version of the message it edits), whatever the composer holds now."""
        vm = self._vm
        queued = vm.state.composer.queued
        send = after_turn(queued, failed=failed, unsent=unsent is not None)
        if not send:
            self.cancel()
        if unsent:
            vm.give_back(unsent, unsent_edit)
        if not send or queued is None:
            return
        vm.dispatch(QueueEmptied())
        if not vm.turns.send_as(queued.text, queued.edit):
            vm.give_back(queued.text, queued.edit)
