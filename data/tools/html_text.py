"""Reduces HTML to readable text with the standard library's html.parser (scripts and styles dropped)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIP = frozenset({"script", "style", "noscript", "template", "svg"})
_BLOCK = frozenset({
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer", "nav",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr", "main", "aside", "dd", "dt", "title", "form",
})


class _TextExtractor(HTMLParser):
    """Collects visible text, with line breaks at block elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self._skip_depth = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip_depth += 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The readable text of an HTML document: title first, whitespace collapsed, blank runs squeezed."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = [re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in "".join(parser.parts).split("\n")]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    title = " ".join("".join(parser.title).split())
    return f"{title}\n\n{body}" if title else body


def looks_like_html(content_type: str, text: str) -> bool:
    """True when the content type says HTML, or an untyped body starts like an HTML document."""
    if "html" in content_type.lower():
        return True
    if content_type.strip():
        return False
    head = text[:512].lstrip().lower()
    return head.startswith("<!doctype html") or head.startswith("<html")
