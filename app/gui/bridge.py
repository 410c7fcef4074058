"""The UI's ChatBackend over the Container's use cases: one bridge per screen, joined; runs on the worker's loop."""

from __future__ import annotations

from app.container import Container
from app.gui.bridge_attachments import AttachmentsBridge
from app.gui.bridge_chat import AppBridge, ConversationBridge
from app.gui.bridge_knowledge import KnowledgeBridge
from app.gui.bridge_mcp import McpBridge
from app.gui.bridge_sessions import SessionsBridge
from app.gui.bridge_settings import SettingsBridge
from app.gui.bridge_sync import SyncBridge
from ui.backend import ChatBackend


class ContainerBackend(AppBridge, ConversationBridge, AttachmentsBridge, SessionsBridge, SettingsBridge,
                       KnowledgeBridge, SyncBridge, McpBridge, ChatBackend):
    """Implements every screen's interface with the same use cases the CLI uses."""

    def __init__(self, container: Container) -> None:
        self._c = container
