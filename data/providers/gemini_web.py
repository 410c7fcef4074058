"""Gemini's Grounding with Google Search: the google_search tool in the request, and a reply's grounding metadata
(queries, grounding chunks, grounding supports) as a WebSearchRecord (nothing of it goes back: later turns send the
reply as its text with its sources)."""

from __future__ import annotations

import re
from typing import Any

from google.genai import types

from domain.web import Citation, Source, WebSearchRecord

_FAMILY = re.compile(r"gemini-(\d+)", re.IGNORECASE)


def takes_search_with_functions(model_id: str) -> bool:
    """Gemini 3 and later take Google Search beside function declarations; 2.x refuses the pair (the request then
    offers Google Search alone)."""
    match = _FAMILY.search(model_id)
    return match is not None and int(match.group(1)) >= 3


def search_tool() -> types.Tool:
    """The google_search tool (the Gemini API has no domain lists or use limit for it)."""
    return types.Tool(google_search=types.GoogleSearch())


def _chars(text: bytes, offset: int | None) -> int | None:
    """A UTF-8 byte offset of the reply as a character offset."""
    if offset is None:
        return None
    return len(text[:offset].decode("utf-8", errors="ignore"))


def grounding_record(meta: Any, text: str, provider_id: str, model_id: str) -> WebSearchRecord | None:
    """The reply's grounding as a record (None when it was not grounded)."""
    if meta is None:
        return None
    chunks = [getattr(c, "web", None) for c in getattr(meta, "grounding_chunks", None) or ()]
    sources = [Source(str(w.uri or ""), str(w.title or "")) for w in chunks if w is not None and w.uri]
    queries = [str(q) for q in getattr(meta, "web_search_queries", None) or () if q]
    if not sources and not queries:
        return None
    raw = text.encode()
    citations = []
    for support in getattr(meta, "grounding_supports", None) or ():
        segment = support.segment
        for index in support.grounding_chunk_indices or ():
            web = chunks[index] if 0 <= index < len(chunks) else None
            if web is not None and web.uri:
                citations.append(Citation(
                    str(web.uri), str(web.title or ""), str(getattr(segment, "text", "") or ""),
                    _chars(raw, getattr(segment, "start_index", None) or 0), _chars(raw, segment.end_index)))
    # Gemini 2.x grounding is billed per grounded prompt, Gemini 3 per search query (Google's pricing page)
    return WebSearchRecord(tuple(queries), tuple(sources), tuple(citations), (), None, provider_id, model_id,
                           per_prompt=not takes_search_with_functions(model_id))
