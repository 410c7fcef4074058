"""Telling exports apart: by their whole decoded JSON (a small file) and by their first part only (a large one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.importers.detect import kind_of, sniff
from tests.importers.samples import chatgpt_export, claude_export

FIXTURES = Path(__file__).parent / "fixtures"
FILES = [
    ("chatgpt/conversations.json", "chatgpt"), ("chatgpt/chatgpt-modern-export.json", "chatgpt"),
    ("openwebui/openwebui-export.json", "openwebui"), ("librechat/librechat-export.json", "librechat"),
    ("librechat/librechat-opts-nonr-branches.json", "librechat"),
    ("chatbox/chatbox-exported-data-2025-6-1.json", "chatbox"),
    ("chatbox/chatbox-exported-data-2023-5-2.json", "chatbox"),
    ("lmstudio/conversations/1736789912980.conversation.json", "lmstudio"),
]


@pytest.mark.parametrize(("name", "kind"), FILES)
def test_each_fixture_is_told_by_its_shape_and_by_its_first_kilobytes(name: str, kind: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert kind_of(json.loads(text)) == kind
    assert sniff(text[:1500]) == kind


def test_the_sample_exports_and_a_palimpsest_export_are_told_apart() -> None:
    assert kind_of(chatgpt_export()) == "chatgpt" and kind_of(claude_export()) == "claude"
    session = {"id": "s1", "title": "t", "messages": [{"id": "m1", "type": "user", "seq": 1, "content": "hi"}]}
    assert kind_of(session) == "palimpsest" and kind_of([session]) == "palimpsest"
    assert kind_of({"todo": ["milk"]}) is None and kind_of([1, 2]) is None
