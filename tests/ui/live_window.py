"""The desktop app end to end: the real window, Container and SQLite, its SDK adapters pointed at the local fake
provider servers (keys and base URLs from the environment), shown and loaded with its model choices."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import pytest
from PySide6.QtWidgets import QApplication

from app.gui.application import Running, build_window_deferred, ensure_application, wait_until
from tests.fakeservers.brain import Brain
from tests.fakeservers.trio import FakeServers, fake_provider_servers


@contextmanager
def live_window(brain: Brain, monkeypatch: pytest.MonkeyPatch, *, chunk_pause: float | None = None,
                env: Mapping[str, str] | None = None) -> Iterator[tuple[QApplication, Running, FakeServers]]:
    """The running app against fake servers answering with `brain` (`chunk_pause`: seconds between streamed chunks,
    a slow model; `env`: variables set over the fakes', e.g. a base URL nothing listens at); closed at the end."""
    with fake_provider_servers(brain) as servers:
        for name, value in {**servers.env(), **(env or {})}.items():
            monkeypatch.setenv(name, value)
        if chunk_pause is not None:
            for server in (servers.anthropic, servers.openai, servers.gemini):
                server.chunk_pause = chunk_pause
        app = ensure_application([])
        running = build_window_deferred(app)
        try:
            window, vm = running.window, running.window.chat_vm
            window.show()
            window.start()
            assert wait_until(app, lambda: not window.app_vm.state.loading and bool(vm.state.choices))
            yield app, running, servers
        finally:
            running.close()
