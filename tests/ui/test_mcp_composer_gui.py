"""MCP in the chat screen against a real server subprocess (tests/mcp/gui_server.py) through the real Container:
`/server:prompt` in the composer offers the prompts, their arguments and the server's completions, and fills the
composer with the prompt's messages; the paperclip's menu lists the resources and templates and attaches the one
chosen; a resource link in a tool's result is a link in its card that reads the resource through the server."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QDialog, QLineEdit

from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.attachment import AttachmentKind
from domain.mcp import McpServer, McpTransport
from domain.models import Message, MessageType, ToolStatus
from tests.fakes_turn import FakeAdapterFactory
from tests.ui.test_screenshots import distinct_colors
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.widgets.elicitation_dialog import ElicitationDialog

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"
PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"
SERVER = McpServer("notes", McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.gui_server"),
                   timeout_s=60)


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    c = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory(default_completion="A title"))
    c.set_api_key(PROVIDER, "sk-ant-test")
    tools = asyncio.run(c.mcp.list_tools(SERVER))  # the real server, started once
    c.storage.mcp_servers.save(McpServer(**{**SERVER.__dict__, "tools": tuple(tools)}))
    yield c
    c.close()


def session_with_a_linking_tool_result(c: Container) -> str:
    """A session whose last tool result is what the server's find_notes really returned (two resource links)."""
    outcome = asyncio.run(c.mcp.call_tool(SERVER, "find_notes", {"query": "milk"}))
    sid = c.create_session(provider_id=PROVIDER, model_id=MODEL).id
    add = c.storage.messages.add
    add(Message("q", sid, MessageType.USER, "Find my notes about milk."))
    add(Message("call", sid, MessageType.TOOL_CALL, tool_call_id="t1", tool_name="notes__find_notes",
                tool_input='{"query": "milk"}', provider_id=PROVIDER, model_id=MODEL))
    add(Message("result", sid, MessageType.TOOL_RESULT, tool_call_id="t1", tool_name="notes__find_notes",
                tool_output=outcome.output, tool_status=ToolStatus.SUCCESS))
    add(Message("a", sid, MessageType.AI_RESPONSE, "You have two notes: today's list and the logo.",
                provider_id=PROVIDER, model_id=MODEL))
    return sid


def popup_lines(window) -> list[str]:
    popup = window.mcp.slash.popup
    return [popup.item(i).text().split("    ")[0] for i in range(popup.count())] if popup.isVisible() else []


def test_slash_offers_prompts_arguments_and_the_servers_completions_then_fills_the_prompt(
        qtbot, worker, container: Container) -> None:
    sid = session_with_a_linking_tool_result(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    edit = window.composer.edit
    edit.setFocus()

    qtbot.keyClicks(edit, "/")
    qtbot.waitUntil(lambda: popup_lines(window) == ["notes:review", "notes:standup"], timeout=30_000)
    if SCREENSHOTS.is_dir():
        image = window.grab().toImage()
        assert distinct_colors(image) > 5
        image.save(str(SCREENSHOTS / "mcp_slash_prompt.png"))
    qtbot.keyClick(edit, Qt.Key.Key_Escape)  # Esc closes the popup only
    assert popup_lines(window) == [] and edit.toPlainText() == "/"
    qtbot.keyClicks(edit, "notes:r")  # typing on shows it again
    qtbot.waitUntil(lambda: popup_lines(window) == ["notes:review"])
    qtbot.keyClick(edit, Qt.Key.Key_Tab)
    assert edit.toPlainText() == "/notes:review "
    qtbot.waitUntil(lambda: popup_lines(window) == ["language=", "focus="])
    qtbot.keyClicks(edit, "language=p")
    qtbot.waitUntil(lambda: popup_lines(window) == ["python", "perl", "php"], timeout=30_000)  # completion/complete
    qtbot.keyClick(edit, Qt.Key.Key_Down)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert edit.toPlainText() == "/notes:review language=perl "
    assert window.chat_vm.state.streaming is False  # choosing sent nothing

    qtbot.keyClick(edit, Qt.Key.Key_Return)  # the whole command: the server fills the prompt in
    qtbot.waitUntil(lambda: edit.toPlainText() == "Review this perl code for bugs.", timeout=30_000)
    assert window.chat_vm.state.draft == "Review this perl code for bugs."
    assert not window.mcp.slash.popup.isVisible()
    assert [m.type for m in container.storage.messages.snapshot(sid)][-1] is MessageType.AI_RESPONSE

    window.chat_vm.set_draft("")
    qtbot.waitUntil(lambda: edit.toPlainText() == "")
    qtbot.keyClicks(edit, "/stand")
    qtbot.waitUntil(lambda: popup_lines(window) == ["notes:standup"], timeout=30_000)
    qtbot.keyClick(edit, Qt.Key.Key_Return)  # a prompt without arguments is filled in as it is chosen
    qtbot.waitUntil(lambda: edit.toPlainText() == "Summarize my standup.\n\n[assistant]\nWhich team?",
                    timeout=30_000)


def test_a_slash_that_is_no_prompt_is_sent_as_a_message(qtbot, worker, container: Container) -> None:
    sid = session_with_a_linking_tool_result(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    edit = window.composer.edit
    qtbot.keyClicks(edit, "/etc/hosts")
    qtbot.waitUntil(lambda: window.chat_vm.mcp.prompts is not None, timeout=30_000)
    assert popup_lines(window) == []
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(m.content == "/etc/hosts" for m in container.storage.messages.snapshot(sid)))


def menu_labels(window) -> list[str]:
    return [a.text().split("\t")[0].strip() for a in window.mcp.actions()]


def choose(qtbot, window, label: str) -> None:
    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: label in menu_labels(window), timeout=30_000)
    next(a for a in window.mcp.actions() if a.text().split("\t")[0].strip() == label).trigger()


def test_the_paperclip_menu_lists_resources_and_templates_and_attaches_the_one_chosen(
        qtbot, worker, container: Container) -> None:
    sid = session_with_a_linking_tool_result(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    qtbot.waitUntil(lambda: [s.name for s in window.chat_vm.state.mcp_servers] == ["notes"])

    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: menu_labels(window) == ["today", "logo", "day…"], timeout=30_000)
    menu = window.mcp.menu
    assert menu is not None and menu.actions()[0].text() == "Attach files…"
    if SCREENSHOTS.is_dir():
        shot = window.grab()
        painter = QPainter(shot)
        painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
        painter.end()
        image = shot.toImage()
        assert distinct_colors(image) > 5
        image.save(str(SCREENSHOTS / "mcp_resource_picker.png"))
    next(a for a in window.mcp.actions() if a.text().startswith("    today\t")).trigger()
    menu.close()
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 1, timeout=30_000)
    text = window.chat_vm.state.pending[0].attachment
    assert text.name == "today.txt" and container.media.data(text) == b"Buy milk. Call Ada."

    choose(qtbot, window, "logo")
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 2, timeout=30_000)
    image = window.chat_vm.state.pending[1]
    assert image.attachment.kind is AttachmentKind.IMAGE and image.thumbnail

    shown: list[QDialog] = []
    window.mcp.present = shown.append
    choose(qtbot, window, "day…")
    qtbot.waitUntil(lambda: bool(shown))
    [dialog] = shown
    assert isinstance(dialog, ElicitationDialog)
    dialog.show()
    field = dialog.findChild(QLineEdit, "field-date")
    assert field is not None
    qtbot.keyClicks(field, "2026-11-27")
    dialog.submit_button.click()
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 3, timeout=30_000)
    day = window.chat_vm.state.pending[2].attachment
    assert day.name == "2026-11-27.txt" and container.media.data(day) == b"Notes of 2026-11-27: nothing planned."


def test_without_an_mcp_server_on_the_paperclip_opens_the_file_dialog(qtbot, worker, container: Container,
                                                                      monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    sid = session_with_a_linking_tool_result(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    qtbot.waitUntil(lambda: bool(window.chat_vm.state.mcp_servers))
    window.chat_vm.set_mcp_server_enabled("notes", False)
    qtbot.waitUntil(lambda: not window.chat_vm.state.mcp_servers[0].enabled)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a: (asked.append("x"), ([], ""))[1]))
    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    assert asked == ["x"] and window.mcp.menu is None


def test_a_resource_link_in_a_tool_card_reads_the_resource_through_its_server(
        qtbot, worker, container: Container) -> None:
    sid = session_with_a_linking_tool_result(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    view, model = window.chat_view, window.chat_vm.model
    tool = next(r for r in model.rows() if r.kind.value == "tool")
    index = model.index(model.rows().index(tool))
    layout = view.delegate.layout_for(tool, float(view.viewport().width()), False, view.font())
    links = [(rect, label) for rect, action, label in layout.hotspots if action.startswith("open-resource:")]
    assert [label for _, label in links] == ["↗ today", "↗ logo"]  # shown on the closed card

    texts: list[tuple[str, str]] = []
    window.chat_vm.text_ready.connect(lambda title, text: texts.append((title, text)))
    opened: list[str] = []
    view.open_url = lambda url: opened.append(url.toLocalFile())  # type: ignore[method-assign]
    top_left = view.visualRect(index).topLeft()

    def click(rect) -> None:
        spot = (QPointF(top_left) + rect.center()).toPoint()
        qtbot.mouseMove(view.viewport(), spot)
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(spot))

    click(links[0][0])
    qtbot.waitUntil(lambda: bool(texts), timeout=30_000)
    assert texts == [("notes://today", "Buy milk. Call Ada.")]
    click(links[1][0])
    qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
    assert opened[0].endswith("logo.png") and Path(opened[0]).read_bytes().startswith(b"\x89PNG")
    settle(qtbot, worker, view)
