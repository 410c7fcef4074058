"""The desktop app's entry points (imported lazily by app.main so the CLI never loads Qt)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def run_gui(argv: list[str]) -> int:
    """Runs the desktop app; returns the exit status."""
    problem = display_problem(os.environ, sys.platform)
    if problem is not None:
        print(f"palimpsest: {problem}", file=sys.stderr)
        return 1
    from app.gui.application import run_gui as run

    return run(argv)


def display_problem(env: Mapping[str, str], platform: str) -> str | None:
    """On Linux/BSD without DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM, Qt would abort: say so plainly instead."""
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"):
        return None
    return ("no display to open the desktop app on (DISPLAY and WAYLAND_DISPLAY are not set). Run it in a desktop "
            "session, use the command line (`palimpsest chat \"...\"`, see `palimpsest --help`), or render a picture "
            "with `palimpsest --screenshot out.png`.")


def render_screenshot(path: str, session_id: str | None) -> int:
    """Renders the main window offscreen (1280x800) into a PNG; returns the exit status."""
    from app.gui.application import render_screenshot as render

    return render(path, session_id)


__all__ = ["display_problem", "render_screenshot", "run_gui"]
