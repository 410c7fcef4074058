"""Benchmark: a search hit far back in a 10,000-message session, in the desktop app: from choosing the hit to the
matching message on screen, and the longest GUI-thread pause meanwhile (a 5 ms heartbeat), for hits 100, 1,000 and
9,900 messages from the newest; then, from the window around the hit 9,900 back, scrolling to its bottom (the next newer
page appended) and Jump to latest (the newest message on screen).

Real Container, real SQLite database, real worker thread, offscreen Qt. Run: .venv/bin/python -m bench.gui_search_hit
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench.gui_common import seeded_home, write_result
from bench.gui_loop import Heartbeat, idle, ready, spin

MESSAGES = 10_000
BACK = (100, 1_000, 9_900)  # how far from the newest message the hit is
RUNS = 3


def on_screen(window: Any, message_id: str) -> bool:
    """Whether the message's row is in the chat view's visible area."""
    view, model = window.chat_view, window.chat_vm.model
    row = next((i for i, r in enumerate(model.rows()) if r.message_id == message_id), None)
    return row is not None and view.viewport().rect().intersects(view.visualRect(model.index(row)))


def open_hit(window: Any, session_id: str, message_id: str, beat: Heartbeat) -> tuple[float, float]:
    """Opens the session at the message from a new chat (as a chosen search result does): ms until it is on screen,
    and the longest pause until the page settled."""
    from domain.ports import SessionSearchHit

    window.sessions_vm.new_chat()
    spin(lambda: window.chat_vm.state.session is None, timeout=5)
    idle(0.3)
    beat.start()
    start = time.perf_counter()
    window.sessions_vm.open_hit(SessionSearchHit(session_id, "", "", message_id=message_id))
    if not spin(lambda: on_screen(window, message_id), timeout=60):
        raise RuntimeError(f"the hit {message_id} never came on screen")
    shown = (time.perf_counter() - start) * 1000
    idle(0.5)
    return shown, beat.stop()


def page_down(window: Any, beat: Heartbeat) -> tuple[float, float]:
    """Scrolls to the bottom of the window around a hit: ms until the next newer page is appended, longest pause."""
    from PySide6.QtWidgets import QAbstractSlider

    rows = window.chat_vm.model.rowCount()
    beat.start()
    start = time.perf_counter()
    window.chat_view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    if not spin(lambda: window.chat_vm.model.rowCount() > rows, timeout=60):
        raise RuntimeError("no newer page was appended")
    shown = (time.perf_counter() - start) * 1000
    idle(0.5)
    return shown, beat.stop()


def jump_latest(window: Any, newest: str, beat: Heartbeat) -> tuple[float, float]:
    """Clicks Jump to latest: ms until the newest message is on screen, and the longest pause."""
    beat.start()
    start = time.perf_counter()
    window.chat_view.jump.click()
    if not spin(lambda: on_screen(window, newest), timeout=60):
        raise RuntimeError("the newest message never came on screen")
    shown = (time.perf_counter() - start) * 1000
    idle(0.5)
    return shown, beat.stop()


def main() -> int:
    """Runs the benchmark and prints one line per measure."""
    home, session_id = seeded_home(MESSAGES)
    from app.container import Container
    from app.gui.application import build_window, ensure_application

    container = Container.build()
    try:
        path = [m.id for m in container.messages.snapshot(session_id)]
    finally:
        container.close()
    app = ensure_application([sys.argv[0]])
    running = build_window(app)
    window = running.window
    try:
        ready(window)
        beat = Heartbeat()
        result: dict[str, object] = {"messages": len(path), "runs": RUNS}
        for back in BACK:
            target = path[-back]
            runs = [open_hit(window, session_id, target, beat) for _ in range(RUNS)]
            result[f"{back}_back_on_screen_ms_median"] = round(statistics.median(r[0] for r in runs), 1)
            result[f"{back}_back_longest_pause_ms"] = round(max(r[1] for r in runs), 1)
        down, jump = [], []
        for _ in range(RUNS):
            open_hit(window, session_id, path[-BACK[-1]], beat)
            down.append(page_down(window, beat))
            jump.append(jump_latest(window, path[-1], beat))
        result["window_newer_page_ms_median"] = round(statistics.median(r[0] for r in down), 1)
        result["window_newer_page_longest_pause_ms"] = round(max(r[1] for r in down), 1)
        result["jump_to_latest_ms_median"] = round(statistics.median(r[0] for r in jump), 1)
        result["jump_to_latest_longest_pause_ms"] = round(max(r[1] for r in jump), 1)
        written = write_result("gui_search_hit", result)
        for key, value in result.items():
            print(f"{key:36} {value}")
        print(f"written to {written}")
        return 0
    finally:
        running.close()
        del home


if __name__ == "__main__":
    raise SystemExit(main())
