"""A searched reply for the chat view: numbered superscript links after its cited spans, each leading to its line
in the sources listed under it, in Markdown (the same numbers as the CLI's list and the export's footnotes)."""

from __future__ import annotations

from domain.web import WebSearchRecord, marked

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SOURCE_ANCHOR = "#source-"  # a superscript's link: the line of that number in the reply's sources list


def superscript(number: int) -> str:
    """The number in superscript digits."""
    return str(number).translate(_SUPERSCRIPT)


def with_sources(text: str, record: WebSearchRecord | None) -> str:
    """The reply's Markdown with a superscript link to its line of the numbered sources list after each cited span,
    and that list (linking out to the pages) under it; unchanged when the reply lists no source."""
    if record is None or not record.numbered():
        return text
    body = marked(text, record, lambda n, _: f"[{superscript(n)}]({SOURCE_ANCHOR}{n})")
    lines = [f"{n}. [{s.title or s.url}]({s.url})" for n, s in enumerate(record.numbered(), 1)]
    return f"{body.rstrip()}\n\n**Sources**\n\n" + "\n".join(lines)


def source_number(href: str) -> int | None:
    """The source number a superscript's link leads to (None for any other link)."""
    if not href.startswith(SOURCE_ANCHOR):
        return None
    tail = href[len(SOURCE_ANCHOR):]
    return int(tail) if tail.isdigit() and int(tail) > 0 else None
