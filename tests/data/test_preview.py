"""The session-list preview: the first 120 characters of a user's or a reply's text with whitespace collapsed, the
same from the head of a long text as from all of it."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from data.db.preview import PREVIEW_CHARS, collapsed_head, preview
from domain.models import Message, MessageType

T0 = datetime(2026, 11, 28, tzinfo=UTC)


def _message(content: str, kind: MessageType = MessageType.USER) -> Message:
    return Message(id="m1", session_id="s1", type=kind, content=content, created_at=T0)


@pytest.mark.parametrize("text", [
    "", "   \n\t ", "short", "word " * 400, "x" * 5000, " " * 2000 + "late words " * 30, "a\n\n" * 3000,
    "w" * 959 + " tail" * 50, "w" * 960 + " tail" * 50, "w" * 961 + " tail" * 50, " " * 959 + "y" * 300,
    "日本語の文章 " * 300, "mixed\u00a0nbsp\u2003em space " * 80,
])
def test_the_head_gives_what_the_whole_text_gives(text: str) -> None:
    assert collapsed_head(text, PREVIEW_CHARS) == " ".join(text.split())[:PREVIEW_CHARS]


def test_random_texts_of_words_and_whitespace_agree_with_the_whole_text() -> None:
    rng = random.Random(28)
    pieces = ["a", "bb", "word", "x" * 50, " ", "  ", "\n", "\t", " " * 300, "long" * 100]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
        for chars in (1, 7, PREVIEW_CHARS, 500):
            assert collapsed_head(text, chars) == " ".join(text.split())[:chars], (text, chars)


def test_only_user_messages_and_replies_with_text_give_a_preview() -> None:
    assert preview(_message("  Hello\n\n  there  ")) == "Hello there"
    assert preview(_message("An answer", MessageType.AI_RESPONSE)) == "An answer"
    assert preview(_message("   \n")) is None
    assert preview(replace(_message("output"), type=MessageType.TOOL_RESULT)) is None
    assert preview(_message("word " * 100)) == ("word " * 100)[:PREVIEW_CHARS]
