"""The Sync settings' verbs on the container (blocking I/O runs on a thread, off the worker's loop)."""

from __future__ import annotations

import asyncio

from app.container import Container
from app.sync_service import SetupRequest, set_up, status, sync_now, turn_off
from domain.sync.errors import SyncRunning
from ui.sync_backend import SyncInfo, SyncOutcome, SyncSetup


class SyncBridge:
    """Implements ui.sync_backend.SyncBackend."""

    _c: Container

    async def sync_info(self) -> SyncInfo | None:
        return await asyncio.to_thread(self._info)

    def _info(self) -> SyncInfo | None:
        body = status(self._c.storage)
        if body is None:
            return None
        last = body["last"] or {}
        summary = (f"received {last['received']} file(s), sent {last['sent']} change(s)" if last else None)
        return SyncInfo(body["kind"], body["location"], body["encrypted"], last.get("at"), summary,
                        body["waiting_changes"])

    async def sync_setup(self, setup: SyncSetup) -> SyncInfo:
        request = SetupRequest(setup.kind, setup.location, setup.user, setup.password, setup.endpoint,
                               setup.access_key, setup.secret_key, setup.passphrase, setup.encrypt)
        await asyncio.to_thread(set_up, self._c.storage, request)
        info = await self.sync_info()
        assert info is not None
        return info

    async def sync_now(self) -> SyncOutcome:
        try:
            report, took = await asyncio.to_thread(sync_now, self._c.storage)
        except SyncRunning:  # `palimpsest sync now` in a terminal: this one is not needed
            return SyncOutcome("A sync of this device was already running (palimpsest sync now?): this one was "
                               "skipped.", 0)
        words = f"Received {report.received} change file(s), sent {report.sent} change(s) in {took:.1f} s."
        return SyncOutcome(" ".join([words, *report.notices]), report.received)

    async def sync_off(self) -> None:
        await asyncio.to_thread(turn_off, self._c.storage)
