"""An MCP tool's images in the desktop app: the tool card shows them as thumbnails under its header, and a click
opens the stored copy."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl

from domain.models import MessageType, ToolStatus
from tests.attachment_samples import png
from tests.ui.chat_helpers import click, hotspot, layout_of, row_of
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.models.chat_rows import RowKind

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"


def test_a_tool_cards_images_show_as_thumbnails_and_open_on_click(qtbot, backend, worker, tmp_path) -> None:
    session = backend.add_session("Check the page", [])
    shot = backend.intake.from_bytes("screenshot-image-1.png", png(1280, 800, (40, 90, 160)))
    backend._store(session.id, MessageType.USER, "Take a screenshot of the home page and tell me what you see.")
    backend._store(session.id, MessageType.TOOL_CALL, tool_call_id="c1", tool_name="browser__screenshot",
                   tool_input='{"url": "https://example.com"}')
    backend._store(session.id, MessageType.TOOL_RESULT, tool_call_id="c1", tool_name="browser__screenshot",
                   tool_output="A screenshot of https://example.com.\n[image: screenshot-image-1.png (image, "
                               f"{shot.size / 1000:.1f} KB, 1280×800)]", tool_status=ToolStatus.SUCCESS,
                   attachments=(shot,))
    backend._store(session.id, MessageType.AI_RESPONSE, "The page is a plain blue banner with no text.")
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)

    position, row = row_of(window.chat_view, RowKind.TOOL)
    assert [a.name for a in row.attachments] == ["screenshot-image-1.png"]
    qtbot.waitUntil(lambda: shot.sha256 in window.chat_vm.thumbnails)
    layout, rect = layout_of(window.chat_view, position)
    assert len(layout.tiles) == 1 and layout.tiles[0].bottom() <= layout.bubble.bottom()
    settle(qtbot, worker, window.chat_view)
    assert distinct_colors(saved(window, tmp_path / "tool_image.png")) > 5
    if SCREENSHOTS.is_dir():
        window.grab().save(str(SCREENSHOTS / "mcp_tool_image.png"))

    opened: list[QUrl] = []
    window.chat_view.open_url = opened.append
    click(qtbot, window.chat_view, hotspot(layout, "open-attachment:0").center() + rect.topLeft())
    qtbot.waitUntil(lambda: bool(opened))
    assert Path(opened[0].toLocalFile()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
