"""The app's start-up path: the window paints before the Container exists, and a broken database is reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from app.gui.application import build_window_deferred, ensure_application, wait_until
from app.gui.deferred import DeferredBackend


def test_the_window_loads_through_the_deferred_container(qapp) -> None:
    app = ensure_application([])
    running = build_window_deferred(app)
    try:
        window = running.window
        window.show()
        window.start()
        assert wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
        assert window.app_vm.state.error is None
        assert window.app_vm.state.startup is not None and window.app_vm.state.first_run  # no key yet
        assert {p.provider.id for p in window.app_vm.state.startup.providers} >= {"anthropic", "openai", "gemini"}
    finally:
        running.close()


def test_a_corrupt_database_is_reported_by_name_and_left_untouched(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["PALIMPSEST_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    db = home / "palimpsest.db"
    db.write_bytes(b"this is not a database" * 100)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _parent, _title, text: shown.append(text))
    app = ensure_application([])
    exits: list[int] = []  # app.exit(1) with no event loop running would end every later test's event loops at once
    monkeypatch.setattr(app, "exit", exits.append)
    running = build_window_deferred(app)
    try:
        running.window.show()
        running.window.start()
        assert wait_until(app, lambda: bool(shown))
        assert exits == [1]
        assert str(db) in shown[0]
        assert db.read_bytes() == b"this is not a database" * 100
        assert wait_until(app, lambda: running.window.app_vm.state.error is not None)
    finally:
        running.close()
    QApplication.processEvents()


def test_the_deferred_backend_refuses_unknown_operations() -> None:
    backend = DeferredBackend()
    with pytest.raises(AttributeError):
        backend.no_such_operation  # noqa: B018
