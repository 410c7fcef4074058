"""SettingsRepository and CalibrationStore contract: defaults until saved, a saved value read back whole."""

from __future__ import annotations

import math

import pytest

from domain.errors import InvalidInput
from domain.settings import ContextSettings, ToolSettings
from tests.contracts.conftest import Store


def test_context_settings_are_the_defaults_until_saved(store: Store) -> None:
    assert store.settings.context_settings() == ContextSettings()


def test_saved_context_settings_are_read_back_with_every_field(store: Store) -> None:
    custom = ContextSettings(compact_threshold_ratio=0.6, compaction_model_id="gpt-4o-mini", pruning_enabled=False,
                             soft_trim_chars=9_000, max_output_tokens=2_048)
    store.settings.save_context_settings(custom)
    assert store.settings.context_settings() == custom
    store.settings.save_context_settings(ContextSettings())
    assert store.settings.context_settings() == ContextSettings()


def test_tool_settings_allow_no_host_until_saved(store: Store) -> None:
    assert store.settings.tool_settings() == ToolSettings()


def test_saved_allowed_hosts_are_read_back_in_order_and_apart_from_the_context_settings(store: Store) -> None:
    custom = ContextSettings(compact_threshold_ratio=0.6)
    store.settings.save_context_settings(custom)
    hosts = ToolSettings(allowed_hosts=("localhost", "192.168.1.0/24", "::1", "bücher.example"))
    store.settings.save_tool_settings(hosts)
    assert store.settings.tool_settings() == hosts
    assert store.settings.context_settings() == custom
    store.settings.save_context_settings(ContextSettings())
    assert store.settings.tool_settings() == hosts
    store.settings.save_tool_settings(ToolSettings())
    assert store.settings.tool_settings() == ToolSettings()


def test_calibration_ratios_are_kept_per_key_and_the_last_one_wins(store: Store) -> None:
    assert store.calibration.get("openai/gpt-4o") is None
    store.calibration.put("openai/gpt-4o", 1.12)
    store.calibration.put("openai/gpt-4o", 1.2)
    store.calibration.put("anthropic/claude", 0.9)
    assert (store.calibration.get("openai/gpt-4o"), store.calibration.get("anthropic/claude")) == (1.2, 0.9)


@pytest.mark.parametrize("ratio", [0.0, -1.0, math.nan, math.inf])
def test_a_nonsensical_calibration_ratio_is_refused_and_changes_nothing(store: Store, ratio: float) -> None:
    store.calibration.put("k", 1.5)
    with pytest.raises(InvalidInput):
        store.calibration.put("k", ratio)
    assert store.calibration.get("k") == 1.5
