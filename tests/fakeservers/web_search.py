"""Web searches a fake provider's model runs (scripted on a Reply), and the Anthropic web search tool's rules: the
request's limits (max_uses, allowed/blocked domains), the blocks it answers with, and the checks a later turn's
blocks must pass (each server_tool_use answered by its result, encrypted content and citation indexes unaltered)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

_KEY = b"fake-web-search-key"
WEB_SEARCH_TYPES = ("web_search_20250305", "web_search_20260209")


@dataclass(frozen=True)
class Search:
    """One search the model runs: its query and the pages found (url, title); `error`: the tool's error code
    (too_many_requests, unavailable, ...) instead of results."""

    query: str
    results: tuple[tuple[str, str], ...] = ()
    error: str | None = None
    page_chars: int = 180  # length of each result's encrypted page content (real ones run to kilobytes)


def _mac(text: str) -> str:
    return base64.b64encode(hmac.new(_KEY, text.encode(), hashlib.sha256).digest()).decode()


def encrypted_content(url: str, chars: int = 180) -> str:
    """A result's opaque page content (bound to its url), `chars` long."""
    mac = _mac("page:" + url)
    return ("Eo" + mac * (chars // len(mac) + 1))[:max(chars, 8)]


def encrypted_index(url: str, cited: str) -> str:
    """A citation's opaque reference into the results (bound to the url and the cited text)."""
    return "Ep" + _mac(f"cite:{url}\0{cited}")


def web_tool(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The request's web search tool definition, or None."""
    return next((t for t in body.get("tools") or [] if t.get("type") in WEB_SEARCH_TYPES), None)


def _domain_ok(url: str, tool: Mapping[str, Any]) -> bool:
    host = urlparse(url).hostname or ""
    match = lambda ds: any(host == d or host.endswith("." + d) for d in ds or ())  # noqa: E731
    if tool.get("allowed_domains"):
        return match(tool["allowed_domains"])
    return not match(tool.get("blocked_domains"))


def tool_refusal(tool: Mapping[str, Any] | None) -> str | None:
    """The 400 for a web search tool definition the API refuses."""
    if tool is None:
        return None
    if tool.get("allowed_domains") and tool.get("blocked_domains"):
        return "tools.0: Cannot specify both allowed_domains and blocked_domains"
    location = tool.get("user_location")
    if location is not None:
        if location.get("type") != "approximate":
            return "tools.0.user_location.type: Input should be 'approximate'"
        extra = sorted(set(location) - {"type", "city", "region", "country", "timezone"})
        if extra:
            return f"tools.0.user_location.{extra[0]}: Extra inputs are not permitted"
        if len(str(location.get("country", "XX"))) != 2:
            return "tools.0.user_location.country: String should have at most 2 characters"
    max_uses = tool.get("max_uses")
    if max_uses is not None and (not isinstance(max_uses, int) or max_uses < 1):
        return "tools.0.max_uses: Input should be greater than 0"
    return None


def result_blocks(searches: Sequence[Search], tool: Mapping[str, Any], tool_ids: Sequence[str]
                  ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each search as the (server_tool_use, web_search_tool_result) pair the API answers with: past max_uses a
    max_uses_exceeded error; results outside the allowed (or inside the blocked) domains left out."""
    pairs = []
    limit = tool.get("max_uses")
    for n, (search, tool_id) in enumerate(zip(searches, tool_ids, strict=True)):
        use = {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": search.query}}
        error = "max_uses_exceeded" if limit is not None and n >= limit else search.error
        content: Any
        if error is not None:
            content = {"type": "web_search_tool_result_error", "error_code": error}
        else:
            content = [{"type": "web_search_result", "url": url, "title": title, "page_age": "April 30, 2026",
                        "encrypted_content": encrypted_content(url, search.page_chars)}
                       for url, title in search.results if _domain_ok(url, tool)]
        pairs.append((use, {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": content}))
    return pairs


def responses_search_items(searches: Sequence[Search], body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Responses API's web_search_call items for the searches, when the request offers the web_search tool (a
    failed search: status failed); sources listed only when the request includes them; outside the allowed
    domains none."""
    tool = next((t for t in body.get("tools") or [] if t.get("type") in ("web_search", "web_search_2025_08_26")),
                None)
    if tool is None:
        return []
    allowed = (tool.get("filters") or {}).get("allowed_domains")
    with_sources = "web_search_call.action.sources" in (body.get("include") or [])
    items = []
    for n, search in enumerate(searches):
        action: dict[str, Any] = {"type": "search", "query": search.query}
        kept = [(u, t) for u, t in search.results if _domain_ok(u, {"allowed_domains": allowed})]
        if with_sources and search.error is None:
            action["sources"] = [{"type": "url", "url": url} for url, _ in kept]
        items.append({"id": f"ws_{n:04d}{_mac(search.query)[:16]}", "type": "web_search_call",
                      "status": "failed" if search.error else "completed", "action": action, "_kept": kept})
    return items


def responses_tool_refusal(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(message, param) of the 400 for a web_search tool the Responses API refuses (a field it does not have)."""
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") in ("web_search", "web_search_2025_08_26"):
            extra = sorted(set(tool) - {"type", "filters", "search_context_size", "user_location",
                                        "external_web_access"})
            if extra:
                return f"Unknown parameter: 'tools[{i}].{extra[0]}'.", f"tools[{i}].{extra[0]}"
    return None


def gemini_grounding(searches: Sequence[Search], body: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Gemini's groundingMetadata for a reply grounded by the searches (when the request offers googleSearch): the
    queries, the pages as grounding chunks, one support over the whole text (UTF-8 byte offsets) citing each
    search's first page. None without the tool or a page."""
    if not any("googleSearch" in tool for tool in body.get("tools") or []):
        return None
    pages = [(url, title) for s in searches if s.error is None for url, title in s.results]
    if not pages:
        return None
    firsts = [pages.index(s.results[0]) for s in searches if s.error is None and s.results]
    return {
        "webSearchQueries": [s.query for s in searches],
        "groundingChunks": [{"web": {"uri": url, "title": title}} for url, title in pages],
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": len(text.encode()), "text": text},
                               "groundingChunkIndices": firsts}],
        "searchEntryPoint": {"renderedContent": "<div>Google Search suggestions</div>"},
    }


def gemini_tool_refusal(model: str, body: Mapping[str, Any]) -> str | None:
    """The 400 Gemini 2.x answers a request that offers Google Search beside function declarations (Gemini 3
    takes both)."""
    tools = body.get("tools") or []
    searches = any("googleSearch" in t for t in tools)
    functions = any(t.get("functionDeclarations") for t in tools)
    if searches and functions and not model.startswith("gemini-3"):
        return "Tool use with function calling is unsupported"
    return None


def citation(result: Mapping[str, Any], cited: str) -> dict[str, Any]:
    """A web_search_result_location citation of a result."""
    return {"type": "web_search_result_location", "url": result["url"], "title": result["title"],
            "cited_text": cited, "encrypted_index": encrypted_index(result["url"], cited)}


def blocks_refusal(body: Mapping[str, Any]) -> str | None:
    """The 400 the API answers a request whose earlier search blocks were dropped or altered; None when they are
    whole (or gone altogether: a turn sent back as plain text is accepted)."""
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            continue
        uses: dict[str, int] = {}
        names: dict[str, str] = {}
        results: dict[str, dict[str, Any]] = {}
        for j, block in enumerate(content or []):
            kind = block.get("type")
            if uses and kind not in ("web_search_tool_result", "web_fetch_tool_result"):
                return _unanswered(i, uses, names)
            if kind == "server_tool_use":
                uses[str(block.get("id"))] = j
                names[str(block.get("id"))] = str(block.get("name", "web_search"))
            elif kind == "web_fetch_tool_result":
                tool_id = str(block.get("tool_use_id"))
                if names.get(tool_id) != "web_fetch":
                    return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `web_fetch_tool_result` "
                            f"blocks: {tool_id}. Each `web_fetch_tool_result` block must have a corresponding "
                            "`server_tool_use` block before it.")
                del uses[tool_id]
            elif kind == "web_search_tool_result":
                tool_id = str(block.get("tool_use_id"))
                if tool_id not in uses:
                    return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `web_search_tool_result` "
                            f"blocks: {tool_id}. Each `web_search_tool_result` block must have a corresponding "
                            "`server_tool_use` block before it.")
                found = block.get("content")
                for k, result in enumerate(found if isinstance(found, list) else []):
                    sealed = str(result.get("encrypted_content", ""))
                    if not hmac.compare_digest(sealed, encrypted_content(str(result.get("url", "")), len(sealed))):
                        return f"messages.{i}.content.{j}.content.{k}.encrypted_content: Invalid encrypted content"
                    results[str(result.get("url"))] = result
                del uses[tool_id]
            elif kind == "text":
                if not block.get("text"):
                    return f"messages.{i}.content.{j}: text content blocks must be non-empty"
                for k, cite in enumerate(block.get("citations") or []):
                    if cite.get("type") != "web_search_result_location":
                        continue
                    url, cited = str(cite.get("url", "")), str(cite.get("cited_text", ""))
                    if url not in results or not hmac.compare_digest(str(cite.get("encrypted_index", "")),
                                                                      encrypted_index(url, cited)):
                        return f"messages.{i}.content.{j}.citations.{k}.encrypted_index: Invalid encrypted index"
        if uses:
            return _unanswered(i, uses, names)
    return None


def _unanswered(i: int, uses: Mapping[str, int], names: Mapping[str, str]) -> str:
    # the API's wording, as a real 400 body quoted in AnswerDotAI/lisette#108 has it (message index, then the id);
    # for web_fetch the same sentence with that tool's name, as Anthropic's "Handling stop reasons" page quotes it
    # (without the "messages.N: " head, which is search's body's: unverified for fetch)
    first = min(uses, key=lambda tool_id: uses[tool_id])
    name = names.get(first, "web_search")
    return (f"messages.{i}: `{name}` tool use with id `{first}` was found without a corresponding "
            f"`{name}_tool_result` block")
