"""BuiltinTools: the ToolExecutor offering http_request, save_memory, search_memory and read_tool_result."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from data.tools.base import BuiltinTool, ToolArgumentError
from data.tools.documents import ReadDocumentTool, SearchDocumentsTool
from data.tools.http_request import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_S, AllowedHostsSource, HttpRequestTool
from data.tools.read_tool_result import ReadToolResultTool
from data.tools.save_memory import SaveMemoryTool
from data.tools.search_memory import SearchMemoryTool
from domain.documents import DOCUMENT_TOOLS, DocumentIndex
from domain.errors import PalimpsestError
from domain.models import ToolDefinition
from domain.ports import Clock, MemoryRepository, MessageRepository
from domain.provider_ports import ToolContext, ToolOutcome
from domain.tool_approval import ToolApprover
from domain.usecases.search_documents import SearchDocuments

log = logging.getLogger(__name__)

TOOL_NAMES = ("http_request", "save_memory", "search_memory", "read_tool_result")


class BuiltinTools:
    """Runs the built-in tools by name; a tool's failure or bad arguments become an error outcome, never a raise."""

    def __init__(
        self,
        memories: MemoryRepository,
        messages: MessageRepository,
        clock: Clock,
        *,
        http_timeout: float = DEFAULT_TIMEOUT_S,
        http_max_bytes: int = DEFAULT_MAX_BYTES,
        http_allowed_hosts: AllowedHostsSource = (),
        approver: ToolApprover | None = None,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        documents: DocumentIndex | None = None,
        document_search: SearchDocuments | None = None,
    ) -> None:
        """`documents`: the index search_documents and read_document read; those two are offered only where a
        conversation has a document too large to send whole or its agent has knowledge (named explicitly);
        `document_search` ranks search_documents' passages (semantic where on; None: BM25 alone)."""
        self._http = HttpRequestTool(
            timeout=http_timeout, max_bytes=http_max_bytes, allowed_hosts=http_allowed_hosts, approver=approver
        )
        tools: list[BuiltinTool] = [
            self._http,
            SaveMemoryTool(memories, clock, new_id),
            SearchMemoryTool(memories),
            ReadToolResultTool(messages),
        ]
        if documents is not None:
            tools += [SearchDocumentsTool(documents, document_search), ReadDocumentTool(documents)]
        self._tools: dict[str, BuiltinTool] = {t.definition.name: t for t in tools}

    async def aclose(self) -> None:
        """Closes http_request's kept connections; call it on the event loop that ran the tools."""
        await self._http.aclose()

    def definitions(self, enabled: Sequence[str] | None = None) -> Sequence[ToolDefinition]:
        """All tools when `enabled` is None, else those named (unknown names ignored), in a stable order."""
        if enabled is None:
            return [t.definition for name, t in self._tools.items() if name not in DOCUMENT_TOOLS]
        wanted = set(enabled)
        return [t.definition for name, t in self._tools.items() if name in wanted]

    async def execute(self, name: str, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        """Runs the tool; unknown tools, bad arguments and failures come back as error outcomes."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools)
            return ToolOutcome(f"Unknown tool {name!r}. Available tools: {known}.", is_error=True)
        if not isinstance(arguments, Mapping):
            return ToolOutcome(f"The arguments of {name} must be a JSON object.", is_error=True)
        try:
            return await tool.run(arguments, context)
        except ToolArgumentError as err:
            return ToolOutcome(f"{name}: {err}", is_error=True)
        except PalimpsestError as err:
            return ToolOutcome(f"{name} failed: {err.message}", is_error=True)
        except Exception as err:  # a tool failing must not end the turn; the model reads the error instead
            log.exception("tool %s failed", name)
            return ToolOutcome(f"{name} failed unexpectedly: {type(err).__name__}: {err}", is_error=True)
