"""Benchmark: a 10,000-message session with 50 branches in the desktop app: opening it to first paint (target under
50 ms median, the figure of an ordinary session), switching a branch with ‹ › to the new rows painted, regenerating
the last reply while it streams at 200 tokens/s (target: no frame over 16 ms while it streams), and the longest
GUI-thread pause (a 5 ms heartbeat timer) in each, the regenerate's checkout before and read-back after included.

Real Container, real SQLite database, real worker thread, offscreen Qt, measured under a real event loop; only the
provider of the regenerated reply is a paced script (bench.gui_regenerate). Run: .venv/bin/python -m bench.gui_branches
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from bench.gui_common import percentile, seeded_home, write_result
from bench.gui_loop import TICK_MS, Heartbeat, idle, ready, spin
from bench.gui_open_session import PaintClock

MESSAGES = 10_000
BRANCHES = 50
RUNS = 7
REGENERATIONS = 5
TARGET_PAUSE_MS = 16


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


def open_and_switch(window: Any, session_id: str, clock: PaintClock, beat: Heartbeat
                    ) -> tuple[float, float, float, float]:
    """Opens the session from a new chat, then switches the newest forked message to its other version: the ms to the
    first paint of each, and the longest pause during each (the open until its gauge and usage are in)."""
    from ui.models.chat_rows import RowKind

    vm = window.chat_vm
    window.sessions_vm.new_chat()
    spin(lambda: vm.state.session is None, timeout=5)
    idle(0.2)
    clock.painted_at = None
    beat.start()
    start = time.perf_counter()
    window.sessions_vm.select(session_id)
    spin(lambda: clock.painted_at is not None and vm.model.rowCount() > 0, timeout=30)
    opened = ((clock.painted_at or start) - start) * 1000
    spin(lambda: vm.state.usage is not None and vm.state.context is not None, timeout=30)
    idle(0.2)
    open_pause = beat.stop()
    forked = [r for r in vm.model.rows() if r.kind is RowKind.USER and r.branch[1] > 1]
    if not forked:
        raise RuntimeError("no branch switcher on the page")
    row = forked[-1]
    target = row.branch_prev or row.branch_next
    assert target is not None
    clock.painted_at = None
    beat.start()
    start = time.perf_counter()
    vm.switch_branch(target)

    def shown() -> bool:
        return any(r.message_id == target for r in vm.model.rows()) and clock.painted_at is not None

    if not spin(shown, timeout=30):
        raise RuntimeError("the switched-to version never showed")
    switched = ((clock.painted_at or start) - start) * 1000
    spin(lambda: vm.state.usage is not None and vm.state.context is not None and not vm.state.loading, timeout=30)
    idle(0.3)
    return opened, switched, open_pause, beat.stop()


def regenerate(window: Any, beat: Heartbeat) -> Regeneration:
    """Regenerates the last reply shown: the heartbeat's gaps while the new version streams (from its first text on
    screen to the end of the stream), the longest pause from the click to the stored reply read back (the checkout
    and the read-back included), and the seconds that took."""
    from ui.models.chat_rows import RowKind

    vm = window.chat_vm
    last = next(r for r in reversed(vm.model.rows()) if r.kind is RowKind.ASSISTANT and r.message_id)
    beat.start()
    start = time.perf_counter()
    window.chat_view._on_action("regenerate", last)
    if not spin(lambda: any(r.streaming and r.text for r in vm.model.rows()), timeout=10):
        raise RuntimeError("the regenerated reply never started")
    first_text = time.perf_counter()
    spin(lambda: not vm.state.streaming, timeout=60)
    stream_end = time.perf_counter()
    spin(lambda: not vm.state.reading_back, timeout=60)
    if not spin(lambda: any(r.kind is RowKind.ASSISTANT and (r.message_id or "").startswith("regen-")
                            and r.branch[1] > 1 for r in vm.model.rows()), timeout=30):
        raise RuntimeError("the regenerated reply was not shown as a new version (‹ n / m ›)")
    took = time.perf_counter() - start
    idle(0.3)
    pause = beat.stop()
    streaming = beat.between(first_text, stream_end)
    return Regeneration([max(0.0, gap - TICK_MS) for gap in streaming], max(streaming, default=0.0), pause, took)


@dataclass(frozen=True)
class Regeneration:
    """One regenerate: heartbeat lateness while streaming (ms), the longest gap while streaming, the longest pause
    from the click to the read-back, and the seconds it took."""

    lateness: list[float]
    streaming_pause: float
    pause: float
    seconds: float


def main() -> int:
    """Runs the benchmark and prints one line per measure."""
    home, session_id = seeded_home(MESSAGES)
    add_branches(session_id, BRANCHES)
    from app.container import Container
    from app.gui.application import build_window, ensure_application
    from bench.gui_common import TOKENS_PER_SECOND
    from bench.gui_regenerate import RegeneratingBackend

    app = ensure_application([sys.argv[0]])

    def make() -> tuple[RegeneratingBackend, Container]:
        container = Container.build()
        return RegeneratingBackend(container), container

    running = build_window(app, make)
    window = running.window
    try:
        ready(window)
        clock, beat = PaintClock(), Heartbeat()
        window.chat_view.viewport().installEventFilter(clock)
        runs = [open_and_switch(window, session_id, clock, beat) for _ in range(RUNS)]
        opened, switched, open_pauses, switch_pauses = (list(column) for column in zip(*runs, strict=True))
        streams = [regenerate(window, beat) for _ in range(REGENERATIONS)]
        lateness = [value for run in streams for value in run.lateness]
        result = {
            "messages": MESSAGES + 2 * BRANCHES, "branches": BRANCHES + 1, "runs": RUNS,
            "open_first_paint_ms_median": round(statistics.median(opened), 1),
            "open_first_paint_ms_p90": round(percentile(opened, 90), 1),
            "switch_to_painted_ms_median": round(statistics.median(switched), 1),
            "switch_to_painted_ms_max": round(max(switched), 1),
            "open_pause_ms_max_per_run": [round(p, 1) for p in open_pauses],
            "switch_pause_ms_max_per_run": [round(p, 1) for p in switch_pauses],
            "regenerations": REGENERATIONS, "tokens_per_second": TOKENS_PER_SECOND,
            "regenerate_seconds_per_run": [round(run.seconds, 2) for run in streams],
            "regenerate_streaming_lag_ms_p50": round(statistics.median(lateness), 2),
            "regenerate_streaming_lag_ms_p99": round(percentile(lateness, 99), 2),
            "regenerate_streaming_pause_ms_max_per_run": [round(run.streaming_pause, 1) for run in streams],
            "regenerate_pause_ms_max_per_run_click_to_read_back": [round(run.pause, 1) for run in streams],
            "heartbeat_ticks_while_streaming": len(lateness),
            "target_open_ms_median": 50, "target_pause_ms": TARGET_PAUSE_MS,
        }
        path = write_result("gui_branches", result)
        for key, value in result.items():
            print(f"{key:34} {value}")
        print(f"written to {path}")
        streaming = [run.streaming_pause for run in streams]
        return 0 if result["open_first_paint_ms_median"] < 50 and max(streaming) <= TARGET_PAUSE_MS else 1
    finally:
        running.close()
        del home


if __name__ == "__main__":
    raise SystemExit(main())
