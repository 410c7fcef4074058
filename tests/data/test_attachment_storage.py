"""Attachments in the store: migration 0018 on a populated database, content-addressed files written once, the
metadata round trip, and a file deleted with the last session that refers to it (never before)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

import migrations
from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.storage import Storage
from domain.attachment import AttachmentKind
from domain.errors import StorageError
from domain.models import Message, MessageType
from tests.attachment_samples import pdf, png
from tests.data.conftest import T0, new_session

PREVIOUS = "0016"  # the revision 0018 follows


def _populate_previous(path: Path) -> None:
    migrations.upgrade(f"sqlite:///{path}", PREVIOUS)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO sessions (id, title, created_at, updated_at, message_count, is_active) "
                     "VALUES ('s1', 'Trip', 1000000, 2000000, 2, 1)")
        conn.executemany(
            "INSERT INTO messages (id, session_id, type, content, created_at, seq) VALUES (?, 's1', ?, ?, ?, ?)",
            [("m1", "user", "pack a raincoat for Lisbon", 1000000, 1),
             ("m2", "ai_response", "Noted: raincoat", 2000000, 2)])


def test_0018_on_a_populated_database_keeps_every_message_searchable_and_downgrades(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = home / "palimpsest.db"
    _populate_previous(path)
    with sqlite3.connect(path) as conn:
        triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    storage = Storage.open(home)  # backs up, migrates to head, seeds
    try:
        before = storage.messages.snapshot("s1")
        assert [(m.id, m.content, m.attachments) for m in before] == [
            ("m1", "pack a raincoat for Lisbon", ()), ("m2", "Noted: raincoat", ())]
        assert [h.session_id for h in storage.sessions.search("raincoat")] == ["s1"]
        shot = AttachmentIntake(storage.attachment_files).from_path(_write(tmp_path / "shot.png", png(30, 20)))
        stored = storage.messages.add(Message("m3", "s1", MessageType.USER, "see this", T0, attachments=(shot,)))
        assert storage.messages.get("m3") == replace(stored)
        assert storage.messages.snapshot("s1")[-1].attachments == (shot,)
    finally:
        storage.close()
    assert list(home.glob(f"palimpsest.db.*.r{PREVIOUS}.bak")), "the database was backed up before the upgrade"
    with sqlite3.connect(path) as conn:  # the search triggers all kept (0021 and 0022 add their own)
        now = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert {name for name in now if not name.startswith(("config_revision_", "document_passages_fts_",
                                                              "sync_"))
                and name != "messages_rev"} == triggers  # 0029 adds the documents' own, 0033 and 0035 the sync's
    migrations.downgrade(f"sqlite:///{path}", PREVIOUS)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT id FROM messages ORDER BY seq").fetchall() == [("m1",), ("m2",), ("m3",)]
        assert "attachments" not in {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "message_attachments" not in tables


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_the_same_bytes_are_stored_once_under_their_sha256(tmp_path: Path) -> None:
    files = AttachmentFiles(tmp_path / "attachments")
    data = png()
    first, second = files.put(data), files.put(data)
    assert first == second and len(first) == 64
    assert files.path(first) == tmp_path / "attachments" / first[:2] / first
    assert files.read(first) == data
    assert [p.name for p in (tmp_path / "attachments").rglob("*") if p.is_file()] == [first]  # no temp file left


def test_a_missing_file_is_a_storage_error_naming_it(tmp_path: Path) -> None:
    files = AttachmentFiles(tmp_path / "attachments")
    with pytest.raises(StorageError, match="missing"):
        files.read("0" * 64)


def test_a_file_goes_with_the_last_session_that_refers_to_it(storage: Storage, tmp_path: Path) -> None:
    intake = AttachmentIntake(storage.attachment_files)
    report = intake.from_path(_write(tmp_path / "report.pdf", pdf(["Revenue rose", "Costs fell"])))
    shot = intake.from_path(_write(tmp_path / "shot.png", png()))
    assert report.kind is AttachmentKind.PDF and report.pages == 2 and storage.attachment_files.text(report.sha256)
    for session_id in ("s1", "s2"):
        new_session(storage, session_id)
    storage.messages.add(Message("a", "s1", MessageType.USER, "both", T0, attachments=(report, shot)))
    storage.messages.add(Message("b", "s2", MessageType.USER, "again", T0, attachments=(report,)))

    storage.sessions.purge("s1")
    assert storage.attachment_files.exists(report.sha256), "s2 still refers to the PDF"
    assert not storage.attachment_files.exists(shot.sha256), "nothing refers to the image any more"

    storage.sessions.delete("s2", T0)  # a soft delete can be undone: the file stays
    assert storage.attachment_files.exists(report.sha256)
    storage.sessions.purge("s2")
    assert not storage.attachment_files.exists(report.sha256)
    assert storage.attachment_files.text(report.sha256) is None  # the extracted text went with it


def test_release_unreferenced_keeps_files_a_message_refers_to(storage: Storage, tmp_path: Path) -> None:
    intake = AttachmentIntake(storage.attachment_files)
    kept = intake.from_bytes("kept.png", png(10, 10))
    refused = intake.from_bytes("refused.png", png(12, 12))
    new_session(storage)
    storage.messages.add(Message("a", "s1", MessageType.USER, "x", T0, attachments=(kept,)))
    storage.release_unreferenced({kept.sha256, refused.sha256})
    assert storage.attachment_files.exists(kept.sha256)
    assert not storage.attachment_files.exists(refused.sha256)


def test_the_sweep_deletes_only_old_files_no_message_refers_to(storage: Storage, tmp_path: Path) -> None:
    import os
    import time

    intake = AttachmentIntake(storage.attachment_files)
    sent = intake.from_bytes("sent.png", png(10, 10))
    never_sent = intake.from_bytes("never.png", png(12, 12))
    just_attached = intake.from_bytes("now.png", png(14, 14))  # in a composer right now: too young to sweep
    new_session(storage)
    storage.messages.add(Message("a", "s1", MessageType.USER, "x", T0, attachments=(sent,)))
    two_days_ago = time.time() - 2 * 86_400
    for digest in (sent.sha256, never_sent.sha256):
        os.utime(storage.attachment_files.path(digest), (two_days_ago, two_days_ago))
    storage.sweep_unreferenced()
    assert storage.attachment_files.exists(sent.sha256)
    assert not storage.attachment_files.exists(never_sent.sha256)
    assert storage.attachment_files.exists(just_attached.sha256)
