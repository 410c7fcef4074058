"""Fixtures of the data tests: a real Storage on a SQLite file in tmp_path, and entity builders."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.storage import Storage
from domain.models import Message, MessageType, Session

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def head_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database migrated to head and seeded, made once; tests get copies (migrating is the slow part)."""
    home = tmp_path_factory.mktemp("template")
    Storage.open(home).close()
    return home / "palimpsest.db"


@pytest.fixture
def storage(tmp_path: Path, head_database: Path) -> Iterator[Storage]:
    """A fresh store at head, seeded, on a SQLite file of its own."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(head_database, home / "palimpsest.db")
    opened = Storage.open(home)
    yield opened
    opened.close()


def new_session(storage: Storage, session_id: str = "s1", title: str = "Chat", minutes: int = 0) -> Session:
    """Creates a session whose timestamps are T0 + minutes."""
    at = T0 + timedelta(minutes=minutes)
    return storage.sessions.create(
        Session(id=session_id, title=title, current_agent_id="general-assistant", created_at=at, updated_at=at)
    )


def msg(message_id: str, session_id: str = "s1", content: str = "hello", **fields: object) -> Message:
    """A user message unless a type is given."""
    fields.setdefault("type", MessageType.USER)
    fields.setdefault("created_at", T0)
    return Message(id=message_id, session_id=session_id, content=content, **fields)  # type: ignore[arg-type]
