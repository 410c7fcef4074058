"""The composition root: builds storage, keys, adapters, tools, the context engine and the chat use cases once (the
others on first use, app/container_management.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.adapter_cache import LazyAdapterFactory
from app.cli.mcp_catalog_cmd import resource_files
from app.container_management import ManagementUseCases
from app.lazy_parts import LazyDocumentCards, LazyMcpConnector
from app.mcp_resource_watch import WatchedResources
from app.storage_choice import open_storage
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from data.db.lease_rules import HOST
from data.keys import KeyringApiKeyStorage
from data.mcp.secrets import KeyringMcpSecrets
from data.providers.embedder_factory import SdkEmbedderFactory
from data.providers.media_forms import AttachmentForms
from data.providers.rules import PROVIDER_RULES
from data.providers.thinking_rules import ProviderThinkingRules
from data.tools import BuiltinTools
from domain.chat.provider_numbers import ProviderNumbers
from domain.chat.request import RequestPlanner
from domain.chat.turn_gate import TurnGate
from domain.chat.turn_store import TurnStore
from domain.chat.upkeep import ContextUpkeep
from domain.context.builder import CompactAwareMessageBuilder
from domain.context.context_loader import SessionContextLoader
from domain.context.estimator import TokenEstimator
from domain.context.pruner import ToolResultPruner
from domain.mcp import McpSecretStore, McpToolSpec
from domain.mcp_tools import ToolsWithMcp
from domain.ports import ApiKeyStorage
from domain.provider_ports import ModelApiAdapterFactory
from domain.services.adapters import ProviderAdapters
from domain.services.embedders import SemanticEmbedders
from domain.services.mcp_sampler import ConversationSampler
from domain.services.summarizer import AdapterSummarizer
from domain.settings import ContextSettings
from domain.tool_approval import ToolApprover
from domain.usecases.auto_compact import AutoCompactUseCase
from domain.usecases.compact_now import CompactNowUseCase
from domain.usecases.context_status import GetContextStatusUseCase
from domain.usecases.discover_model import DiscoverModelUseCase
from domain.usecases.edit_summary import EditSummaryUseCase
from domain.usecases.generate_title import GenerateTitleUseCase
from domain.usecases.memory_flush import MemoryFlushUseCase
from domain.usecases.refresh_attached_resources import AttachedResources
from domain.usecases.reset_context import ResetContextUseCase
from domain.usecases.search_documents import SearchDocuments
from domain.usecases.send_message import SendMessageUseCase

if TYPE_CHECKING:
    from data.storage import Storage


class SystemClock:
    """The real time, in UTC."""

    def now(self) -> datetime:
        """Now, timezone-aware UTC."""
        return datetime.now(UTC)


def _price_per_million(model_id: str) -> tuple[float, float] | None:
    """A model's input and output prices (USD per million tokens) from the registry, None when unknown."""
    from app.gui.pricing import price_of

    price = price_of(model_id)
    return (price.input, price.output) if price is not None else None


class Container(ManagementUseCases):
    """Every long-lived object of a running Palimpsest; the CLI and the desktop app call its use cases."""

    def __init__(
        self, storage: Storage, keys: ApiKeyStorage, adapters: ModelApiAdapterFactory,
        approver: ToolApprover | None = None, context_overrides: Mapping[str, Any] | None = None,
        mcp_secrets: McpSecretStore | None = None,
    ) -> None:
        self.storage = storage
        self.keys = keys
        self.clock = SystemClock()
        self.store = storage.unit_of_work
        self.sessions = storage.sessions
        self.messages = storage.messages
        self.providers = storage.providers
        self.models = storage.models
        self.agents = storage.agents
        self.memories = storage.memories
        self.settings = storage.settings
        if context_overrides:  # an unknown key or a bad value fails here, before anything runs
            ContextSettings().with_overrides(context_overrides).validated()
        self.media = MediaSource(storage.attachment_files)
        if isinstance(adapters, LazyAdapterFactory) and adapters.media is None:
            adapters.media = self.media
        if isinstance(adapters, LazyAdapterFactory) and adapters.probes is None:
            adapters.probes = storage.server_probes
        self.attachments = AttachmentIntake(storage.attachment_files)
        self.documents = storage.documents  # documents read on demand (issue 30): cards, tools, knowledge folders
        self.document_cards = LazyDocumentCards(storage)
        self.media.documents = self.document_cards
        self.embedders = SemanticEmbedders(self.settings, self.agents, self.providers, keys, SdkEmbedderFactory())
        self.document_search = SearchDocuments(self.documents, storage.passage_vectors, self.embedders)
        self.turn_gate = TurnGate(storage.turn_leases, self.clock, f"process {os.getpid()} on {HOST}", host=HOST,
                                  pid=os.getpid())  # one turn at a time per conversation, across processes
        # a command's flags (`chat --reasoning high`): applied by the context loader over the app's, the agent's and
        # the session's own settings, never stored
        self._command_overrides = dict(context_overrides or {})
        self._adapter_factory = adapters
        self.adapters = ProviderAdapters(self.providers, keys, adapters)
        self.mcp_servers = storage.mcp_servers
        self.mcp_watch = WatchedResources()  # attached resources re-read on the next send when they change
        self.mcp_secrets = mcp_secrets or KeyringMcpSecrets()
        self.mcp = LazyMcpConnector(self.mcp_secrets, storage.path.parent / "logs" / "mcp", self._mcp_tools_changed,
                                    store_image=self.attachments.from_bytes)
        self.mcp_sampler = ConversationSampler(AdapterSummarizer(self.adapters),
                                               count_tokens=lambda text: self.estimator.estimate_text(text),
                                               price=_price_per_million)
        self.mcp.sampler = self.mcp_sampler
        self.mcp.remember_sampling = self._mcp_sampling_always
        self.attached_resources = AttachedResources(storage.attached_resources, self.mcp_servers, self.mcp.catalog,
                                                    lambda _s, _u, contents: resource_files(self.attachments, contents))
        self._build_engine(approver)
        self._build_conversation()

    def _build_engine(self, approver: ToolApprover | None) -> None:
        settings = self.settings
        self._builtin = builtin = BuiltinTools(  # no approver: requests other than GET/HEAD are refused
            self.memories, self.messages, self.clock,
            http_allowed_hosts=lambda: settings.tool_settings().allowed_hosts, approver=approver,
            documents=self.documents, document_search=self.document_search,
        )
        self.tools = ToolsWithMcp(builtin, self.mcp_servers, self.mcp, approver)  # no approver: "ask" refuses
        self.estimator = TokenEstimator(self.storage.calibration, PROVIDER_RULES)
        self.planner = RequestPlanner(
            CompactAwareMessageBuilder(), ToolResultPruner(self.settings.context_settings()), self.estimator,
            thinking=ProviderThinkingRules(),
        )
        self.contexts = SessionContextLoader(
            store=self.store, sessions=self.sessions, messages=self.messages, agents=self.agents,
            providers=self.providers, models=self.models, memories=self.memories, settings=self.settings,
            tools=self.tools, command_overrides=self._command_overrides, extra_tools=self.tools,
            attachment_counts=self.storage.attachment_counts, documents=self.documents,
            attachment_files=self.storage.attachment_files,
        )

    def _mcp_sampling_always(self, name: str) -> None:
        """The user allowed a server's sampling requests always (on the MCP servers' thread)."""
        server = self.mcp_servers.get(name)
        if server is not None:
            self.mcp_servers.save(replace(server, sampling_always=True))

    def _mcp_tools_changed(self, name: str, tools: list[McpToolSpec]) -> None:
        """A running server announced a new tool list: store it (offered from the next request on)."""
        server = self.mcp_servers.get(name)
        if server is not None:
            self.mcp_servers.save(replace(server, tools=tuple(tools)))

    def _build_conversation(self) -> None:
        self.auto_compact = AutoCompactUseCase(
            store=self.store, sessions=self.sessions, models=self.models,
            summarizer=AdapterSummarizer(self.adapters), planner=self.planner, clock=self.clock,
        )
        self.compact_now = CompactNowUseCase(self.contexts, self.auto_compact, gate=self.turn_gate)
        self.reset_context = ResetContextUseCase(self.sessions, self.messages, self.clock, gate=self.turn_gate)
        self.edit_summary = EditSummaryUseCase(self.sessions, self.clock, store=self.store)
        self.context_status = GetContextStatusUseCase(self.contexts, self.planner)
        self.generate_title = GenerateTitleUseCase(self.sessions, self.adapters)
        self.discover_model = DiscoverModelUseCase(self.models, self.adapters)  # one per process: asks once
        memory_flush = MemoryFlushUseCase(self.store, self.sessions, self.adapters, self.tools, self.clock)
        self.send_message = SendMessageUseCase(
            contexts=self.contexts, turns=TurnStore(self.store, self.sessions, self.messages),
            adapters=self.adapters, tools=self.tools, models=self.models,
            upkeep=ContextUpkeep(self.planner, self.auto_compact, memory_flush, self.storage.search_backlog),
            title=self.generate_title,
            clock=self.clock, discover=self.discover_model, forms=AttachmentForms(self.media),
            numbers=ProviderNumbers(self.storage.attachment_counts, self.storage.cut_evidence, self.models),
            gate=self.turn_gate,
        )

    def housekeeping(self) -> None:
        """Start-up cleaning in the desktop app: conversations deleted over 30 days ago go for good, and so do
        attachment files no message refers to (attached to a message that was never sent)."""
        self.purge_deleted_sessions()
        self.storage.sweep_unreferenced()

    @classmethod
    def build(
        cls,
        home: Path | None = None,
        *,
        adapter_factory: ModelApiAdapterFactory | None = None,
        keys: ApiKeyStorage | None = None,
        approver: ToolApprover | None = None,
        context_overrides: Mapping[str, Any] | None = None,
        lite_storage: bool = False,
    ) -> Container:
        """Opens the store under `home` (default: $PALIMPSEST_HOME or the platform folder) and wires everything;
        `approver` answers tool requests that need the user's consent (None: they are refused); `context_overrides`
        replace stored context settings for this process only (a command's flags); lite_storage: app.storage_choice."""
        storage = open_storage(home, lite=lite_storage)
        try:
            return cls(storage, keys or KeyringApiKeyStorage(), adapter_factory or LazyAdapterFactory(), approver,
                       context_overrides)
        except BaseException:
            storage.close()
            raise

    async def aclose_adapters(self) -> None:
        """Closes the SDK clients' and http_request's connections; call it on the event loop that sent, before it
        ends."""
        try:
            await self._builtin.aclose()
        finally:
            if isinstance(self._adapter_factory, LazyAdapterFactory):
                await self._adapter_factory.aclose()

    def close(self) -> None:
        """Stops the MCP servers this process started, then releases the database."""
        try:
            self.mcp.close()
        finally:
            self.storage.close()
