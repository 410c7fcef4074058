"""What a click (or Enter on the keyboard's action line) on one of a chat row's actions does: a view-model verb, a
copy to the clipboard, or one of the chat view's signals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QGuiApplication

from ui.backend_types import Selection
from ui.mcp_links import resource_links
from ui.models.chat_rows import ChatRow
from ui.signals import emit
from ui.widgets.row_sizer import layout_width

if TYPE_CHECKING:
    from ui.widgets.chat_view import ChatView


def run_row_action(view: ChatView, action: str, row: ChatRow) -> None:
    """Runs `action` of `row` in `view`."""
    vm = view.vm
    if action == "toggle":
        vm.model.toggle_expanded(row.key)
    elif action == "copy":
        _copy(view, row.text, "Message copied.")
    elif action.startswith("copy-code"):
        code = view.delegate.code_of(
            row, action, layout_width(view), vm.model.is_expanded(row.key), view.font()
        )
        if code is not None:
            _copy(view, code, "Code copied.")
    elif action == "pin" and row.message_id:
        vm.set_pinned(row.message_id, not row.pinned)
    elif action == "full-output" and row.message_id:
        vm.open_full_output(row.message_id, row.tool_name or "tool")
    elif action == "retry":
        vm.retry()
    elif action == "open-settings" and row.fix_page:
        emit(view.settings_requested, row.fix_page)
    elif action == "switch-model" and row.switch_to:  # a retired model's successor, then the failed turn again
        vm.select_model(Selection(*row.switch_to))
        vm.retry()
    elif action == "choose-model":  # a retired model with no successor named: the user picks one, then Retry
        emit(view.model_picker_requested)
    elif action in ("branch-prev", "branch-next"):
        target = row.branch_prev if action == "branch-prev" else row.branch_next
        if target:
            vm.switch_branch(target)
    elif action == "edit" and row.message_id:
        vm.start_edit(row.message_id, row.text)
    elif action == "regenerate" and row.message_id:
        vm.regenerate(row.message_id)
    elif action == "load-older":
        vm.load_older()
    elif action == "show-originals":
        vm.set_show_originals(not vm.state.show_originals)
    elif action in ("read-summary", "edit-summary"):
        emit(view.summary_requested, action == "edit-summary")
    elif action.startswith("open-attachment:") and row.attachments:
        vm.open_attachment(row.attachments[int(action.split(":", 1)[1])])
    elif action.startswith("open-resource:"):  # a resource an MCP tool's result linked to
        links = resource_links(row.tool_output)
        index = int(action.split(":", 1)[1])
        if index < len(links) and row.tool_name:
            vm.mcp.open_resource(row.tool_name, links[index][0])
    elif action == "mcp-sign-in" and row.tool_name:  # the tool's remote server wants a sign-in
        vm.mcp.sign_in(row.tool_name.split("__", 1)[0])
    elif action == "reattach" and row.attachments:
        vm.reattach(row.attachments)


def _copy(view: ChatView, text: str, sentence: str) -> None:
    QGuiApplication.clipboard().setText(text)
    emit(view.copied, sentence)
