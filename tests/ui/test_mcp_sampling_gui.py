"""A server's sampling request in the desktop app end to end: real Container and worker, the real protocol server
(stdio subprocess) whose `summarize` tool asks the client's model (sampling/createMessage), the fake Anthropic server
as the conversation's provider. Allowed in the dialog, the request runs on the conversation's provider and model and
the server gets the reply; after Always (stored with the server) the next request runs without a dialog."""

from __future__ import annotations

import asyncio
import sys

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
from ui.widgets.tool_approval import ToolApprovalDialog

NOTES = "private notes about the launch"
SAMPLING_TITLE = "Let the MCP server proto use your model?"


class SamplingBrain:
    """`SUMMARIZE` calls proto__summarize; the server's sampling request (its text, no tools) is answered with a
    one-line summary, recorded with the model it reached; the tool's result is quoted back."""

    def __init__(self) -> None:
        self.sampled: list[tuple[str, str]] = []  # (model, prompt) of each sampling request that reached the provider
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Sampling")
        if request.last_user_text == NOTES and not request.tool_names:
            self.sampled.append((request.model, request.last_user_text))
            return Reply.of_text(f"Launch notes, summary {len(self.sampled)}.")
        results = [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]
        if results:
            self.results.extend(results)
            return Reply.of_text("Tool said: " + results[-1].text)
        return Reply(tool_calls=(ToolCall("proto__summarize", {"text": NOTES}),))


async def _add_protocol_server() -> None:
    container = Container.build()
    try:
        await AddMcpServerUseCase(container.mcp_servers, container.mcp_secrets, container.mcp)(
            "proto", command=[sys.executable, "-m", "tests.mcp.protocol_server"], timeout_s=60)
    finally:
        container.close()


def _dialog(app: QApplication, title: str) -> ToolApprovalDialog:
    assert wait_until(app, lambda: (d := approval_dialog()) is not None and d.request.title == title, timeout=30)
    dialog = approval_dialog()
    assert dialog is not None
    return dialog


def test_an_allowed_sampling_request_runs_on_the_conversations_model(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    asyncio.run(_add_protocol_server())
    brain = SamplingBrain()
    with live_window(brain, monkeypatch) as (app, running, _servers):
        vm = running.window.chat_vm
        choice = next(c for c in vm.state.choices if c.selection.provider_id == "anthropic")
        vm.select_model(choice.selection)
        model = choice.selection.model_id

        assert vm.send("SUMMARIZE")
        tool = approval_dialog_for_tool(app)
        assert tool.always_button is not None
        tool.always_button.click()  # the tool itself: always (its sampling request is asked on its own)
        sampling = _dialog(app, SAMPLING_TITLE)
        assert ("Server", "proto") in sampling.request.details and sampling.always_button is not None
        assert brain.sampled == []  # nothing reaches the model before the user allows it
        sampling.allow_button.click()  # Allow once
        assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) == 1, timeout=60), vm.state.error
        assert brain.sampled == [(model, NOTES)]
        assert brain.results[-1].text == "summary: Launch notes, summary 1."
        assert vm.last_reply() == "Tool said: summary: Launch notes, summary 1."

        assert vm.send("SUMMARIZE")  # allowed once: asked again; Always this time
        sampling = _dialog(app, SAMPLING_TITLE)
        assert sampling.always_button is not None
        sampling.always_button.click()
        assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) == 2, timeout=60), vm.state.error
        assert brain.results[-1].text == "summary: Launch notes, summary 2."

        assert vm.send("SUMMARIZE")  # Always: runs without a dialog (one would hold the turn until answered)
        assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) == 3, timeout=60), vm.state.error
        assert approval_dialog() is None
        assert brain.sampled == [(model, NOTES)] * 3
        assert brain.results[-1].text == "summary: Launch notes, summary 3."
    assert children_running() == []
    stored = Container.build()
    try:
        server = stored.mcp_servers.get("proto")
        assert server is not None and server.sampling_always  # Always is stored with the server
    finally:
        stored.close()


def approval_dialog_for_tool(app: QApplication) -> ToolApprovalDialog:
    """The tool's own approval dialog (not the sampling one)."""
    assert wait_until(app, lambda: (d := approval_dialog()) is not None and d.request.title != SAMPLING_TITLE,
                      timeout=30)
    dialog = approval_dialog()
    assert dialog is not None
    return dialog
