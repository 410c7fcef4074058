"""After a merge: one message order for a conversation on every device, its active path, checkpoint and counts."""

from __future__ import annotations

import json

from sqlalchemy import Connection

from domain.sync.merge import Node, canonical_order

PREVIEW_CHARS = 200


def renumber(conn: Connection, session_id: str) -> None:
    """Gives the session's messages seqs 1..n in the canonical order, keeping the summary boundary and every
    compaction's boundary on the same message, and sets the message count."""
    rows = conn.exec_driver_sql(
        "SELECT id, parent_id, created_at, seq FROM messages WHERE session_id = ?", (session_id,)).all()
    order = canonical_order([Node(i, p, c) for i, p, c, _ in rows])
    old = {i: seq for i, _, _, seq in rows}
    new = {mid: n for n, mid in enumerate(order, start=1)}
    by_old = {seq: mid for mid, seq in old.items()}
    if any(old[mid] != seq for mid, seq in new.items()):
        conn.exec_driver_sql("UPDATE messages SET seq = -seq - 1 WHERE session_id = ?", (session_id,))
        conn.exec_driver_sql("UPDATE messages SET seq = ? WHERE id = ?", [(seq, mid) for mid, seq in new.items()])
        boundary = conn.exec_driver_sql("SELECT compact_boundary FROM sessions WHERE id = ?", (session_id,)).scalar()
        if boundary is not None and boundary in by_old:  # the first message kept whole stays the first
            conn.exec_driver_sql("UPDATE sessions SET compact_boundary = ? WHERE id = ?",
                                 (new[by_old[boundary]], session_id))
    for cid, through, b in conn.exec_driver_sql(
            "SELECT id, through_message_id, boundary FROM compactions WHERE session_id = ?", (session_id,)).all():
        if through in new:  # a compaction's boundary: just after the last message it summarizes
            conn.exec_driver_sql("UPDATE compactions SET boundary = ? WHERE id = ?", (new[through] + 1, cid))
        elif b in by_old:
            conn.exec_driver_sql("UPDATE compactions SET boundary = ? WHERE id = ?", (new[by_old[b]], cid))
    last = conn.exec_driver_sql("SELECT content FROM messages WHERE session_id = ? AND type IN ('user', 'ai_response')"
                                " ORDER BY seq DESC LIMIT 1", (session_id,)).scalar()
    conn.exec_driver_sql("UPDATE sessions SET message_count = ?, last_message_preview = coalesce(?, "
                         "last_message_preview) WHERE id = ?",
                         (len(order), last[:PREVIEW_CHARS] if last else None, session_id))


def set_leaf(conn: Connection, session_id: str, leaf: str) -> bool:
    """Makes the path from the root to `leaf` the session's active path; False if the leaf is not stored."""
    parents: dict[str, str | None] = dict(conn.exec_driver_sql(
        "SELECT id, parent_id FROM messages WHERE session_id = ?", (session_id,)).all())
    if leaf not in parents:
        return False
    path: list[str] = []
    node: str | None = leaf
    while node is not None and node in parents and node not in path:
        path.append(node)
        node = parents[node]
    conn.exec_driver_sql("UPDATE messages SET active = 0 WHERE session_id = ? AND active = 1", (session_id,))
    conn.exec_driver_sql("UPDATE messages SET active = 1 WHERE id = ?", [(m,) for m in path])
    return True


def set_checkpoint(conn: Connection, session_id: str, value: list[str | None] | None) -> bool:
    """Sets the summary and its boundary (the seq of the last summarized message); False if that message is missing."""
    if value is None:
        conn.exec_driver_sql("UPDATE sessions SET compacted_summary = NULL, compact_boundary = NULL WHERE id = ?",
                             (session_id,))
        return True
    summary, through = value
    seq = conn.exec_driver_sql("SELECT seq FROM messages WHERE id = ? AND session_id = ?",
                               (through, session_id)).scalar()
    if seq is None:
        return False
    conn.exec_driver_sql("UPDATE sessions SET compacted_summary = ?, compact_boundary = ? WHERE id = ?",
                         (summary, seq, session_id))
    return True


def attachment_digests(attachments_json: str | None) -> list[str]:
    """The sha256 of each attachment in a message's attachments column."""
    if not attachments_json:
        return []
    return [str(item["sha256"]) for item in json.loads(attachments_json)]
