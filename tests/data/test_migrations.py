"""Migrations on real SQLite files: no drift at head, version-1 data survives, downgrade works."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine

import migrations
from data.db.rows import Base

FTS_PREFIXES = ("messages_fts", "sessions_fts", "memories_fts", "document_passages_fts")


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _include(obj: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
    """FTS5 virtual tables, their shadow tables and the messages' index backlog (0038) are made by hand in SQL; the
    ORM does not model them."""
    return not (type_ == "table" and name is not None and name.startswith(FTS_PREFIXES))


def _build_version_one(path: Path) -> None:
    """A database as the version-1 app left it: two sessions with messages, the preset models, an agent."""
    migrations.upgrade(_url(path), "0001")
    with closing(sqlite3.connect(path)) as db:
        db.executemany("INSERT INTO providers VALUES (?, ?, ?, NULL, 1, 1, 1)",
                       [("openai", "OpenAI", "openai"), ("anthropic", "Anthropic", "anthropic"),
                        ("gemini", "Google Gemini", "gemini")])
        db.executemany("INSERT INTO models VALUES (?, ?, NULL, 0, ?)",
                       [("gpt-4o", "openai", "preset"), ("o1", "openai", "preset"),
                        ("claude-sonnet-4-5-20250929", "anthropic", "preset"),
                        ("gemini-2.5-pro", "gemini", "preset"), ("my-finetune", "openai", "user")])
        db.execute("INSERT INTO agents VALUES ('a1', 'Helper', 'Be kind', NULL, NULL, '[\"http_request\"]', 0, 5, 5)")
        db.executemany("INSERT INTO sessions VALUES (?, ?, 'a1', ?, NULL, 1, NULL, 10, 20)",
                       [("s1", "First", 3), ("s2", "Second", 2)])
        rows = [("m3", "s1", 300), ("m1", "s1", 100), ("m2", "s1", 100), ("n2", "s2", 50), ("n1", "s2", 40)]
        db.executemany(
            "INSERT INTO messages (id, session_id, type, content, created_at) VALUES (?, ?, 'user', 'text ' || ?, ?)",
            [(mid, sid, mid, at) for mid, sid, at in rows],
        )
        db.commit()


def test_blank_database_upgraded_to_head_matches_the_orm_metadata(tmp_path: Path) -> None:
    path = tmp_path / "blank.db"
    migrations.upgrade(_url(path))
    engine = create_engine(_url(path))
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_object": _include, "compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == []
    assert migrations.current_revision(_url(path)) == migrations.head_revision()


def test_head_has_the_fts_tables_and_their_triggers(tmp_path: Path) -> None:
    path = tmp_path / "blank.db"
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    for fts in FTS_PREFIXES:
        assert {fts, f"{fts}_ai", f"{fts}_ad", f"{fts}_au"} <= names


def test_version_one_rows_survive_the_upgrade_and_presets_get_their_windows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _build_version_one(path)
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        windows = dict(db.execute("SELECT id, context_window_size FROM models").fetchall())
        assert windows == {"gpt-4o": 128000, "o1": 200000, "claude-sonnet-4-5-20250929": 200000,
                           "gemini-2.5-pro": 1048576, "my-finetune": None}
        assert db.execute("SELECT count(*) FROM providers").fetchone() == (3,)
        assert db.execute("SELECT name, system_prompt, context_overrides FROM agents").fetchall() == [
            ("Helper", "Be kind", "{}")]
        sessions = db.execute(
            "SELECT id, title, message_count, compaction_count, total_input_tokens FROM sessions ORDER BY id"
        ).fetchall()
        assert sessions == [("s1", "First", 3, 0, 0), ("s2", "Second", 2, 0, 0)]
        messages = db.execute("SELECT id, content, pinned, incomplete FROM messages ORDER BY id").fetchall()
        assert [m[0] for m in messages] == ["m1", "m2", "m3", "n1", "n2"]
        assert all(m[1] == "text " + m[0] and m[2] == 0 and m[3] == 0 for m in messages)


def test_seq_is_backfilled_per_session_by_created_at_then_insertion_order(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _build_version_one(path)
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        seqs = db.execute("SELECT session_id, id, seq FROM messages ORDER BY session_id, seq").fetchall()
    # m1 and m2 share a millisecond: the one inserted first (m1) comes first.
    assert seqs == [("s1", "m1", 1), ("s1", "m2", 2), ("s1", "m3", 3), ("s2", "n1", 1), ("s2", "n2", 2)]


def test_upgraded_version_one_messages_are_found_by_full_text_search(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _build_version_one(path)
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        hits = db.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'm3'").fetchall()
    assert len(hits) == 1


def test_downgrade_to_0001_keeps_version_one_rows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _build_version_one(path)
    migrations.upgrade(_url(path))
    migrations.downgrade(_url(path), "0001")
    assert migrations.current_revision(_url(path)) == "0001"
    with closing(sqlite3.connect(path)) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = {r[1] for r in db.execute("PRAGMA table_info(models)")}
        count = db.execute("SELECT count(*) FROM messages").fetchone()
    assert tables == {"alembic_version", "providers", "models", "agents", "sessions", "messages"}
    assert "context_window_size" not in columns
    assert count == (5,)


def test_blank_database_downgrades_to_0001_and_upgrades_again(tmp_path: Path) -> None:
    path = tmp_path / "cycle.db"
    migrations.upgrade(_url(path))
    migrations.downgrade(_url(path), "0001")
    migrations.upgrade(_url(path))
    assert migrations.current_revision(_url(path)) == migrations.head_revision()


def test_every_revision_is_known_and_head_is_the_last_one() -> None:
    assert migrations.known_revisions() == {f"{n:04d}" for n in range(1, 30)} | {
        "0032", "0033", "0034", "0035", "0036", "0037", "0038", "0039"}
    # in order of application: ... 0014, 0019, 0015, 0017, 0016, 0018, 0020, 0021, 0022, ..., 0025, 0026, 0027, 0028,
    # 0029, 0032, 0033, 0034, 0035, 0036, 0037, 0038, 0039 (branches written in parallel, chained at merge; 0030 and
    # 0031 were reserved and not used)
    assert migrations.head_revision() == "0039"


def test_0012_keeps_every_message_on_the_path_and_the_search_triggers_working(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "a.db"
    migrations.upgrade(_url(path), "0011")
    with sqlite3.connect(path) as conn:
        triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    migrations.upgrade(_url(path))
    with sqlite3.connect(path) as conn:
        now = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        added = {name for name in now if name.startswith(("config_revision_", "document_passages_fts_",
                                                          "sync_session_field_times", "sync_"))
                 or name == "messages_rev"}  # 0021, 0022, 0029, 0033, 0035
        assert now - added == triggers
        columns = {r[1]: r for r in conn.execute("PRAGMA table_info(messages)")}
    # NOT NULL DEFAULT 1: rows written before stay on the path
    assert columns["active"][3] == 1 and columns["active"][4] in ("1", "'1'")
    migrations.downgrade(_url(path), "0011")
    with sqlite3.connect(path) as conn:
        assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")} == triggers


def test_0011_tells_where_existing_windows_came_from_and_keeps_every_model(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "w.db"
    migrations.upgrade(_url(path), "0010")
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO providers (id, name, type, is_active, created_at, updated_at) VALUES ('local', "
                     "'Local', 'openai_compatible', 1, '2026-01-01 00:00:00', '2026-01-01 00:00:00')")
        rows = [("mine", 1, "user", 0, 50_000), ("listed", 0, "fetched", 0, 64_000), ("guess", 0, "fetched", 1, 8_192),
                ("preset", 0, "preset", 0, 128_000)]
        for model_id, user, source, guess, window in rows:
            conn.execute("INSERT INTO models (id, provider_id, is_default, source, context_window_size, "
                         "window_is_guess, user_window) VALUES (?, 'local', 0, ?, ?, ?, ?)",
                         (model_id, source, window, guess, user))
    migrations.upgrade(_url(path))
    with sqlite3.connect(path) as conn:
        found = dict(conn.execute("SELECT id, window_source FROM models WHERE provider_id = 'local'").fetchall())
    assert found == {"mine": "user", "listed": "provider_api", "guess": "registry", "preset": "registry"}
    migrations.downgrade(_url(path), "0010")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM models WHERE provider_id = 'local'").fetchone() == (4,)


def test_0015_adds_the_api_choice_and_trained_length_keeping_every_provider_and_model(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0019")
    with closing(sqlite3.connect(path)) as conn:
        before_models = conn.execute("SELECT id, provider_id, context_window_size FROM models ORDER BY 1, 2").fetchall()
        before_providers = conn.execute("SELECT id, name, type FROM providers ORDER BY 1").fetchall()
        messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT id, name, type FROM providers ORDER BY 1").fetchall() == before_providers
        assert conn.execute("SELECT DISTINCT api FROM providers").fetchall() == [(None,)]  # NULL: auto
        assert conn.execute("SELECT id, provider_id, context_window_size FROM models ORDER BY 1, 2").fetchall() \
            == before_models
        assert conn.execute("SELECT DISTINCT trained_window FROM models").fetchall() == [(None,)]
        conn.execute("UPDATE providers SET api = 'chat_completions' WHERE id = 'openai'")
        conn.commit()
    migrations.downgrade(_url(path), "0019")
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT id, name, type FROM providers ORDER BY 1").fetchall() == before_providers
        assert "api" not in {r[1] for r in conn.execute("PRAGMA table_info(providers)")}
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone() == messages


def test_storage_opens_a_version_one_database_with_every_conversation_intact(tmp_path: Path) -> None:
    from data.storage import Storage

    _build_version_one(tmp_path / "palimpsest.db")
    storage = Storage.open(tmp_path)
    try:
        assert {s.id for s in storage.sessions.list()} == {"s1", "s2"}
        assert [m.id for m in storage.messages.snapshot("s1")] == ["m1", "m2", "m3"]
        assert storage.agents.find("Helper") is not None
        assert storage.agents.default().name == "General assistant"
        assert storage.models.get("openai", "gpt-4o").max_output_tokens == 16384  # type: ignore[union-attr]
        assert [h.session_id for h in storage.sessions.search("n2")] == ["s2"]
    finally:
        storage.close()


def test_0019_keeps_every_session_with_no_reasoning_of_its_own_and_the_search_triggers(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0014")
    with closing(sqlite3.connect(path)) as db:
        triggers = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    migrations.upgrade(_url(path), "0019")
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT id, title, reasoning FROM sessions ORDER BY id").fetchall() == [
            ("s1", "First", None), ("s2", "Second", None)]
        db.execute("UPDATE sessions SET reasoning = 'high' WHERE id = 's1'")
        db.commit()
    migrations.downgrade(_url(path), "0014")
    with closing(sqlite3.connect(path)) as db:
        assert [r[0] for r in db.execute("SELECT id FROM sessions ORDER BY id")] == ["s1", "s2"]
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")} == triggers
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)


def test_0020_keeps_every_session_with_the_agents_prompt_and_the_search_triggers(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0018")
    with closing(sqlite3.connect(path)) as db:
        triggers = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        sessions = db.execute("SELECT id, title, message_count FROM sessions ORDER BY id").fetchall()
    migrations.upgrade(_url(path), "0020")
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT id, title, system_prompt FROM sessions ORDER BY id").fetchall() == [
            ("s1", "First", None), ("s2", "Second", None)]
        db.execute("UPDATE sessions SET system_prompt = 'Answer in French.' WHERE id = 's1'")
        db.commit()
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")} == triggers
    migrations.downgrade(_url(path), "0018")
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT id, title, message_count FROM sessions ORDER BY id").fetchall() == sessions
        assert "system_prompt" not in {r[1] for r in db.execute("PRAGMA table_info(sessions)")}
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")} == triggers
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)


def test_0021_counts_every_change_to_the_configuration_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0021")

    def revision(db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT value FROM config_revision WHERE id = 1").fetchone()[0])

    with closing(sqlite3.connect(path)) as db:
        start = revision(db)
        db.execute("UPDATE agents SET system_prompt = 'Be brief' WHERE id = 'a1'")
        db.execute("INSERT INTO settings (key, value) VALUES ('x', '{}')")
        db.execute("DELETE FROM models WHERE id = 'o1'")
        db.execute("UPDATE providers SET base_url = 'http://127.0.0.1:1' WHERE id = 'openai'")
        db.commit()
        assert revision(db) == start + 4
        db.execute("UPDATE sessions SET title = 'Renamed' WHERE id = 's1'")  # a conversation is not configuration
        db.execute("UPDATE messages SET content = 'edited' WHERE id = 'm1'")
        db.commit()
        assert revision(db) == start + 4
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)
    migrations.downgrade(_url(path), "0020")
    with closing(sqlite3.connect(path)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert "config_revision" not in names and not any(n.startswith("config_revision_") for n in names)
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)


def test_0022_raises_a_messages_revision_on_every_change_but_a_move_of_the_active_path(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0022")

    def rev(db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT rev FROM messages WHERE id = 'm1'").fetchone()[0])

    with closing(sqlite3.connect(path)) as db:
        assert rev(db) == 0  # existing messages start at 0
        db.execute("UPDATE messages SET content = 'edited' WHERE id = 'm1'")
        db.execute("UPDATE messages SET pinned = 1 WHERE id = 'm1'")
        db.commit()
        assert rev(db) == 2
        db.execute("UPDATE messages SET active = 0 WHERE id = 'm1'")  # a branch switch: the message is unchanged
        db.execute("UPDATE messages SET active = 1 WHERE id = 'm1'")
        db.commit()
        assert rev(db) == 2
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)
    migrations.downgrade(_url(path), "0021")
    with closing(sqlite3.connect(path)) as db:
        assert "rev" not in {r[1] for r in db.execute("PRAGMA table_info(messages)")}
        assert "messages_rev" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert db.execute("SELECT content, pinned FROM messages WHERE id = 'm1'").fetchone() == ("edited", 1)


def test_the_messages_revision_trigger_watches_every_column_but_the_path_flag_and_itself(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        columns = {r[1] for r in db.execute("PRAGMA table_info(messages)")}
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'messages_rev'").fetchone()[0]
    watched = {c.strip() for c in sql.split(" OF ", 1)[1].split(" ON ", 1)[0].split(",")}
    assert watched == columns - {"active", "rev"}  # a new column must be watched too, or a cached copy goes stale


def test_0023_adds_the_servers_probe_answers_keeping_every_model_and_message(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0022")
    migrations.upgrade(_url(path), "0023")
    with closing(sqlite3.connect(path)) as db:
        columns = {r[1]: (r[2], r[3], r[5]) for r in db.execute("PRAGMA table_info(server_probes)")}
        assert columns == {"server": ("VARCHAR", 1, 1), "request": ("VARCHAR", 1, 2), "answer": ("TEXT", 0, 0),
                           "probed_at": ("INTEGER", 1, 0)}
        db.execute("INSERT INTO server_probes VALUES ('http://127.0.0.1:4000', 'GET /props', NULL, 1)")
        db.commit()
        assert db.execute("SELECT count(*) FROM models").fetchone() == (5,)
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)
    migrations.downgrade(_url(path), "0022")
    with closing(sqlite3.connect(path)) as db:
        assert "server_probes" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert db.execute("SELECT count(*) FROM models").fetchone() == (5,)
    migrations.upgrade(_url(path))
    assert migrations.current_revision(_url(path)) == migrations.head_revision()


def test_0027_adds_the_end_reason_of_replies_as_not_known_and_watches_it(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0026")
    migrations.upgrade(_url(path), "0027")
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM messages WHERE end_reason IS NULL").fetchone() == (5,)
        db.execute("UPDATE messages SET end_reason = 'cut' WHERE id = 'm1'")
        db.commit()
        assert db.execute("SELECT rev, end_reason FROM messages WHERE id = 'm1'").fetchone() == (1, "cut")
    migrations.downgrade(_url(path), "0026")
    with closing(sqlite3.connect(path)) as db:
        assert "end_reason" not in {r[1] for r in db.execute("PRAGMA table_info(messages)")}
        db.execute("UPDATE messages SET content = 'edited' WHERE id = 'm1'")  # the 0022 trigger still works
        db.commit()
        assert db.execute("SELECT rev FROM messages WHERE id = 'm1'").fetchone() == (2,)
