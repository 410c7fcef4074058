"""Fixtures of the data tests: a real Storage on a SQLite file in tmp_path, and entity builders."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest

from data.lite.storage import open_lite
from data.storage import Storage
from domain.models import Message, MessageType, Session

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def head_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database migrated to head and seeded, made once; tests get copies (migrating is the slow part)."""
    home = tmp_path_factory.mktemp("template")
    Storage.open(home).close()
    return home / "palimpsest.db"


STORES = ("sqlalchemy", "sqlite3")  # the full Storage, and the lite one a chat turn's process opens (data/lite)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leaves out the lite store's run of a test marked full_store (about the SQLAlchemy store's own workings)."""
    dropped = [i for i in items if "[sqlite3" in i.nodeid and i.get_closest_marker("full_store") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i not in dropped]


def head_home(tmp_path: Path, head_database: Path) -> Path:
    """A folder of its own holding a copy of the database at head."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(head_database, home / "palimpsest.db")
    return home


@pytest.fixture(params=STORES)
def storage(request: pytest.FixtureRequest, tmp_path: Path, head_database: Path) -> Iterator[Storage]:
    """A fresh store at head, seeded, on a SQLite file of its own: each test runs against both stores (the lite one
    does the ports a turn uses itself, the rest through the full Storage it opens on demand)."""
    home = head_home(tmp_path, head_database)
    opened: Storage | None = Storage.open(home) if request.param == "sqlalchemy" else cast(
        Storage, open_lite(home, lambda: Storage.open(home)))
    assert opened is not None, "a database at head opens lite"
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
