"""The container's use cases a chat turn never needs (list, show, rename, import, configure): each built, and its
module imported, on first use, so a one-turn `palimpsest chat` loads none of them."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from data.db.agents import SqlAgentRepository
    from data.db.ai_models import SqlModelRepository
    from data.db.engine import Database
    from data.db.memories import SqlMemoryRepository
    from data.db.messages import SqlMessageRepository
    from data.db.providers import SqlProviderRepository
    from data.db.sessions import SqlSessionRepository
    from data.db.settings import SqlSettingsRepository
    from data.documents.knowledge import KnowledgeIndexer
    from data.storage import Storage
    from domain.chat.paths import BranchSwitcher
    from domain.chat.turn_gate import TurnGate
    from domain.ports import ApiKeyStorage, Clock
    from domain.services.adapters import ProviderAdapters
    from domain.usecases.add_model import AddModelUseCase
    from domain.usecases.add_provider import AddProviderUseCase
    from domain.usecases.api_key_status import ApiKeyStatusUseCase
    from domain.usecases.archive_session import ArchiveSessionUseCase
    from domain.usecases.automatic_window import UseAutomaticWindowUseCase
    from domain.usecases.branches import CheckoutBranchUseCase, DeleteBranchUseCase, ListBranchesQuery
    from domain.usecases.configure_agent import ConfigureAgentUseCase
    from domain.usecases.create_session import CreateSessionUseCase
    from domain.usecases.delete_agent import DeleteAgentUseCase
    from domain.usecases.delete_api_key import DeleteApiKeyUseCase
    from domain.usecases.delete_memory import DeleteMemoryUseCase
    from domain.usecases.delete_provider import DeleteProviderUseCase
    from domain.usecases.delete_session import DeleteSessionUseCase
    from domain.usecases.export_session import ExportSessionUseCase
    from domain.usecases.fork_session import ForkSessionUseCase
    from domain.usecases.import_conversations import ImportConversationsUseCase
    from domain.usecases.list_agents import ListAgentsUseCase
    from domain.usecases.list_memories import ListMemoriesUseCase
    from domain.usecases.list_models import ListModelsUseCase
    from domain.usecases.list_providers import ListProvidersUseCase
    from domain.usecases.list_sessions import ListSessionsUseCase
    from domain.usecases.load_conversation import LoadConversationQuery
    from domain.usecases.open_at_message import OpenAtMessageQuery
    from domain.usecases.pin_message import PinMessageUseCase
    from domain.usecases.purge_deleted import PurgeDeletedSessionsUseCase
    from domain.usecases.reattach import SessionAttachmentsQuery
    from domain.usecases.refresh_models import RefreshModelsUseCase
    from domain.usecases.rename_session import RenameSessionUseCase
    from domain.usecases.save_agent import SaveAgentUseCase
    from domain.usecases.save_context_settings import SaveContextSettingsUseCase
    from domain.usecases.save_memory_entry import SaveMemoryEntryUseCase
    from domain.usecases.search_sessions import SearchSessionsUseCase
    from domain.usecases.select_target import SelectTargetUseCase
    from domain.usecases.session_usage import SessionUsageQuery
    from domain.usecases.set_api_key import SetApiKeyUseCase
    from domain.usecases.set_provider_api import SetProviderApiUseCase
    from domain.usecases.set_provider_base_url import SetProviderBaseUrlUseCase
    from domain.usecases.set_session_prompt import SetSessionPromptUseCase
    from domain.usecases.set_session_reasoning import SetSessionReasoningUseCase
    from domain.usecases.set_session_web_search import SetSessionWebSearchUseCase
    from domain.usecases.show_session import ShowSessionUseCase


class ManagementUseCases:
    """Lazily built use cases over the container's repositories (set by Container.__init__)."""

    storage: Storage
    keys: ApiKeyStorage
    clock: Clock
    store: Database
    sessions: SqlSessionRepository
    messages: SqlMessageRepository
    providers: SqlProviderRepository
    models: SqlModelRepository
    agents: SqlAgentRepository
    memories: SqlMemoryRepository
    settings: SqlSettingsRepository
    adapters: ProviderAdapters
    turn_gate: TurnGate

    @cached_property
    def knowledge(self) -> KnowledgeIndexer:
        from data.documents.knowledge import KnowledgeIndexer
        return KnowledgeIndexer(self.storage.documents)

    @cached_property
    def create_session(self) -> CreateSessionUseCase:
        from domain.usecases.create_session import CreateSessionUseCase
        return CreateSessionUseCase(self.sessions, self.agents, self.clock)

    @cached_property
    def list_sessions(self) -> ListSessionsUseCase:
        from domain.usecases.list_sessions import ListSessionsUseCase
        return ListSessionsUseCase(self.sessions)

    @cached_property
    def show_session(self) -> ShowSessionUseCase:
        from domain.usecases.show_session import ShowSessionUseCase
        return ShowSessionUseCase(self.sessions, self.messages)

    @cached_property
    def conversation(self) -> LoadConversationQuery:
        from domain.usecases.load_conversation import LoadConversationQuery
        return LoadConversationQuery(self.sessions, self.messages)

    @cached_property
    def session_usage(self) -> SessionUsageQuery:
        from domain.usecases.session_usage import SessionUsageQuery
        return SessionUsageQuery(self.sessions, self.messages)

    @cached_property
    def select_target(self) -> SelectTargetUseCase:
        from domain.usecases.select_target import SelectTargetUseCase
        return SelectTargetUseCase(self.store, self.sessions, self.providers, self.agents)

    @cached_property
    def export_session(self) -> ExportSessionUseCase:
        from domain.usecases.export_session import ExportSessionUseCase
        return ExportSessionUseCase(self.sessions, self.messages)

    @cached_property
    def search_sessions(self) -> SearchSessionsUseCase:
        from domain.usecases.search_sessions import SearchSessionsUseCase
        return SearchSessionsUseCase(self.sessions)

    @cached_property
    def delete_session(self) -> DeleteSessionUseCase:
        from domain.usecases.delete_session import DeleteSessionUseCase
        return DeleteSessionUseCase(self.sessions, self.clock)

    @cached_property
    def rename_session(self) -> RenameSessionUseCase:
        from domain.usecases.rename_session import RenameSessionUseCase
        return RenameSessionUseCase(self.sessions, self.clock)

    @cached_property
    def archive_session(self) -> ArchiveSessionUseCase:
        from domain.usecases.archive_session import ArchiveSessionUseCase
        return ArchiveSessionUseCase(self.sessions)

    @cached_property
    def purge_deleted_sessions(self) -> PurgeDeletedSessionsUseCase:
        from domain.usecases.purge_deleted import PurgeDeletedSessionsUseCase
        return PurgeDeletedSessionsUseCase(self.sessions, self.clock)

    @cached_property
    def set_session_reasoning(self) -> SetSessionReasoningUseCase:
        from domain.usecases.set_session_reasoning import SetSessionReasoningUseCase
        return SetSessionReasoningUseCase(self.sessions, self.clock)

    @cached_property
    def set_session_web_search(self) -> SetSessionWebSearchUseCase:
        from domain.usecases.set_session_web_search import SetSessionWebSearchUseCase
        return SetSessionWebSearchUseCase(self.sessions, self.clock)

    @cached_property
    def set_session_prompt(self) -> SetSessionPromptUseCase:
        from domain.usecases.set_session_prompt import SetSessionPromptUseCase
        return SetSessionPromptUseCase(self.sessions, self.clock)

    @cached_property
    def pin_message(self) -> PinMessageUseCase:
        from domain.usecases.pin_message import PinMessageUseCase
        return PinMessageUseCase(self.messages)

    @cached_property
    def _switcher(self) -> BranchSwitcher:
        from domain.chat.paths import BranchSwitcher
        return BranchSwitcher(self.store, self.sessions, self.messages)

    @cached_property
    def list_branches(self) -> ListBranchesQuery:
        from domain.usecases.branches import ListBranchesQuery
        return ListBranchesQuery(self.sessions, self.messages)

    @cached_property
    def checkout_branch(self) -> CheckoutBranchUseCase:
        from domain.usecases.branches import CheckoutBranchUseCase
        return CheckoutBranchUseCase(self._switcher, self.sessions, self.messages, gate=self.turn_gate)

    @cached_property
    def open_at_message(self) -> OpenAtMessageQuery:
        from domain.usecases.open_at_message import OpenAtMessageQuery
        return OpenAtMessageQuery(self.sessions, self.messages, self.conversation, self.checkout_branch)

    @cached_property
    def delete_branch(self) -> DeleteBranchUseCase:
        from domain.usecases.branches import DeleteBranchUseCase
        return DeleteBranchUseCase(self.store, self._switcher, self.sessions, self.messages, gate=self.turn_gate)

    @cached_property
    def fork_session(self) -> ForkSessionUseCase:
        from domain.usecases.fork_session import ForkSessionUseCase
        return ForkSessionUseCase(self.store, self.sessions, self.messages, self.clock, gate=self.turn_gate)

    @cached_property
    def import_conversations(self) -> ImportConversationsUseCase:
        from domain.usecases.import_conversations import ImportConversationsUseCase
        return ImportConversationsUseCase(self.store, self.sessions, self.messages, self.agents, gate=self.turn_gate)

    @cached_property
    def session_attachments(self) -> SessionAttachmentsQuery:
        from domain.usecases.reattach import SessionAttachmentsQuery
        return SessionAttachmentsQuery(self.messages)

    @cached_property
    def list_providers(self) -> ListProvidersUseCase:
        from domain.usecases.list_providers import ListProvidersUseCase
        return ListProvidersUseCase(self.providers, self.keys)

    @cached_property
    def set_provider_base_url(self) -> SetProviderBaseUrlUseCase:
        from domain.usecases.set_provider_base_url import SetProviderBaseUrlUseCase
        return SetProviderBaseUrlUseCase(self.providers)

    @cached_property
    def set_provider_api(self) -> SetProviderApiUseCase:
        from domain.usecases.set_provider_api import SetProviderApiUseCase
        return SetProviderApiUseCase(self.providers)

    @cached_property
    def add_provider(self) -> AddProviderUseCase:
        from domain.usecases.add_provider import AddProviderUseCase
        return AddProviderUseCase(self.providers)

    @cached_property
    def delete_provider(self) -> DeleteProviderUseCase:
        from domain.usecases.delete_provider import DeleteProviderUseCase
        return DeleteProviderUseCase(self.providers, self.keys)

    @cached_property
    def list_models(self) -> ListModelsUseCase:
        from domain.usecases.list_models import ListModelsUseCase
        return ListModelsUseCase(self.providers, self.models)

    @cached_property
    def refresh_models(self) -> RefreshModelsUseCase:
        from domain.usecases.refresh_models import RefreshModelsUseCase
        return RefreshModelsUseCase(self.providers, self.models, self.adapters)

    @cached_property
    def add_model(self) -> AddModelUseCase:
        from domain.usecases.add_model import AddModelUseCase
        return AddModelUseCase(self.providers, self.models)

    @cached_property
    def use_automatic_window(self) -> UseAutomaticWindowUseCase:
        from domain.usecases.automatic_window import UseAutomaticWindowUseCase
        return UseAutomaticWindowUseCase(self.providers, self.models)

    @cached_property
    def set_api_key(self) -> SetApiKeyUseCase:
        from domain.usecases.set_api_key import SetApiKeyUseCase
        return SetApiKeyUseCase(self.providers, self.keys)

    @cached_property
    def delete_api_key(self) -> DeleteApiKeyUseCase:
        from domain.usecases.delete_api_key import DeleteApiKeyUseCase
        return DeleteApiKeyUseCase(self.providers, self.keys)

    @cached_property
    def api_key_status(self) -> ApiKeyStatusUseCase:
        from domain.usecases.api_key_status import ApiKeyStatusUseCase
        return ApiKeyStatusUseCase(self.providers, self.keys)

    @cached_property
    def list_memories(self) -> ListMemoriesUseCase:
        from domain.usecases.list_memories import ListMemoriesUseCase
        return ListMemoriesUseCase(self.memories)

    @cached_property
    def save_memory_entry(self) -> SaveMemoryEntryUseCase:
        from domain.usecases.save_memory_entry import SaveMemoryEntryUseCase
        return SaveMemoryEntryUseCase(self.memories, self.clock)

    @cached_property
    def delete_memory(self) -> DeleteMemoryUseCase:
        from domain.usecases.delete_memory import DeleteMemoryUseCase
        return DeleteMemoryUseCase(self.memories)

    @cached_property
    def list_agents(self) -> ListAgentsUseCase:
        from domain.usecases.list_agents import ListAgentsUseCase
        return ListAgentsUseCase(self.agents)

    @cached_property
    def save_agent(self) -> SaveAgentUseCase:
        from data.tools.executor import TOOL_NAMES
        from domain.usecases.save_agent import SaveAgentUseCase
        return SaveAgentUseCase(self.agents, TOOL_NAMES)

    @cached_property
    def configure_agent(self) -> ConfigureAgentUseCase:
        from domain.usecases.configure_agent import ConfigureAgentUseCase
        return ConfigureAgentUseCase(self.agents, self.save_agent)

    @cached_property
    def save_context_settings(self) -> SaveContextSettingsUseCase:
        from domain.usecases.save_context_settings import SaveContextSettingsUseCase
        return SaveContextSettingsUseCase(self.settings)

    @cached_property
    def delete_agent(self) -> DeleteAgentUseCase:
        from domain.usecases.delete_agent import DeleteAgentUseCase
        return DeleteAgentUseCase(self.agents)
