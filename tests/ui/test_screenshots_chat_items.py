"""Screenshots of issue 26's chat-screen items (math, the fork badge, the picker legend, a highlighted search hit,
Settings › Tools at 1280×800), saved under tests/_artifacts/ and ui/screenshots/ for a person to look at."""

from __future__ import annotations

from pathlib import Path

from domain.mcp import McpServer, McpToolSpec, McpTransport
from domain.models import AiModel, ModelCapabilities, ThinkingForm
from domain.settings import ToolSettings
from tests.ui.chat_helpers import row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_screenshots import distinct_colors
from tests.ui.window_helpers import demo_sessions, open_session, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.row_sizer import layout_width

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"
MATH = ("The roots of $ax^2 + bx + c = 0$ are\n\n$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n"
        "and Euler's identity $e^{i\\pi} + 1 = 0$ ties five constants together. A ticket costs $5 and a "
        "meal $10 (prices stay text). The Gaussian integral:\n\n$$\\int_{-\\infty}^{\\infty} e^{-x^2}\\,dx = "
        "\\sqrt{\\pi}$$")


def _keep(widget, artifacts: Path, name: str) -> None:
    image = widget.grab().toImage()
    assert image.save(str(artifacts / name)) and distinct_colors(image) > 5
    if SCREENSHOTS.is_dir():
        image.save(str(SCREENSHOTS / name))


def test_math_screenshot(qtbot, worker, artifacts, math_cache) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Quadratic formula", ["Show me the quadratic formula", MATH], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view

    def drawn() -> bool:
        _position, row = row_of(view, RowKind.ASSISTANT)
        layout = view.delegate.layout_for(row, layout_width(view), False, view.font())
        return math_cache.pending() == 0 and not layout.math_pending

    qtbot.waitUntil(drawn)
    qtbot.waitUntil(lambda: not view.delegate.sizer.pending_count())
    _keep(window, artifacts, "math.png")


def test_fork_badge_and_search_highlight_screenshots(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    long = "Quarterly revenue report outline for the finance team"
    backend.add_session(long, ["Outline the Q3 report", "1. Summary\n2. Revenue"], minutes_ago=90)
    backend.add_session(f"{long} (fork)", ["Outline the Q3 report", "1. Summary"], minutes_ago=60)
    demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() >= 5)
    _keep(window.sidebar, artifacts, "sidebar_fork_badge.png")
    window.sessions_vm.search("report")
    qtbot.waitUntil(lambda: window.sessions_vm.state.hits is not None and window.sidebar.model.rowCount() >= 2)
    _keep(window.sidebar, artifacts, "search_highlight.png")


def test_model_picker_legend_screenshot(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test", "openai": "sk-test"})
    backend.models.append(AiModel("o3", "o3", "openai", context_window_size=200_000, capabilities=ModelCapabilities(
        thinking=ThinkingForm.ALWAYS_ON, vision=True, pdf_input=True)))
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    picker = window.header.model
    picker.open_popup()
    qtbot.waitUntil(picker.popup.isVisible)
    _keep(picker.popup, artifacts, "model_picker_legend.png")
    picker.popup.hide()


def test_settings_tools_at_1280_by_800_screenshot(qtbot, worker, artifacts) -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    backend.mcp_servers = [McpServer(
        "files", McpTransport.STDIO, command="/usr/bin/python3", args=("-m", "tests.mcp.server"),
        tools=tuple(McpToolSpec(f"tool_{i}", "Read a text file by name.", schema) for i in range(6)))]
    backend.tools = ToolSettings(("localhost", "nas.lan"))
    window = themed_window(qtbot, backend, worker)
    assert (window.width(), window.height()) == (1280, 800)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers != () and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    dialog.tools.mcp.tree.topLevelItem(0).setSelected(True)
    qtbot.waitUntil(lambda: dialog.tools.mcp.refresh.isEnabled())
    _keep(dialog, artifacts, "settings_tools_1280x800.png")
