"""The hub's requests for a server's prompts and resources (McpCatalog), and its resource subscriptions: a
`notifications/resources/updated` marks the resource changed until whoever attached it takes the mark."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

import mcp_types as types
from mcp import ClientSession

from data.mcp.catalog import contents_of, list_prompts, list_resource_templates, list_resources, prompt_text
from domain.mcp import McpServer
from domain.mcp_catalog import McpPrompt, McpResource, McpResourceContent, McpResourceTemplate

T = TypeVar("T")
log = logging.getLogger(__name__)


class ResourceChanges:
    """Resources whose server said they changed (server, URI), until taken; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed: set[tuple[str, str]] = set()

    def mark(self, server: str, uri: str) -> None:
        """The server said the resource changed."""
        with self._lock:
            self._changed.add((server, uri))

    def pending(self, server: str, uri: str) -> bool:
        """True while a change is marked and not yet taken (a look that leaves the mark)."""
        with self._lock:
            return (server, uri) in self._changed

    def take(self, server: str, uri: str) -> bool:
        """True once after each change (the caller re-reads it then)."""
        with self._lock:
            if (server, uri) in self._changed:
                self._changed.discard((server, uri))
                return True
            return False


class HubCatalog:
    """McpCatalog on the hub: each request runs on the server's session (started if needed) within its time
    limit, through the hub's `_submit` and `_ask`."""

    resource_changes: ResourceChanges
    _subscribed: dict[str, set[str]]  # the URIs subscribed to, per server: subscribed again when it restarts

    async def _submit(self, work: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        raise NotImplementedError

    async def _ask(self, server: McpServer, what: str,
                   request: Callable[[ClientSession], Coroutine[Any, Any, T]]) -> T:
        raise NotImplementedError

    async def list_prompts(self, server: McpServer) -> Sequence[McpPrompt]:
        """See McpCatalog.list_prompts."""
        return await self._submit(self._ask, server, "list its prompts", list_prompts)

    async def get_prompt(self, server: McpServer, name: str, arguments: Mapping[str, str]) -> str:
        """See McpCatalog.get_prompt."""
        async def get(session: ClientSession) -> str:
            return prompt_text(await session.get_prompt(name, dict(arguments)))
        return await self._submit(self._ask, server, f"fill in its prompt {name!r}", get)

    async def complete(self, server: McpServer, prompt: str, argument: str, value: str,
                       context: Mapping[str, str] | None = None) -> list[str]:
        """See McpCatalog.complete."""
        async def complete(session: ClientSession) -> list[str]:
            ref = types.PromptReference(type="ref/prompt", name=prompt)
            done = await session.complete(ref, {"name": argument, "value": value}, dict(context or {}) or None)
            return list(done.completion.values)
        return await self._submit(self._ask, server, f"complete {argument!r} of {prompt!r}", complete)

    async def list_resources(self, server: McpServer) -> Sequence[McpResource]:
        """See McpCatalog.list_resources."""
        return await self._submit(self._ask, server, "list its resources", list_resources)

    async def list_resource_templates(self, server: McpServer) -> Sequence[McpResourceTemplate]:
        """See McpCatalog.list_resource_templates."""
        return await self._submit(self._ask, server, "list its resource templates", list_resource_templates)

    async def read_resource(self, server: McpServer, uri: str) -> list[McpResourceContent]:
        """See McpCatalog.read_resource."""
        async def read(session: ClientSession) -> list[McpResourceContent]:
            return contents_of(await session.read_resource(uri))
        return await self._submit(self._ask, server, f"read {uri}", read)


    async def subscribe_resource(self, server: McpServer, uri: str) -> bool:
        """Asks the server to say when the resource changes (resources/subscribe); False when it offers no
        subscriptions. Each `notifications/resources/updated` marks it in `resource_changes`."""
        async def subscribe(session: ClientSession) -> bool:
            offered = session.server_capabilities
            if offered is None or offered.resources is None or not offered.resources.subscribe:
                return False
            await session.send_request(types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri)),
                                       types.EmptyResult)  # (the SDK's helper warns: the 2026 revision drops it)
            self._subscribed.setdefault(server.name, set()).add(uri)
            return True
        return await self._submit(self._ask, server, f"subscribe to {uri}", subscribe)

    async def unsubscribe_resource(self, server: McpServer, uri: str) -> None:
        """No more updates of the resource (resources/unsubscribe)."""
        async def unsubscribe(session: ClientSession) -> None:
            self._subscribed.get(server.name, set()).discard(uri)
            await session.send_request(types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri)),
                                       types.EmptyResult)
        await self._submit(self._ask, server, f"unsubscribe from {uri}", unsubscribe)

    def resource_changed(self, server: str, uri: str) -> bool:
        """True once after each notifications/resources/updated of a subscribed resource (re-read it then)."""
        return self.resource_changes.take(server, uri)

    async def _subscribe_again(self, server: McpServer, session: ClientSession) -> None:
        """A restarted server forgot its subscriptions: they are made again (a failure is logged, not raised)."""
        for uri in sorted(self._subscribed.get(server.name, ())):
            try:
                await session.send_request(types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri)),
                                           types.EmptyResult)
            except Exception as err:
                log.warning("Could not subscribe to %s of %s again: %s", uri, server.name, err)
