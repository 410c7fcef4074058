"""The attached-resources store on a real SQLite file, in both stores (SqlAttachedResources, and the lite store's
LiteAttachedResources a chat turn's process uses): the resources of a conversation in the order first attached, a
hash updated in place, and the rows gone with the conversation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.db.attached_resources import SqlAttachedResources
from data.lite.attached_resources import LiteAttachedResources
from data.lite.db import LiteDatabase
from data.storage import Storage
from domain.attached_resources import AttachedResource, content_hash
from domain.mcp_catalog import McpResourceContent
from domain.models import Session

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage.open(tmp_path)
    for sid in ("s1", "s2"):
        store.sessions.create(Session(id=sid, title="Chat", current_agent_id="general-assistant", created_at=T0,
                                      updated_at=T0))
    yield store
    store.close()


@pytest.mark.parametrize("kind", ["sqlalchemy", "sqlite3"])
def test_resources_are_kept_per_conversation_in_order_and_a_new_hash_replaces_the_old(storage: Storage,
                                                                                      kind: str) -> None:
    clock = iter([T0, T0 + timedelta(seconds=1), T0 + timedelta(seconds=2)])
    store: SqlAttachedResources | LiteAttachedResources
    if kind == "sqlalchemy":
        store = SqlAttachedResources(storage._db, now=lambda: next(clock))  # the clock decides the order
    else:
        lite = LiteDatabase(storage.path)
        store = LiteAttachedResources(lite, lambda: storage.attached_resources, now=lambda: next(clock))
    store.remember("s1", [AttachedResource("notes", "notes://b", "h1")])
    store.remember("s1", [AttachedResource("files", "notes://a", "h2"), AttachedResource("other", "x://y", "h3")])
    store.remember("s1", [AttachedResource("notes", "notes://b", "h4")])  # changed: same place, new hash

    assert store.of("s1") == [AttachedResource("notes", "notes://b", "h4"),
                              AttachedResource("files", "notes://a", "h2"), AttachedResource("other", "x://y", "h3")]
    assert store.of("s2") == []
    storage.sessions.purge("s1")
    assert store.of("s1") == []
    if isinstance(store, LiteAttachedResources):
        lite.close()


def test_the_hash_tells_text_from_bytes_and_sees_any_change() -> None:
    text = [McpResourceContent("n://a", "text/plain", text="abc")]
    assert content_hash(text) == content_hash([McpResourceContent("n://a", "text/plain", text="abc")])
    others = [[McpResourceContent("n://a", "text/plain", text="abd")],
              [McpResourceContent("n://a", "text/plain", data=b"abc")],
              [McpResourceContent("n://b", "text/plain", text="abc")],
              [McpResourceContent("n://a", "text/markdown", text="abc")],
              [McpResourceContent("n://a", "text/plain", text="ab"),
               McpResourceContent("n://a", "text/plain", text="c")]]
    assert len({content_hash(text), *(content_hash(o) for o in others)}) == 1 + len(others)
