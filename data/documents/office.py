"""Extraction of word-processor files and e-books by section: a DOCX by its Heading styles (python-docx), an EPUB by
the documents of its spine, each titled by its table-of-contents entry (ebooklib, HTML reduced to text)."""

from __future__ import annotations

import html
import io
import logging
import re
import warnings
from collections.abc import Callable
from typing import Any

from domain.errors import InvalidInput

log = logging.getLogger(__name__)
Outline = list[tuple[int, str, int | None]]
Sections = list[tuple[str, str]]  # (title, text) in reading order
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_HTML_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def docx_sections(name: str, data: bytes, max_outline: int) -> tuple[Sections, Outline]:
    """A DOCX's text by section: a paragraph styled Title or Heading N starts one; tables are read row by row."""
    try:
        from docx import Document
        from docx.table import Table

        document = Document(io.BytesIO(data))
        sections: Sections = []
        outline: Outline = []
        title, lines = "start", []
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                lines += [" | ".join(cell.text.strip() for cell in row.cells) for row in block.rows]
                continue
            level = _heading_level(block.style.name if block.style is not None else "")
            text = block.text.strip()
            if level is None or not text:
                lines.append(block.text)
                continue
            sections.append((title, "\n".join(lines)))
            title, lines = text, [text]
            if len(outline) < max_outline:
                outline.append((level, text, None))
        sections.append((title, "\n".join(lines)))
    except Exception as exc:  # python-docx raises many kinds for a broken or foreign file
        raise InvalidInput(f"{name} is not a readable DOCX ({type(exc).__name__}).") from None
    return sections, outline


def _heading_level(style: str) -> int | None:
    if style.lower() == "title":
        return 1
    found = _HEADING_STYLE.match(style.strip())
    return int(found.group(1)) if found else None


def epub_sections(name: str, data: bytes, max_outline: int,
                  to_text: Callable[[str], str]) -> tuple[Sections, Outline]:
    """An EPUB's text by spine document (its reading order), each titled by its first table-of-contents entry, else
    its first heading, else its file name."""
    try:
        from ebooklib import epub

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), {"ignore_ncx": False})
        outline: Outline = []
        titles: dict[str, str] = {}
        groups: dict[str, str] = {}
        _walk_toc(book.toc, 1, outline, (titles, groups), max_outline)
        sections: Sections = []
        for idref, *_ in book.spine:
            item = book.get_item_with_id(idref)
            if item is None or isinstance(item, epub.EpubNav):  # the table of contents is the outline already
                continue
            markup = item.get_content().decode("utf-8", "replace")
            name_ = item.get_name()
            title = titles.get(name_) or _first_heading(markup) or groups.get(name_) or name_
            sections.append((title, to_text(markup)))
    except Exception as exc:  # ebooklib raises many kinds for a broken or foreign file
        raise InvalidInput(f"{name} is not a readable EPUB ({type(exc).__name__}).") from None
    return sections, outline


def _walk_toc(entries: Any, level: int, outline: Outline, titles: tuple[dict[str, str], dict[str, str]],
              max_outline: int) -> None:
    """The table of contents as an outline, and the first title of each file a link points to (of a section that
    groups links, apart: a chapter is named by its own entry rather than by its part's)."""
    for entry in entries or ():
        children: Any = ()
        if isinstance(entry, tuple | list):
            entry, children = entry[0], entry[1]
        title = str(getattr(entry, "title", "") or "").strip()
        href = str(getattr(entry, "href", "") or "").split("#", 1)[0]
        if title:
            if len(outline) < max_outline:
                outline.append((level, title, None))
            if href:
                titles[1 if isinstance(entry, _grouping_class()) else 0].setdefault(href, title)
        _walk_toc(children, level + 1, outline, titles, max_outline)


def _first_heading(markup: str) -> str | None:
    for pattern in (_HTML_HEADING, _HTML_TITLE):
        found = pattern.search(markup)
        text = " ".join(html.unescape(_TAG.sub(" ", found.group(1))).split()) if found else ""
        if text:
            return text[:200]
    return None


def _grouping_class() -> type:
    """ebooklib's class of a table-of-contents entry that groups others."""
    from ebooklib.epub import Section

    return Section
