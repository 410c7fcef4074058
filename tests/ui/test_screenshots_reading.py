"""Screenshots of reading and choosing: rich Markdown with a selection, the model picker, a 720 px window."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtGui import QPainter

from tests.ui.chat_helpers import layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.doc_painter import TextRange

MARKDOWN = """Here are the retry timings, measured against the staging billing API:

| attempt | wait (s) | cumulative (s) |
|---|---|---|
| 1 | 0.5 | 0.5 |
| 2 | 1.0 | 1.5 |
| 3 | 2.0 | 3.5 |

> Keep the cap at 30 s: the billing API drops idle connections after 35 s.

The wait before attempt $n$ is $b \\cdot 2^{n}$, so the total is $$\\sum_{k=0}^{n-1} b \\cdot 2^{k} = b\\,(2^{n} - 1)$$

```bash
curl -sS "https://status.billing.example/api/v2/incidents/inc_82/updates?include=components,postmortem" \\
  -H "Accept: application/json" -m 30 --retry 5 --retry-all-errors --fail-with-body -o inc_82.json -w "%{http_code}"
```

See [the incident page](https://status.billing.example/incidents/inc_82) for details."""


def test_markdown_reading_screenshot(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    session = backend.add_session("Retry timings", [
        "How long does it wait in total?\nAnd what does the status page say?", MARKDOWN], minutes_ago=0)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view
    position, row = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    box = layout.code_rects[0].translated(rect.topLeft())
    view.scroll_code_at(box.center(), 180.0)
    doc = layout.doc
    start, end = doc.find("Keep the cap").selectionStart(), doc.find("idle").selectionEnd()
    view.selector.set_selection(TextRange(row.key, start, end))
    settle(qtbot, worker)
    assert distinct_colors(saved(window, artifacts / "markdown_selection.png")) > 5


def test_model_picker_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.header.model.open_popup()
    popup = window.header.model.popup
    qtbot.waitUntil(popup.isVisible)
    settle(qtbot, worker)
    image = window.grab().toImage()
    button = window.header.model  # the popup is its own window (kept on the 800 px offscreen screen): draw it
    painter = QPainter(image)     # under its button, where it opens on a screen as wide as the window
    painter.drawPixmap(button.mapTo(window, QPoint(0, button.height() + 2)), popup.grab())
    painter.end()
    assert image.save(str(artifacts / "model_picker.png"))
    popup.hide()


def test_narrow_window_screenshot(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.resize(720, 700)
    qtbot.waitUntil(lambda: window.width() == 720)
    settle(qtbot, worker)
    image = window.grab().toImage()
    assert image.width() == 720 and distinct_colors(image) > 5
    assert image.save(str(artifacts / "narrow_720.png"))
