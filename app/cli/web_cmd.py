"""Web search in the CLI: the sources list after a reply, `citation` lines of --jsonl, `sessions web-search`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.web import WebSearchRecord
from domain.web_support import search_tool_names, web_search_unavailable

if TYPE_CHECKING:
    from app.container import Container

ERROR_TEXT = {
    "max_uses_exceeded": "the search limit of this request was reached",
    "too_many_requests": "the search service was rate-limited",
    "unavailable": "the search service was unavailable",
    "query_too_long": "a query was too long",
    "invalid_tool_input": "a query was malformed",
    "request_too_large": "a search request was too large",
    # web fetch (the SDK's WebFetchToolResultErrorCode; meanings from Anthropic's web fetch tool page)
    "url_too_long": "a page address was too long",
    "url_not_allowed": "a page was outside the allowed domains or refused by the provider",
    "url_not_in_prior_context": "a page address was not in the conversation (only those can be fetched)",
    "url_not_accessible": "a page could not be fetched",
    "unsupported_content_type": "a page was of a kind that cannot be fetched (only text, HTML and PDF)",
    "content_too_large": "a page was too large",
}


def sources_block(record: WebSearchRecord) -> str:
    """The numbered sources printed after a reply (empty when there are none), and searches that failed."""
    lines = [f"[{i}] {s.title} — {s.url}" if s.title else f"[{i}] {s.url}" for i, s in enumerate(record.numbered(), 1)]
    failed = [ERROR_TEXT.get(code, code) for code in dict.fromkeys(record.errors)]
    text = ("Sources:\n" + "\n".join(lines)) if lines else ""
    if failed:
        text += ("\n" if text else "") + f"[web search: {'; '.join(failed)}]"
    return text


def citation_records(message_id: str, record: WebSearchRecord) -> list[dict[str, Any]]:
    """One `citation` line per numbered source: its number, address, title and the spans of the reply it backs."""
    rows = []
    for n, source in enumerate(record.numbered(), 1):
        spans = [{"cited_text": c.cited_text, "start": c.start, "end": c.end}
                 for c in record.citations if c.url == source.url]
        rows.append({"type": "citation", "message_id": message_id, "index": n, "url": source.url,
                     "title": source.title, "spans": spans})
    rows.extend({"type": "web_search_error", "message_id": message_id, "code": code} for code in record.errors)
    return rows


def session_web_search(c: Container, session_id: str, choice: str | None) -> str:
    """Sets (on | off | default) or shows a session's web search, and says plainly when its provider has none."""
    if choice is not None:
        c.set_session_web_search(session_id, None if choice == "default" else choice == "on")
    ctx = c.contexts.load(session_id, strict=False)
    source = "this session's own setting" if ctx.session.web_search is not None else "the agent's or the app's setting"
    line = f"Web search for {session_id}: {'on' if ctx.settings.web_search else 'off'} ({source})."
    if ctx.provider is not None:
        adapter = c.adapters.for_provider(ctx.provider)
        missing = web_search_unavailable(ctx.provider, adapter, search_tool_names([t.name for t in ctx.tools]),
                                         ctx.model)
        if missing is not None:
            line += "\n" + missing
    return line
