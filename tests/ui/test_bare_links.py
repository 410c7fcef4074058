"""A bare URL in a reply links without the sentence's trailing punctuation (GitHub's autolink rules)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPointF, QUrl
from PySide6.QtGui import QFont

from tests.ui.chat_helpers import click, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window
from ui.markdown import render_document
from ui.markdown_links import trim_url
from ui.models.chat_rows import RowKind
from ui.theme import LIGHT


def _hrefs(text: str) -> list[str]:
    doc, _ = render_document(text, LIGHT, QFont())
    return re.findall(r'href="([^"]*)"', doc.toHtml())


@pytest.mark.parametrize(("raw", "url"), [
    ("https://example.com/page.", "https://example.com/page"),
    ("https://example.com/a?b=1,", "https://example.com/a?b=1"),
    ("https://example.com/x!?", "https://example.com/x"),
    ("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("https://example.com/a&amp;", "https://example.com/a"),
    ("https://example.com/a.b/c", "https://example.com/a.b/c"),
])
def test_trailing_punctuation_is_trimmed_and_balanced_parentheses_kept(raw: str, url: str) -> None:
    assert trim_url(raw) == url


def test_a_reply_links_bare_urls_without_the_sentence_punctuation(qapp) -> None:
    text = ("Read https://example.com/page. Then (see https://en.wikipedia.org/wiki/Foo_(bar)), "
            "or https://example.com/q?x=1, or www.example.org.")
    assert _hrefs(text) == ["https://example.com/page", "https://en.wikipedia.org/wiki/Foo_(bar)",
                            "https://example.com/q?x=1", "http://www.example.org"]
    doc, _ = render_document(text, LIGHT, QFont())
    assert doc.toPlainText() == text  # the punctuation is still shown, outside the link


def test_code_spans_and_written_links_are_left_alone(qapp) -> None:
    assert _hrefs("`https://code.example/x.` and [doc](https://example.com/a.) and <https://example.com/b.>") == [
        "https://example.com/a.", "https://example.com/b."]


def test_clicking_a_bare_url_at_the_end_of_a_sentence_opens_it_without_the_dot(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Links", ["where?", "It is at https://example.com/page."], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    opened: list[QUrl] = []
    window.chat_view.open_url = opened.append
    view = window.chat_view
    position, _ = row_of(view, RowKind.ASSISTANT)
    layout, rect = layout_of(view, position)
    doc = layout.doc
    at = doc.find("example").selectionStart()
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    x = line.cursorToX(at - block.position())[0]
    top = doc.documentLayout().blockBoundingRect(block).top()
    click(qtbot, view, rect.topLeft() + layout.doc_pos + QPointF(x + 2, top + line.y() + line.height() / 2))
    assert [u.toString() for u in opened] == ["https://example.com/page"]
