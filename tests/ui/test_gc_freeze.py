"""Start-up leaves the objects of a running app out of the garbage collector's reach (short full collections) and lets
the GUI thread take the GIL back from a busy worker within 1 ms."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import gc, sys
from app.gui.application import {builder}, ensure_application, wait_until
app = ensure_application([])
before = gc.get_freeze_count()
running = {builder}(app)
window = running.window
window.show()
window.start()
wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
frozen = gc.get_freeze_count()
container = running.container or running.holder["container"]
print("FROZEN", before, frozen, any(o is container for o in gc.get_objects()))
print("SWITCH", sys.getswitchinterval())
running.close()
"""


def _probe(tmp_path: Path, builder: str) -> list[str]:
    env = dict(os.environ, PALIMPSEST_HOME=str(tmp_path / builder), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="tests.memory_keyring.MemoryKeyring", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE.format(builder=builder)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert "FROZEN" in done.stdout and "SWITCH" in done.stdout, done.stdout + done.stderr
    return done.stdout.splitlines()


def _frozen_counts(tmp_path: Path, builder: str) -> tuple[int, int, bool]:
    line = next(x for x in _probe(tmp_path, builder) if x.startswith("FROZEN"))
    before, frozen, tracked = line.split()[1:]
    return int(before), int(frozen), tracked == "True"


def test_the_app_and_its_container_are_frozen_once_the_window_is_built(tmp_path: Path) -> None:
    for builder in ("build_window", "build_window_deferred"):
        before, frozen, container_collectable = _frozen_counts(tmp_path, builder)
        assert before == 0 and frozen > 50_000, builder
        assert not container_collectable, builder  # the Container is among the frozen objects


def test_the_gui_thread_waits_at_most_1_ms_for_the_gil_while_the_worker_runs_python(tmp_path: Path) -> None:
    line = next(x for x in _probe(tmp_path, "build_window_deferred") if x.startswith("SWITCH"))
    assert float(line.split()[1]) == 0.001  # Python's default, 0.005, stretched every GUI callback by up to 5 ms
