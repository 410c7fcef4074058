"""Entities of Palimpsest as frozen dataclasses: providers, models, agents, sessions, messages, memories."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from domain.attachment import Attachment
from domain.capabilities import REASONING_EFFORTS as REASONING_EFFORTS  # re-exported: long imported from here
from domain.capabilities import CapabilitySource as CapabilitySource
from domain.capabilities import ModelCapabilities as ModelCapabilities
from domain.capabilities import ThinkingForm as ThinkingForm
from domain.provider_models import AiModel as AiModel  # re-exported
from domain.provider_models import ModelId as ModelId  # re-exported
from domain.provider_models import ModelSource as ModelSource  # re-exported
from domain.provider_models import Provider as Provider  # re-exported
from domain.provider_models import ProviderApi as ProviderApi  # re-exported
from domain.provider_models import ProviderId as ProviderId  # re-exported
from domain.provider_models import ProviderType as ProviderType  # re-exported
from domain.provider_models import Retirement as Retirement  # re-exported
from domain.provider_models import ServerWindow as ServerWindow  # re-exported
from domain.provider_models import WindowSource as WindowSource  # re-exported
from domain.web import WebSearchRecord

AgentId = str
SessionId = str
MessageId = str
MemoryId = str


class MessageType(StrEnum):
    """Kinds of stored messages; a tool round is an ai_response, its tool_calls, then their tool_results."""

    USER = "user"
    AI_RESPONSE = "ai_response"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    ERROR = "error"


class ReplyEnd(StrEnum):
    """Why a reply kept incomplete ended early (a reply stored before this was recorded has none: not known)."""

    STOPPED = "stopped"  # the user stopped it (Stop, Esc, Ctrl+C)
    CUT = "cut"  # a failure cut it off (the server closed the stream, the network went down)


class ToolStatus(StrEnum):
    """Outcome of one tool execution."""

    SUCCESS = "success"
    ERROR = "error"


@dataclass(frozen=True)
class Agent:
    """A persona: system prompt, preferred provider/model, enabled tools and context overrides."""

    id: AgentId
    name: str
    system_prompt: str | None = None
    preferred_provider_id: ProviderId | None = None
    preferred_model_id: ModelId | None = None
    enabled_tools: tuple[str, ...] = ()
    context_overrides: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Session:
    """A conversation; its compacted summary and boundary (a message seq) define what is sent."""

    id: SessionId
    title: str
    current_agent_id: AgentId | None
    created_at: datetime
    updated_at: datetime
    message_count: int = 0
    last_message_preview: str | None = None
    is_active: bool = True
    deleted_at: datetime | None = None
    compacted_summary: str | None = None
    compact_boundary: int | None = None
    compaction_count: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cache_read_tokens: int = 0
    flushed_in_compaction_cycle: bool = False
    current_provider_id: ProviderId | None = None
    current_model_id: ModelId | None = None
    reasoning: str | None = None  # this conversation's reasoning level (REASONING_LEVELS); None: the agent's/app's
    system_prompt: str | None = None  # this conversation's own system prompt; None: the agent's applies
    web_search: bool | None = None  # this conversation's web search choice; None: the agent's applies

    @property
    def summary(self) -> str | None:
        """The compacted summary in force, or None when there is none (or only a blank one)."""
        return self.compacted_summary if self.compacted_summary and self.compacted_summary.strip() else None

    @property
    def boundary(self) -> int | None:
        """The compaction boundary in force (a message seq; older messages are summarized), None without a summary."""
        return self.compact_boundary if self.summary is not None else None


class ReasoningKind(StrEnum):
    """What a stored reasoning block is, which decides how (and whether) it is sent back to its provider."""

    THINKING = "thinking"  # Anthropic thinking (text + signature), Gemini thought summaries
    REDACTED = "redacted_thinking"  # Anthropic redacted_thinking (opaque data)
    SIGNATURE = "thought_signature"  # Gemini thoughtSignature of a part (on the reply's text or on a tool call)
    REASONING_CONTENT = "reasoning_content"  # OpenAI-compatible servers' reasoning_content / reasoning
    ENCRYPTED = "encrypted_reasoning"  # OpenAI Responses API reasoning item (encrypted_content, summary as text)


@dataclass(frozen=True)
class ReasoningBlock:
    """One block of a model's reasoning, in the order it came, bound to the provider and model that produced it
    (signatures are only valid there): never sent to another model."""

    kind: ReasoningKind
    text: str = ""
    signature: str | None = None  # Anthropic's signature, Gemini's thoughtSignature
    data: str | None = None  # redacted data, encrypted reasoning content
    item_id: str | None = None  # the provider's own id of the block (OpenAI reasoning item id)
    provider_id: ProviderId | None = None
    model_id: ModelId | None = None

    def belongs_to(self, provider_id: ProviderId, model_id: ModelId) -> bool:
        """Whether the block may be sent back in a request to this provider and model."""
        return self.provider_id == provider_id and self.model_id == model_id


@dataclass(frozen=True)
class Message:
    """One stored message; never deleted by context management. `seq` orders it within its session."""

    id: MessageId
    session_id: SessionId
    type: MessageType
    content: str = ""
    created_at: datetime | None = None
    seq: int = 0
    thinking_content: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    tool_input: str | None = None
    tool_output: str | None = None
    tool_status: ToolStatus | None = None
    tool_output_original_chars: int | None = None
    model_id: ModelId | None = None
    provider_id: ProviderId | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    incomplete: bool = False
    pinned: bool = False
    has_image: bool = False
    active: bool = True  # False: not on the conversation's active path (another branch), kept for the record
    reasoning: tuple[ReasoningBlock, ...] = ()  # a reply's reasoning blocks in order (a tool call: its part's)
    reasoning_tokens: int | None = None  # the part of output_tokens spent on reasoning, where the provider says
    thinking_ms: int | None = None  # how long the model reasoned before the reply (or its tool calls) began
    parent_id: MessageId | None = None  # the message this one follows in the tree (None: a root); set by the store
    attachments: tuple[Attachment, ...] = ()  # a user message's files, in the order attached
    web: WebSearchRecord | None = None  # a reply's web searches: sources, citations, the provider's blocks
    end_reason: ReplyEnd | None = None  # an incomplete reply: who ended it (None: complete, or not known)


@dataclass(frozen=True)
class Memory:
    """A durable fact saved for an agent (or globally when agent_id is None)."""

    id: MemoryId
    content: str
    created_at: datetime
    agent_id: AgentId | None = None
    source_session_id: SessionId | None = None


@dataclass(frozen=True)
class CompactionRecord:
    """One compaction of a session, kept for the UI's timeline."""

    session_id: SessionId
    created_at: datetime
    boundary: int
    tokens_before: int
    tokens_after: int
    summary_tokens: int
    trigger: str  # "auto" | "manual" | "overflow" | "model_switch" | "imported" | "reset" (Reset context: no summary)
    summary: str | None = None  # the checkpoint written (None: not known, from before branches)
    through_id: MessageId | None = None  # the last message it summarizes: it holds on every path through that one


@dataclass(frozen=True)
class TreeNode:
    """A message's place in its session's tree, without its content: what branch operations need."""

    id: MessageId
    parent_id: MessageId | None
    seq: int
    type: MessageType
    active: bool
    preview: str = ""


@dataclass(frozen=True)
class ToolDefinition:
    """A provider-neutral tool: name, description, JSON schema of its input."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token usage of one request. input_tokens counts all prompt tokens, cache reads included."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0  # the part of output_tokens spent on reasoning, where the provider reports it
    web_search_requests: int = 0  # the searches the provider ran for the request (priced per search)
