"""The providers' numbers in SQLite (migration 0024): attachment counts kept per content hash and count key, seen
by another process, replaced by a later count; the last sign of a silent cut per model, forgotten on request."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import migrations
from data.db.provider_counts import SqlCutEvidence
from data.storage import Storage
from domain.provider_rules import CutSign


def test_counts_are_kept_per_attachment_and_key_and_another_process_sees_them(storage: Storage) -> None:
    counts = storage.attachment_counts
    counts.put("a" * 64, "anthropic:claude-sonnet-4-5", 55_283)
    counts.put("a" * 64, "gemini:gemini-2.5-flash", 9_288)
    counts.put("b" * 64, "anthropic:claude-sonnet-4-5", 1_532)
    counts.put("c" * 64, "anthropic:claude-sonnet-4-5", 0)  # a count of nothing is not a count
    assert counts.for_attachments(["a" * 64]) == {("a" * 64, "anthropic:claude-sonnet-4-5"): 55_283,
                                                  ("a" * 64, "gemini:gemini-2.5-flash"): 9_288}
    other = Storage.open(storage.path.parent)  # another process on the same file
    try:
        assert other.attachment_counts.for_attachments(["b" * 64, "c" * 64]) == {
            ("b" * 64, "anthropic:claude-sonnet-4-5"): 1_532}
        other.attachment_counts.put("b" * 64, "anthropic:claude-sonnet-4-5", 1_540)  # a recount replaces it
    finally:
        other.close()
    assert counts.for_attachments(["b" * 64])[("b" * 64, "anthropic:claude-sonnet-4-5")] == 1_540
    assert counts.for_attachments([]) == {}


def test_many_attachments_are_read_in_one_call(storage: Storage) -> None:
    counts = storage.attachment_counts
    digests = [f"{i:064x}" for i in range(1_200)]
    for i, digest in enumerate(digests):
        counts.put(digest, "openai:gpt-5", i + 1)
    found = counts.for_attachments(digests)
    assert len(found) == 1_200 and found[(digests[-1], "openai:gpt-5")] == 1_200


def test_a_cut_sign_is_kept_per_model_replaced_and_forgotten(storage: Storage) -> None:
    evidence: SqlCutEvidence = storage.cut_evidence
    assert evidence.last("ollama/llama3") is None
    evidence.put("ollama/llama3", CutSign(4_000, 30_000))
    evidence.put("ollama/llama3", CutSign(4_050, 31_000))
    assert evidence.last("ollama/llama3") == CutSign(4_050, 31_000)
    assert evidence.last("ollama/qwen3") is None
    evidence.put("ollama/llama3", None)
    assert evidence.last("ollama/llama3") is None


def test_0024_adds_both_tables_and_its_downgrade_removes_them(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    url = f"sqlite:///{path}"
    migrations.upgrade(url, "0024")
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO attachment_counts VALUES ('a', 'anthropic:x', 10, 0)")
        try:
            db.execute("INSERT INTO attachment_counts VALUES ('b', 'anthropic:x', 0, 0)")
            raise AssertionError("a count of zero tokens was stored")
        except sqlite3.IntegrityError:
            pass
        db.commit()
    migrations.downgrade(url, "0023")
    with closing(sqlite3.connect(path)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "attachment_counts" not in names and "cut_evidence" not in names and "messages" in names
