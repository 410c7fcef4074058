"""The full text of a truncated tool result (kept locally beyond the stored form) travels like an attachment: on
the other device read_tool_result pages through the original, and it goes with its message."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.sync.folder import FolderRemote
from data.tools import BuiltinTools
from domain.context.truncator import ToolResultTruncator
from domain.models import Message, MessageType
from domain.provider_ports import ToolContext
from domain.sync import sync_now
from tests.sync.replicas import Store, assert_sound, until_quiet
from tests.tools.fakes import FixedClock

FULL = "".join(f"{i:06d}\n" for i in range(15_000))  # 105,000 characters: stored cut to 30K


def _read_end(store: Store) -> str:
    import asyncio

    tools = BuiltinTools(store.storage.memories, store.storage.messages, FixedClock())
    outcome = asyncio.run(tools.execute("read_tool_result", {"message_id": "r1", "offset": 100_000,
                                                             "length": 20_000}, ToolContext("s1", None)))
    assert not outcome.is_error, outcome.output
    return outcome.output


def _files(store: Store) -> list[str]:
    return sorted(p.name for p in (store.home / "attachments").rglob("*") if p.is_file())


def _fetch_a_page(store: Store) -> None:
    store.conversation("s1", "Fetches a page", ["get the page"], attach=b"notes attached to the question")
    cut = ToolResultTruncator().truncate(FULL, "r1")
    assert len(cut.stored) < len(FULL)
    store.storage.messages.add(
        Message(id="r1", session_id="s1", type=MessageType.TOOL_RESULT, tool_name="http_request",
                tool_output=cut.stored, tool_output_original_chars=cut.original_chars),
        full_output=cut.original)


def test_read_tool_result_on_the_other_device_returns_the_original(tmp_path: Path) -> None:
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    remote = FolderRemote(tmp_path / "remote")
    try:
        _fetch_a_page(a)
        until_quiet([a, b], remote)
        assert b.storage.messages.full_output("r1") == FULL
        assert "characters 100000-105000 of 105000; end of result" in _read_end(b)
        assert _read_end(b).endswith(FULL[100_000:])
        assert _files(b) == _files(a)  # the original is kept in the database: the file it came in is gone
        assert a.state() == b.state()
        b.storage.messages.delete_subtree("s1", "r1")  # the original goes with its message, on both
        until_quiet([a, b], remote)
        assert a.storage.messages.full_output("r1") is None and a.storage.messages.get("r1") is None
        assert a.state() == b.state()
    finally:
        a.close()
        b.close()
    assert_sound(tmp_path / "a")
    assert_sound(tmp_path / "b")


def test_a_new_device_that_starts_from_a_snapshot_gets_the_files_too(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_now, "SNAPSHOT_EVERY", 1)  # a snapshot at every push, the files before it pruned
    a, c = Store(tmp_path / "a"), Store(tmp_path / "c")
    remote = FolderRemote(tmp_path / "remote")
    try:
        _fetch_a_page(a)
        a.sync(remote)
        a.storage.sessions.update_fields("s1", title="Fetched a page")
        a.sync(remote)
        assert [n.rsplit("/", 1)[1][0] for n in remote.list(sync_now.DEVICES)] == ["c", "s"]  # c1 and s1 pruned
        c.sync(remote)
        assert c.storage.messages.full_output("r1") == FULL
        assert c.storage.attachment_files.exists(a.storage.attachment_files.put(b"notes attached to the question"))
        assert a.state() == c.state()
    finally:
        a.close()
        c.close()
