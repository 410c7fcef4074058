"""Benchmark: cold start of the desktop app to a shown, painted window (and to its data loaded).

Each run is a new Python process (imports, QApplication, the Container over the real SQLite database under a temp
PALIMPSEST_HOME, the main window). The first run creates and migrates the database; the others open it.
Run: .venv/bin/python -m bench.gui_cold_start
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

RUNS = 5


def child() -> int:
    """Runs inside the measured process: prints wall-clock times of first paint and of loaded data."""
    from PySide6.QtCore import QEvent, QObject

    from app.gui.application import build_window_deferred, ensure_application, wait_until

    class FirstPaint(QObject):
        """Notes the time of the first paint."""

        at: float | None = None

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and self.at is None:
                self.at = time.time()
            return False

    app = ensure_application([sys.argv[0]])
    running = build_window_deferred(app)  # what `palimpsest` does: the window first, the Container on the worker
    window = running.window
    clock = FirstPaint()
    window.installEventFilter(clock)
    window.resize(1280, 800)
    window.show()
    window.start()
    wait_until(app, lambda: clock.at is not None, timeout=30)
    wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading, timeout=30)
    loaded = time.time()
    running.close()
    print(json.dumps({"first_paint": clock.at, "loaded": loaded}))
    return 0


def main() -> int:
    """Starts the app RUNS times and prints the times to first paint and to loaded data."""
    from bench.gui_common import isolated_home, write_result

    home = isolated_home()
    env = dict(os.environ, PALIMPSEST_HOME=str(home), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    paint, loaded = [], []
    for _ in range(RUNS):
        start = time.time()
        out = subprocess.run([sys.executable, "-m", "bench.gui_cold_start", "--child"], env=env, check=True,
                             capture_output=True, text=True, timeout=120).stdout
        times = json.loads(out.strip().splitlines()[-1])
        paint.append((times["first_paint"] - start) * 1000)
        loaded.append((times["loaded"] - start) * 1000)
    result = {
        "runs": RUNS,
        "first_launch_paint_ms": round(paint[0], 1),
        "first_launch_loaded_ms": round(loaded[0], 1),
        "later_launch_paint_ms_median": round(statistics.median(paint[1:]), 1),
        "later_launch_loaded_ms_median": round(statistics.median(loaded[1:]), 1),
        "all_paint_ms": [round(v, 1) for v in paint],
    }
    path = write_result("gui_cold_start", result)
    for key, value in result.items():
        print(f"{key:32} {value}")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(child() if "--child" in sys.argv else main())
