"""The lite store (data/lite) opens only a current database, seeds it as every open does, does a turn's work on its
own connection and hands anything else to the full Storage (the contract tests of tests/data run against both)."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.lite.storage import LiteStorage, open_lite
from data.storage import Storage
from domain.errors import StorageError
from domain.models import AiModel, MessageType, Usage
from domain.ports import TurnLease
from tests.data.conftest import T0, msg, new_session


def _home(tmp_path: Path, head_database: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(head_database, home / "palimpsest.db")
    return home


def _lite(home: Path) -> LiteStorage:
    opened = open_lite(home, lambda: Storage.open(home))
    assert opened is not None
    return opened


def test_only_a_database_at_the_head_revision_opens_lite(tmp_path: Path, head_database: Path) -> None:
    assert open_lite(tmp_path / "none", lambda: None) is None  # no database yet: the full Storage makes it
    home = _home(tmp_path, head_database)
    with closing(sqlite3.connect(home / "palimpsest.db")) as conn, conn:
        conn.execute("UPDATE alembic_version SET version_num = '0034'")  # an older Palimpsest's
    assert open_lite(home, lambda: None) is None  # the full Storage upgrades it


def test_opening_lite_seeds_as_every_open_does(tmp_path: Path, head_database: Path) -> None:
    home = _home(tmp_path, head_database)
    with closing(sqlite3.connect(home / "palimpsest.db")) as conn, conn:
        conn.execute("DELETE FROM models WHERE provider_id = 'anthropic'")
    lite = _lite(home)
    try:
        presets = [m for m in lite.registry.models if m.provider_id == "anthropic"]
        assert len(lite.models.list("anthropic")) == len(presets) > 0
    finally:
        lite.close()


def test_a_turns_work_never_opens_the_full_store(tmp_path: Path, head_database: Path) -> None:
    lite = _lite(_home(tmp_path, head_database))
    try:
        session = new_session(lite)  # type: ignore[arg-type]
        now = datetime.now(UTC)
        lease = TurnLease(session.id, "me", "a test", now, now + timedelta(minutes=1))
        assert lite.turn_leases.take(lease, now) is None
        lite.agents.default()
        lite.settings.context_settings()
        lite.memories.list("general-assistant")
        lite.mcp_servers.list()
        lite.providers.find("OpenAI")
        lite.models.store_fetched("openai", [AiModel(id="gpt-new", display_name=None, provider_id="openai")])
        assert lite.models.resolve("openai", "gpt-new").context_window_size
        with lite.unit_of_work.snapshot():
            lite.messages.since(session.id, 0)
            lite.calibration.get("openai/gpt-new")
            lite.documents.has_knowledge("general-assistant")
        with lite.unit_of_work.atomic():
            user = lite.messages.add(msg("u1", content="hi"))
            reply = lite.messages.add(msg("a1", type=MessageType.AI_RESPONSE, content="Hel", incomplete=True))
            lite.messages.update(replace(reply, content="Hello", incomplete=False))
            lite.sessions.add_usage(session.id, Usage(input_tokens=10, output_tokens=2))
        lite.sessions.update_fields(session.id, title="Greeting", updated_at=T0)
        lite.turn_leases.release(session.id, "me")
        assert [m.content for m in lite.messages.since(session.id, 0)] == ["hi", "Hello"]
        assert reply.parent_id == user.id
        assert not lite.opened_full
    finally:
        lite.close()


def test_the_rest_is_answered_by_the_full_store_opened_on_demand(tmp_path: Path, head_database: Path) -> None:
    lite = _lite(_home(tmp_path, head_database))
    try:
        new_session(lite, title="Cats and dogs")  # type: ignore[arg-type]
        assert not lite.opened_full
        assert [hit.title for hit in lite.sessions.search("cats")] == ["Cats and dogs"]
        assert lite.opened_full
    finally:
        lite.close()


def test_the_full_store_is_never_asked_inside_a_lite_transaction(tmp_path: Path, head_database: Path) -> None:
    lite = _lite(_home(tmp_path, head_database))
    try:
        agent = lite.agents.default()
        with pytest.raises(StorageError, match="bug"), lite.unit_of_work.atomic():
            lite.agents.update(replace(agent, system_prompt="never stored"))
        assert not lite.opened_full
        assert lite.agents.default().system_prompt == agent.system_prompt
    finally:
        lite.close()


def test_booleans_read_back_as_booleans(tmp_path: Path, head_database: Path) -> None:
    lite = _lite(_home(tmp_path, head_database))
    try:
        session = new_session(lite)  # type: ignore[arg-type]
        assert lite.sessions.update_fields(session.id, web_search=True).web_search is True
        assert lite.sessions.get(session.id).is_active is True  # type: ignore[union-attr]
    finally:
        lite.close()


def test_the_lite_connection_enforces_foreign_keys_on_the_wal_file(tmp_path: Path, head_database: Path) -> None:
    lite = _lite(_home(tmp_path, head_database))
    try:
        assert lite.unit_of_work.value("PRAGMA foreign_keys") == 1
        assert lite.unit_of_work.value("PRAGMA journal_mode") == "wal"
    finally:
        lite.close()
