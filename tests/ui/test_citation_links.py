"""A page citation in a reply (`[report.pdf p. 2]`) is a link: a click opens the attached PDF at that page."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QPointF, QUrl
from PySide6.QtGui import QFont

from domain.models import MessageType
from tests.attachment_samples import write_samples
from tests.ui.chat_helpers import click, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window
from ui.markdown import render_document
from ui.markdown_links import citation_target, link_citations
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT


def _hrefs(text: str) -> list[str]:
    doc, _ = render_document(text, LIGHT, QFont())
    return re.findall(r'href="([^"]*)"', doc.toHtml())


def test_page_citations_become_links_to_their_page_and_code_is_left_alone(qapp) -> None:
    text = "See [manual.pdf p. 412] and [my notes.pdf p. 7]; `[code.pdf p. 1]` stays code."
    assert _hrefs(text) == ["cite:manual.pdf#page=412", "cite:my%20notes.pdf#page=7"]
    doc, _ = render_document(text, LIGHT, QFont())
    assert "[manual.pdf p. 412]" in doc.toPlainText()  # shown as written
    assert citation_target("cite:my%20notes.pdf#page=7") == ("my notes.pdf", 7)
    assert citation_target("https://example.com/#page=7") is None


def test_clicking_a_page_citation_opens_the_attached_pdf_at_that_page(qtbot, worker, tmp_path: Path) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    report = backend.intake.from_path(write_samples(tmp_path)["report.pdf"])
    session = backend.add_session("Docs", [], minutes_ago=1)
    backend._store(session.id, MessageType.USER, "What does it say?", attachments=(report,))
    backend._store(session.id, MessageType.AI_RESPONSE, "Revenue rose, see [report.pdf p. 2].")
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    opened: list[QUrl] = []
    view = window.chat_view
    view.open_url = opened.append
    position, _ = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    doc = layout.doc
    at = doc.find("report.pdf").selectionStart() + 2
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    x = line.cursorToX(at - block.position())[0]
    top = doc.documentLayout().blockBoundingRect(block).top()
    click(qtbot, view, rect.topLeft() + layout.doc_pos + QPointF(x + 2, top + line.y() + line.height() / 2))
    qtbot.waitUntil(lambda: bool(opened))
    assert opened[0].toLocalFile().endswith("/report.pdf") and opened[0].fragment() == "page=2"
    assert Path(opened[0].toLocalFile()).read_bytes()[:5] == b"%PDF-"



def test_section_citations_link_to_their_file() -> None:
    assert re.findall(r"\]\(([^)]*)\)", link_citations("Paint it [guides/hull.md § Hull care] now.")) == \
        ["cite:guides/hull.md"]
    assert citation_target("cite:guides/hull.md") == ("guides/hull.md", None)


def test_citations_of_knowledge_files_open_the_file_at_the_page_or_whole(qtbot, worker, tmp_path: Path) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    manual, hull = tmp_path / "kb" / "manual.pdf", tmp_path / "kb" / "guides" / "hull.md"
    hull.parent.mkdir(parents=True)
    manual.write_bytes(write_samples(tmp_path)["report.pdf"].read_bytes())
    hull.write_text("# Hull care\nPaint it blue.\n", encoding="utf-8")
    backend.knowledge_files = {"manual.pdf": str(manual), "guides/hull.md": str(hull)}
    reply = "See [manual.pdf p. 2] and [guides/hull.md § Hull care]."
    session = backend.add_session("Docs", [], minutes_ago=1)
    backend._store(session.id, MessageType.USER, "What does it say?")
    backend._store(session.id, MessageType.AI_RESPONSE, reply)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    opened: list[QUrl] = []
    notices: list[str] = []
    view = window.chat_view
    view.open_url = opened.append
    window.chat_vm.notice.connect(notices.append)
    hrefs = re.findall(r"\]\(([^)]*)\)", link_citations(reply))
    assert hrefs == ["cite:manual.pdf#page=2", "cite:guides/hull.md"]
    assert view.selector.open_link(hrefs[0])
    qtbot.waitUntil(lambda: len(opened) == 1)
    assert view.selector.open_link(hrefs[1])
    qtbot.waitUntil(lambda: len(opened) == 2)
    assert Path(opened[0].toLocalFile()) == manual and opened[0].fragment() == "page=2"
    assert Path(opened[1].toLocalFile()) == hull and not opened[1].hasFragment()
    assert view.selector.open_link("cite:gone.pdf#page=3")
    qtbot.waitUntil(lambda: bool(notices))
    assert notices == ["No document named gone.pdf in this conversation or its agent's knowledge."]
    assert len(opened) == 2
