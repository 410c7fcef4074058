"""Web search: a reply's sources and citations, the provider's own search blocks kept with it, and the setting."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Source:
    """A page a search returned (or a grounding chunk): its address and title."""

    url: str
    title: str = ""


@dataclass(frozen=True)
class Citation:
    """A part of the reply backed by a source: the source's address and title, the text cited from it (where the
    provider quotes it) and the span of the reply's text it supports (character offsets, where known)."""

    url: str
    title: str = ""
    cited_text: str = ""
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class WebSearchRecord:
    """The searches of one reply: queries, sources, citations, error codes, and (while the provider needs them back
    unchanged) the provider's own content blocks as it sent them, bound to that provider and model. `blocks` None:
    pruned, or a provider that takes nothing back; the reply then goes as plain text with its sources."""

    queries: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    citations: tuple[Citation, ...] = ()
    errors: tuple[str, ...] = ()
    blocks: str | None = None  # JSON list of the provider's content blocks, in order, exactly as received
    provider_id: str | None = None
    model_id: str | None = None
    per_prompt: bool = False  # billed once for the reply, however many queries it ran (Gemini 2.x grounding)

    def belongs_to(self, provider_id: str) -> bool:
        """Whether the blocks may go back in a request to this provider."""
        return self.blocks is not None and self.provider_id == provider_id

    def pruned(self) -> WebSearchRecord:
        """The record without the provider's blocks (sources and citations stay)."""
        return replace(self, blocks=None) if self.blocks is not None else self

    @property
    def billed_searches(self) -> int:
        """The billed units: the searches that ran (a search that ended in an error code is not billed), or one
        grounded prompt for a per-prompt record that ran any."""
        ran = max(0, len(self.queries) - len(self.errors))
        return min(ran, 1) if self.per_prompt else ran

    def numbered(self) -> tuple[Source, ...]:
        """The sources in the order they are numbered for the reader: cited ones first, then the rest, no repeats."""
        seen: dict[str, Source] = {}
        for citation in self.citations:
            seen.setdefault(citation.url, Source(citation.url, citation.title))
        for source in self.sources:
            seen.setdefault(source.url, source)
        return tuple(seen.values())


@dataclass(frozen=True)
class WebSearchSettings:
    """Whether a request offers the provider's native web search, and its limits."""

    enabled: bool = False
    max_uses: int | None = 5
    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()
    user_location: tuple[tuple[str, str], ...] = ()  # (city | region | country | timezone, value): nearer results

    def location(self) -> dict[str, str] | None:
        """The approximate location as Anthropic's and OpenAI's tools take it (None when not set)."""
        return {"type": "approximate", **dict(self.user_location)} if self.user_location else None


def marked(text: str, record: WebSearchRecord, mark: Callable[[int, Source], str]) -> str:
    """The text with `mark(number, source)` after each cited span (after the word and its stop the span ends in;
    several sources of one span in their order)."""
    numbered = record.numbered()
    number = {s.url: n for n, s in enumerate(numbered, 1)}
    marks: dict[int, list[int]] = {}
    for c in record.citations:
        at = c.end if c.end is not None and 0 <= c.end <= len(text) else len(text)
        while 0 < at < len(text) and (text[at].isalnum() or text[at] in ".,;:!?"):
            at += 1
        if number[c.url] not in marks.setdefault(at, []):
            marks[at].append(number[c.url])
    out = text
    for at in sorted(marks, reverse=True):
        cut = len(out[:at].rstrip()) if at == len(out) else at
        out = out[:cut] + "".join(mark(n, numbered[n - 1]) for n in marks[at]) + out[cut:]
    return out


def footnoted(text: str, record: WebSearchRecord | None) -> str:
    """The reply's text with a Markdown footnote mark after each cited span and the numbered sources as footnotes
    under it (the reply unchanged when it cites and lists nothing)."""
    if record is None or not record.numbered():
        return text
    notes = [f"[^{n}]: [{s.title or s.url}]({s.url})" for n, s in enumerate(record.numbered(), 1)]
    return marked(text, record, lambda n, _: f"[^{n}]").rstrip() + "\n\n" + "\n".join(notes)


def sources_text(record: WebSearchRecord) -> str:
    """The sources as plain lines for a provider that gets the reply as text (numbered as the reader sees them)."""
    lines = [f"[{i}] {s.title + ' — ' if s.title else ''}{s.url}" for i, s in enumerate(record.numbered(), 1)]
    return "Sources:\n" + "\n".join(lines) if lines else ""


def with_sources(text: str, record: WebSearchRecord | None) -> str:
    """A searched reply's text followed by its sources (what another provider, or a pruned turn, is sent)."""
    listed = sources_text(record) if record is not None else ""
    return f"{text}\n\n{listed}" if listed and text.strip() else (text or listed)


def record_to_json(record: WebSearchRecord | None) -> str | None:
    """The record as compact JSON for storage and export (None when there is none)."""
    if record is None:
        return None
    return json.dumps({
        "queries": list(record.queries), "errors": list(record.errors),
        "sources": [{"url": s.url, "title": s.title} for s in record.sources],
        "citations": [{"url": c.url, "title": c.title, "cited_text": c.cited_text, "start": c.start, "end": c.end}
                      for c in record.citations],
        "blocks": record.blocks, "provider_id": record.provider_id, "model_id": record.model_id,
        **({"per_prompt": True} if record.per_prompt else {}),
    }, ensure_ascii=False, separators=(",", ":"))


def record_from_json(text: str | None) -> WebSearchRecord | None:
    """A stored or exported record (None for none, or for JSON that is not one)."""
    if not text:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    return record_from_dict(raw)


def record_from_dict(raw: Mapping[str, Any]) -> WebSearchRecord:
    """A record from its JSON object (an imported file's too: entries of the wrong shape are skipped)."""
    blocks = raw.get("blocks")

    def objects(key: str) -> list[Mapping[str, Any]]:
        value = raw.get(key)
        return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []

    def offset(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    return WebSearchRecord(
        queries=tuple(str(q) for q in raw.get("queries") or () if isinstance(q, str)),
        errors=tuple(str(e) for e in raw.get("errors") or () if isinstance(e, str)),
        sources=tuple(Source(str(s.get("url", "")), str(s.get("title") or "")) for s in objects("sources")),
        citations=tuple(
            Citation(str(c.get("url", "")), str(c.get("title") or ""), str(c.get("cited_text") or ""),
                     offset(c.get("start")), offset(c.get("end")))
            for c in objects("citations")
        ),
        blocks=text(blocks), provider_id=text(raw.get("provider_id")), model_id=text(raw.get("model_id")),
        per_prompt=raw.get("per_prompt") is True,
    )
