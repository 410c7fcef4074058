"""Opening the store: seeding, backups before upgrades, and refusing files it must not touch."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

import migrations
from data.paths import data_dir
from data.storage import Storage
from domain.errors import DatabaseTooNew, DatabaseUnreadable
from tests.data.conftest import msg, new_session


def _backups(home: Path) -> list[Path]:
    return sorted(home.glob("palimpsest.db.*.bak"))


def test_open_uses_palimpsest_home_and_creates_it(tmp_path: Path) -> None:
    storage = Storage.open()
    try:
        assert storage.path == Path(os.environ["PALIMPSEST_HOME"]) / "palimpsest.db"
        assert storage.path.is_file()
        assert data_dir() == storage.path.parent
    finally:
        storage.close()


def test_fresh_store_has_the_three_providers_and_the_default_agent(storage: Storage) -> None:
    assert [(p.id, p.name, p.type.value) for p in storage.providers.list()] == [
        ("anthropic", "Anthropic", "anthropic"), ("openai", "OpenAI", "openai"), ("gemini", "Google Gemini", "gemini")]
    agent = storage.agents.default()
    assert agent.name == "General assistant"
    assert set(agent.enabled_tools) == {"http_request", "save_memory", "search_memory", "read_tool_result"}


def test_fresh_store_has_every_registry_preset_with_its_window(storage: Storage) -> None:
    stored = {(m.provider_id, m.id): m for m in storage.models.list()}
    for preset in storage.registry.models:
        model = stored[(preset.provider_id, preset.id)]
        assert model.context_window_size == preset.context_window
        assert model.source.value == "preset"
    assert stored[("openai", "gpt-4o")].context_window_size == 128000
    defaults = {m.provider_id for m in stored.values() if m.is_default}
    assert defaults == {"anthropic", "openai", "gemini"}


@pytest.mark.full_store  # the engine's connections (the lite one's: test_lite_store)
def test_connections_use_wal_and_enforce_foreign_keys(storage: Storage) -> None:
    with storage._db.read() as s:
        assert s.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert s.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_reopening_does_not_duplicate_seeds_or_overwrite_a_user_window(tmp_path: Path) -> None:
    first = Storage.open(tmp_path)
    first.models.set_user_window("openai", "gpt-4o", 64000)
    first.close()
    second = Storage.open(tmp_path)
    try:
        assert second.models.get("openai", "gpt-4o").context_window_size == 64000  # type: ignore[union-attr]
        assert len(second.providers.list()) == 3
        assert len(second.agents.list()) == 1
        assert _backups(tmp_path) == []  # already at head: nothing to back up
    finally:
        second.close()


def test_reopening_a_store_seeded_before_the_gemini_default_moved_gives_one_default_the_new_one(
        tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    first = Storage.open(tmp_path)
    path = first.path
    first.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:  # as the registry before 3.5 Flash-Lite left it
        conn.execute("DELETE FROM models WHERE id = 'gemini-3.5-flash-lite'")
        conn.execute("UPDATE models SET is_default = (id = 'gemini-2.5-flash') WHERE provider_id = 'gemini'")
    second = Storage.open(tmp_path)
    try:
        defaults = [m.id for m in second.models.list("gemini") if m.is_default]
        assert defaults == ["gemini-3.5-flash-lite"]
        assert [m.id for m in second.models.list("anthropic") if m.is_default] == ["claude-sonnet-4-6"]
    finally:
        second.close()


def test_store_is_usable_from_worker_threads(storage: Storage) -> None:
    new_session(storage)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(10):
                storage.messages.add(msg(f"t{n}-{i}"))
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [m.seq for m in storage.messages.snapshot("s1")] == list(range(1, 41))
    assert storage.sessions.get("s1").message_count == 40  # type: ignore[union-attr]


def test_an_outdated_database_is_backed_up_before_upgrading(tmp_path: Path) -> None:
    path = tmp_path / "palimpsest.db"
    migrations.upgrade(f"sqlite:///{path}", "0001")
    with closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO providers VALUES ('openai', 'OpenAI', 'openai', NULL, 1, 1, 1)")
        db.commit()
    Storage.open(tmp_path).close()
    [backup] = _backups(tmp_path)
    with closing(sqlite3.connect(backup)) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
        assert db.execute("SELECT id FROM providers").fetchall() == [("openai",)]
    assert migrations.current_revision(f"sqlite:///{path}") == migrations.head_revision()


def test_only_the_last_three_backups_are_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'palimpsest.db'}"
    migrations.upgrade(url, "0001")
    for _ in range(5):
        Storage.open(tmp_path).close()  # backs up, then upgrades
        migrations.downgrade(url, "0001")
    backups = _backups(tmp_path)
    assert len(backups) == 3
    assert backups == sorted(backups)  # names sort by time


def test_a_corrupt_file_is_refused_by_name_and_left_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "palimpsest.db"
    junk = b"this is not a database\n" * 100
    path.write_bytes(junk)
    with pytest.raises(DatabaseUnreadable) as caught:
        Storage.open(tmp_path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == junk
    assert _backups(tmp_path) == []


def test_a_damaged_sqlite_file_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    Storage.open(tmp_path).close()
    path = tmp_path / "palimpsest.db"
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the schema page, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseUnreadable) as caught:
        Storage.open(tmp_path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == bytes(data)


def test_another_programs_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "palimpsest.db"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
        db.execute("INSERT INTO contacts VALUES ('Ada')")
        db.commit()
    before = path.read_bytes()
    with pytest.raises(DatabaseUnreadable, match="another program"):
        Storage.open(tmp_path)
    assert path.read_bytes() == before


def test_a_database_from_a_newer_palimpsest_is_refused_untouched(tmp_path: Path) -> None:
    Storage.open(tmp_path).close()
    path = tmp_path / "palimpsest.db"
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE alembic_version SET version_num = '0999'")
        db.commit()
    before = path.read_bytes()
    with pytest.raises(DatabaseTooNew) as caught:
        Storage.open(tmp_path)
    assert caught.value.revision == "0999"
    assert str(path) in str(caught.value)
    assert path.read_bytes() == before
    assert _backups(tmp_path) == []


def test_an_empty_file_at_the_path_is_treated_as_a_new_database(tmp_path: Path) -> None:
    (tmp_path / "palimpsest.db").write_bytes(b"")
    storage = Storage.open(tmp_path)
    try:
        assert len(storage.providers.list()) == 3
    finally:
        storage.close()


def test_a_directory_at_the_database_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "palimpsest.db").mkdir()
    with pytest.raises(DatabaseUnreadable, match="not a regular file"):
        Storage.open(tmp_path)


def test_a_relative_home_is_opened_and_reopened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Storage.open(Path("relative-home")).close()
    reopened = Storage.open(Path("relative-home"))
    try:
        assert (tmp_path / "relative-home" / "palimpsest.db").is_file()
        assert len(reopened.providers.list()) == 3
    finally:
        reopened.close()


def test_reopening_a_seeded_store_reads_the_presets_in_one_query_not_one_each(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    from data.db.seed import seed

    storage = Storage.open(tmp_path)
    try:
        assert len(storage.registry.models) > 10
        statements: list[str] = []
        with closing(sqlite3.connect(storage.path, isolation_level=None)) as conn:
            conn.set_trace_callback(statements.append)
            conn.execute("BEGIN IMMEDIATE")
            seed(conn, storage.registry)  # what every later open does
            conn.execute("COMMIT")
        selects = [s for s in statements if s.startswith("SELECT")]
        assert len(selects) <= 5, selects
        assert not [s for s in statements if s.startswith(("INSERT", "UPDATE"))]  # nothing changed: nothing written
        presets = [m for m in storage.registry.models if m.provider_id == "openai"]
        assert len(storage.models.list("openai")) == len(presets)
    finally:
        storage.close()
