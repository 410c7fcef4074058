"""The UI's ChatBackend over the Container's use cases: one bridge per screen, joined; runs on the worker's loop."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from app.container import Container
from app.gui.bridge_attachments import AttachmentsBridge
from app.gui.bridge_chat import AppBridge, ConversationBridge
from app.gui.bridge_knowledge import KnowledgeBridge
from app.gui.bridge_mcp import McpBridge
from app.gui.bridge_sessions import SessionsBridge
from app.gui.bridge_settings import SettingsBridge
from app.gui.bridge_sync import SyncBridge
from ui.backend import ChatBackend, StartupInfo


class ContainerBackend(AppBridge, ConversationBridge, AttachmentsBridge, SessionsBridge, SettingsBridge,
                       KnowledgeBridge, SyncBridge, McpBridge, ChatBackend):
    """Implements every screen's interface with the same use cases the CLI uses."""

    def __init__(self, container: Container) -> None:
        self._c = container
        self.knowledge_refresh: asyncio.Task[Sequence[str]] | None = None  # the check at start, while it runs

    async def startup(self) -> StartupInfo:
        """See AppBridge.startup; the knowledge folders whose files changed are indexed again in the background."""
        info = await super().startup()
        if self.knowledge_refresh is None:
            self.knowledge_refresh = asyncio.get_running_loop().create_task(self.refresh_knowledge(None))
        return info
