"""Documents read on demand, on a real database: extraction per page (with the outline) or per section, the FTS5
index scoped to a conversation and its agent, cards, and knowledge folders indexed again only when changed."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from data.db.agents import DEFAULT_AGENT_ID
from data.documents.cards import AttachmentDocuments
from data.documents.extract import NoTextInDocument, extract, extract_text
from data.documents.knowledge import KnowledgeIndexer
from data.storage import Storage
from domain.attachment import AttachmentKind
from domain.documents import CARD_MAX_CHARS
from domain.errors import InvalidInput
from domain.models import Message, MessageType, Session
from tests.attachment_samples import docx, epub, pdf

AGENT = DEFAULT_AGENT_ID
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture()
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage.open(tmp_path / "home")
    yield store
    store.close()


def _with_outline(texts: list[str]) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(texts))))
    part = writer.add_outline_item(title="Part one", page_number=0)
    writer.add_outline_item(title="Pumps", page_number=2, parent=part)
    writer.add_outline_item(title="Warranty", page_number=4)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _blank_pdf(pages: int) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_is_extracted_page_by_page_with_its_outline() -> None:
    found = extract("m.pdf", _with_outline([f"Page {n} text" for n in range(1, 6)]))
    assert found.kind == "pdf" and found.pages == 5
    assert [(page, body) for page, _, body in found.passages] == [(n, f"Page {n} text") for n in range(1, 6)]
    assert found.outline == [(1, "Part one", 1), (2, "Pumps", 3), (1, "Warranty", 5)]


def test_a_scanned_pdf_says_that_ocr_is_not_built_in() -> None:
    with pytest.raises(NoTextInDocument, match="OCR is not built in"):
        extract("scan.pdf", _blank_pdf(3))


def test_markdown_goes_by_section_and_other_text_by_line_ranges() -> None:
    md = extract_text("notes.md", "intro line\n# Setup\nInstall.\n```\n# not a heading\n```\n## Valves\nTorque 42.\n")
    assert [section for _, section, _ in md.passages] == ["start", "Setup", "Valves"]
    assert "# not a heading" in md.passages[1][2] and md.outline == [(1, "Setup", None), (2, "Valves", None)]
    code = extract_text("big.py", "\n".join(f"x{n} = {n}" for n in range(130)))
    assert [section for _, section, _ in code.passages] == ["lines 1-60", "lines 61-120", "lines 121-130"]


def test_a_large_attachment_is_indexed_once_and_searched_only_from_its_conversation(storage: Storage) -> None:
    texts = [f"Page {n}. Filler about hoses." + (" The valve torque is 42 Nm." if n == 30 else "")
             for n in range(1, 41)]
    from data.attachments.intake import AttachmentIntake

    manual = AttachmentIntake(storage.attachment_files).from_bytes("manual.pdf", _with_outline(texts))
    session = _session(storage)
    storage.messages.add(Message("m1", session, MessageType.USER, "read this", T0, attachments=(manual,)))
    cards = AttachmentDocuments(storage.documents, storage.attachment_files)
    card = cards.card(manual)
    assert len(card) <= CARD_MAX_CHARS and "manual.pdf" in card and "40 pages" in card
    assert "- Part one (p. 1)" in card and "  - Pumps (p. 3)" in card and "Page 1. Filler" in card
    assert "search_documents" in card and "[manual.pdf p. N]" in card
    hits = storage.documents.search("valve torque", session, AGENT)
    assert hits[0].where == "[manual.pdf p. 30]"
    assert storage.documents.search("valve torque", "another-session", AGENT) == []  # not attached there
    cards.card(manual)  # a second card reads the index: nothing is indexed twice
    assert len(storage.documents.read(session, AGENT, "MANUAL.PDF", pages=(1, 40))) == 40


def _session(storage: Storage) -> str:
    storage.sessions.create(Session("s1", "Docs", AGENT, T0, T0))
    return "s1"


def _write(path: Path, text: str, mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def test_a_knowledge_folder_is_indexed_again_only_where_a_file_changed_and_forgets_deleted_files(
    storage: Storage, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    _write(kb / "a.md", "# Pumps\nThe bilge pump is BP-7731.\n", 1_000_000)
    _write(kb / "sub" / "b.txt", "nothing here about pumps\n", 1_000_000)
    _write(kb / "c.md", "# Hull\nPaint it blue.\n", 1_000_000)
    _write(kb / ".hidden.md", "# Secret\n", 1_000_000)
    _write(kb / "image.png", "not text", 1_000_000)
    lines: list[str] = []
    indexer = KnowledgeIndexer(storage.documents)
    report = indexer.add(AGENT, kb, lines.append)
    assert (report.added, report.updated, report.unchanged, report.removed) == (3, 0, 0, 0)
    assert lines[-1].endswith("3 added, 0 updated, 0 unchanged, 0 removed")
    assert storage.documents.has_knowledge(AGENT)
    assert storage.documents.search("bilge pump", "any-session", AGENT)[0].where == "[a.md § Pumps]"
    _write(kb / "c.md", "# Hull\nPaint it blue.\n", 2_000_000)  # touched, same content: its hash decides
    _write(kb / "a.md", "# Pumps\nThe bilge pump is BP-9000 now.\n", 1_000_000)  # changed (size differs)
    (kb / "sub" / "b.txt").unlink()
    (report,) = indexer.reindex(AGENT)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 1, 1)
    assert storage.documents.known_files(AGENT, str(kb.resolve()))[str((kb / "c.md").resolve())].mtime == 2_000_000
    assert "BP-9000" in storage.documents.search("bilge", "s", AGENT)[0].text
    assert storage.documents.search("nothing here", "s", AGENT) == []  # the deleted file left the index
    (report,) = indexer.reindex(AGENT)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, 2, 0)
    assert storage.documents.counts(AGENT, str(kb.resolve())) == (2, 2)
    assert indexer.remove(AGENT, str(kb))
    assert not storage.documents.has_knowledge(AGENT) and storage.documents.search("bilge", "s", AGENT) == []


def test_a_scanned_pdf_in_a_knowledge_folder_is_skipped_with_the_reason(storage: Storage, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "scan.pdf").write_bytes(_blank_pdf(2))
    lines: list[str] = []
    report = KnowledgeIndexer(storage.documents).add(AGENT, kb, lines.append)
    assert report.skipped == 1 and report.added == 0
    assert any("OCR is not built in" in line for line in lines)


def test_an_attachments_index_goes_with_its_file(storage: Storage) -> None:
    from data.attachments.intake import AttachmentIntake

    texts = [f"Page {n}. " + "Hoses and valves. " * 20 for n in range(1, 30)]
    manual = AttachmentIntake(storage.attachment_files).from_bytes("manual.pdf", pdf(texts))
    AttachmentDocuments(storage.documents, storage.attachment_files).ensure(manual)
    assert storage.documents.attachment(manual.sha256) is not None
    storage.release_unreferenced({manual.sha256})  # taken in, never sent: no message refers to it
    assert not storage.attachment_files.exists(manual.sha256)
    assert storage.documents.attachment(manual.sha256) is None


def _docx() -> bytes:
    return docx("Pump manual", [(1, "Valve maintenance", "Torque valve V-17 to 42 Nm, then check the seal."),
                                (2, "Warranty", "Two years from purchase.")], table=("Gasket", "G-5521"))


def _epub() -> bytes:
    return epub("Sailing", [("Knots", "<p>The bowline holds &amp; never slips.</p>"),
                            ("Anchoring", "<p>Let out seven times the depth in chain.</p>")], part="Harbour")


def test_a_docx_in_a_knowledge_folder_is_read_by_heading_searched_and_read_by_section(
    storage: Storage, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "manual.docx").write_bytes(_docx())
    report = KnowledgeIndexer(storage.documents).add(AGENT, kb)
    assert report.added == 1 and report.skipped == 0
    hit = storage.documents.search("valve torque", "s", AGENT)[0]
    assert hit.where == "[manual.docx § Valve maintenance]"
    (section,) = storage.documents.read("s", AGENT, "manual.docx", section="valve maintenance")
    assert "42 Nm" in section.text and "Gasket | G-5521" in section.text and "Two years" not in section.text
    info = storage.documents.find("s", AGENT, "manual.docx")
    assert info is not None and info.kind == "docx"
    assert [(level, title) for level, title, _ in info.outline] == [(1, "Pump manual"), (1, "Valve maintenance"),
                                                                    (2, "Warranty")]


def test_an_epub_in_a_knowledge_folder_is_read_by_chapter_titled_by_its_table_of_contents(
    storage: Storage, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "sailing.epub").write_bytes(_epub())
    report = KnowledgeIndexer(storage.documents).add(AGENT, kb)
    assert report.added == 1 and report.skipped == 0
    assert storage.documents.search("chain depth", "s", AGENT)[0].where == "[sailing.epub § Anchoring]"
    (section,) = storage.documents.read("s", AGENT, "sailing.epub", section="Knots")
    assert "The bowline holds & never slips." in section.text and "<p>" not in section.text
    info = storage.documents.find("s", AGENT, "sailing.epub")
    assert info is not None and info.kind == "epub"
    assert [(level, title) for level, title, _ in info.outline] == [(1, "Knots"), (1, "Harbour"), (2, "Anchoring")]


def test_a_broken_docx_is_skipped_with_the_reason() -> None:
    with pytest.raises(InvalidInput, match="not a readable DOCX"):
        extract("broken.docx", b"PK\x03\x04 not really a zip")


def test_two_processes_indexing_one_attachment_at_once_store_it_once(tmp_path: Path) -> None:
    from data.attachments.intake import AttachmentIntake

    first, second = Storage.open(tmp_path / "home"), Storage.open(tmp_path / "home")  # two connections, one file
    try:
        manual = AttachmentIntake(first.attachment_files).from_bytes("notes.md", b"# Pumps\nBP-7731 pumps bilge.\n")
        assert second.documents.attachment(manual.sha256) is None  # the second looked first and found nothing...
        AttachmentDocuments(first.documents, first.attachment_files).ensure(manual)  # ...the first indexed it...
        extracted = extract_text("notes.md", "# Pumps\nBP-7731 pumps bilge.\n")
        second.documents.put_attachment(manual.sha256, "notes.md", manual.size, extracted)  # ...then the second
        assert AttachmentDocuments(second.documents, second.attachment_files).ensure(manual) is not None
        with first.documents._db.read() as s:
            from sqlalchemy import text

            assert s.execute(text("SELECT count(*) FROM documents")).scalar_one() == 1
            assert s.execute(text("SELECT count(*) FROM document_passages")).scalar_one() == 1
    finally:
        first.close()
        second.close()


def test_two_indexers_of_one_folder_at_once_keep_one_entry_a_file(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    _write(kb / "a.md", "# Pumps\nThe bilge pump is BP-7731.\n", 1_000_000)
    first, second = Storage.open(tmp_path / "home"), Storage.open(tmp_path / "home")
    try:
        folder = str(kb.resolve())
        assert second.documents.known_files(AGENT, folder) == {}  # the second looked before the first stored
        KnowledgeIndexer(first.documents).add(AGENT, kb)
        report = KnowledgeIndexer(second.documents).index(AGENT, folder)
        assert report.problems == ()
        KnowledgeIndexer(second.documents).add(AGENT, kb)
        assert first.documents.counts(AGENT, folder) == (1, 1)
        assert len(first.documents.search("bilge", "s", AGENT)) == 1
    finally:
        first.close()
        second.close()


def test_files_past_a_folders_limit_that_were_indexed_before_stay_indexed_and_the_user_is_told(
    storage: Storage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import data.documents.knowledge as knowledge

    kb = tmp_path / "kb"
    for name, fact in (("a.md", "anchor AN-1"), ("b.md", "bilge BG-2"), ("c.md", "chain CH-3"), ("d.md", "deck DK-4")):
        _write(kb / name, f"# {name}\n{fact}\n", 1_000_000)
    indexer = KnowledgeIndexer(storage.documents)
    assert indexer.add(AGENT, kb).added == 4
    monkeypatch.setattr(knowledge, "MAX_FOLDER_FILES", 2)  # the folder is now over its limit: c.md and d.md past it
    (kb / "d.md").unlink()  # gone from the folder: it leaves the index even past the limit
    lines: list[str] = []
    (report,) = indexer.reindex(AGENT, lines.append)
    assert report.removed == 1
    assert storage.documents.search("chain", "s", AGENT)[0].where == "[c.md § c.md]"
    assert storage.documents.search("deck", "s", AGENT) == []
    assert any("1 file indexed before is kept as it was" in line for line in lines)


@pytest.mark.parametrize(("name", "make", "query", "where", "section", "fact"), [
    ("manual.docx", _docx, "valve torque", "[manual.docx § Valve maintenance]", "Valve maintenance", "42 Nm"),
    ("sailing.epub", _epub, "chain depth", "[sailing.epub § Anchoring]", "Anchoring", "seven times the depth"),
])
def test_an_attached_docx_or_epub_goes_as_its_text_and_is_indexed_by_section(
    storage: Storage, name: str, make: Callable[[], bytes], query: str, where: str, section: str, fact: str
) -> None:
    from data.attachments.intake import AttachmentIntake
    from data.attachments.media import MediaSource

    attached = AttachmentIntake(storage.attachment_files).from_bytes(name, make())
    assert attached.kind is AttachmentKind.TEXT and attached.text_chars
    sent = MediaSource(storage.attachment_files).text(attached)  # what a request carries when it fits: the text
    assert fact in sent and "PK" not in sent and len(sent) == attached.text_chars
    storage.attachment_files.path(attached.sha256).with_suffix(".txt").unlink()  # a copy synced without its text
    assert MediaSource(storage.attachment_files).text(attached) == sent
    session = _session(storage)
    storage.messages.add(Message("m1", session, MessageType.USER, "read this", T0, attachments=(attached,)))
    card = AttachmentDocuments(storage.documents, storage.attachment_files).card(attached)
    assert name in card and "search_documents" in card
    assert storage.documents.search(query, session, AGENT)[0].where == where
    (passage,) = storage.documents.read(session, AGENT, name, section=section)
    assert fact in passage.text


def test_a_broken_docx_attachment_is_refused_with_the_reason(storage: Storage) -> None:
    from data.attachments.intake import AttachmentIntake, AttachmentRejected

    with pytest.raises(AttachmentRejected, match="not a readable DOCX"):
        AttachmentIntake(storage.attachment_files).from_bytes("broken.docx", b"PK\x03\x04 not really a zip")
