"""Benchmark: GUI event-loop lag while a reply streams at 200 tokens per second (target: p99 under 16 ms).

The real Container and database (a 10,000-message session is open), the real worker thread and chat view; only the
provider is replaced by a generator that yields a Markdown reply with code, 4 characters a token, every 5 ms.
A 5 ms precise timer on the GUI thread measures how late it fires. Run: .venv/bin/python -m bench.gui_stream_lag
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from app.container import Container
from app.gui.bridge import ContainerBackend
from bench.gui_common import TOKENS_PER_SECOND, paced, percentile, scripted_reply, seeded_home, write_result
from domain.attachment import Attachment
from domain.events import ChatEvent, ResponseComplete
from domain.models import Message, MessageType, SessionId, Usage
from ui.backend import Selection

SECONDS = 10.0
TICK_MS = 5


class StreamingBackend(ContainerBackend):
    """The real backend, except that send() streams a scripted reply at a fixed token rate."""

    def __init__(self, container: Container) -> None:
        super().__init__(container)
        self._container = container

    async def send(self, session_id: SessionId, text: str, selection: Selection,
                   attachments: Sequence[Attachment] = ()) -> AsyncIterator[ChatEvent]:
        messages = self._container.messages
        messages.add(Message(f"bench-u-{time.time_ns()}", session_id, MessageType.USER, text))
        chunks = scripted_reply(40, SECONDS)
        async for delta in paced(chunks):
            yield delta
        stored = messages.add(Message(f"bench-a-{time.time_ns()}", session_id, MessageType.AI_RESPONSE,
                                      "".join(chunks), model_id=selection.model_id))
        yield ResponseComplete(stored.id, Usage(1000, len(chunks)))


def measure(app: QApplication, seconds: float) -> list[float]:
    """Lateness (ms) of a 5 ms timer on the GUI thread over `seconds`."""
    from app.gui.application import wait_until

    stamps: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: stamps.append(time.perf_counter()))
    timer.start()
    wait_until(app, lambda: False, timeout=seconds)
    timer.stop()
    return [max(0.0, (b - a) * 1000 - TICK_MS) for a, b in itertools.pairwise(stamps)]


def main() -> int:
    """Runs the benchmark and prints the lag percentiles."""
    _home, session_id = seeded_home(10_000)
    from app.gui.application import build_window, ensure_application, wait_until

    app = ensure_application([sys.argv[0]])

    def make() -> tuple[StreamingBackend, Container]:
        container = Container.build()
        return StreamingBackend(container), container

    running = build_window(app, make)
    window = running.window
    try:
        window.resize(1280, 800)
        window.show()
        window.start()
        wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
        window.app_vm.dismiss_first_run()
        window.sessions_vm.select(session_id)
        vm = window.chat_vm
        wait_until(app, lambda: vm.state.usage is not None and vm.model.rowCount() > 0, timeout=30)
        wait_until(app, lambda: window.chat_view.delegate.sizer.pending_count() == 0, timeout=30)
        idle = measure(app, 2.0)
        vm.send("Explain the compaction boundary with an example.")
        streaming = measure(app, SECONDS)
        wait_until(app, lambda: not vm.state.streaming, timeout=30)
        reply = vm.last_reply() or ""
        result = {
            "tokens_per_second": TOKENS_PER_SECOND,
            "seconds": SECONDS,
            "reply_chars_shown": len(reply),
            "idle_lag_ms_p99": round(percentile(idle, 99), 2),
            "stream_lag_ms_p50": round(statistics.median(streaming), 2),
            "stream_lag_ms_p99": round(percentile(streaming, 99), 2),
            "stream_lag_ms_max": round(max(streaming), 2),
            "timer_ticks": len(streaming),
            "target_p99_ms": 16,
        }
        path = write_result("gui_stream_lag", result)
        for key, value in result.items():
            print(f"{key:22} {value}")
        print(f"written to {path}")
        return 0 if result["stream_lag_ms_p99"] < 16 else 1
    finally:
        running.close()


if __name__ == "__main__":
    raise SystemExit(main())
