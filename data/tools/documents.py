"""The document tools: search_documents (ranked passages with their page or section) and read_document (pages or a
section), over the documents attached in the conversation and its agent's knowledge folders; both bounded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from data.tools.base import ToolArgumentError, optional_int, require_str
from domain.documents import READ_TOOL, SEARCH_TOOL, DocumentIndex, Passage, parse_pages
from domain.models import ToolDefinition
from domain.provider_ports import ToolContext, ToolOutcome
from domain.usecases.search_documents import SearchDocuments

MAX_READ_CHARS = 12_000
MAX_PAGES = 20
DEFAULT_RESULTS, MAX_RESULTS = 8, 20

SEARCH_DEFINITION = ToolDefinition(
    name=SEARCH_TOOL,
    description=(
        "Search the documents attached to this conversation (too large to send whole) and the agent's knowledge "
        "folders. Returns the best passages, each with its page or section: cite pages as [name.pdf p. N]."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for."},
            "document": {"type": "string", "description": "Only this document (its name as on its card)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                      "description": f"At most this many passages ({DEFAULT_RESULTS})."},
        },
        "required": ["query"],
    },
)
READ_DEFINITION = ToolDefinition(
    name=READ_TOOL,
    description=(
        f"Read a document attached to this conversation or in the agent's knowledge: pages (\"12\" or \"12-14\", at "
        f"most {MAX_PAGES} at a time) of a PDF, or a section (a heading, or \"lines 1-60\") of a text file."
    ),
    parameters={
        "type": "object",
        "properties": {
            "document": {"type": "string", "description": "The document's name (as on its card or in a search)."},
            "pages": {"type": "string", "description": "Pages to read, e.g. \"412\" or \"412-414\"."},
            "section": {"type": "string", "description": "A section to read (a heading or \"lines 61-120\")."},
        },
        "required": ["document"],
    },
)


class SearchDocumentsTool:
    """Runs search_documents against the document index (BM25, blended with similarity where semantic search is on)."""

    definition = SEARCH_DEFINITION

    def __init__(self, index: DocumentIndex, search: SearchDocuments | None = None) -> None:
        self._index = index
        self._search = search or SearchDocuments(index)

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        query = require_str(arguments, "query").strip()
        document = arguments.get("document")
        if document is not None and not isinstance(document, str):
            raise ToolArgumentError("Argument 'document' must be a string.")
        document = document.strip() or None if document else None
        limit = optional_int(arguments, "limit", DEFAULT_RESULTS, minimum=1, maximum=MAX_RESULTS)
        if document and self._index.find(context.session_id, context.agent_id, document) is None:
            raise ToolArgumentError(f"No document named {document!r} in this conversation or the agent's knowledge.")
        report = context.progress
        embedded = None if report is None else \
            (lambda done, total: report(done, total, f"Embedding passages for semantic search: {done:,} / {total:,}"))
        result = await self._search(query, context.session_id, context.agent_id, document=document, limit=limit,
                                    progress=embedded)
        found = result.passages
        note = f"\n(semantic search failed: {result.problem} Ranked by words alone.)" if result.problem else ""
        if not found:
            return ToolOutcome(f"No passages match {query!r}" + (f" in {document}." if document else ".") + note)
        ranking = "by words and meaning" if result.semantic else "best first"
        lines = [f"{len(found)} passage{'s' if len(found) != 1 else ''} for {query!r}, {ranking} "
                 f"(read on with {READ_TOOL}):"]
        lines += [f"{p.where} {' '.join(p.text.split())}" for p in found]
        return ToolOutcome("\n".join(lines) + note)


class ReadDocumentTool:
    """Runs read_document against the document index: at most MAX_PAGES pages or MAX_READ_CHARS characters."""

    definition = READ_DEFINITION

    def __init__(self, index: DocumentIndex) -> None:
        self._index = index

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        name = require_str(arguments, "document").strip()
        pages_arg, section = arguments.get("pages"), arguments.get("section")
        if isinstance(pages_arg, int) and not isinstance(pages_arg, bool):
            pages_arg = str(pages_arg)
        info = self._index.find(context.session_id, context.agent_id, name)
        if info is None:
            raise ToolArgumentError(f"No document named {name!r} in this conversation or the agent's knowledge.")
        if pages_arg:
            if not isinstance(pages_arg, str):
                raise ToolArgumentError("Argument 'pages' must be a string like \"12-14\".")
            try:
                first, last = parse_pages(pages_arg, info.pages)
            except ValueError as err:
                raise ToolArgumentError(str(err)) from None
            last = min(last, first + MAX_PAGES - 1, info.pages or last)
            passages = self._index.read(context.session_id, context.agent_id, name, pages=(first, last))
            return ToolOutcome(_pages_text(info.name, passages, first, last, info.pages))
        if isinstance(section, str) and section.strip():
            passages = self._index.read(context.session_id, context.agent_id, name, section=section)
            if not passages:
                raise ToolArgumentError(f"{info.name} has no section {section!r}; search it with {SEARCH_TOOL}.")
            return ToolOutcome(_bounded(f"[{info.name} § {section.strip()}]", passages)[0])
        if info.pages:
            passages = self._index.read(context.session_id, context.agent_id, name, pages=(1, 1))
            return ToolOutcome(_pages_text(info.name, passages, 1, 1, info.pages))
        raise ToolArgumentError("Give pages (a PDF) or section (a text file) to read.")


def _pages_text(name: str, passages: Sequence[Passage], first: int, last: int, total: int | None) -> str:
    of = f" of {total}" if total else ""
    span = f"page {first}" if first == last else f"pages {first}-{last}"
    text, cut_at = _bounded(f"[{name} {span}{of}; cite as [{name} p. N]]", passages)
    if not passages:
        text += "\n(no text on these pages)"
    resume = cut_at.page if cut_at is not None and cut_at.page else last + 1
    if total and resume <= total:
        text += f"\n[next: pages=\"{resume}-{min(total, resume + 4)}\"]"
    return text


def _bounded(header: str, passages: Sequence[Passage]) -> tuple[str, Passage | None]:
    """The passages under the header, each headed by its citation, cut at MAX_READ_CHARS; and the passage where
    it was cut (None when all fit)."""
    out, size = [header], len(header)
    for passage in passages:
        block = f"{passage.where}\n{passage.text}"
        if size + len(block) > MAX_READ_CHARS:
            out.append(f"{block[:max(0, MAX_READ_CHARS - size)]}\n[cut at {MAX_READ_CHARS:,} characters; read fewer "
                       "pages at a time]")
            return "\n".join(out), passage
        out.append(block)
        size += len(block) + 1
    return "\n".join(out), None
