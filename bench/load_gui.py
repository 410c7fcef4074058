"""The load benchmark's desktop part, run in a fresh process per measurement (offscreen Qt, the real Container).

`open SESSION_ID`: the time from picking a session in the sidebar to the first paint of its messages (a cold open:
nothing of it was laid out or cached in this process), to everything settled (every row's exact height, the
context gauge and the usage loaded), and the longest GUI-thread pause in between.
`search QUERY...`: for each query, the time from the search to the hits in the sidebar, and the longest pause.
A 5 ms precise QTimer on the GUI thread is the heartbeat: a gap between two ticks is a pause of the GUI thread.
Prints one JSON object on its last line.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from app.gui.application import Running
    from ui.widgets.main_window import MainWindow

TICK_MS = 5


class PaintClock(QObject):
    """Records when the watched widget paints."""

    def __init__(self) -> None:
        super().__init__()
        self.paints: list[float] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints.append(time.perf_counter())
        return False

    def first_after(self, moment: float | None) -> float | None:
        """The first paint at or after a moment."""
        if moment is None:
            return None
        return next((t for t in self.paints if t >= moment), None)


class Heartbeat:
    """A precise 5 ms timer on the GUI thread; the gaps between its ticks are the thread's pauses."""

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(lambda: self.stamps.append(time.perf_counter()))

    def start(self) -> None:
        """Starts ticking (and forgets earlier ticks)."""
        self.stamps = [time.perf_counter()]
        self._timer.start()

    def longest_pause_ms(self, start: float, end: float) -> float:
        """The longest gap (ms, beyond the tick interval) between ticks inside [start, end]."""
        stamps = [s for s in self.stamps if start <= s <= end] + [end]
        gaps = [(b - a) * 1000 - TICK_MS for a, b in itertools.pairwise([start, *stamps])]
        return max(0.0, *gaps)


def run_until(ready: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Runs the GUI event loop (no sleeping on the GUI thread) until ready() or the timeout."""
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(2)
    deadline = time.monotonic() + timeout

    def check() -> None:
        if ready() or time.monotonic() > deadline:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    if not ready():
        loop.exec()
    poll.stop()
    return ready()


def _idle(seconds: float) -> None:
    """Keeps the event loop running for a while."""
    until = time.perf_counter() + seconds
    run_until(lambda: time.perf_counter() > until)


def _started(app: QApplication) -> tuple[Running, MainWindow]:
    from app.gui.application import build_window

    running = build_window(app)
    window = running.window
    window.resize(1280, 800)
    window.show()
    window.start()
    run_until(lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading
              and bool(window.sessions_vm.state.sessions))
    window.app_vm.dismiss_first_run()  # no key in the benchmark's data folder: show the chat, not the welcome
    _idle(0.5)
    return running, window


def open_session(session_id: str) -> dict[str, float]:
    """Opens one session cold; times in ms."""
    from app.gui.application import ensure_application

    app = ensure_application([sys.argv[0]])
    running, window = _started(app)
    vm = window.chat_vm
    view = window.chat_view
    clock = PaintClock()
    view.viewport().installEventFilter(clock)
    beat = Heartbeat()
    beat.start()
    run_until(lambda: len(beat.stamps) > 20)
    filled: list[float] = []  # when the session's rows reached the list
    vm.model.rowsInserted.connect(lambda *_: filled.append(time.perf_counter()))
    start = time.perf_counter()
    window.sessions_vm.select(session_id)
    shown: list[float] = []  # when an empty session's screen was ready (no rows ever reach the list)

    def empty_shown() -> bool:
        session = vm.state.session
        if not shown and session is not None and session.id == session_id and not vm.state.loading \
                and vm.model.rowCount() == 0 and session.message_count == 0:
            shown.append(time.perf_counter())
            view.viewport().update()  # an empty list may have nothing new to paint: its next paint shows the state
        return bool(shown) and clock.first_after(shown[0]) is not None

    run_until(lambda: clock.first_after(filled[0] if filled else None) is not None or empty_shown())
    painted = clock.first_after(filled[0] if filled else (shown[0] if shown else None)) or float("nan")
    run_until(lambda: vm.state.usage is not None and vm.state.context is not None
              and view.delegate.sizer.pending_count() == 0)
    settled = time.perf_counter()
    _idle(0.2)
    result = {"first_paint_ms": (painted - start) * 1000, "settled_ms": (settled - start) * 1000,
              "pause_ms": beat.longest_pause_ms(start, time.perf_counter()), "rows": vm.model.rowCount()}
    running.close()
    return result


def search(queries: list[str]) -> dict[str, list[float]]:
    """Runs each query once from the sidebar's view model; times in ms."""
    from app.gui.application import ensure_application

    app = ensure_application([sys.argv[0]])
    running, window = _started(app)
    vm = window.sessions_vm
    beat = Heartbeat()
    beat.start()
    times: list[float] = []
    pauses: list[float] = []
    hits: list[float] = []
    for query in queries:
        run_until(lambda: len(beat.stamps) > 20)
        start = time.perf_counter()
        vm.search(query)

        def found(q: str = query) -> bool:
            return vm.state.query == q and vm.state.hits is not None

        run_until(found)
        done = time.perf_counter()
        _idle(0.2)
        times.append((done - start) * 1000)
        pauses.append(beat.longest_pause_ms(start, time.perf_counter()))
        hits.append(float(len(vm.state.hits or ())))
        vm.search("")
    running.close()
    return {"search_ms": times, "pause_ms": pauses, "hits": hits}


def main(argv: list[str]) -> int:
    """`open SESSION_ID` or `search QUERY...`."""
    result: object = open_session(argv[1]) if argv[0] == "open" else search(argv[1:])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
