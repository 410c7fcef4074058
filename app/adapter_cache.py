"""The SDK adapters of one process: imported on first use, reused per provider, key and event loop, closed on exit."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import TYPE_CHECKING

from data.attachments.media import MediaSource
from domain.models import Provider
from domain.provider_ports import ModelApiAdapter

if TYPE_CHECKING:  # the SDKs are imported only when a provider is used (start-up of the CLI)
    from data.providers.base import SdkAdapter
    from data.providers.factory import SdkAdapterFactory
    from data.providers.probe_store import ProbeStore

log = logging.getLogger(__name__)


class LazyAdapterFactory:
    """The SDK adapter factory, imported on first use so that commands that never call a provider start fast.

    Adapters are reused while the provider row, the key and the event loop stay the same: building an SDK client
    loads the system's TLS certificates (about 30 ms), which would otherwise be paid on every request. Their
    connections belong to the loop that used them: `aclose` on that loop before it ends closes them all.
    """

    def __init__(self, media: MediaSource | None = None, probes: ProbeStore | None = None, *,
                 aiohttp: bool = True) -> None:
        self.aiohttp = aiohttp  # False: httpx, the SDKs imported without aiohttp (a process that runs one command)
        self.media = media  # reads attachment files for the adapters (set by the Container when not given)
        self.probes = probes  # servers' answers to window probes, kept a day (set by the Container when not given)
        self._factory: SdkAdapterFactory | None = None
        self._loop: object | None = None
        self._cache: dict[tuple[Provider, str], SdkAdapter] = {}

    def create(self, provider: Provider, api_key: str | None) -> ModelApiAdapter:
        """The adapter for the provider (see data.providers.factory.SdkAdapterFactory)."""
        if self._factory is None:
            from data.providers.factory import SdkAdapterFactory

            self._factory = SdkAdapterFactory(media=self.media, probes=self.probes, aiohttp=self.aiohttp)
        try:
            loop: object | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            return self._factory.create(provider, api_key)
        if loop is not self._loop:  # an SDK client's connection pool belongs to the loop it was used on
            self._loop, self._cache = loop, {}
        key = (provider, hashlib.sha256((api_key or "").encode()).hexdigest())
        adapter = self._cache.get(key)
        if adapter is None:
            adapter = self._cache[key] = self._factory.create(provider, api_key)
        return adapter

    async def aclose(self) -> None:
        """Closes the connections of every adapter built on the running loop (the others' loops are gone)."""
        cache, self._cache = self._cache, {}
        if self._loop is not asyncio.get_running_loop():
            return
        for adapter in cache.values():
            try:
                await adapter.aclose()
            except Exception:  # closing at exit: a connection that will not close is the OS's to reclaim
                log.warning("could not close an SDK client", exc_info=True)
