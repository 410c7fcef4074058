"""A long session preloaded through the repositories: many messages, then a compaction summary and boundary."""

from __future__ import annotations

import json
import random
import shutil
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.replay_brain import ideal_summary
from bench.replay_script import FACTS, _code, _json_blob, _prose
from data.storage import DB_NAME, Storage
from domain.models import CompactionRecord, Message, MessageType, Session, ToolStatus

KEEP_AFTER_BOUNDARY = 60


def _message(session_id: str, kind: MessageType, at: datetime, **fields: object) -> Message:
    return Message(id=uuid.uuid4().hex, session_id=session_id, type=kind, created_at=at, **fields)  # type: ignore[arg-type]


def build_preloaded(home: Path, count: int, *, provider_id: str, model_id: str, seed: int = 11) -> str:
    """Creates a store under `home` holding one session of at least `count` messages, compacted up to the last
    ~KEEP_AFTER_BOUNDARY messages like a long real session; returns the session id."""
    rng = random.Random(seed)
    storage = Storage.open(home)
    try:
        now = datetime.now(UTC) - timedelta(days=7)
        agent = storage.agents.default()
        session = storage.sessions.create(Session(
            id=uuid.uuid4().hex, title="A week-long session", current_agent_id=agent.id, created_at=now,
            updated_at=now, current_provider_id=provider_id, current_model_id=model_id,
        ))
        added = 0
        turn = 0
        user_seqs: list[int] = []
        facts = "\n".join(f"FACT: {k} = {v}" for k, v in FACTS[:3])
        while added < count:
            turn += 1
            at = now + timedelta(seconds=30 * turn)
            text = f"[p{turn:05d}] " + (facts if turn == 1 else _prose(rng, rng.randint(80, 500)))
            user_seqs.append(storage.messages.add(_message(session.id, MessageType.USER, at, content=text)).seq)
            added += 1
            if turn % 8 == 0:
                call_id = f"call_{uuid.uuid4().hex[:12]}"
                args = json.dumps({"url": f"http://127.0.0.1:9/page/{turn}"})
                output = _json_blob(rng, rng.randint(10, 60))
                for kind, fields in (
                    (MessageType.AI_RESPONSE, {"content": "", "provider_id": provider_id, "model_id": model_id}),
                    (MessageType.TOOL_CALL, {"tool_call_id": call_id, "tool_name": "http_request",
                                             "tool_input": args, "provider_id": provider_id, "model_id": model_id}),
                    (MessageType.TOOL_RESULT, {"tool_call_id": call_id, "tool_name": "http_request",
                                               "tool_output": output, "tool_status": ToolStatus.SUCCESS}),
                ):
                    storage.messages.add(_message(session.id, kind, at, **fields))
                    added += 1
            reply = _code(rng, rng.randint(1, 2)) if turn % 5 == 0 else _prose(rng, rng.randint(200, 900))
            storage.messages.add(_message(session.id, MessageType.AI_RESPONSE, at, content=reply,
                                          provider_id=provider_id, model_id=model_id))
            added += 1
        total = storage.messages.count(session.id)
        keep = min(KEEP_AFTER_BOUNDARY, total // 2)
        boundary = next((seq for seq in reversed(user_seqs) if seq <= total - keep), user_seqs[-1])
        older = storage.messages.snapshot(session.id)
        transcript = "\n".join(m.content for m in older if m.seq < boundary)
        summary = ideal_summary(transcript)
        record = CompactionRecord(session.id, datetime.now(UTC), boundary, 0, 0, len(summary) // 4, "auto")
        storage.sessions.apply_compaction(session.id, summary=summary, boundary=boundary, record=record)
        storage.search_backlog.index_all()  # as the app keeps a store: its search backlog taken in batches (0038)
        return session.id  # message_count and the preview were kept by the store with every add
    finally:
        storage.close()


def copy_store(template: Path, home: Path) -> None:
    """Copies a closed store's database into a fresh home."""
    home.mkdir(parents=True, exist_ok=True)
    for path in template.iterdir():
        if path.name.startswith(DB_NAME):
            shutil.copy2(path, home / path.name)


def reset_summary(home: Path, session_id: str) -> None:
    """Drops the summary and boundary (the naive strategy sends the whole history)."""
    storage = Storage.open(home)
    try:
        current = storage.sessions.get(session_id)
        assert current is not None
        storage.sessions.update(replace(current, compacted_summary=None, compact_boundary=None))
    finally:
        storage.close()
