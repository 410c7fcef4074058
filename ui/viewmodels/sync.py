"""Drives Settings › Sync and the background sync: set up, sync now, off; syncs every few minutes when set up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ui.error_text import describe
from ui.signals import emit
from ui.sync_backend import SyncBackend, SyncInfo, SyncOutcome, SyncSetup
from ui.worker import AsyncWorker

BACKGROUND_MS = 5 * 60 * 1000  # every five minutes
AFTER_CHANGE_MS = 20 * 1000  # a change is sent this long after it (changes in a row: once)


@dataclass(frozen=True)
class SyncState:
    """Everything the Sync page and the status indicator show."""

    loaded: bool = False
    info: SyncInfo | None = None
    busy: bool = False
    message: str | None = None
    error: str | None = None


class SyncViewModel(QObject):
    """The sync verbs; each runs on the worker and updates SyncState. Background sync runs only when set up."""

    state_changed = Signal(object)  # SyncState
    synced = Signal()  # a sync received changes: conversations may have changed

    def __init__(self, backend: SyncBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend, self._worker = backend, worker
        self._state = SyncState()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.sync_in_background)
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.timeout.connect(self.sync_in_background)

    @property
    def state(self) -> SyncState:
        return self._state

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)

    def _run(self, make: Callable[[], Any], then: Callable[[Any], None], *, quiet: bool = False) -> None:
        self._set(busy=True, error=None)

        def ok(result: Any) -> None:
            self._set(busy=False)
            then(result)

        def failed(error: Exception) -> None:
            self._set(busy=False, error=describe(error), message=None if not quiet else self._state.message)

        self._worker.call(make, ok, failed)

    def load(self) -> None:
        """Reads the status."""
        self._run(self._backend.sync_info, lambda info: self._set(loaded=True, info=info))

    def start_background(self, interval_ms: int = BACKGROUND_MS) -> None:
        """Syncs now and then every `interval_ms` while set up."""
        self._timer.start(interval_ms)
        self._run(self._backend.sync_info, self._first)

    def _first(self, info: SyncInfo | None) -> None:
        self._set(loaded=True, info=info)
        self.sync_in_background()

    def changed(self, delay_ms: int = AFTER_CHANGE_MS) -> None:
        """Something changed here: sync a little later (many changes in a row: one sync)."""
        if self._state.info is not None:
            self._soon.start(delay_ms)

    def sync_in_background(self) -> None:
        """Syncs if set up and not already syncing."""
        if self._state.info is not None and not self._state.busy:
            self.sync_now()

    def sync_now(self) -> None:
        """Syncs once, then reads the status again."""
        self._run(self._backend.sync_now, self._after_sync)

    def _after_sync(self, outcome: SyncOutcome) -> None:
        self._set(message=outcome.summary)
        if outcome.received:
            emit(self.synced)
        self.load()

    def set_up(self, setup: SyncSetup) -> None:
        """Sets sync up (the remote and the passphrase are checked first: nothing is kept when they fail)."""
        if not setup.location.strip():
            self._set(error="Give the folder, the WebDAV URL or s3://BUCKET/PREFIX to sync through.", message=None)
            return
        self._run(lambda: self._backend.sync_setup(setup), self._set_up)

    def _set_up(self, info: SyncInfo) -> None:
        self._set(info=info, message=f"Sync set up with {info.location}.")
        self.sync_now()

    def turn_off(self) -> None:
        """Stops syncing (the remote keeps its files)."""
        self._run(self._backend.sync_off, lambda _: self._set(info=None, message="Sync is off."))
