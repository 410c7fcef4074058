"""Reads simonw's `llm` logs database (logs.db): the message store of llm 0.30+ (threads of content-addressed
messages with text, reasoning, tool-call, tool-result and attachment parts) and the older `conversations` and
`responses` tables (with tool calls and results, attachments, and the system prompt of each response), read only."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.importers.model import ImportedConversation, ordered, when
from domain.models import Message, MessageType, ToolStatus

PREFIX = "llm-"
SQLITE_MAGIC = b"SQLite format 3\x00"
TakeIn = Callable[[str, bytes], Attachment | None]  # (name, bytes) -> a stored attachment, or None when refused
ReadPath = Callable[[Path], Attachment | None]


@contextmanager
def _database(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        with path.open("rb") as f:
            if f.read(16) != SQLITE_MAGIC:
                raise InvalidInput(f"Cannot import {path}: it is not an SQLite database (choose llm's logs.db).")
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except OSError as err:
        raise InvalidInput(f"Cannot read {path}: {err.strerror or err}.") from err
    with closing(db):
        db.row_factory = sqlite3.Row
        yield db


def read_llm(path: Path, take_in: TakeIn | None = None, read_path: ReadPath | None = None
             ) -> list[ImportedConversation]:
    """Every thread and every conversation of the database; an attachment's bytes (stored in the database, or the
    file it names when that is still there) become an attachment through `take_in`/`read_path`, else a line."""
    with _database(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if "threads" not in tables and "responses" not in tables:
            raise InvalidInput(f"Cannot import {path}: it has neither llm's threads nor its responses table.")
        files = _Files(db, tables, take_in, read_path)
        out = [_thread(db, row, files) for row in db.execute("SELECT * FROM threads ORDER BY datetime_utc, id")
               ] if "threads" in tables else []
        if "responses" in tables:
            out += _old_conversations(db, tables, files)
        return [c for c in out if c.messages]


class _Files:
    """Attachments by id: taken in once each."""

    def __init__(self, db: sqlite3.Connection, tables: set[str], take_in: TakeIn | None, read_path: ReadPath | None
                 ) -> None:
        self._db, self._ok = db, "attachments" in tables
        self._take_in, self._read_path = take_in, read_path
        self._seen: dict[str, tuple[Attachment | None, str]] = {}

    def get(self, attachment_id: str) -> tuple[Attachment | None, str]:
        """The attachment (None when it could not be taken in) and the line that stands for it when it is not."""
        if attachment_id not in self._seen:
            self._seen[attachment_id] = self._load(attachment_id)
        return self._seen[attachment_id]

    def _load(self, attachment_id: str) -> tuple[Attachment | None, str]:
        row = self._db.execute("SELECT * FROM attachments WHERE id = ?", (attachment_id,)).fetchone() if self._ok \
            else None
        if row is None:
            return None, f"[attachment {attachment_id[:12]}: not in the database]"
        where = row["path"] or row["url"] or attachment_id[:12]
        name = Path(row["path"]).name if row["path"] else (row["url"] or "").rsplit("/", 1)[-1] or "attachment"
        line = f"[attachment: {where} ({row['type'] or 'unknown type'}; not in the database)]"
        if row["content"] is not None and self._take_in is not None:
            return self._take_in(name if "." in name else f"{name}.{_ext(row['type'])}", bytes(row["content"])), line
        if row["path"] and self._read_path is not None and Path(row["path"]).is_file():
            return self._read_path(Path(row["path"])), line
        return None, line


def _ext(media_type: str | None) -> str:
    return (media_type or "application/octet-stream").rsplit("/", 1)[-1]


def _with_files(message: Message, pairs: list[tuple[Attachment | None, str]]) -> Message:
    found = tuple(a for a, _ in pairs if a is not None)
    missing = [line for a, line in pairs if a is None]
    text = "\n".join([message.content, *missing]) if message.content else "\n".join(missing)
    return replace(message, content=text, attachments=found, has_image=any(a.kind.value == "image" for a in found))


def _thread(db: sqlite3.Connection, thread: sqlite3.Row, files: _Files) -> ImportedConversation:
    sid = PREFIX + thread["id"]
    created = when(thread["datetime_utc"], f"threads[{thread['id']!r}]")
    chain: list[sqlite3.Row] = []
    node, seen = thread["tip_message_hash"], set()
    while node is not None and node not in seen:
        seen.add(node)
        row = db.execute("SELECT * FROM messages WHERE hash = ?", (node,)).fetchone()
        if row is None:
            break
        chain.append(row)
        node = row["parent_hash"]
    chain.reverse()
    turns = _turn_of_each(db, thread["id"], [r["hash"] for r in chain])
    messages: list[Message] = []
    system: list[str] = []
    for row in chain:
        parts = db.execute("SELECT * FROM parts WHERE message_hash = ? ORDER BY position", (row["hash"],)).fetchall()
        turn = turns.get(row["hash"])
        at = when(turn["datetime_utc"], "turns") if turn is not None else created
        base = Message(id=f"{sid}/{row['hash']}", session_id=sid, type=MessageType.USER, created_at=at,
                       active=False)
        if row["role"] == "system":
            system += [t for t in (_text(db, p) for p in parts if p["type"] == "text") if t]
            continue
        messages += _pieces(db, row["role"], base, parts, turn, files)
    linked = [replace(m, parent_id=messages[i - 1].id if i else None) for i, m in enumerate(messages)]
    return ImportedConversation(
        session_id=sid, title=thread["name"] or "llm conversation", created_at=created,
        updated_at=max((m.created_at for m in linked if m.created_at), default=created),
        messages=ordered(linked, f"threads[{thread['id']!r}]"), leaf_id=linked[-1].id if linked else None,
        system_prompt="\n\n".join(system) or None,
    )


def _turn_of_each(db: sqlite3.Connection, thread_id: str, hashes: list[str]) -> dict[str, sqlite3.Row]:
    """Each message of the chain with the turn (one model call: its time, model, tokens) that added it."""
    index = {h: i for i, h in enumerate(hashes)}
    out: dict[str, sqlite3.Row] = {}
    for turn in db.execute("SELECT * FROM turns WHERE thread_id = ? ORDER BY datetime_utc", (thread_id,)):
        tip = index.get(turn["tip_message_hash"])
        if tip is None:
            continue
        start = index.get(turn["parent_message_hash"], -1) + 1
        for h in hashes[start:tip + 1]:
            out.setdefault(h, turn)
    return out


def _text(db: sqlite3.Connection, part: sqlite3.Row) -> str:
    if part["text"] is not None:
        return str(part["text"])
    payload = json.loads(part["payload"] or "{}")
    pieces = []
    for piece in payload.get("text_ref") or []:
        if "literal" in piece:
            pieces.append(str(piece["literal"]))
        elif "fragment" in piece:
            row = db.execute("SELECT content FROM fragments WHERE id = ?", (piece["fragment"],)).fetchone()
            pieces.append(row[0] if row else "")
    return "".join(pieces) or str(payload.get("text") or "")


def _pieces(db: sqlite3.Connection, role: str, base: Message, parts: list[sqlite3.Row], turn: sqlite3.Row | None,
            files: _Files) -> list[Message]:
    """One stored message of llm's store as Palimpsest messages: a prompt with its files, a reply (reasoning kept
    as thinking) followed by its tool calls, or the tool results."""
    texts = [_text(db, p) for p in parts if p["type"] == "text"]
    if role == "user":
        pairs = [files.get(json.loads(p["payload"] or "{}").get("attachment", {}).get("id", ""))
                 for p in parts if p["type"] == "attachment"]
        return [_with_files(replace(base, content="\n".join(texts)), pairs)]
    out: list[Message] = []
    if role == "tool":
        for n, p in enumerate(p for p in parts if p["type"] == "tool_result"):
            payload = json.loads(p["payload"] or "{}")
            failed = bool(payload.get("exception"))
            out.append(replace(base, id=f"{base.id}#{n}", type=MessageType.TOOL_RESULT,
                               tool_call_id=str(payload.get("tool_call_id") or ""),
                               tool_name=str(payload.get("name") or p["tool_name"] or "tool"),
                               tool_output=str(payload.get("exception") if failed else payload.get("output", "")),
                               tool_status=ToolStatus.ERROR if failed else ToolStatus.SUCCESS))
        return out
    model = (turn["resolved_model"] or turn["model"]) if turn is not None else None
    reply = replace(base, type=MessageType.AI_RESPONSE, content="\n".join(texts), model_id=model,
                    thinking_content="\n".join(_text(db, p) for p in parts if p["type"] == "reasoning") or None,
                    input_tokens=turn["input_tokens"] if turn is not None else None,
                    output_tokens=turn["output_tokens"] if turn is not None else None)
    out.append(reply)
    for n, p in enumerate(p for p in parts if p["type"] == "tool_call"):
        payload = json.loads(p["payload"] or "{}")
        out.append(replace(base, id=f"{base.id}#{n}", type=MessageType.TOOL_CALL, model_id=model,
                           tool_call_id=str(payload.get("tool_call_id") or f"call_{base.id}_{n}"),
                           tool_name=str(payload.get("name") or p["tool_name"] or "tool"),
                           tool_input=json.dumps(payload.get("arguments") or {}, ensure_ascii=False)))
    return out


def _old_conversations(db: sqlite3.Connection, tables: set[str], files: _Files) -> list[ImportedConversation]:
    """The `responses` table of llm before its message store, one conversation per conversation_id."""
    columns = {r[1] for r in db.execute("PRAGMA table_info(responses)")}
    names = dict(db.execute("SELECT id, name FROM conversations").fetchall()) if "conversations" in tables else {}
    grouped: dict[str, list[sqlite3.Row]] = {}
    for row in db.execute("SELECT * FROM responses ORDER BY datetime_utc, id"):
        key = row["conversation_id"] if "conversation_id" in columns and row["conversation_id"] else row["id"]
        grouped.setdefault(key, []).append(row)
    return [_old_one(db, tables, columns, cid, rows, names.get(cid), files) for cid, rows in grouped.items()]


def _old_one(db: sqlite3.Connection, tables: set[str], columns: set[str], cid: str, rows: list[sqlite3.Row],
             name: str | None, files: _Files) -> ImportedConversation:
    sid = PREFIX + cid
    messages: list[Message] = []
    system = next(("\n".join([*_fragments(db, tables, "system_fragments", r["id"]), r["system"] or ""]).strip("\n")
                   for r in rows if r["system"] or _fragments(db, tables, "system_fragments", r["id"])), None)
    for row in rows:
        at: datetime = when(row["datetime_utc"], f"responses[{row['id']!r}]")
        base = Message(id=f"{sid}/{row['id']}", session_id=sid, type=MessageType.USER, created_at=at, active=False)
        for n, result in enumerate(_rows(db, tables, "tool_results", row["id"])):
            failed = bool(result["exception"]) if "exception" in set(result.keys()) else False
            messages.append(replace(base, id=f"{base.id}/result-{n}", type=MessageType.TOOL_RESULT,
                                    tool_call_id=result["tool_call_id"], tool_name=result["name"],
                                    tool_output=str(result["exception"] if failed else result["output"] or ""),
                                    tool_status=ToolStatus.ERROR if failed else ToolStatus.SUCCESS))
        pairs = [files.get(a["attachment_id"]) for a in _rows(db, tables, "prompt_attachments", row["id"])]
        prompt = "\n".join([*_fragments(db, tables, "prompt_fragments", row["id"]), row["prompt"] or ""]).strip("\n")
        if prompt or pairs:
            messages.append(_with_files(replace(base, id=f"{base.id}/prompt", content=prompt), pairs))
        model = row["resolved_model"] if "resolved_model" in columns and row["resolved_model"] else row["model"]
        messages.append(replace(
            base, id=f"{base.id}/reply", type=MessageType.AI_RESPONSE, content=row["response"] or "", model_id=model,
            thinking_content=(row["reasoning"] or None) if "reasoning" in columns else None,
            input_tokens=row["input_tokens"] if "input_tokens" in columns else None,
            output_tokens=row["output_tokens"] if "output_tokens" in columns else None))
        for n, call in enumerate(_rows(db, tables, "tool_calls", row["id"])):
            messages.append(replace(base, id=f"{base.id}/call-{n}", type=MessageType.TOOL_CALL, model_id=model,
                                    tool_call_id=call["tool_call_id"] or f"call_{row['id']}_{n}",
                                    tool_name=call["name"], tool_input=call["arguments"] or "{}"))
    linked = [replace(m, parent_id=messages[i - 1].id if i else None) for i, m in enumerate(messages)]
    times = [m.created_at for m in linked if m.created_at is not None]
    created = times[0] if times else when(None, "responses")
    return ImportedConversation(
        session_id=sid, title=name or (rows[0]["prompt"] or "llm conversation")[:80], created_at=created,
        updated_at=times[-1] if times else created, messages=ordered(linked, "responses"),
        leaf_id=linked[-1].id if linked else None, system_prompt=system)


def _fragments(db: sqlite3.Connection, tables: set[str], table: str, response_id: str) -> list[str]:
    """The fragments (`-f` files and URLs) a response's prompt or system prompt was sent with, in order: llm sent
    them ahead of the typed text."""
    if table not in tables or "fragments" not in tables:
        return []
    return [r[0] for r in db.execute(f'SELECT f.content FROM {table} p JOIN fragments f ON f.id = p.fragment_id '
                                     f'WHERE p.response_id = ? ORDER BY p."order"', (response_id,))]


def _rows(db: sqlite3.Connection, tables: set[str], table: str, response_id: str) -> list[sqlite3.Row]:
    if table not in tables:
        return []
    order = '"order"' if table == "prompt_attachments" else "id"
    return db.execute(f"SELECT * FROM {table} WHERE response_id = ? ORDER BY {order}", (response_id,)).fetchall()
