"""Model capabilities stored on the model row (migration 0014): presets from the registry at start, listed models
from the provider's API at `models list --refresh`, unknown ids from the family patterns, the user's own values
kept through both."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import migrations
from data.db.capabilities_json import capabilities_from_json, capabilities_to_json
from data.storage import Storage
from domain.models import AiModel, CapabilitySource, ModelCapabilities, ProviderType, ThinkingForm
from tests.fakeservers import FakeAnthropicServer
from tests.fakeservers.anthropic_rules import model_info
from tests.providers.helpers import adapter_for


def test_0014_on_a_populated_database_keeps_every_model_and_the_start_gives_presets_their_capabilities(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home" / "palimpsest.db"
    path.parent.mkdir()
    url = f"sqlite:///{path}"
    migrations.upgrade(url, "0013")
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO providers (id, name, type, is_active, created_at, updated_at) VALUES ('anthropic', "
                     "'Anthropic', 'anthropic', 1, 0, 0)")
        for model_id, source in (("claude-opus-4-7", "preset"), ("claude-mystery-3", "fetched")):
            conn.execute("INSERT INTO models (id, provider_id, is_default, source, context_window_size, "
                         "window_is_guess, user_window) VALUES (?, 'anthropic', 0, ?, 200000, 0, 0)",
                         (model_id, source))
    storage = Storage.open(path.parent)  # migrates to head and seeds
    try:
        opus = storage.models.get("anthropic", "claude-opus-4-7")
        mystery = storage.models.get("anthropic", "claude-mystery-3")
        resolved = storage.models.resolve("anthropic", "claude-mystery-3")
    finally:
        storage.close()
    assert opus is not None and opus.capabilities is not None and opus.capabilities.thinking is ThinkingForm.ADAPTIVE
    assert opus.capabilities.source("thinking") is CapabilitySource.REGISTRY
    assert mystery is not None and mystery.capabilities is None  # not listed yet: nothing stored is invented
    assert resolved.capabilities is not None and resolved.capabilities.source("thinking") is CapabilitySource.FAMILY
    migrations.downgrade(url, "0013")
    with sqlite3.connect(path) as conn:
        assert "capabilities" not in {r[1] for r in conn.execute("PRAGMA table_info(models)")}
        assert conn.execute("SELECT count(*) FROM models WHERE provider_id = 'anthropic'").fetchone()[0] >= 2


async def test_models_list_refresh_stores_what_the_provider_reports_and_a_restart_keeps_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    listed = [model_info("claude-opus-4-7", thinking="adaptive_only", efforts=("low", "high")),
              model_info("claude-new-1", thinking="always_on", efforts=("low", "medium", "high"))]
    with FakeAnthropicServer(models=listed) as fake:
        models = await adapter_for(ProviderType.ANTHROPIC, fake.base_url).list_models()
    storage = Storage.open(home)
    try:
        storage.models.store_fetched("anthropic", models)
    finally:
        storage.close()
    storage = Storage.open(home)  # the start refreshes registry values, never the provider's
    try:
        opus = storage.models.resolve("anthropic", "claude-opus-4-7").capabilities
        new = storage.models.resolve("anthropic", "claude-new-1").capabilities
    finally:
        storage.close()
    assert opus is not None and opus.efforts == ("low", "high")
    assert opus.source("efforts") is CapabilitySource.PROVIDER_API
    assert opus.hides_thinking and opus.source("hides_thinking") is CapabilitySource.REGISTRY
    assert new is not None and new.thinking is ThinkingForm.ALWAYS_ON
    assert new.source("thinking") is CapabilitySource.PROVIDER_API
    assert new.reasoning_levels() == ("auto", "low", "medium", "high")


def test_the_users_own_values_survive_a_refresh_from_the_provider(storage: Storage) -> None:
    mine = ModelCapabilities(thinking=ThinkingForm.BUDGET, vision=False,
                             sources=(("vision", CapabilitySource.USER),))
    storage.models.upsert(AiModel(id="claude-x-1", display_name=None, provider_id="anthropic", capabilities=mine))
    reported = ModelCapabilities(thinking=ThinkingForm.ADAPTIVE, efforts=("low",), vision=True,
                                 sources=(("thinking", CapabilitySource.PROVIDER_API),
                                          ("efforts", CapabilitySource.PROVIDER_API),
                                          ("vision", CapabilitySource.PROVIDER_API)))
    storage.models.store_fetched("anthropic", [AiModel(id="claude-x-1", display_name="X", provider_id="anthropic",
                                                       capabilities=reported)])
    caps = storage.models.resolve("anthropic", "claude-x-1").capabilities
    assert caps is not None and caps.vision is False and caps.source("vision") is CapabilitySource.USER
    assert caps.thinking is ThinkingForm.ADAPTIVE and caps.source("thinking") is CapabilitySource.PROVIDER_API


def test_a_preset_follows_the_registry_file_at_the_next_start(tmp_path: Path, head_database: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "palimpsest.db").write_bytes(head_database.read_bytes())
    stale = capabilities_to_json(ModelCapabilities(thinking=ThinkingForm.NONE,
                                                   sources=(("thinking", CapabilitySource.REGISTRY),)))
    with sqlite3.connect(home / "palimpsest.db") as conn:
        conn.execute("UPDATE models SET capabilities = ? WHERE id = 'claude-sonnet-4-6'", (stale,))
    storage = Storage.open(home)
    try:
        caps = storage.models.get("anthropic", "claude-sonnet-4-6").capabilities  # type: ignore[union-attr]
    finally:
        storage.close()
    assert caps is not None and caps.thinking is ThinkingForm.ADAPTIVE and caps.efforts


def test_stored_json_that_cannot_be_read_is_not_known_and_a_newer_form_is_dropped() -> None:
    assert capabilities_from_json("{not json") is None
    caps = capabilities_from_json('{"thinking": "telepathic", "vision": true, '
                                  '"sources": {"thinking": "provider_api", "vision": "oracle"}}')
    assert caps is not None and caps.thinking is ThinkingForm.NONE and caps.source("thinking") is None
    assert caps.vision is True and caps.source("vision") is None
    round_trip = ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON, efforts=("low", "max"), default_effort="max",
                                   hides_thinking=True, thinks_by_default=True, vision=True, pdf_input=False,
                                   tool_use=True,
                                   sources=(("thinking", CapabilitySource.PROVIDER_API),))
    assert capabilities_from_json(capabilities_to_json(round_trip)) == round_trip
