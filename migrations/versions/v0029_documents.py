"""Documents read on demand: each large attachment and each knowledge file extracted once into passages (a PDF page, a
text section or line range) indexed by FTS5, and the knowledge folders of each agent.

Revision ID: 0029
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

FTS = (
    "CREATE VIRTUAL TABLE document_passages_fts USING fts5(text, content='document_passages', content_rowid='id',"
    " tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER document_passages_fts_ai AFTER INSERT ON document_passages BEGIN"
    " INSERT INTO document_passages_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER document_passages_fts_ad AFTER DELETE ON document_passages BEGIN"
    " INSERT INTO document_passages_fts(document_passages_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
    "CREATE TRIGGER document_passages_fts_au AFTER UPDATE OF text ON document_passages BEGIN"
    " INSERT INTO document_passages_fts(document_passages_fts, rowid, text) VALUES ('delete', old.id, old.text);"
    " INSERT INTO document_passages_fts(rowid, text) VALUES (new.id, new.text); END",
)


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("sha256", sa.String, nullable=False),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("pages", sa.Integer),
        sa.Column("outline", sa.Text, nullable=False, server_default="[]"),
        sa.Column("agent_id", sa.String),
        sa.Column("folder", sa.String),
        sa.Column("path", sa.String),
        sa.Column("mtime", sa.Float),
        sa.Column("indexed_at", sa.String, nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),
    )
    op.create_index("ix_documents_attachment", "documents", ["sha256"], unique=True,
                    sqlite_where=sa.text("agent_id IS NULL"))
    op.create_index("ix_documents_knowledge", "documents", ["agent_id", "path"], unique=True,
                    sqlite_where=sa.text("agent_id IS NOT NULL"))
    op.create_table(
        "document_passages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("document_id", sa.Integer, nullable=False),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("page", sa.Integer),
        sa.Column("section", sa.String),
        sa.Column("text", sa.Text, nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="CASCADE"),
    )
    op.create_index("ix_document_passages_document", "document_passages", ["document_id", "ordinal"])
    op.create_table(
        "knowledge_folders",
        sa.Column("agent_id", sa.String, primary_key=True),
        sa.Column("path", sa.String, primary_key=True),
        sa.Column("added_at", sa.String, nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], ondelete="CASCADE"),
    )
    for statement in FTS:
        op.execute(statement)


def downgrade() -> None:
    for suffix in ("au", "ad", "ai"):
        op.execute(f"DROP TRIGGER IF EXISTS document_passages_fts_{suffix}")
    op.execute("DROP TABLE IF EXISTS document_passages_fts")
    op.drop_table("knowledge_folders")
    op.drop_index("ix_document_passages_document", "document_passages")
    op.drop_table("document_passages")
    op.drop_index("ix_documents_knowledge", "documents")
    op.drop_index("ix_documents_attachment", "documents")
    op.drop_table("documents")
