"""A searched reply for the chat view: numbered superscript links after its cited spans and its sources listed
under it, in Markdown (the same numbers as the CLI's list and the export's footnotes)."""

from __future__ import annotations

from domain.web import WebSearchRecord, marked

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(number: int) -> str:
    """The number in superscript digits."""
    return str(number).translate(_SUPERSCRIPT)


def with_sources(text: str, record: WebSearchRecord | None) -> str:
    """The reply's Markdown with a superscript link to the source after each cited span and a numbered sources list
    under it (unchanged when the reply lists no source)."""
    if record is None or not record.numbered():
        return text
    body = marked(text, record, lambda n, s: f"[{superscript(n)}]({s.url})")
    lines = [f"{n}. [{s.title or s.url}]({s.url})" for n, s in enumerate(record.numbered(), 1)]
    return f"{body.rstrip()}\n\n**Sources**\n\n" + "\n".join(lines)
