"""An MCP server's question in the desktop app, against the real protocol server through the hub: the dialog shows
the question and its field; Submit sends the typed value, Decline and Cancel send only that choice; a sampling
request is asked like a tool's request and Deny keeps it from the model."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QMessageBox

from app.gui.approver import GuiApprover
from app.gui.mcp_user import GuiMcpUser
from data.mcp.hub import McpHub
from domain.mcp import McpServer, McpTransport
from domain.mcp_interaction import (
    ElicitAction,
    ElicitAnswer,
    Elicitation,
    SamplingEstimate,
    SamplingReply,
    SamplingRequest,
)
from tests.mcp.helpers import MemorySecrets
from tests.ui.test_screenshots import distinct_colors
from ui.widgets.elicitation_dialog import ElicitationDialog
from ui.widgets.tool_approval import ToolApprovalDialog

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"
SERVER = McpServer("proto", McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.protocol_server"),
                   timeout_s=60)


class NeverSampler:
    """An McpSampler that records a request that got through (none should)."""

    def __init__(self) -> None:
        self.requests: list[SamplingRequest] = []

    async def sample(self, request: SamplingRequest) -> SamplingReply:
        self.requests.append(request)
        return SamplingReply("should not run", "m")

    def estimate(self, request: SamplingRequest) -> SamplingEstimate | None:
        return SamplingEstimate("claude-x", 7, request.max_tokens, 0.012)


def _call_in_thread(hub: McpHub, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Calls the tool from another thread (as the chat's worker does); the outcome lands in the returned dict."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["outcome"] = asyncio.run(hub.call_tool(SERVER, tool, arguments))

    threading.Thread(target=run, daemon=True).start()
    return box


@pytest.mark.parametrize(("button", "expected"), [
    ("submit", "Hello, Ada."), ("decline", "The user chose decline."), ("cancel", "The user chose cancel.")])
def test_a_servers_question_is_a_dialog_whose_answer_alone_is_sent(qtbot, tmp_path, button, expected) -> None:
    shown: list[QDialog] = []
    user = GuiMcpUser(GuiApprover(), present=shown.append)
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=user)
    try:
        box = _call_in_thread(hub, "ask_name", {})
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        [dialog] = shown
        assert isinstance(dialog, ElicitationDialog)
        dialog.show()
        field = dialog.findChild(QLineEdit, "field-name")
        assert field is not None
        if button == "submit":
            dialog.submit_button.click()  # empty: the required field is asked for, nothing is sent
            assert dialog.error.text() == "Name needs an answer." and dialog.isVisible()
            qtbot.keyClicks(field, "Ada")
            assert dialog.error.text() == ""
            if SCREENSHOTS.is_dir():
                image = dialog.grab().toImage()
                assert distinct_colors(image) > 3
                image.save(str(SCREENSHOTS / "mcp_elicitation.png"))
        getattr(dialog, f"{button}_button").click()
        qtbot.waitUntil(lambda: "outcome" in box, timeout=30_000)
        assert box["outcome"].output == expected
    finally:
        hub.close()


def test_a_sampling_request_is_asked_like_a_tools_and_deny_keeps_it_from_the_model(qtbot, tmp_path) -> None:
    shown: list[QDialog] = []
    sampler = NeverSampler()
    user = GuiMcpUser(GuiApprover(present=shown.append))
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=user, sampler=sampler)
    try:
        box = _call_in_thread(hub, "summarize", {"text": "private notes"})
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        [dialog] = shown
        assert isinstance(dialog, ToolApprovalDialog)
        assert ("Estimated cost", "claude-x: about 7 input + up to 50 output tokens, at most $0.01") in \
            dialog.request.details
        assert dialog.always_button.text() == "Always"  # always for this server
        dialog.reject()  # Deny
        qtbot.waitUntil(lambda: "outcome" in box, timeout=30_000)
        assert box["outcome"].is_error and "declined to run this request on their model" in box["outcome"].output
        assert sampler.requests == []
    finally:
        hub.close()


def test_a_url_question_shows_the_address_and_open_opens_it_and_accepts(qtbot, tmp_path) -> None:
    shown: list[QDialog] = []
    opened: list[str] = []
    user = GuiMcpUser(GuiApprover(), present=shown.append, opener=opened.append)
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=user)
    try:
        box = _call_in_thread(hub, "connect_account", {})
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        [dialog] = shown
        assert isinstance(dialog, ElicitationDialog)
        dialog.show()
        address = dialog.findChild(QLabel, "ElicitationUrl")
        assert address is not None and address.text() == "https://example.com/connect?session=s-1"
        assert dialog.submit_button.text() == "Open" and opened == []  # nothing opened before the click
        if SCREENSHOTS.is_dir():
            image = dialog.grab().toImage()
            assert distinct_colors(image) > 3
            image.save(str(SCREENSHOTS / "mcp_elicitation_url.png"))
        dialog.submit_button.click()
        qtbot.waitUntil(lambda: "outcome" in box, timeout=30_000)
        assert box["outcome"].output == "The user chose accept."
        assert opened == ["https://example.com/connect?session=s-1"]
    finally:
        hub.close()


def test_a_url_question_finished_elsewhere_closes_its_dialog_and_opens_nothing(qtbot, tmp_path) -> None:
    shown: list[QDialog] = []
    opened: list[str] = []
    user = GuiMcpUser(GuiApprover(), present=shown.append, opener=opened.append)
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=user)
    try:
        box = _call_in_thread(hub, "connect_elsewhere", {})
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        [dialog] = shown
        assert isinstance(dialog, ElicitationDialog)
        dialog.show()
        closed: list[int] = []
        dialog.finished.connect(closed.append)
        finish = _call_in_thread(hub, "finish_connect", {})  # the server's notifications/elicitation/complete
        qtbot.waitUntil(lambda: "outcome" in box and "outcome" in finish, timeout=30_000)
        assert finish["outcome"].output == "Finished."
        assert closed and box["outcome"].output == "The user chose accept." and opened == []
        assert len(shown) == 1  # no second window: the question's own dialog was the one to close
    finally:
        hub.close()


def test_a_url_step_done_after_open_is_told_in_a_notice(qtbot, tmp_path) -> None:
    shown: list[QDialog] = []
    opened: list[str] = []
    user = GuiMcpUser(GuiApprover(), present=shown.append, opener=opened.append)
    hub = McpHub(MemorySecrets(), tmp_path / "logs", user=user)
    try:
        box = _call_in_thread(hub, "connect_account", {})  # sends notifications/elicitation/complete after accept
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        shown[0].show()
        shown[0].submit_button.click()  # Open
        qtbot.waitUntil(lambda: "outcome" in box and len(shown) == 2, timeout=30_000)
        notice = shown[1]
        assert isinstance(notice, QMessageBox) and notice.objectName() == "ElicitationDone"
        assert notice.text() == "The MCP server proto says the step at https://example.com/connect?session=s-1 is done."
        assert opened == ["https://example.com/connect?session=s-1"]
    finally:
        hub.close()


def test_declining_a_url_question_opens_nothing(qtbot) -> None:
    opened: list[str] = []
    question = Elicitation("proto", "Connect.", url="https://example.com/x")
    dialog = ElicitationDialog(question, None, opener=opened.append)
    qtbot.addWidget(dialog)
    dialog.decline_button.click()
    assert dialog.answer() == ElicitAnswer(ElicitAction.DECLINE) and opened == []
