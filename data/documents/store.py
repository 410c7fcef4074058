"""SqlDocumentStore: documents and their passages in SQLite, searched with FTS5 (BM25), scoped to what a
conversation may read: the documents attached in it and its agent's knowledge folders."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy import text

from data.db.engine import Database
from domain.documents import DocumentInfo, Passage
from domain.models import AgentId, SessionId

if TYPE_CHECKING:
    from data.documents.extract import Extracted

SNIPPET_TOKENS = 48
_WORD = re.compile(r"\w+", re.UNICODE)
_SCOPE = (
    "((d.agent_id IS NULL AND d.sha256 IN (SELECT ma.sha256 FROM message_attachments ma JOIN messages m"
    " ON m.id = ma.message_id WHERE m.session_id = :s)) OR d.agent_id = :a)"
)
_NAMED = "(lower(d.name) = lower(:doc) OR d.path = :doc)"
_DOC_COLUMNS = "d.id, d.name, d.kind, d.size, d.pages, d.outline, d.path"


@dataclass(frozen=True)
class KnownFile:
    """What the index holds of one knowledge file: size and mtime when it was indexed, and its content's hash."""

    size: int
    mtime: float
    sha256: str


def any_words(query: str) -> str | None:
    """An FTS5 expression matching any word of the query (BM25 ranks passages with more and rarer words first)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:32]
    return " OR ".join(f'"{w}"' for w in words) if words else None


class SqlDocumentStore:
    """The document index (domain.documents.DocumentIndex) and its writes: attachments by sha256, knowledge files
    by agent and path."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- reading (the DocumentIndex port)

    def has_knowledge(self, agent_id: AgentId | None) -> bool:
        if agent_id is None:
            return False
        with self._db.read() as s:
            found = s.execute(text("SELECT 1 FROM knowledge_folders WHERE agent_id = :a LIMIT 1"), {"a": agent_id})
            return found.first() is not None

    def search(self, query: str, session_id: SessionId, agent_id: AgentId | None, *, document: str | None = None,
               limit: int = 8) -> Sequence[Passage]:
        match = any_words(query)
        if match is None:
            return []
        sql = (f"SELECT d.name, p.page, p.section, snippet(document_passages_fts, 0, '', '', ' … ', {SNIPPET_TOKENS})"
               " FROM document_passages_fts JOIN document_passages p ON p.id = document_passages_fts.rowid"
               f" JOIN documents d ON d.id = p.document_id WHERE document_passages_fts MATCH :q AND {_SCOPE}"
               + (f" AND {_NAMED}" if document else "") + " ORDER BY rank LIMIT :n")
        params = {"q": match, "s": session_id, "a": agent_id or "", "doc": document or "", "n": limit}
        with self._db.read() as s:
            rows = s.execute(text(sql), params).all()
        return [Passage(row[0], row[3], row[1], row[2]) for row in rows]

    def find(self, session_id: SessionId, agent_id: AgentId | None, document: str) -> DocumentInfo | None:
        row = self._find(session_id, agent_id, document)
        return None if row is None else _info(row[1:])

    def read(self, session_id: SessionId, agent_id: AgentId | None, document: str, *,
             pages: tuple[int, int] | None = None, section: str | None = None) -> Sequence[Passage]:
        row = self._find(session_id, agent_id, document)
        if row is None:
            return []
        where, params = "document_id = :id", {"id": row[0]}
        if pages is not None:
            where += " AND page BETWEEN :first AND :last"
            params |= {"first": pages[0], "last": pages[1]}
        elif section is not None:
            where += " AND (lower(section) = lower(:sec) OR lower(section) LIKE lower(:sec) || ' (part %')"
            params |= {"sec": section.strip()}
        with self._db.read() as s:
            rows = s.execute(text(f"SELECT page, section, text FROM document_passages WHERE {where} ORDER BY ordinal"),
                             params).all()
        return [Passage(row[1], r[2], r[0], r[1]) for r in rows]

    def sections(self, session_id: SessionId, agent_id: AgentId | None, document: str, limit: int = 40) -> list[str]:
        """The first sections of a document without pages (what read_document says when a section is not found)."""
        row = self._find(session_id, agent_id, document)
        if row is None:
            return []
        with self._db.read() as s:
            found = s.execute(text("SELECT DISTINCT section FROM document_passages WHERE document_id = :id"
                                   " AND section IS NOT NULL ORDER BY ordinal LIMIT :n"), {"id": row[0], "n": limit})
            return [r[0] for r in found]

    def _find(self, session_id: SessionId, agent_id: AgentId | None, document: str) -> tuple | None:
        sql = f"SELECT {_DOC_COLUMNS} FROM documents d WHERE {_SCOPE} AND {_NAMED} ORDER BY d.id LIMIT 1"
        with self._db.read() as s:
            row = s.execute(text(sql), {"s": session_id, "a": agent_id or "", "doc": document.strip()}).first()
        return tuple(row) if row is not None else None

    # ---- attachments

    def attachment(self, sha256: str) -> DocumentInfo | None:
        """The indexed attachment with this digest, or None when it was never indexed."""
        with self._db.read() as s:
            row = s.execute(text(f"SELECT {_DOC_COLUMNS} FROM documents d WHERE d.agent_id IS NULL AND d.sha256 = :h"),
                            {"h": sha256}).first()
        return None if row is None else _info(tuple(row)[1:])

    def first_page(self, sha256: str) -> str:
        """The first passage of an indexed attachment ("" when there is none)."""
        with self._db.read() as s:
            row = s.execute(text("SELECT p.text FROM document_passages p JOIN documents d ON d.id = p.document_id"
                                 " WHERE d.agent_id IS NULL AND d.sha256 = :h ORDER BY p.ordinal LIMIT 1"),
                            {"h": sha256}).first()
        return row[0] if row else ""

    def put_attachment(self, sha256: str, name: str, size: int, extracted: Extracted) -> None:
        """Indexes an attachment's passages (once: a digest already indexed is left as it is)."""
        with self._db.write() as s:
            if s.execute(text("SELECT 1 FROM documents WHERE agent_id IS NULL AND sha256 = :h"), {"h": sha256}).first():
                return
            self._insert(s, sha256, name, size, extracted, None, None, None, None)

    def forget_attachments(self, digests: set[str]) -> None:
        """Removes the index of attachments whose files are gone (no message refers to them any more)."""
        if not digests:
            return
        with self._db.write() as s:
            for digest in digests:
                ids = [r[0] for r in s.execute(text("SELECT id FROM documents WHERE agent_id IS NULL AND sha256 = :h"),
                                               {"h": digest})]
                _delete(s, ids)

    # ---- knowledge folders

    def folders(self, agent_id: AgentId | None = None) -> list[tuple[str, str]]:
        """(agent id, folder path) of every knowledge folder, or of one agent's."""
        sql = "SELECT agent_id, path FROM knowledge_folders" + (" WHERE agent_id = :a" if agent_id else "")
        with self._db.read() as s:
            return [(r[0], r[1]) for r in s.execute(text(sql + " ORDER BY agent_id, path"), {"a": agent_id})]

    def add_folder(self, agent_id: AgentId, folder: str) -> bool:
        """Adds the folder to the agent's knowledge; False when it was there already."""
        with self._db.write() as s:
            known = s.execute(text("SELECT 1 FROM knowledge_folders WHERE agent_id = :a AND path = :p"),
                              {"a": agent_id, "p": folder}).first()
            if known:
                return False
            s.execute(text("INSERT INTO knowledge_folders (agent_id, path, added_at) VALUES (:a, :p, :t)"),
                      {"a": agent_id, "p": folder, "t": datetime.now(UTC).isoformat()})
            return True

    def remove_folder(self, agent_id: AgentId, folder: str) -> bool:
        """Removes the folder and forgets its files; False when the agent had no such folder."""
        with self._db.write() as s:
            gone = s.execute(text("SELECT 1 FROM knowledge_folders WHERE agent_id = :a AND path = :p"),
                             {"a": agent_id, "p": folder}).first() is not None
            s.execute(text("DELETE FROM knowledge_folders WHERE agent_id = :a AND path = :p"),
                      {"a": agent_id, "p": folder})
            ids = [r[0] for r in s.execute(text("SELECT id FROM documents WHERE agent_id = :a AND folder = :p"),
                                           {"a": agent_id, "p": folder})]
            _delete(s, ids)
            return bool(gone)

    def known_files(self, agent_id: AgentId, folder: str) -> dict[str, KnownFile]:
        """Path -> what the index holds of each file of the folder."""
        with self._db.read() as s:
            rows = s.execute(text("SELECT path, size, mtime, sha256 FROM documents"
                                  " WHERE agent_id = :a AND folder = :p"),
                             {"a": agent_id, "p": folder})
            return {r[0]: KnownFile(r[1], r[2], r[3]) for r in rows}

    def counts(self, agent_id: AgentId, folder: str) -> tuple[int, int]:
        """(files, passages) indexed for the folder."""
        with self._db.read() as s:
            row = s.execute(text("SELECT count(DISTINCT d.id), count(p.id) FROM documents d"
                                 " LEFT JOIN document_passages p ON p.document_id = d.id"
                                 " WHERE d.agent_id = :a AND d.folder = :p"),
                            {"a": agent_id, "p": folder}).first()
        return (row[0], row[1]) if row else (0, 0)

    def put_files(self, agent_id: AgentId, folder: str,
                  files: Sequence[tuple[str, str, KnownFile, Extracted | None]]) -> None:
        """Stores each (path, name, known, extracted) in one transaction: the passages replaced when `extracted` is
        given, else only the size and mtime (the content's hash did not change)."""
        with self._db.write() as s:
            for path, name, known, extracted in files:
                if extracted is None:
                    s.execute(text("UPDATE documents SET size = :z, mtime = :m WHERE agent_id = :a AND path = :p"),
                              {"z": known.size, "m": known.mtime, "a": agent_id, "p": path})
                    continue
                ids = [r[0] for r in s.execute(text("SELECT id FROM documents WHERE agent_id = :a AND path = :p"),
                                               {"a": agent_id, "p": path})]
                _delete(s, ids)
                self._insert(s, known.sha256, name, known.size, extracted, agent_id, folder, path, known.mtime)

    def forget_files(self, agent_id: AgentId, paths: Sequence[str]) -> None:
        """Removes deleted files from the index."""
        with self._db.write() as s:
            for path in paths:
                ids = [r[0] for r in s.execute(text("SELECT id FROM documents WHERE agent_id = :a AND path = :p"),
                                               {"a": agent_id, "p": path})]
                _delete(s, ids)

    @staticmethod
    def _insert(s: object, sha256: str, name: str, size: int, extracted: Extracted, agent_id: str | None,
                folder: str | None, path: str | None, mtime: float | None) -> None:
        execute = s.execute  # type: ignore[attr-defined]
        document_id = execute(text(
            "INSERT INTO documents (sha256, name, kind, size, pages, outline, agent_id, folder, path, mtime,"
            " indexed_at) VALUES (:h, :n, :k, :z, :pg, :o, :a, :f, :p, :m, :t) RETURNING id"),
            {"h": sha256, "n": name, "k": extracted.kind, "z": size, "pg": extracted.pages,
             "o": json.dumps(extracted.outline), "a": agent_id, "f": folder, "p": path, "m": mtime,
             "t": datetime.now(UTC).isoformat()}).scalar_one()
        rows = [{"d": document_id, "o": i, "pg": page, "sec": section, "t": body}
                for i, (page, section, body) in enumerate(extracted.passages)]
        if rows:
            execute(text("INSERT INTO document_passages (document_id, ordinal, page, section, text)"
                         " VALUES (:d, :o, :pg, :sec, :t)"), rows)


def _delete(s: object, ids: Sequence[int]) -> None:
    execute = s.execute  # type: ignore[attr-defined]
    for document_id in ids:  # passages first: their FTS trigger removes them from the index
        execute(text("DELETE FROM document_passages WHERE document_id = :d"), {"d": document_id})
        execute(text("DELETE FROM documents WHERE id = :d"), {"d": document_id})


def _info(row: tuple) -> DocumentInfo:
    name, kind, size, pages, outline, path = row
    entries = tuple((int(e[0]), str(e[1]), e[2]) for e in json.loads(outline or "[]"))
    return DocumentInfo(name, kind, size, pages, 0, entries, path)
