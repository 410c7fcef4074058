"""Sync benchmark: the first sync of 10,000 messages (one device sends, the other receives), an incremental sync
after one turn (bytes sent), and the merge time of two devices' offline changes; a folder remote, in one process.

Run: .venv/bin/python -m bench.sync_bench [--messages N] [--encrypt]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from data.storage import Storage
from data.sync.cipher import AeadCipher, PlainCipher, derive_key
from data.sync.folder import FolderRemote
from data.sync.replica import SqlReplica
from domain.models import Message, MessageType, Session
from domain.sync.ports import Cipher
from domain.sync.sync_now import SyncNowUseCase, SyncReport

PER_SESSION = 200
TEXT = ("The harbour schedule moved the 7:10 ferry to berth 7; the winter timetable adds a late sailing on Fridays. "
        * 3)


def _fill(storage: Storage, messages: int) -> list[str]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    sids = []
    with storage.unit_of_work.atomic():
        for n in range(0, messages, PER_SESSION):
            sid = f"bench-{n // PER_SESSION:04d}"
            sids.append(sid)
            storage.sessions.create(Session(sid, f"Conversation {n // PER_SESSION}", None, start, start))
            for i in range(min(PER_SESSION, messages - n)):
                kind = MessageType.USER if i % 2 == 0 else MessageType.AI_RESPONSE
                storage.messages.add(Message(f"{sid}-{i}", sid, kind, f"{i}: {TEXT}",
                                             created_at=start + timedelta(seconds=n + i)))
    return sids


def _sync(storage: Storage, remote: FolderRemote, cipher: Cipher) -> tuple[SyncReport, float]:
    replica = SqlReplica(storage.unit_of_work, storage.attachment_files)
    started = time.perf_counter()
    report = SyncNowUseCase(remote, cipher, replica)()
    return report, time.perf_counter() - started


def run(messages: int, encrypt: bool) -> dict[str, Any]:
    """Runs the three measurements in a temporary folder; returns the figures."""
    cipher: Cipher = AeadCipher(derive_key("bench passphrase", b"0123456789abcdef")) if encrypt else PlainCipher()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        remote = FolderRemote(root / "remote")
        a, b = Storage.open(root / "a"), Storage.open(root / "b")
        try:
            sids = _fill(a, messages)
            sent, send_s = _sync(a, remote, cipher)
            received, receive_s = _sync(b, remote, cipher)
            assert b.messages.count(sids[0]) == min(PER_SESSION, messages)
            a.messages.add(Message("turn-q", sids[0], MessageType.USER, "One more question about the ferry?",
                                   parent_id=f"{sids[0]}-{PER_SESSION - 1}"))
            a.messages.add(Message("turn-a", sids[0], MessageType.AI_RESPONSE, "It leaves at 7:10 from berth 7.",
                                   parent_id="turn-q"))
            turn, turn_s = _sync(a, remote, cipher)
            b.messages.add(Message("b-q", sids[1], MessageType.USER, "Meanwhile on B?",
                                   parent_id=f"{sids[1]}-{PER_SESSION - 1}"))
            b.sessions.update_fields(sids[0], title="Renamed on B")
            merged, merge_s = _sync(b, remote, cipher)
            remote_bytes = sum(f.stat().st_size for f in (root / "remote").rglob("*") if f.is_file())
        finally:
            a.close()
            b.close()
    return {
        "messages": messages, "encrypted": encrypt,
        "first_send_s": round(send_s, 2), "first_send_changes": sent.sent, "first_send_bytes": sent.bytes_sent,
        "first_receive_s": round(receive_s, 2), "remote_bytes_after_first": remote_bytes,
        "turn_send_s": round(turn_s, 3), "turn_changes": turn.sent, "turn_bytes": turn.bytes_sent,
        "merge_s": round(merge_s, 3), "merge_received_files": merged.received, "merge_sent_changes": merged.sent,
        "first_receive_files": received.received,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--encrypt", action="store_true")
    args = parser.parse_args()
    print(json.dumps(run(args.messages, args.encrypt), indent=2))


if __name__ == "__main__":
    main()
