"""Anthropic's web fetch server tool as the fake plays it: the pages a model fetches (scripted on a Reply), the
(server_tool_use, web_fetch_tool_result) pairs the API answers with (a URL not already in the conversation:
url_not_in_prior_context; outside the allowed or inside the blocked domains: url_not_allowed; past max_uses:
max_uses_exceeded), following the SDK's WebFetchToolResultBlock / WebFetchBlock / DocumentBlock types; with the
tool's citations on, the reply cites the fetched pages with char_location citations (CitationCharLocation)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

WEB_FETCH_TYPES = ("web_fetch_20250910", "web_fetch_20260209", "web_fetch_20260309", "web_fetch_20260318")


@dataclass(frozen=True)
class Fetch:
    """One page the model fetches: its url, title and text; `error`: the tool's error code instead."""

    url: str
    title: str = ""
    text: str = "Page text."
    error: str | None = None


def fetch_tool(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The request's web fetch tool definition, or None."""
    return next((t for t in body.get("tools") or [] if t.get("type") in WEB_FETCH_TYPES), None)


def _allowed(url: str, tool: Mapping[str, Any]) -> bool:
    host = urlparse(url).hostname or ""
    match = lambda ds: any(host == d or host.endswith("." + d) for d in ds or ())  # noqa: E731
    if tool.get("allowed_domains"):
        return match(tool["allowed_domains"])
    return not match(tool.get("blocked_domains"))


def fetch_blocks(fetches: Sequence[Fetch], tool: Mapping[str, Any], body: Mapping[str, Any],
                 earlier: Sequence[Mapping[str, Any]], tool_ids: Sequence[str]
                 ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each fetch as the pair the API answers with; `earlier`: this reply's blocks before the fetches (a URL a
    search just found is in the conversation too)."""
    seen = json.dumps(body.get("messages") or []) + json.dumps(list(earlier))
    limit = tool.get("max_uses")
    pairs = []
    for n, (fetch, tool_id) in enumerate(zip(fetches, tool_ids, strict=True)):
        use = {"type": "server_tool_use", "id": tool_id, "name": "web_fetch", "input": {"url": fetch.url}}
        error = fetch.error
        if limit is not None and n >= limit:
            error = "max_uses_exceeded"
        elif fetch.url not in seen:
            error = "url_not_in_prior_context"
        elif not _allowed(fetch.url, tool):
            error = "url_not_allowed"
        content: dict[str, Any]
        if error is not None:
            content = {"type": "web_fetch_tool_result_error", "error_code": error}
        else:
            document = {"type": "document", "title": fetch.title,
                        "source": {"type": "text", "media_type": "text/plain", "data": fetch.text}}
            if (tool.get("citations") or {}).get("enabled"):
                document["citations"] = {"enabled": True}
            content = {"type": "web_fetch_result", "url": fetch.url, "retrieved_at": "2026-11-27T06:00:00Z",
                       "content": document}
        pairs.append((use, {"type": "web_fetch_tool_result", "tool_use_id": tool_id, "content": content}))
    return pairs


def document_citations(fetched: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The char_location citations a reply makes of the pages fetched with citations on (its first sentence each;
    document_index counting the fetched documents of the reply: the API's numbering of them is not documented)."""
    cited = []
    documents = [r["content"]["content"] for _, r in fetched if r["content"]["type"] == "web_fetch_result"]
    for index, document in enumerate(documents):
        if not (document.get("citations") or {}).get("enabled"):
            continue
        text = document["source"]["data"]
        passage = text.split(". ")[0].rstrip(".") + "." if text else text
        cited.append({"type": "char_location", "cited_text": passage, "document_index": index,
                      "document_title": document.get("title"), "start_char_index": 0,
                      "end_char_index": len(passage)})
    return cited
