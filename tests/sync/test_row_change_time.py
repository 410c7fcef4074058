"""The later change wins by when it was made, not by when a sync sent it, for what syncs whole (providers, agents,
memories, models, MCP servers), the active branch and the summary in force, and for a delete against an edit."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from data.sync.folder import FolderRemote
from domain.mcp import McpServer, McpTransport
from domain.models import CompactionRecord, Memory, Message, MessageType
from tests.sync.replicas import Store, until_quiet


def _next_millisecond() -> None:
    """Waits for the wall clock to pass into the next millisecond (so two edits are never stamped alike)."""
    start = int(time.time() * 1000)
    while int(time.time() * 1000) <= start:
        pass


@dataclass(frozen=True)
class Case:
    """Something both devices change: how each changes it (to a value named by the device), and how it reads."""

    change: Callable[[Store, str], None]
    read: Callable[[Store], Any]


def _agent(store: Store, label: str) -> None:
    agent = store.storage.agents.get("general-assistant")
    assert agent is not None
    store.storage.agents.update(replace(agent, name=label))


def _memory(store: Store, label: str) -> None:
    memory = store.storage.memories.get("m3")
    assert memory is not None
    store.storage.memories.update(replace(memory, content=label))


def _provider(store: Store, label: str) -> None:
    provider = store.storage.providers.get("openai")
    assert provider is not None
    store.storage.providers.update(replace(provider, name=label))


def _model(store: Store, label: str) -> None:
    model = store.storage.models.get("anthropic", "claude-3-5-haiku-20241022")
    assert model is not None
    store.storage.models.upsert(replace(model, display_name=label))


def _mcp_server(store: Store, label: str) -> None:
    store.storage.mcp_servers.save(McpServer("files", McpTransport.HTTP, url=f"http://127.0.0.1:9/{label}"))


def _leaf(store: Store, label: str) -> None:
    store.storage.messages.set_path("s1", {"A": "s1-a1", "B": "s1-a1b"}[label])


def _summary(store: Store, label: str) -> None:
    now = datetime.now(UTC)
    store.storage.sessions.apply_compaction(
        "s1", summary=f"Summary by {label}", boundary=1,
        record=CompactionRecord("s1", now, 1, 100, 10, 5, "manual", f"Summary by {label}", "s1-q1"))


def _leaf_of(store: Store) -> Any:
    return [m.id for m in store.storage.messages.snapshot("s1")][-1]


def _summary_of(store: Store) -> Any:
    session = store.storage.sessions.get("s1")
    return session.compacted_summary if session else None


CASES = {
    "agent": Case(_agent, lambda s: s.storage.agents.get("general-assistant").name),  # type: ignore[union-attr]
    "memory": Case(_memory, lambda s: s.storage.memories.get("m3").content),  # type: ignore[union-attr]
    "provider": Case(_provider, lambda s: s.storage.providers.get("openai").name),  # type: ignore[union-attr]
    "model": Case(_model, lambda s: s.storage.models.get(  # type: ignore[union-attr]
        "anthropic", "claude-3-5-haiku-20241022").display_name),
    "mcp_server": Case(_mcp_server, lambda s: s.storage.mcp_servers.get("files").url),  # type: ignore[union-attr]
    "active branch": Case(_leaf, _leaf_of),
    "summary in force": Case(_summary, _summary_of),
}


def _shared(a: Store) -> None:
    """What both devices hold before they diverge: a conversation with three answers to one question, memories,
    an MCP server."""
    a.conversation("s1", "Shared", ["q1", "a1"])
    for answer in ("a1b", "a1c"):  # regenerated twice: the newest is the active branch
        a.storage.messages.add(Message(f"s1-{answer}", "s1", MessageType.AI_RESPONSE, answer, parent_id="s1-q1"))
        a.storage.messages.set_path("s1", f"s1-{answer}")
    for mid in ("m1", "m2", "m3"):
        a.storage.memories.add(Memory(mid, f"the fact {mid}", datetime.now(UTC)))
    _mcp_server(a, "first")


@pytest.mark.parametrize("first", ["earlier editor", "later editor"])
def test_the_later_change_wins_whichever_device_syncs_first(tmp_path: Path, first: str) -> None:
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    remote = FolderRemote(tmp_path / "remote")
    try:
        _shared(a)
        until_quiet([a, b], remote)
        for case in CASES.values():
            case.change(a, "A")
        _next_millisecond()
        for case in CASES.values():
            case.change(b, "B")
        later = {what: case.read(b) for what, case in CASES.items()}
        assert all(case.read(a) != later[what] for what, case in CASES.items())
        until_quiet([a, b] if first == "earlier editor" else [b, a], remote)
        assert {what: case.read(a) for what, case in CASES.items()} == later
        assert a.state() == b.state()
    finally:
        a.close()
        b.close()


def _edit(store: Store, mid: str) -> None:
    memory = store.storage.memories.get(mid)
    assert memory is not None
    store.storage.memories.update(replace(memory, content=f"{mid} edited"))


@pytest.mark.parametrize("first", ["earlier editor", "later editor"])
def test_a_delete_and_an_edit_the_later_wins_whichever_device_syncs_first(tmp_path: Path, first: str) -> None:
    """m1: deleted on A, edited on B later (kept, edited); m2: edited on A, deleted on B later (gone); m3: edited on
    A, deleted on A later (gone)."""
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    remote = FolderRemote(tmp_path / "remote")
    try:
        _shared(a)
        until_quiet([a, b], remote)
        a.storage.memories.delete("m1")
        _edit(a, "m2")
        _edit(a, "m3")
        _next_millisecond()
        _edit(b, "m1")
        b.storage.memories.delete("m2")
        a.storage.memories.delete("m3")
        until_quiet([a, b] if first == "earlier editor" else [b, a], remote)
        memories = [(m.id, m.content) for m in a.storage.memories.list()]
        assert memories == [(m.id, m.content) for m in b.storage.memories.list()] == [("m1", "m1 edited")]
        assert a.state() == b.state()
    finally:
        a.close()
        b.close()
