"""Start-up leaves the objects of a running app out of the garbage collector's reach (short full collections)."""

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
running.close()
"""


def _frozen_counts(tmp_path: Path, builder: str) -> tuple[int, int, bool]:
    env = dict(os.environ, PALIMPSEST_HOME=str(tmp_path / builder), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="tests.memory_keyring.MemoryKeyring", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE.format(builder=builder)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("FROZEN")), None)
    assert line is not None, done.stdout + done.stderr
    before, frozen, tracked = line.split()[1:]
    return int(before), int(frozen), tracked == "True"


def test_the_app_and_its_container_are_frozen_once_the_window_is_built(tmp_path: Path) -> None:
    for builder in ("build_window", "build_window_deferred"):
        before, frozen, container_collectable = _frozen_counts(tmp_path, builder)
        assert before == 0 and frozen > 50_000, builder
        assert not container_collectable, builder  # the Container is among the frozen objects
