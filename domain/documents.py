"""Documents read on demand: passages with their page or section, the card a request carries instead of a document
too large for its budget, the two tools' names, page citations, and the port to the index."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.attachment import Attachment, AttachmentKind
from domain.models import AgentId, SessionId

SEARCH_TOOL = "search_documents"
READ_TOOL = "read_document"
DOCUMENT_TOOLS = (SEARCH_TOOL, READ_TOOL)
CARD_MIN_CHARS = 20_000  # a smaller document always goes whole (as before): no card, no tools for it
DOCUMENT_SHARE = 0.5  # a document priced above this share of the model's input capacity goes as its card
CARD_MAX_CHARS = 3_200  # the card's text at most (name, size, pages, outline, first page, how to read on)
CITATION = re.compile(r"\[([^\[\]\n]{1,200}?\.[A-Za-z0-9]{1,8}) p\. (\d{1,6})\]")
SECTION_CITATION = re.compile(r"\[([^\[\]\n]{1,200}?\.[A-Za-z0-9]{1,8}) § ([^\[\]\n]{1,200})\]")  # [notes.md § Setup]


@dataclass(frozen=True)
class Passage:
    """A stretch of a document's text with where it is: a PDF page, or a section (heading, or line range)."""

    document: str  # the document's name (a knowledge file: its path inside the folder)
    text: str
    page: int | None = None
    section: str | None = None

    @property
    def where(self) -> str:
        """The citation of the passage: `[manual.pdf p. 412]` or `[notes.md § Setup]`."""
        if self.page is not None:
            return f"[{self.document} p. {self.page}]"
        return f"[{self.document} § {self.section}]" if self.section else f"[{self.document}]"


@dataclass(frozen=True)
class DocumentInfo:
    """One indexed document: its name, kind, size in bytes, pages (PDFs), passages, and outline (level, title, page)."""

    name: str
    kind: str
    size: int
    pages: int | None
    passages: int
    outline: tuple[tuple[int, str, int | None], ...] = ()
    path: str | None = None  # a knowledge file's path on disk (or an attachment's stored file)


class DocumentIndex(Protocol):
    """The documents a conversation may search and read: the large ones attached in it and its agent's knowledge."""

    def has_knowledge(self, agent_id: AgentId | None) -> bool:
        """Whether the agent has a knowledge folder."""
        ...

    def search(self, query: str, session_id: SessionId, agent_id: AgentId | None, *, document: str | None = None,
               limit: int = 8) -> Sequence[Passage]:
        """The best passages for the query (BM25), best first."""
        ...

    def read(self, session_id: SessionId, agent_id: AgentId | None, document: str, *,
             pages: tuple[int, int] | None = None, section: str | None = None) -> Sequence[Passage]:
        """The passages of those pages (inclusive) or of that section, in order."""
        ...

    def find(self, session_id: SessionId, agent_id: AgentId | None, document: str) -> DocumentInfo | None:
        """The document of that name (or path) the conversation may read, or None."""
        ...


def is_document(attachment: Attachment) -> bool:
    """Whether the attachment is a document large enough to go as a card when it does not fit (a PDF with text or a
    text file of at least CARD_MIN_CHARS characters); a scanned PDF has no text and is never one."""
    return attachment.kind in (AttachmentKind.PDF, AttachmentKind.TEXT) and (attachment.text_chars or 0) >= \
        CARD_MIN_CHARS


def goes_as_card(attachment: Attachment, tokens: int, capacity: int | None) -> bool:
    """Whether a request carries the document's card instead of it: priced above DOCUMENT_SHARE of the capacity."""
    return capacity is not None and is_document(attachment) and tokens > capacity * DOCUMENT_SHARE


def card_instructions(name: str) -> str:
    """The card's last lines: how the model reads on, and how it cites."""
    return (f"Only this card of {name} is in the conversation. Use {SEARCH_TOOL}(query, document=\"{name}\") to find "
            f"passages and {READ_TOOL}(document=\"{name}\", pages=\"N-M\" or section=...) to read them; cite pages "
            f"as [{name} p. N].")


def citations(text: str) -> list[tuple[str, int]]:
    """The page citations `[name.ext p. N]` in a reply, in order, without repeats."""
    return list(dict.fromkeys((m.group(1), int(m.group(2))) for m in CITATION.finditer(text)))


def parse_pages(spec: str, last: int | None = None) -> tuple[int, int]:
    """"12", "12-14" or "12–14" as an inclusive range; ValueError with the reason when it is not one."""
    cleaned = spec.strip().replace("–", "-").replace(" ", "")
    parts = cleaned.split("-")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"pages must look like \"12\" or \"12-14\", got {spec!r}")
    first, end = int(parts[0]), int(parts[-1])
    if first < 1 or end < first:
        raise ValueError(f"pages {spec!r} is not a range of pages from 1 on")
    if last is not None and first > last:
        raise ValueError(f"the document has {last} pages; page {first} does not exist")
    return first, end
