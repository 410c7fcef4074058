"""An MCP task on the desktop app's tool card end to end: real window, Container and worker, the real protocol server
(stdio subprocess) whose slow_task runs only as a task (spec 2025-11-25), the fake Anthropic server as the
conversation's provider. While the task works, its card's progress line is the task's latest status message; after,
the card holds its result; Stop during a task sends tasks/cancel (the server's log says so)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.container import Container
from app.gui.application import wait_until
from domain.usecases.generate_title import TITLE_SYSTEM
from domain.usecases.mcp_servers import AddMcpServerUseCase
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.test_done_when import children_running
from tests.ui.live_window import live_window
from tests.ui.test_tool_guard_gui import approval_dialog
from ui.models.chat_rows import ChatRow, RowKind
from ui.models.message_list import accessible_name
from ui.viewmodels.chat import ChatViewModel


class TaskBrain:
    """`TASK {json}` calls proto__slow_task with those arguments; a tool result is quoted back."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Tasks")
        results = [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]
        if results:
            self.results.extend(results)
            return Reply.of_text("The task said: " + results[-1].text)
        arguments = json.loads(request.last_user_text.removeprefix("TASK "))
        return Reply(tool_calls=(ToolCall("proto__slow_task", arguments),))


async def _add_protocol_server() -> None:
    container = Container.build()
    try:
        await AddMcpServerUseCase(container.mcp_servers, container.mcp_secrets, container.mcp)(
            "proto", command=[sys.executable, "-m", "tests.mcp.protocol_server"], timeout_s=120)
    finally:
        container.close()


def _card(vm: ChatViewModel) -> ChatRow | None:
    """The newest tool card."""
    return next((r for r in reversed(vm.model.rows()) if r.kind is RowKind.TOOL), None)


def _running_cards(vm: ChatViewModel) -> list[str]:
    """A list that gets the accessible name of the newest tool card each time the list changes while it runs: every
    status message is seen however late the test looks (a starved GUI thread could miss a one-second step)."""
    names: list[str] = []

    def changed(*_: object) -> None:
        card = _card(vm)
        if card is not None and card.tool_running and (not names or names[-1] != accessible_name(card)):
            names.append(accessible_name(card))

    vm.model.dataChanged.connect(changed)
    vm.model.rowsInserted.connect(changed)
    vm.model.modelReset.connect(changed)
    return names


def _running_with(vm: ChatViewModel, progress: str) -> bool:
    card = _card(vm)
    return card is not None and card.tool_running and card.tool_progress == progress


def test_a_tasks_status_messages_show_on_its_card_and_stop_cancels_it(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    asyncio.run(_add_protocol_server())
    brain = TaskBrain()
    log = Path(os.environ["PALIMPSEST_HOME"]) / "logs" / "mcp" / "proto.log"
    with live_window(brain, monkeypatch) as (app, running, _servers):
        vm = running.window.chat_vm
        choice = next(c for c in vm.state.choices if c.selection.provider_id == "anthropic")
        vm.select_model(choice.selection)

        shown = _running_cards(vm)  # each running card as the list shows it, recorded as it changes
        assert vm.send('TASK {"steps": 3, "pause": 1.0}')
        _always(app)
        assert wait_until(app, lambda: any("step 3 of 3" in name for name in shown), timeout=30), (shown, _card(vm))
        progress = [n.removeprefix("Tool proto__slow_task: running, ") for n in shown if "step" in n]
        assert list(dict.fromkeys(progress)) == [f"step {s} of 3 ({s})" for s in (1, 2, 3)]  # each, as it came
        assert shown[-1] == "Tool proto__slow_task: running, step 3 of 3 (3)"
        assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) == 1, timeout=30), vm.state.error
        assert brain.results[-1].text == "task done after 3 steps"
        assert wait_until(app, lambda: (c := _card(vm)) is not None and c.tool_output == "task done after 3 steps")
        done = _card(vm)
        assert done is not None and not done.tool_running and not done.tool_error
        assert vm.last_reply() == "The task said: task done after 3 steps"

        assert vm.send('TASK {"steps": 2, "pause": 60}')  # allowed always: no dialog this time
        assert wait_until(app, lambda: _running_with(vm, "step 1 of 2 (1)"), timeout=30), _card(vm)
        assert "tasks/cancel" not in log.read_text()
        vm.stop()
        assert wait_until(app, lambda: not vm.state.streaming, timeout=15)
        assert wait_until(app, lambda: "tasks/cancel task-2 (working)" in log.read_text(), timeout=10), \
            log.read_text()
        assert len(brain.results) == 1  # the stopped task's turn sent nothing more to the model
    assert children_running() == []


def _always(app: QApplication) -> None:
    """Allows the tool always, in its approval dialog."""
    assert wait_until(app, lambda: approval_dialog() is not None, timeout=30)
    dialog = approval_dialog()
    assert dialog is not None and dialog.always_button is not None
    dialog.always_button.click()
