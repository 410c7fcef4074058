"""The window on a real store: the ‹ n / m › switcher, Edit, Regenerate and File → Import with its progress."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter

from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.importers.chatgpt import read_chatgpt
from tests.fakes_turn import FakeAdapterFactory, reply
from tests.importers.samples import chatgpt_export, claude_export
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.models.chat_rows import ChatRow, RowKind

SID = "chatgpt-conv-harbour"


@pytest.fixture
def factory() -> FakeAdapterFactory:
    return FakeAdapterFactory(default_completion="A title")


@pytest.fixture
def container(factory: FakeAdapterFactory) -> Iterator[Container]:
    c = Container.build(adapter_factory=factory)
    c.set_api_key("anthropic", "sk-ant-test")
    c.import_conversations(read_chatgpt(json.dumps(chatgpt_export())))
    yield c
    c.close()


def _row(window, kind: RowKind, starts: str) -> ChatRow:  # type: ignore[no-untyped-def]
    return next(r for r in window.chat_vm.model.rows() if r.kind is kind and r.text.startswith(starts))


def _shows(window, kind: RowKind, starts: str) -> bool:  # type: ignore[no-untyped-def]
    return any(r.kind is kind and r.text.startswith(starts) for r in window.chat_vm.model.rows())


def test_switch_regenerate_and_edit_in_the_window(qtbot, worker, container, factory, artifacts) -> None:
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, SID)
    edited = _row(window, RowKind.USER, "Count the boats with Python")
    assert edited.branch == (2, 2) and edited.branch_prev is not None and edited.branch_next is None
    assert window.chat_vm.state.message_count == 6  # the header counts the path (8 are stored)
    hotspots = [a for _r, a, _l in window.chat_view.delegate.layout_for(
        edited, 900.0, False, window.chat_view.font()).hotspots]
    assert {"branch-prev", "branch-info", "branch-next", "edit"} <= set(hotspots)
    settle(qtbot, worker)
    window.grab().save(str(artifacts / "branch_switcher.png"))

    window.chat_view._on_action("branch-prev", edited)  # the ‹ click
    qtbot.waitUntil(lambda: _shows(window, RowKind.USER, "Count the boats with code"))
    first = _row(window, RowKind.USER, "Count the boats with code")
    assert first.branch == (1, 2) and not _shows(window, RowKind.ASSISTANT, "There are 7 boats")
    assert [m.content for m in container.messages.snapshot(SID)][-1] == "About seven boats."

    factory.adapter("anthropic").scripts.append(reply("Seven boats, counted again."))
    answer = _row(window, RowKind.ASSISTANT, "About seven boats")
    window.chat_view._on_action("regenerate", answer)
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and _shows(window, RowKind.ASSISTANT, "Seven boats"))
    qtbot.waitUntil(lambda: _row(window, RowKind.ASSISTANT, "Seven boats").branch == (2, 2), timeout=3000)

    factory.adapter("anthropic").scripts.append(reply("Counting with a fixed question."))
    window.chat_view._on_action("edit", _row(window, RowKind.USER, "Count the boats with code"))
    assert window.composer.edit.toPlainText() == "Count the boats with code"
    assert window.chat_vm.send("Count only the red boats")
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and _shows(window, RowKind.USER, "Count only"))
    qtbot.waitUntil(lambda: _row(window, RowKind.USER, "Count only").branch == (3, 3), timeout=3000)
    assert [m.content for m in container.messages.snapshot(SID)][-2:] == [
        "Count only the red boats", "Counting with a fixed question."]


def test_up_in_an_empty_composer_edits_the_last_message(qtbot, worker, container) -> None:
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, SID)
    window.composer.edit.setFocus()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Up)
    assert window.composer.edit.toPlainText() == "Count the boats with Python, please"


def test_file_import_runs_with_progress_and_lists_the_new_sessions(qtbot, worker, container, tmp_path: Path
                                                                     ) -> None:
    window = themed_window(qtbot, ContainerBackend(container), worker)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(claude_export()), encoding="utf-8")
    shown: list[str] = []
    window.import_flow.finished.connect(shown.append)
    window.import_flow.run("claude", str(export))
    qtbot.waitUntil(lambda: bool(shown))
    assert shown == ["Imported 2 conversations (9 messages)."]
    qtbot.waitUntil(lambda: any(s.id == "claude-conv-report" for s in window.sessions_vm.state.sessions))
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    window.import_flow.run("claude", str(bad))
    qtbot.waitUntil(lambda: len(shown) == 2)
    assert "line 1, column 3" in shown[1] and "Nothing was imported" in shown[1]


def test_import_progress_screenshot(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk"})
    backend.import_gate = gate = Gate()  # the import holds after its third conversation until the picture is taken
    window = themed_window(qtbot, backend, worker)
    window.import_flow.run("chatgpt", "/exports/conversations.json")
    qtbot.waitUntil(lambda: window.import_flow.dialog is not None and window.import_flow.dialog.value() >= 3)
    dialog = window.import_flow.dialog
    assert dialog is not None and dialog.maximum() == 8 and "of 8 conversations" in dialog.labelText()
    shot = window.grab()
    painter = QPainter(shot)
    box = dialog.grab()
    painter.drawPixmap((shot.width() - box.width()) // 2, (shot.height() - box.height()) // 3, box)
    painter.end()
    assert shot.save(str(artifacts / "import_progress.png"))
    gate.open()
    qtbot.waitUntil(lambda: window.import_flow.dialog is None, timeout=5000)


def test_export_from_the_session_menu_writes_markdown_and_json(qtbot, worker, container, tmp_path: Path) -> None:
    from ui.widgets.session_menu import export_file_name

    window = themed_window(qtbot, ContainerBackend(container), worker)
    shown: list[str] = []
    window.session_export._report = shown.append
    target = tmp_path / export_file_name("Harbour photo: boats?", "markdown")
    assert target.name == "Harbour photo boats.md"
    window.session_export.run(SID, "markdown", str(target))
    window.session_export.run(SID, "json", str(tmp_path / "h.json"))
    qtbot.waitUntil(lambda: len(shown) == 2)
    assert shown[0] == f"Exported to {target}" and "There are 7 boats." in target.read_text(encoding="utf-8")
    exported = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    assert len(exported["messages"]) == 8  # every branch
    window.session_export.run(SID, "json", str(tmp_path / "no-such-dir" / "x.json"))
    qtbot.waitUntil(lambda: len(shown) == 3)
    assert shown[2].startswith("Cannot write")


def test_f1_lists_the_keyboard_shortcuts(qtbot, worker) -> None:
    from ui.widgets.session_menu import SHORTCUTS, show_shortcuts

    window = themed_window(qtbot, FakeChatBackend(keys={"anthropic": "sk"}), worker)
    box = show_shortcuts(window)
    qtbot.addWidget(box)
    assert box.isVisible()
    for keys in ("Ctrl+N", "Ctrl+K", "Esc", "Ctrl+Shift+C", "Up (in an empty message box)"):
        assert keys in box.text()
    assert {k for k, _ in SHORTCUTS} >= {"Ctrl+N", "Ctrl+K", "Esc", "Ctrl+Shift+C", "F1", "Ctrl+O"}
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Help"]


def test_fork_opens_a_new_session_and_delete_branch_moves_to_the_other(qtbot, worker, container) -> None:
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, SID)
    reply_row = _row(window, RowKind.ASSISTANT, "Fishing boats")
    window.chat_vm.fork(reply_row.message_id or "")
    qtbot.waitUntil(lambda: window.chat_vm.state.session is not None and window.chat_vm.state.session.id != SID
                    and not window.chat_vm.state.loading)
    forked = window.chat_vm.state.session
    assert forked is not None and forked.title == "Harbour photo (fork)"
    assert [m.content for m in container.messages.snapshot(forked.id)][-1] == "Fishing boats at dawn."
    open_session(qtbot, window, SID)
    edited = _row(window, RowKind.USER, "Count the boats with Python")
    window.chat_vm.delete_branch(edited.message_id or "")
    qtbot.waitUntil(lambda: _shows(window, RowKind.USER, "Count the boats with code"))
    assert _row(window, RowKind.USER, "Count the boats with code").branch == (0, 0)  # one version left
    assert len(container.messages.tree(SID)) == 4


def test_after_a_branch_switch_the_gauge_measures_the_path_now_shown(qtbot, worker, container) -> None:
    import asyncio

    backend = ContainerBackend(container)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, SID)
    vm = window.chat_vm
    before = vm.state.context
    assert before is not None and vm.state.selection is not None
    edited = _row(window, RowKind.USER, "Count the boats with Python")
    window.chat_view._on_action("branch-prev", edited)
    qtbot.waitUntil(lambda: _shows(window, RowKind.USER, "Count the boats with code"))
    assert _row(window, RowKind.USER, "Count the boats with code").branch == (1, 2)
    qtbot.waitUntil(lambda: vm.state.context is not None and vm.state.context.used != before.used)
    expected = asyncio.run(backend.context_status(SID, vm.state.selection))
    assert vm.state.context == expected  # measured on the switched-to path, after its rows were shown
