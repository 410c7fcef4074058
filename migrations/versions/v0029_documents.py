"""Documents read on demand: each large attachment and each knowledge file extracted once into passages (a PDF page, a
text section or line range) indexed by FTS5, and the knowledge folders of each agent.

Revision ID: 0029
Revises: 0026
"""

from __future__ import annotations

from alembic import op

revision = "0029"
down_revision = "0026"
branch_labels = None
depends_on = None

_STATEMENTS = (
    "CREATE TABLE documents ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " sha256 TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " size INTEGER NOT NULL,"
    " pages INTEGER,"
    " outline TEXT NOT NULL DEFAULT '[]',"
    " agent_id TEXT REFERENCES agents(id) ON DELETE CASCADE,"
    " folder TEXT,"
    " path TEXT,"
    " mtime REAL,"
    " indexed_at TEXT NOT NULL)",
    "CREATE UNIQUE INDEX ix_documents_attachment ON documents(sha256) WHERE agent_id IS NULL",
    "CREATE UNIQUE INDEX ix_documents_knowledge ON documents(agent_id, path) WHERE agent_id IS NOT NULL",
    "CREATE TABLE document_passages ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,"
    " ordinal INTEGER NOT NULL,"
    " page INTEGER,"
    " section TEXT,"
    " text TEXT NOT NULL)",
    "CREATE INDEX ix_document_passages_document ON document_passages(document_id, ordinal)",
    "CREATE VIRTUAL TABLE document_passages_fts USING fts5(text, content='document_passages', content_rowid='id',"
    " tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER document_passages_fts_ai AFTER INSERT ON document_passages BEGIN"
    " INSERT INTO document_passages_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER document_passages_fts_ad AFTER DELETE ON document_passages BEGIN"
    " INSERT INTO document_passages_fts(document_passages_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
    "CREATE TABLE knowledge_folders ("
    " agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,"
    " path TEXT NOT NULL,"
    " added_at TEXT NOT NULL,"
    " PRIMARY KEY (agent_id, path))",
)


def upgrade() -> None:
    for statement in _STATEMENTS:
        op.execute(statement)


def downgrade() -> None:
    for statement in (
        "DROP TABLE IF EXISTS knowledge_folders",
        "DROP TRIGGER IF EXISTS document_passages_fts_ad",
        "DROP TRIGGER IF EXISTS document_passages_fts_ai",
        "DROP TABLE IF EXISTS document_passages_fts",
        "DROP TABLE IF EXISTS document_passages",
        "DROP TABLE IF EXISTS documents",
    ):
        op.execute(statement)
