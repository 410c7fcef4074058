"""OpenAI's Responses API web_search tool: the tool in the request, and the stream's web_search_call items and
url_citation annotations folded into a WebSearchRecord (nothing of them goes back: later turns send the reply as
its text with its sources)."""

from __future__ import annotations

from typing import Any

from domain.web import Citation, Source, WebSearchRecord, WebSearchSettings

SOURCES_INCLUDE = "web_search_call.action.sources"


def responses_web_params(settings: WebSearchSettings | None, params: dict[str, Any]) -> dict[str, Any]:
    """The request's parameters with the web_search tool (allowed domains as its filter; the tool has no blocked
    list and no per-request limit) and the searches' sources included."""
    if settings is None:
        return params
    tool: dict[str, Any] = {"type": "web_search"}
    if settings.allowed_domains:
        tool["filters"] = {"allowed_domains": list(settings.allowed_domains)}
    if settings.location() is not None:
        tool["user_location"] = settings.location()
    return {**params, "tools": [*params.get("tools", []), tool],
            "include": [*params.get("include", []), SOURCES_INCLUDE]}


class WebFold:
    """Collects the searches (web_search_call items) and the citations (url_citation annotations) of a reply."""

    def __init__(self, provider_id: str, model_id: str) -> None:
        self._owner = (provider_id, model_id)
        self.queries: list[str] = []
        self.sources: list[Source] = []
        self.citations: list[Citation] = []
        self.errors: list[str] = []
        self.searches = 0  # completed searches (priced per call)
        self._offset = 0  # text of earlier messages of the reply (citation offsets count from the reply's start)

    def item(self, item: Any) -> None:
        """A finished output item: a web search call, or a message with its annotations."""
        kind = getattr(item, "type", "")
        if kind == "web_search_call":
            action = getattr(item, "action", None)
            if getattr(action, "type", "") == "search":
                found = getattr(action, "queries", None) or [getattr(action, "query", None)]
                self.queries.extend(str(q) for q in found if q)
                self.sources.extend(Source(str(s.url)) for s in getattr(action, "sources", None) or ())
            if getattr(item, "status", "") == "failed":
                self.errors.append("unavailable")
            elif getattr(action, "type", "") == "search":
                self.searches += 1
        elif kind == "message":
            for part in getattr(item, "content", None) or ():
                text = getattr(part, "text", "") or ""
                for note in getattr(part, "annotations", None) or ():
                    if getattr(note, "type", "") == "url_citation":
                        start, end = self._offset + note.start_index, self._offset + note.end_index
                        self.citations.append(Citation(note.url, note.title or "", text[note.start_index:
                                                                                         note.end_index], start, end))
                self._offset += len(text)

    def record(self) -> WebSearchRecord | None:
        """The reply's searches, or None when it ran none and cites nothing."""
        if not (self.queries or self.citations or self.errors):
            return None
        provider_id, model_id = self._owner
        return WebSearchRecord(tuple(self.queries), tuple(self.sources), tuple(self.citations), tuple(self.errors),
                               None, provider_id, model_id)
