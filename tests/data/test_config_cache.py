"""The configuration a request is built from is read once and kept until it changes, from this process or another."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import event

from data.storage import Storage
from domain.models import Memory
from tests.data.conftest import T0


@pytest.fixture
def other(storage: Storage) -> Iterator[Storage]:
    """A second Storage on the same file: another process (the CLI while the desktop app is open)."""
    opened = Storage.open(storage.path.parent)
    yield opened
    opened.close()


def _statements(storage: Storage) -> list[str]:
    """Every statement sent to SQLite from here on, as the driver sends it (SQLAlchemy's and plain SQL alike)."""
    seen: list[str] = []
    storage._db.release_parked()  # the connections kept between transactions are taken from the pool again
    event.listen(storage._db.engine, "checkout",  # each connection as it is taken from the pool
                 lambda connection, _record, _proxy: connection.set_trace_callback(seen.append))
    return seen


@pytest.mark.full_store  # counts the engine's statements
def test_repeated_reads_in_one_snapshot_cost_one_revision_query(storage: Storage) -> None:
    agent = storage.agents.default()
    for read in (lambda: storage.agents.get(agent.id), storage.agents.default, storage.settings.context_settings,
                 lambda: storage.providers.get("anthropic"), lambda: storage.memories.list(agent.id),
                 lambda: storage.models.resolve("anthropic", "claude-sonnet-4-5")):
        read()  # first reads: from the tables
    seen = _statements(storage)
    with storage.unit_of_work.snapshot():
        assert storage.agents.get(agent.id) == agent
        assert storage.agents.default() == agent
        storage.settings.context_settings()
        storage.providers.get("anthropic")
        storage.memories.list(agent.id)
        storage.models.resolve("anthropic", "claude-sonnet-4-5")
    reads = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert reads == ["SELECT value FROM config_revision WHERE id = 1"]


def test_a_change_made_by_another_process_is_seen_at_once(storage: Storage, other: Storage) -> None:
    agent = storage.agents.default()
    before = storage.settings.context_settings()
    assert storage.memories.list(agent.id) == []
    other.agents.update(replace(agent, system_prompt="Answer in French."))
    other.settings.save_context_settings(replace(before, compact_threshold_ratio=0.5))
    other.memories.add(Memory("mem1", "The user's name is Ada.", T0))
    assert storage.agents.default().system_prompt == "Answer in French."
    assert storage.agents.get(agent.id).system_prompt == "Answer in French."  # type: ignore[union-attr]
    assert storage.settings.context_settings().compact_threshold_ratio == 0.5
    assert [m.content for m in storage.memories.list(agent.id)] == ["The user's name is Ada."]


def test_a_change_made_outside_the_app_is_seen(storage: Storage) -> None:
    provider = storage.providers.get("anthropic")
    assert provider is not None and provider.base_url is None
    with closing(sqlite3.connect(Path(storage.path))) as db:
        db.execute("UPDATE providers SET base_url = 'http://127.0.0.1:9' WHERE id = 'anthropic'")
        db.commit()
    assert storage.providers.get("anthropic").base_url == "http://127.0.0.1:9"  # type: ignore[union-attr]


def test_a_model_limit_learned_later_is_resolved(storage: Storage, other: Storage) -> None:
    assert storage.models.resolve("anthropic", "claude-sonnet-4-5").context_window_size != 12_345
    other.models.set_user_window("anthropic", "claude-sonnet-4-5", 12_345)
    assert storage.models.resolve("anthropic", "claude-sonnet-4-5").context_window_size == 12_345


@pytest.mark.full_store  # a config change inside a unit of work: never in a turn (lite refuses it: test_lite_store)
def test_a_rolled_back_change_is_never_kept(storage: Storage, other: Storage) -> None:
    agent = storage.agents.default()
    with pytest.raises(RuntimeError), storage.unit_of_work.atomic():
        storage.agents.update(replace(agent, system_prompt="never committed"))
        assert storage.agents.default().system_prompt == "never committed"  # the unit of work sees its own write
        raise RuntimeError("the unit of work fails")
    assert storage.agents.default().system_prompt == agent.system_prompt
    # another process's change now takes the revision number the rolled-back one had: its value is the one read
    other.agents.update(replace(agent, system_prompt="committed elsewhere"))
    assert storage.agents.default().system_prompt == "committed elsewhere"


def test_a_kept_list_is_handed_out_as_a_copy(storage: Storage) -> None:
    storage.memories.add(Memory("mem1", "Likes tea.", T0))
    first = storage.memories.list(None)
    first.clear()  # type: ignore[attr-defined]
    assert [m.content for m in storage.memories.list(None)] == ["Likes tea."]
