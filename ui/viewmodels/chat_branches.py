"""The chat screen's branch verbs: switch to another version of a message, fork, delete a branch, edit a message
(edit mode, visible and cancellable), regenerate a reply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.models import MessageType
from ui.signals import emit
from ui.state.chat_events import EditCancelled, EditStarted, PathCut
from ui.state.chat_state import Edit

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel


class BranchesController:
    """Branches, edits and regenerations; a new branch's turn runs through the turn controller."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm

    def _idle(self) -> bool:
        state = self._vm.state
        return state.session is not None and state.selection is not None and not state.streaming

    def switch_branch(self, message_id: str) -> None:
        """Shows the branch through another version of a message (its newest leaf)."""
        vm = self._vm
        session = vm.state.session
        if session is None or not self._idle():
            return
        vm.worker.call(lambda: vm.backend.checkout(session.id, message_id), lambda _s: vm.reload(), vm.fail)

    def fork(self, message_id: str) -> None:
        """Copies the path up to a message into a new session and opens it."""
        vm = self._vm
        session = vm.state.session
        if session is None:
            return

        def forked(new: Any) -> None:
            emit(vm.session_changed, new)
            emit(vm.open_requested, new.id)
            emit(vm.notice, f"Forked into “{new.title}”.")

        vm.worker.call(lambda: vm.backend.fork_session(session.id, message_id), forked, vm.fail)

    def delete_branch(self, message_id: str) -> None:
        """Deletes the branch through a message (its own part); the conversation moves to the newest other one."""
        vm = self._vm
        session = vm.state.session
        if session is None or not self._idle():
            return
        vm.worker.call(lambda: vm.backend.delete_branch(session.id, message_id), lambda _n: vm.reload(), vm.fail)

    def start_edit(self, message_id: str, text: str) -> None:
        """Puts a message's text in the composer; the next Send sends it as a new version of that message (the
        composer shows an edit bar until it is sent or cancelled)."""
        if not self._idle():
            return
        self._vm.dispatch(EditStarted(message_id, text))  # the text becomes the draft; the draft before comes back
        emit(self._vm.edit_requested, text)  # the composer takes the focus

    def cancel_edit(self) -> None:
        """The next Send is an ordinary message again."""
        self._vm.dispatch(EditCancelled())

    def edit_last(self) -> bool:
        """Starts editing the newest user message shown (the Up key in an empty composer); False when none."""
        vm = self._vm
        if vm.state.has_newer and self._idle():  # a window around a search hit: the newest one is further down
            return vm.paging.latest_then(self.edit_last)
        last = next((m for m in reversed(vm.rows.messages) if m.type is MessageType.USER), None)
        if last is None or not self._idle():
            return False
        self.start_edit(last.id, last.content)
        return True

    def send_edit(self, edit: Edit, text: str) -> bool:
        """Sends the edited text as a new version of the message `edit` edits."""
        vm = self._vm
        state = vm.state
        if state.session is None or state.selection is None or not text.strip() or not state.can_start_turn:
            return False
        session_id, selection = state.session.id, state.selection  # the edit ends when the composer's text is taken
        message_id = edit.message_id
        base = vm.rows.newest_seq  # the new version is stored after every message shown, not after the cut
        self._cut_before(message_id, keep_it=False)
        vm.turns.start(text, edit=edit, base=base)
        vm.turns.run(lambda: vm.backend.edit(session_id, message_id, text, selection))
        return True

    def regenerate(self, message_id: str) -> None:
        """Answers again the user message a reply answered (with the model now chosen); the old reply stays."""
        vm = self._vm
        state = vm.state
        if state.session is None or state.selection is None or not state.can_start_turn:
            return
        session_id, selection = state.session.id, state.selection
        messages = vm.rows.messages
        at = next((i for i, m in enumerate(messages) if m.id == message_id), None)
        if at is not None:
            asked = next((m for m in reversed(messages[:at]) if m.type is MessageType.USER), None)
            if asked is not None:
                self._cut_before(asked.id, keep_it=True)
        vm.turns.start(None)
        vm.turns.run(lambda: vm.backend.regenerate(session_id, message_id, selection))

    def _cut_before(self, message_id: str, *, keep_it: bool) -> None:
        """The shown messages end before (or with) a message while the new branch streams in."""
        vm, rows = self._vm, self._vm.rows
        at = next((i for i, m in enumerate(rows.messages) if m.id == message_id), None)
        if at is not None:
            kept = at + 1 if keep_it else at
            below = rows.page.newer_count if rows.page is not None and vm.state.has_newer else 0
            cut = len(rows.messages) - kept + below  # off the new path, shown or further down a window
            rows.messages = rows.messages[:kept]
            path = vm.state.path_messages
            # the new branch ends here: what followed (in a window too) is on the old one; the header counts the path
            vm.dispatch(PathCut(None if path is None else max(0, path - cut)))
