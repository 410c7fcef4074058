"""Which providers search the web natively, and what the user is told when the one in use cannot."""

from __future__ import annotations

from collections.abc import Sequence

from domain.mcp import SEPARATOR, McpServer, tool_definitions
from domain.models import AiModel, Provider, ProviderApi, ProviderType, ToolDefinition

OPENAI_HOST = "api.openai.com"


def provider_searches_web(provider: Provider) -> bool:
    """Whether the provider, as configured, has a native web search Palimpsest offers (Anthropic, Gemini, OpenAI's
    Responses API); the adapter's own answer (native_web_search) wins where an adapter is at hand."""
    if provider.type in (ProviderType.ANTHROPIC, ProviderType.GEMINI):
        return True
    if provider.type is ProviderType.OPENAI:
        on_openai = not provider.base_url or OPENAI_HOST in provider.base_url
        return provider.api is ProviderApi.RESPONSES or (provider.api is ProviderApi.AUTO and on_openai)
    return False


def native_web_search(adapter: object) -> bool:
    """Whether the provider's adapter offers its own web search (Anthropic's server tool, OpenAI's Responses API
    web_search tool, Gemini's Google Search grounding); Chat Completions and compatible servers have none."""
    return bool(getattr(adapter, "searches_web", False))


def model_takes_web_search(model: AiModel | None) -> bool:
    """Whether the model takes its provider's search tool: only a model known not to (Anthropic's Claude 3 Haiku,
    Sonnet, Opus and older; capabilities.web_search false) is refused; unknown counts as yes."""
    caps = model.capabilities if model is not None else None
    return caps is None or caps.web_search is not False


def web_search_unavailable(provider: Provider, adapter: object, search_tools: Sequence[str] = (),
                           model: AiModel | None = None) -> str | None:
    """None when the provider searches natively (and the model takes its search); else the plain sentence for the
    user: the MCP search tools it can use instead, or that there is none."""
    if native_web_search(adapter):
        if model is None or model_takes_web_search(model):
            return None
        head = f"{model.display_name or model.id} does not take {provider.name}'s web search"
        if search_tools:
            return f"{head}; the model can search through the MCP tool {', '.join(search_tools)} instead."
        return (f"{head}, and no MCP search server is configured: this conversation's replies cannot search the web "
                "(pick a model that searches, or add a search server with `palimpsest mcp add`).")
    if search_tools:
        return (f"{provider.name} has no web search of its own; the model can search through the MCP tool "
                f"{', '.join(search_tools)} instead.")
    return (f"{provider.name} has no web search of its own, and no MCP search server is configured: this "
            "conversation's replies cannot search the web (add a search server with `palimpsest mcp add`).")


WEB_SEARCH_HINTS = ("web", "brave", "tavily", "exa", "searx", "serp", "google", "bing", "duckduckgo", "kagi")


def search_tool_names(tool_names: Sequence[str]) -> list[str]:
    """The offered MCP tools (`server__tool`) that look like a web search server's: a search tool of a server or
    tool named after the web or a search engine, or one named just `search`."""
    found = []
    for name in tool_names:
        server, sep, tool = name.lower().partition(SEPARATOR)
        if sep and "search" in tool and (tool == "search" or any(h in server + tool for h in WEB_SEARCH_HINTS)):
            found.append(name)
    return found


def searches_natively(provider: Provider | None, model: AiModel | None) -> bool:
    """Whether the turn can use its provider's own search: the provider has one and the model takes it."""
    return provider is not None and provider_searches_web(provider) and model_takes_web_search(model)


def mcp_search_tools(servers: Sequence[McpServer], agent_id: str | None) -> list[ToolDefinition]:
    """The search tools (search_tool_names) of the MCP servers the agent has not turned off: what the globe uses
    where the provider has no search of its own. A server turned off for the conversation is still used: turning
    web search on there is the conversation's own, later choice."""
    offered = [d for s in servers if agent_id not in s.disabled_agents for d in tool_definitions(s)]
    wanted = set(search_tool_names([d.name for d in offered]))
    return [d for d in offered if d.name in wanted]

