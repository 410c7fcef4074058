"""Direct reads of a current database (no SQLAlchemy): the same answers as the repositories, or none at all."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from data.db.direct_read import current_providers, current_sessions
from data.storage import Storage
from domain.errors import DatabaseTooNew, DatabaseUnreadable
from domain.models import Provider, ProviderApi, ProviderType


def _home(tmp_path: Path, head_database: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(head_database, home / "palimpsest.db")
    return home


def _sql(home: Path, statement: str) -> None:
    with closing(sqlite3.connect(home / "palimpsest.db")) as db:
        db.execute(statement)
        db.commit()


def test_providers_read_directly_equal_the_repositorys_list(tmp_path: Path, head_database: Path) -> None:
    home = _home(tmp_path, head_database)
    storage = Storage.open(home)
    try:
        for name, url in (("zeta local", "http://127.0.0.1:1/v1"), ("Alpha box", "http://127.0.0.1:2/v1")):
            storage.providers.add(Provider(name.split()[0].lower(), name, ProviderType.OPENAI_COMPATIBLE, url))
        storage.providers.update(Provider("openai", "OpenAI", ProviderType.OPENAI, "https://example.org/v1",
                                          api=ProviderApi.RESPONSES))
        expected = list(storage.providers.list())
    finally:
        storage.close()
    assert current_providers(home) == expected
    assert [p.id for p in expected] == ["anthropic", "openai", "gemini", "alpha", "zeta"]


def test_a_missing_or_older_database_is_left_to_the_storage(tmp_path: Path, head_database: Path) -> None:
    assert current_providers(tmp_path / "nowhere") is None
    home = _home(tmp_path, head_database)
    _sql(home, "UPDATE alembic_version SET version_num = '0012'")
    assert current_providers(home) is None


def test_an_unseeded_database_is_left_to_the_storage(tmp_path: Path, head_database: Path) -> None:
    home = _home(tmp_path, head_database)
    _sql(home, "DELETE FROM models WHERE provider_id = 'gemini'")
    _sql(home, "DELETE FROM providers WHERE id = 'gemini'")
    assert current_providers(home) is None


def test_files_the_storage_refuses_are_refused_with_the_same_errors(tmp_path: Path, head_database: Path) -> None:
    home = _home(tmp_path, head_database)
    _sql(home, "UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(DatabaseTooNew):
        current_providers(home)
    other = tmp_path / "other"
    other.mkdir()
    (other / "palimpsest.db").write_text("not a database")
    with pytest.raises(DatabaseUnreadable):
        current_providers(other)


def test_sessions_read_directly_equal_the_repositorys_list(tmp_path: Path, head_database: Path) -> None:
    from dataclasses import replace
    from datetime import UTC, datetime, timedelta

    from domain.models import Message, MessageType, Session, Usage

    home = _home(tmp_path, head_database)
    storage = Storage.open(home)
    at = datetime(2026, 2, 3, 4, 5, 6, 789_012, tzinfo=UTC)
    try:
        for n in range(4):
            storage.sessions.create(Session(id=f"s{n}", title=f"Chat {n} ✓", current_agent_id="general-assistant",
                                            created_at=at, updated_at=at + timedelta(minutes=n % 2),
                                            current_provider_id="openai", reasoning="high" if n else None))
        storage.messages.add(Message("m1", "s1", MessageType.USER, "a question", created_at=at))
        storage.sessions.add_usage("s1", Usage(120, 30, 7))
        storage.sessions.update(replace(storage.sessions.get("s2"), is_active=False))  # type: ignore[arg-type]
        storage.sessions.delete("s3", at)
        expected = list(storage.sessions.list())
    finally:
        storage.close()
    read = current_sessions(home)
    assert [s.id for s in expected] == ["s1", "s0", "s2"]
    assert read == expected


def test_sessions_of_an_older_database_are_left_to_the_storage(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    assert current_sessions(home) is None
