"""A running tool's progress reports show on its card (the row's status line) and in its accessible name."""

from __future__ import annotations

from domain.events import TextDelta, ToolCallStarted, ToolProgress, ToolResultStored
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from ui.models.chat_rows import RowKind
from ui.models.message_list import accessible_name
from ui.worker import AsyncWorker


def test_a_running_tools_card_shows_its_latest_progress_then_its_result(qtbot, backend: FakeChatBackend,
                                                                        worker: AsyncWorker) -> None:
    s = backend.add_session("Chat")
    compiling = Gate()  # module 2 compiles until the test has looked at the card
    backend.scripts.append([
        ToolCallStarted("c1", "build__compile", {}), 0.05,
        ToolProgress("c1", "build__compile", 1, 3, "compiling module 1 of 3"), 0.05,
        ToolProgress("c1", "build__compile", 2, 3, "compiling module 2 of 3"), compiling,
        ToolResultStored("c1", "build__compile", 120, False, False, "r1"), 0.05, TextDelta("Built."),
    ])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Build it")

    def progress() -> str | None:
        return next((r.tool_progress for r in vm.model.rows() if r.kind is RowKind.TOOL), None)

    qtbot.waitUntil(lambda: progress() == "compiling module 2 of 3 (67%)")
    tool = next(r for r in vm.model.rows() if r.kind is RowKind.TOOL)
    assert tool.tool_running
    assert accessible_name(tool) == "Tool build__compile: running, compiling module 2 of 3 (67%)"
    compiling.open()
    qtbot.waitUntil(lambda: any(r.kind is RowKind.TOOL and not r.tool_running for r in vm.model.rows()))
