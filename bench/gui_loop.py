"""Event-loop helpers of the GUI benchmarks that measure pauses: a real event loop run until a condition holds, and a
5 ms heartbeat timer whose gaps are the GUI thread's pauses."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEventLoop, Qt, QTimer

TICK_MS = 5


def spin(ready: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Runs a real Qt event loop (blocked in the system's poll between events, as in the app) until ready() or the
    timeout; ready() is checked every 2 ms. A processEvents-and-sleep loop would add its own sleep to every pause."""
    if ready():
        return True
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(2)
    check.timeout.connect(lambda: loop.quit() if ready() else None)
    limit = QTimer()
    limit.setSingleShot(True)
    limit.timeout.connect(loop.quit)
    check.start()
    limit.start(int(timeout * 1000))
    loop.exec()
    check.stop()
    limit.stop()
    return ready()


def idle(seconds: float) -> None:
    """Runs the event loop for `seconds`."""
    spin(lambda: False, timeout=seconds)


class Heartbeat:
    """A precise 5 ms timer on the GUI thread; the gaps between its ticks are the GUI thread's pauses."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.last = time.perf_counter()
        self.gaps: list[float] = []
        self.ends: list[float] = []  # when each gap ended (perf_counter seconds)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self.last) * 1000)
        self.ends.append(now)
        self.last = now

    def start(self) -> None:
        """Starts measuring afresh."""
        self.gaps.clear()
        self.ends.clear()
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        """Stops; returns the longest gap (ms)."""
        self.timer.stop()
        return max(self.gaps, default=0.0)

    def lateness(self) -> list[float]:
        """How late each tick came (ms beyond the 5 ms interval)."""
        return [max(0.0, gap - TICK_MS) for gap in self.gaps]

    def between(self, start: float, end: float) -> list[float]:
        """The gaps (ms) that ended from `start` to `end` (perf_counter seconds)."""
        return [gap for gap, at in zip(self.gaps, self.ends, strict=True) if start <= at <= end]


def ready(window: Any) -> None:
    """Shows the main window at 1280×800, waits for its data, leaves the first-run screen and lets it settle."""
    window.resize(1280, 800)
    window.show()
    window.start()
    spin(lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
    window.app_vm.dismiss_first_run()  # no key in the benchmark's data folder: the chat, not the welcome
    idle(0.5)
