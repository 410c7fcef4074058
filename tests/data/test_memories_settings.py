"""MemoryRepository (FTS5, agent scoping), SettingsRepository (tolerant JSON) and CalibrationStore."""

from __future__ import annotations

import json
import math
import sqlite3
from contextlib import closing
from datetime import timedelta

import pytest

from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import Agent, Memory
from domain.settings import ContextSettings
from tests.data.conftest import T0, new_session


@pytest.fixture
def remembered(storage: Storage) -> Storage:
    storage.agents.add(Agent(id="coder", name="Coder"))
    storage.memories.add(Memory("g1", "The user lives in Lisbon", T0))
    storage.memories.add(Memory("c1", "The user prefers Rust for CLI tools", T0 + timedelta(minutes=1), "coder"))
    storage.memories.add(Memory("d1", "Lisbon trip booked for May", T0 + timedelta(minutes=2), "general-assistant"))
    return storage


def test_list_gives_an_agents_memories_plus_global_ones_newest_first(remembered: Storage) -> None:
    assert [m.id for m in remembered.memories.list("coder")] == ["c1", "g1"]
    assert [m.id for m in remembered.memories.list()] == ["d1", "c1", "g1"]


def test_search_is_full_text_and_scoped_to_the_agent_plus_global(remembered: Storage) -> None:
    assert {m.id for m in remembered.memories.search("lisbon")} == {"g1", "d1"}
    assert [m.id for m in remembered.memories.search("lisbon", agent_id="coder")] == ["g1"]
    assert [m.id for m in remembered.memories.search("rust cli")] == ["c1"]


def test_an_empty_memory_is_refused(storage: Storage) -> None:
    with pytest.raises(InvalidInput):
        storage.memories.add(Memory("e", "  ", T0))
    assert storage.memories.list() == []


def test_memories_of_unknown_agents_or_ids_are_not_found(storage: Storage) -> None:
    with pytest.raises(NotFound):
        storage.memories.add(Memory("x", "fact", T0, agent_id="ghost"))
    with pytest.raises(NotFound):
        storage.memories.delete("nope")


def test_a_memory_outlives_its_purged_source_session(storage: Storage) -> None:
    new_session(storage)
    storage.memories.add(Memory("m", "fact", T0, source_session_id="s1"))
    storage.sessions.purge("s1")
    assert storage.memories.get("m") == Memory("m", "fact", T0)


def test_context_settings_default_then_round_trip(storage: Storage) -> None:
    assert storage.settings.context_settings() == ContextSettings()
    custom = ContextSettings(compact_threshold_ratio=0.6, compaction_model_id="gpt-4o-mini", pruning_enabled=False)
    storage.settings.save_context_settings(custom)
    assert storage.settings.context_settings() == custom


def test_unknown_keys_and_wrongly_typed_values_in_stored_settings_are_ignored(storage: Storage) -> None:
    stored = {"compact_threshold_ratio": 0.5, "retired_option": True, "max_tool_rounds": "ten", "soft_trim_chars": 10}
    _store_setting(storage, "context", json.dumps(stored))
    assert storage.settings.context_settings() == ContextSettings(compact_threshold_ratio=0.5, soft_trim_chars=10)


def test_unreadable_stored_settings_fall_back_to_defaults(storage: Storage) -> None:
    _store_setting(storage, "context", "{not json")
    assert storage.settings.context_settings() == ContextSettings()


def _store_setting(storage: Storage, key: str, value: str) -> None:
    """A settings row written beside the store (another version of Palimpsest, a hand edit)."""
    with closing(sqlite3.connect(storage.path)) as conn, conn:
        conn.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (key, value))


def test_calibration_ratios_are_stored_per_key(storage: Storage) -> None:
    assert storage.calibration.get("openai/gpt-4o") is None
    storage.calibration.put("openai/gpt-4o", 1.12)
    storage.calibration.put("openai/gpt-4o", 1.2)
    assert storage.calibration.get("openai/gpt-4o") == 1.2


@pytest.mark.parametrize("ratio", [0.0, -1.0, math.nan, math.inf])
def test_a_nonsensical_calibration_ratio_is_refused(storage: Storage, ratio: float) -> None:
    with pytest.raises(InvalidInput):
        storage.calibration.put("k", ratio)
    assert storage.calibration.get("k") is None
