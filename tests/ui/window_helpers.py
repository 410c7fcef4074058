"""Builds a themed MainWindow over the fake backend, with a rich demo conversation for screenshots."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from tests.ui.fake_backend import FakeChatBackend
from ui.theme import DARK, LIGHT, Theme, palette_for, stylesheet_for
from ui.widgets.main_window import MainWindow
from ui.worker import AsyncWorker

REPLY = """Here is a small function that retries a request with exponential backoff:

```python
import time

def with_retries(call, attempts=5, base=0.5):
    for n in range(attempts):
        try:
            return call()
        except TimeoutError:
            time.sleep(base * 2 ** n)
    raise RuntimeError("gave up")
```

It waits **0.5 s, 1 s, 2 s, …** between attempts. Use it like `with_retries(lambda: fetch(url))`."""


def themed_window(qtbot, backend: FakeChatBackend, worker: AsyncWorker, *, dark: bool = False) -> MainWindow:
    theme: Theme = DARK if dark else LIGHT
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setStyle("Fusion")
    app.setPalette(palette_for(theme))
    app.setStyleSheet(stylesheet_for(theme))
    window = MainWindow(backend, worker, theme)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
    return window


def demo_sessions(backend: FakeChatBackend) -> str:
    """A few sessions; returns the id of the richest one."""
    backend.add_session("Rust borrow checker puzzle", ["why does this not compile?", "Because `x` is moved."],
                        minutes_ago=2900)
    backend.add_session("Lisbon in May", ["Plan four days in Lisbon", "Day 1: Alfama and the castle…"],
                        minutes_ago=180)
    s = backend.add_session("Retry helper for the sync job", [
        "Our nightly sync times out against the billing API. Can you write a retry helper?", REPLY,
    ], minutes_ago=1)
    backend.add_tool_round(s.id, "http_request", '{"url": "https://status.billing.example/api/v2/incidents", '
                           '"method": "GET"}', '{"incidents": [{"id": "inc_82", "status": "resolved", '
                           '"name": "Elevated latency"}], "page": 1}\n' * 60, 131_072)
    backend.add_session("Quarterly report outline", ["Outline the Q3 report", "1. Summary\n2. Revenue"],
                        minutes_ago=60 * 24 * 9)
    return s.id


def settle(qtbot, worker: AsyncWorker, view: Any = None, timeout: int = 5000) -> None:
    """Waits until the window has everything it asked for: no worker call whose answer is still to be handled, no
    row height left to refine (`view`: a ChatView), nothing left in the event queue; checked twice in a row, since
    handling one answer may ask for more. A wait on state, not on a fixed delay."""
    def idle() -> bool:
        QApplication.processEvents()
        sizer = view.delegate.sizer if view is not None else None
        return worker.calls_in_flight == 0 and (sizer is None or sizer.pending_count() == 0)

    qtbot.waitUntil(lambda: idle() and idle(), timeout=timeout)


def open_session(qtbot, window: MainWindow, session_id: str) -> None:
    window.sessions_vm.select(session_id)
    qtbot.waitUntil(lambda: window.chat_vm.state.session is not None and not window.chat_vm.state.loading
                    and window.chat_vm.state.context is not None and window.chat_vm.state.usage is not None)
    settle(qtbot, window.worker, window.chat_view)


def migration_log(backend: FakeChatBackend, steps: int, hit_at: int) -> tuple[str, str]:
    """A long session of `steps` question/answer pairs whose question `hit_at` (and its answer) mention the staging
    albatross service (a rare word to search for): its id and the id of that question."""
    texts: list[str] = []
    for i in range(steps):
        texts += [f"Question {i}: how did step {i} of the migration go?", f"Step {i} went fine; the logs are clean."]
    texts[2 * hit_at] = "Which port does the staging albatross service listen on?"
    texts[2 * hit_at + 1] = "The albatross service listens on port 8443 behind the staging proxy."
    session = backend.add_session("Staging migration log", texts, minutes_ago=30)
    return session.id, backend.messages[session.id][2 * hit_at].id
