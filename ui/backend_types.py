"""Plain data the desktop UI and its backend exchange: providers, selections, start-up, usage, progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.models import (
    Agent,
    ModelId,
    Provider,
    ProviderId,
)
from domain.ports import KeySource


@dataclass(frozen=True)
class ProviderInfo:
    """A provider with where its key comes from (never the key itself)."""

    provider: Provider
    key_source: KeySource | None = None
    env_var: str | None = None

    @property
    def has_key(self) -> bool:
        """Whether a key is available from the keychain or the environment."""
        return self.key_source is not None


@dataclass(frozen=True)
class ConnectionResult:
    """Outcome of Test connection: ok, a sentence for the user, and how many models were listed."""

    ok: bool
    message: str
    model_count: int = 0


@dataclass(frozen=True)
class UsageSummary:
    """A session's token totals and, where every model's price is known, its cost in US dollars."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class SessionMcpServer:
    """An MCP server as one conversation sees it: on or off here, and how many tools it offers."""

    name: str
    enabled: bool
    tools: int


@dataclass(frozen=True)
class Selection:
    """The provider and model a session talks to."""

    provider_id: ProviderId
    model_id: ModelId


@dataclass(frozen=True)
class StartupInfo:
    """What the first screen needs: configured providers, the keychain's state, and a default selection."""

    providers: tuple[ProviderInfo, ...]
    keychain_problem: str | None = None
    default_selection: Selection | None = None
    agents: tuple[Agent, ...] = field(default_factory=tuple)
    has_sessions: bool = False
    mcp_search_tools: tuple[str, ...] = ()  # the web search tools of the MCP servers (`server__tool`)

    @property
    def any_key(self) -> bool:
        """Whether at least one provider can be used (a key, or a local OpenAI-compatible server)."""
        return any(p.has_key or (p.provider.base_url and _is_local(p.provider.base_url)) for p in self.providers)


def _is_local(url: str) -> bool:
    return any(host in url for host in ("localhost", "127.0.0.1", "[::1]"))




@dataclass(frozen=True)
class SessionPrompt:
    """A conversation's own system prompt (None: its agent's applies) beside the agent's, for the editor."""

    own: str | None
    agent_name: str
    agent_prompt: str | None


@dataclass(frozen=True)
class ImportProgress:
    """How far an import is: conversations stored so far of all (total 0: not known, a large export is read as it
    is stored); at the end, what it stored."""

    done: int
    total: int
    finished: bool = False
    imported: int = 0
    skipped: int = 0
    messages: int = 0
    updated: int = 0  # conversations imported before that gained new messages
    found: str = ""  # the kind of export an automatic import found ("an Open WebUI export"), else empty
