"""Anthropic's web search and web fetch server tools: the tool definitions, the stream's search, fetch and cited-text
blocks folded into a WebSearchRecord, and those blocks sent back unchanged on later turns."""

from __future__ import annotations

import json
from typing import Any

from domain.web import Citation, Source, WebSearchRecord, WebSearchSettings

WEB_SEARCH_TOOL = "web_search_20250305"
WEB_FETCH_TOOL = "web_fetch_20250910"  # in the SDK's (non-beta) Messages types: no beta header is sent


def web_search_tool(settings: WebSearchSettings) -> dict[str, Any]:
    """The web_search server tool for a request (max_uses; allowed or blocked domains, never both: the API refuses
    the pair, so allowed ones win)."""
    tool: dict[str, Any] = {"type": WEB_SEARCH_TOOL, "name": "web_search"}
    if settings.max_uses:
        tool["max_uses"] = settings.max_uses
    if settings.allowed_domains:
        tool["allowed_domains"] = list(settings.allowed_domains)
    elif settings.blocked_domains:
        tool["blocked_domains"] = list(settings.blocked_domains)
    if settings.location() is not None:
        tool["user_location"] = settings.location()
    return tool


def web_fetch_tool(settings: WebSearchSettings) -> dict[str, Any]:
    """The web_fetch server tool offered beside search (the same use limit and domains; the model fetches only URLs
    already in the conversation, the user's or a search's), with citations on so the reply cites passages of the
    fetched pages (the SDK's WebFetchTool20250910Param: "Citations are disabled by default")."""
    tool = web_search_tool(settings)
    tool.pop("user_location", None)  # the fetch tool has no location
    return {**tool, "type": WEB_FETCH_TOOL, "name": "web_fetch", "citations": {"enabled": True}}  # off by default


def sent_back(record: WebSearchRecord) -> list[dict[str, Any]]:
    """The reply's content blocks exactly as they came (search calls, their results, the cited text)."""
    return list(json.loads(record.blocks or "[]"))


def _dump(block: Any) -> dict[str, Any]:
    """A content block as the API sent it (only the fields it carried)."""
    dumped = block.model_dump(mode="json", exclude_unset=True) if hasattr(block, "model_dump") else dict(block)
    return dict(dumped)


class SearchFold:
    """Collects a streamed reply's server_tool_use, web_search_tool_result, web_fetch_tool_result and text blocks
    (with their citations), in order; a record comes out only when the reply searched or fetched."""

    def __init__(self, provider_id: str, model_id: str) -> None:
        self._owner = (provider_id, model_id)
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._text: dict[int, list[str]] = {}
        self._searched = False
        self._base = 0  # a paused turn's continuation numbers its blocks from 0 again: they go after these

    def new_leg(self) -> None:
        """The turn goes on in another response (after pause_turn): its blocks follow the ones so far."""
        self._base = max(self._blocks, default=-1) + 1

    def so_far(self) -> list[dict[str, Any]]:
        """The blocks so far, in order (what a continuation sends back as the assistant's turn); an empty text
        block is left out (the API refuses one)."""
        return [self._blocks[i] for i in sorted(self._blocks)
                if not (self._blocks[i]["type"] == "text" and not self._blocks[i]["text"]
                        and not self._blocks[i].get("citations"))]

    def start(self, index: int, block: Any) -> bool:
        """Takes a block that starts (True when it is one of this fold's kinds)."""
        index += self._base
        kind = block.type
        if kind == "server_tool_use":
            self._searched = True
            self._blocks[index] = {**_dump(block), "input": {}}
            self._json[index] = []
        elif kind in ("web_search_tool_result", "web_fetch_tool_result"):
            self._blocks[index] = _dump(block)
        elif kind == "text":
            self._blocks[index] = {"type": "text", "text": ""}
            self._text[index] = [getattr(block, "text", "") or ""]
        else:
            return False
        return True

    def delta(self, index: int, delta: Any) -> bool:
        """Takes a delta of one of its blocks (True when taken here and nothing is to be shown)."""
        index += self._base
        if index not in self._blocks:
            return False
        if delta.type == "input_json_delta" and index in self._json:
            self._json[index].append(delta.partial_json)
            return True
        if delta.type == "citations_delta":
            self._blocks[index].setdefault("citations", []).append(_dump(delta.citation))
            return True
        if delta.type == "text_delta" and index in self._text:
            self._text[index].append(delta.text)
        return False

    def stop(self, index: int) -> None:
        """Completes a block."""
        index += self._base
        if index in self._json:
            raw = "".join(self._json.pop(index))
            self._blocks[index]["input"] = json.loads(raw) if raw.strip() else {}
        if index in self._text:
            self._blocks[index]["text"] = "".join(self._text.pop(index))

    def record(self) -> WebSearchRecord | None:
        """The reply's searches, or None when it ran none."""
        if not self._searched:
            return None
        blocks = self.so_far()
        queries: list[str] = []
        sources: list[Source] = []
        citations: list[Citation] = []
        errors: list[str] = []
        offset = 0
        fetched: list[tuple[Source, str]] = []  # the fetched pages, in order, with their text (citations point in)
        for block in blocks:
            if block["type"] == "server_tool_use" and block.get("name") == "web_search":
                queries.append(str(block["input"].get("query", "")))
            elif block["type"] == "web_fetch_tool_result":
                page = block.get("content") or {}
                if page.get("type") == "web_fetch_result":
                    document = page.get("content") or {}
                    sources.append(Source(str(page.get("url", "")), str(document.get("title") or "")))
                    fetched.append((sources[-1], str((document.get("source") or {}).get("data") or "")))
                else:
                    errors.append(str(page.get("error_code", "unavailable")))
            elif block["type"] == "web_search_tool_result":
                content = block.get("content")
                if isinstance(content, dict):
                    errors.append(str(content.get("error_code", "unavailable")))
                else:
                    sources.extend(Source(str(r.get("url", "")), str(r.get("title") or "")) for r in content or [])
            elif block["type"] == "text":
                text = block["text"]
                citations.extend(
                    Citation(str(c.get("url", "")), str(c.get("title") or ""), str(c.get("cited_text") or ""),
                             offset, offset + len(text))
                    for c in block.get("citations") or [] if c.get("type") == "web_search_result_location"
                )
                citations.extend(_document_citation(c, fetched, offset, offset + len(text))
                                 for c in block.get("citations") or [] if c.get("type") in DOCUMENT_CITATIONS
                                 and _fetched_page(c, fetched) is not None)
                offset += len(text)
        provider_id, model_id = self._owner
        return WebSearchRecord(
            queries=tuple(queries), sources=tuple(sources), citations=tuple(citations), errors=tuple(errors),
            blocks=json.dumps(blocks, ensure_ascii=False, separators=(",", ":")), provider_id=provider_id,
            model_id=model_id,
        )


DOCUMENT_CITATIONS = ("char_location", "page_location", "content_block_location")  # the SDK's TextCitation kinds
# that point into a document (a fetched page is one: a DocumentBlock in its web_fetch_result)


def _fetched_page(citation: dict[str, Any], fetched: list[tuple[Source, str]]) -> Source | None:
    """The fetched page a document citation points at: the one of its title, else the one whose text holds the
    cited passage, else the document_index-th page fetched (how the API numbers fetched documents is not
    documented where we looked)."""
    title, cited = citation.get("document_title"), str(citation.get("cited_text") or "")
    for source, _text in fetched:
        if title and source.title == title:
            return source
    for source, text in fetched:
        if cited and cited in text:
            return source
    index = citation.get("document_index")
    return fetched[index][0] if isinstance(index, int) and 0 <= index < len(fetched) else None


def _document_citation(citation: dict[str, Any], fetched: list[tuple[Source, str]], start: int, end: int) -> Citation:
    """A citation of a passage of a fetched page, as a search citation is kept (the page's url and title, the
    passage, the span of the reply's text it backs)."""
    page = _fetched_page(citation, fetched)
    assert page is not None
    return Citation(page.url, page.title, str(citation.get("cited_text") or ""), start, end)
