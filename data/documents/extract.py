"""Extraction, once per file: a PDF page by page with its outline (pypdf), a Markdown, DOCX or EPUB file by section,
any other text or code file by line ranges; each passage bounded in size."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from data.attachments.quiet import quiet_decoders
from data.documents.office import Sections, docx_sections, epub_sections
from data.tools.html_text import html_to_text
from domain.errors import InvalidInput

log = logging.getLogger(__name__)
MAX_PASSAGE_CHARS = 4_000  # a longer page or section is split into parts
LINES_PER_PASSAGE = 60
MAX_OUTLINE = 500
MARKDOWN = (".md", ".markdown", ".mdx")
SECTIONED = frozenset({".docx", ".epub"})  # read by their own library, by section
TEXT_SUFFIXES = frozenset({
    ".txt", ".text", ".rst", ".org", ".adoc", ".csv", ".tsv", ".log", ".json", ".yaml", ".yml", ".toml", ".ini",
    ".cfg", ".xml", ".html", ".htm", ".tex", ".py", ".js", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh", ".sql", ".lua", ".r",
    *MARKDOWN,
})
PAGE_MARK = re.compile(r"^--- page (\d+) ---$", re.MULTILINE)  # how data.attachments.intake heads each page
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


class NoTextInDocument(InvalidInput):
    """A PDF with pages but no text layer (a scan): it cannot be read page by page."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} has no text to read (a scanned document?). OCR is not built in: run it through an "
                         "OCR tool first (e.g. ocrmypdf), then add it again.")


@dataclass(frozen=True)
class Extracted:
    """A document's passages (page, section, text) in order, its kind, pages and outline (level, title, page)."""

    kind: str
    passages: list[tuple[int | None, str | None, str]]
    pages: int | None = None
    outline: list[tuple[int, str, int | None]] = field(default_factory=list)


def readable_suffix(name: str) -> bool:
    """Whether a knowledge folder indexes a file of this name (PDF, DOCX, EPUB, Markdown, text or code)."""
    suffix = PurePath(name).suffix.lower()
    return suffix == ".pdf" or suffix in SECTIONED or suffix in TEXT_SUFFIXES


def extract(name: str, data: bytes) -> Extracted:
    """The passages of a file by its name and bytes; InvalidInput when it cannot be read (NoTextInDocument: a scan)."""
    if data.startswith(b"%PDF-") or PurePath(name).suffix.lower() == ".pdf":
        return extract_pdf(name, data)
    suffix = PurePath(name).suffix.lower()
    if suffix == ".docx":
        return by_section("docx", *docx_sections(name, data, MAX_OUTLINE))
    if suffix == ".epub":
        return by_section("epub", *epub_sections(name, data, MAX_OUTLINE, html_to_text))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{name} is not UTF-8 text; it is skipped.") from None
    return extract_text(name, text)


def extract_pdf(name: str, data: bytes) -> Extracted:
    """A PDF's text page by page, with its outline."""
    with quiet_decoders():
        from pypdf import PdfReader

        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                raise InvalidInput(f"{name} is password-protected; remove the password first.")
            texts = []
            for page in reader.pages:
                try:
                    texts.append((page.extract_text() or "").strip())
                except Exception:  # one unreadable page does not lose the others
                    log.warning("could not extract a page of %s", name, exc_info=True)
                    texts.append("")
            outline = pdf_outline(reader)
        except InvalidInput:
            raise
        except Exception as exc:  # pypdf raises many kinds for a broken file
            raise InvalidInput(f"{name} is not a readable PDF ({type(exc).__name__}).") from None
    return paged(name, texts, outline)


def paged(name: str, texts: list[str], outline: list[tuple[int, str, int | None]]) -> Extracted:
    """Passages of page texts (page i+1 is texts[i]); NoTextInDocument when no page has text."""
    if not any(texts):
        raise NoTextInDocument(name)
    passages: list[tuple[int | None, str | None, str]] = []
    for number, text in enumerate(texts, start=1):
        for part in _parts(text):
            passages.append((number, None, part))
    return Extracted("pdf", passages, pages=len(texts), outline=outline)


def pdf_from_stored_text(name: str, text: str, pages: int | None) -> Extracted:
    """Passages of the text extracted when a PDF was attached (pages headed `--- page N ---`)."""
    marks = list(PAGE_MARK.finditer(text))
    count = max([pages or 0, *(int(m.group(1)) for m in marks)])
    texts = [""] * count
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        texts[int(mark.group(1)) - 1] = text[mark.end():end].strip()
    return paged(name, texts, [])


def pdf_outline(reader: object) -> list[tuple[int, str, int | None]]:
    """The PDF's bookmarks as (level, title, page), at most MAX_OUTLINE; [] when it has none or they are unreadable."""
    found: list[tuple[int, str, int | None]] = []

    def walk(items: object, level: int) -> None:
        for item in items if isinstance(items, list) else ():
            if len(found) >= MAX_OUTLINE:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item) + 1  # type: ignore[attr-defined]
            except Exception:
                page = None
            found.append((level, str(getattr(item, "title", "") or "").strip(), page))

    try:
        walk(reader.outline, 1)  # type: ignore[attr-defined]
    except Exception:  # a broken outline loses the outline, not the document
        log.warning("could not read a PDF outline", exc_info=True)
    return [entry for entry in found if entry[1]]


def extract_text(name: str, text: str) -> Extracted:
    """Markdown by heading (section = the heading), anything else by LINES_PER_PASSAGE-line ranges."""
    lines = text.splitlines()
    if PurePath(name).suffix.lower() in MARKDOWN:
        return _markdown(lines)
    passages: list[tuple[int | None, str | None, str]] = []
    for start in range(0, len(lines), LINES_PER_PASSAGE):
        chunk = "\n".join(lines[start:start + LINES_PER_PASSAGE]).strip()
        if chunk:
            end = min(start + LINES_PER_PASSAGE, len(lines))
            passages += [(None, f"lines {start + 1}-{end}", part) for part in _parts(chunk)]
    return Extracted("text", passages)


def _markdown(lines: list[str]) -> Extracted:
    outline: list[tuple[int, str, int | None]] = []
    sections: list[tuple[str, list[str]]] = [("start", [])]
    fenced = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading:
            title = heading.group(2)
            if len(outline) < MAX_OUTLINE:
                outline.append((len(heading.group(1)), title, None))
            sections.append((title, [line]))
        else:
            sections[-1][1].append(line)
    return by_section("text", [(title, "\n".join(body)) for title, body in sections], outline)


def by_section(kind: str, sections: Sections, outline: list[tuple[int, str, int | None]]) -> Extracted:
    """Passages of (title, text) sections: a section too long for one passage goes as "title (part N)"."""
    passages: list[tuple[int | None, str | None, str]] = []
    for title, body in sections:
        parts = _parts(body)
        for index, part in enumerate(parts):
            label = title if len(parts) == 1 else f"{title} (part {index + 1})"
            passages.append((None, label, part))
    return Extracted(kind, passages, outline=outline)


def _parts(text: str) -> list[str]:
    """The text in pieces of at most MAX_PASSAGE_CHARS, cut at a line break where one is near."""
    text = text.strip()
    parts = []
    while len(text) > MAX_PASSAGE_CHARS:
        cut = text.rfind("\n", MAX_PASSAGE_CHARS // 2, MAX_PASSAGE_CHARS)
        cut = cut if cut > 0 else MAX_PASSAGE_CHARS
        parts.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        parts.append(text)
    return parts
