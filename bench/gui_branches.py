"""Benchmark: a 10,000-message session with 50 branches in the desktop app: opening it to first paint (target under
50 ms median, the figure of an ordinary session), switching a branch with ‹ › to the new rows painted, and the
longest GUI-thread pause (a 5 ms heartbeat timer) while doing both.

Real Container, real SQLite database, offscreen Qt. Run: .venv/bin/python -m bench.gui_branches
"""

from __future__ import annotations

import statistics
import sys
import time

from PySide6.QtCore import QTimer

from bench.gui_common import percentile, seeded_home, write_result
from bench.gui_open_session import PaintClock

MESSAGES = 10_000
BRANCHES = 50
RUNS = 7


def add_branches(session_id: str, count: int) -> None:
    """`count` more branches: an edited question with its answer at evenly spread depths of the session."""
    from app.container import Container
    from domain.chat.paths import BranchSwitcher
    from domain.models import Message, MessageType

    c = Container.build()
    try:
        users = [m for m in c.messages.snapshot(session_id) if m.type is MessageType.USER]
        leaf = c.messages.snapshot(session_id)[-1].id
        switcher = BranchSwitcher(c.store, c.sessions, c.messages)
        for i in range(count):
            asked = users[len(users) * (i + 1) // count - 1]  # the last one at the newest question
            switcher.switch(session_id, asked.parent_id)
            c.messages.add(Message(f"edit{i}", session_id, MessageType.USER, f"{asked.content} (edited {i})"))
            c.messages.add(Message(f"ans{i}", session_id, MessageType.AI_RESPONSE, f"Another answer {i}."))
        switcher.switch(session_id, leaf)
    finally:
        c.close()


class Heartbeat:
    """A 5 ms timer on the GUI thread; the longest gap between its ticks is the longest pause."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.last = time.perf_counter()
        self.gaps: list[float] = []
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self.last) * 1000)
        self.last = now

    def start(self) -> None:
        self.gaps.clear()
        self.last = time.perf_counter()
        self.timer.start()


def main() -> int:
    """Runs the benchmark and prints one line per measure."""
    home, session_id = seeded_home(MESSAGES)
    add_branches(session_id, BRANCHES)
    from app.gui.application import build_window, ensure_application, wait_until
    from ui.models.chat_rows import RowKind

    app = ensure_application([sys.argv[0]])
    running = build_window(app)
    window = running.window
    try:
        window.resize(1280, 800)
        window.show()
        window.start()
        wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
        window.app_vm.dismiss_first_run()
        wait_until(app, lambda: False, timeout=0.5)
        vm, clock, beat = window.chat_vm, PaintClock(), Heartbeat()
        window.chat_view.viewport().installEventFilter(clock)
        opened: list[float] = []
        switched: list[float] = []
        pauses: list[float] = []
        for _ in range(RUNS):
            window.sessions_vm.new_chat()
            wait_until(app, lambda: vm.state.session is None, timeout=5)
            wait_until(app, lambda: False, timeout=0.2)
            clock.painted_at = None
            beat.start()
            start = time.perf_counter()
            window.sessions_vm.select(session_id)
            wait_until(app, lambda: clock.painted_at is not None and vm.model.rowCount() > 0, timeout=30)
            opened.append(((clock.painted_at or start) - start) * 1000)
            wait_until(app, lambda: vm.state.usage is not None, timeout=30)
            forked = [r for r in vm.model.rows() if r.kind is RowKind.USER and r.branch[1] > 1]
            if not forked:
                print("no branch switcher on the page", file=sys.stderr)
                return 1
            row = forked[-1]
            target = row.branch_prev or row.branch_next
            assert target is not None
            clock.painted_at = None
            start = time.perf_counter()
            vm.switch_branch(target)

            def shown(target: str = target) -> bool:
                return any(r.message_id == target for r in vm.model.rows()) and clock.painted_at is not None

            wait_until(app, shown, timeout=30)
            switched.append(((clock.painted_at or start) - start) * 1000)
            wait_until(app, lambda: False, timeout=0.3)
            beat.timer.stop()
            pauses.append(max(beat.gaps) if beat.gaps else 0.0)
        result = {
            "messages": MESSAGES + 2 * BRANCHES, "branches": BRANCHES + 1, "runs": RUNS,
            "open_first_paint_ms_median": round(statistics.median(opened), 1),
            "open_first_paint_ms_p90": round(percentile(opened, 90), 1),
            "switch_to_painted_ms_median": round(statistics.median(switched), 1),
            "switch_to_painted_ms_max": round(max(switched), 1),
            "gui_pause_ms_max_per_run": [round(p, 1) for p in pauses],
            "target_open_ms_median": 50,
        }
        path = write_result("gui_branches", result)
        for key, value in result.items():
            print(f"{key:32} {value}")
        print(f"written to {path}")
        return 0 if result["open_first_paint_ms_median"] < 50 else 1  # type: ignore[operator]
    finally:
        running.close()
        del home


if __name__ == "__main__":
    raise SystemExit(main())
