"""The desktop app's entry points (imported lazily by app.main so the CLI never loads Qt)."""

from __future__ import annotations


def run_gui(argv: list[str]) -> int:
    """Runs the desktop app; returns the exit status."""
    from app.gui.application import run_gui as run

    return run(argv)


def render_screenshot(path: str, session_id: str | None) -> int:
    """Renders the main window offscreen (1280x800) into a PNG; returns the exit status."""
    from app.gui.application import render_screenshot as render

    return render(path, session_id)


__all__ = ["render_screenshot", "run_gui"]
