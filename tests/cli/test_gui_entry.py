"""`palimpsest` with no subcommand: without a display it says so in one line instead of letting Qt abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.gui import display_problem


def test_no_display_on_linux_is_a_plain_problem_and_any_display_or_platform_is_fine() -> None:
    assert "no display" in (display_problem({}, "linux") or "")
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({}, "darwin") is None and display_problem({}, "win32") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY/WAYLAND_DISPLAY only decide this on Linux")
def test_launching_the_app_without_a_display_exits_1_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PALIMPSEST_HOME"] = str(tmp_path / "home")
    done = subprocess.run([sys.executable, "-m", "app"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("palimpsest: no display") and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
