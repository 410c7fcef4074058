"""A real desktop app process for tests/ui/test_gui_signals.py: opens the window on PALIMPSEST_HOME, sends one
message, then runs the event loop exactly as `palimpsest` does until it is closed or signalled."""

from __future__ import annotations

import sys

import keyring

from app.gui.application import build_window, ensure_application, run_until_closed, wait_until
from tests.file_keyring import FileKeyring


def main() -> int:
    keyring.set_keyring(FileKeyring())
    app = ensure_application(["palimpsest"])
    running = build_window(app)
    window = running.window
    window.show()
    window.start()
    wait_until(app, lambda: window.chat_vm.state.selection is not None and not window.app_vm.state.loading)
    if not window.chat_vm.send("Tell me a long story"):
        print("child: could not send", file=sys.stderr)
        return 3
    print("child: sending", file=sys.stderr, flush=True)
    return run_until_closed(app, running)


if __name__ == "__main__":
    raise SystemExit(main())
