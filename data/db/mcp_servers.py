"""McpServerRepository over SQLite: one row per server, its lists as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import select

from data.db.engine import Database
from data.db.mcp_server_json import server_json
from data.db.mcp_server_json import server_to_domain as _to_domain
from data.db.rows import McpServerRow
from domain.mcp import McpServer


class SqlMcpServerRepository:
    """The configured MCP servers, ordered by name."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def list(self) -> Sequence[McpServer]:
        with self._db.read() as s:
            return [_to_domain(r) for r in s.scalars(select(McpServerRow).order_by(McpServerRow.name))]

    def get(self, name: str) -> McpServer | None:
        with self._db.read() as s:
            row = s.get(McpServerRow, name)
            return _to_domain(row) if row else None

    def save(self, server: McpServer) -> McpServer:
        with self._db.write() as s:
            row = s.get(McpServerRow, server.name)
            if row is None:
                row = McpServerRow(name=server.name, created_at=datetime.now(UTC))
                s.add(row)
            row.transport, row.config, row.tools, row.permissions = server_json(server)
        return server

    def delete(self, name: str) -> None:
        with self._db.write() as s:
            row = s.get(McpServerRow, name)
            if row is not None:
                s.delete(row)
