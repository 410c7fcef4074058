"""SettingsViewModel: keys only to the keychain, clear refusals of bad input, every section editable."""

from __future__ import annotations

from dataclasses import replace

from domain.settings import ContextSettings
from tests.ui.fake_backend import FakeChatBackend
from ui.viewmodels.settings import SettingsViewModel


def loaded(qtbot, backend, worker) -> SettingsViewModel:
    vm = SettingsViewModel(backend, worker)
    vm.load()
    qtbot.waitUntil(lambda: vm.state.context is not None and not vm.state.busy)
    return vm


def idle(qtbot, vm: SettingsViewModel) -> None:
    qtbot.waitUntil(lambda: not vm.state.busy)


def test_saving_a_key_stores_it_in_the_keychain_and_never_in_the_state(qtbot, worker) -> None:
    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    vm.set_key("openai", "  sk-secret-123  ")
    qtbot.waitUntil(lambda: vm.state.message == "Key saved to the system keychain.")
    assert backend.keys["openai"] == "sk-secret-123"
    assert "sk-secret-123" not in repr(vm.state)
    assert next(p for p in vm.state.providers if p.provider.id == "openai").key_source == "keychain"


def test_an_empty_or_spaced_key_is_refused_before_reaching_the_keychain(qtbot, worker) -> None:
    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    vm.set_key("openai", "   ")
    assert vm.state.error == "Paste a key first; an empty key is not stored."
    vm.set_key("openai", "sk one")
    assert "spaces" in (vm.state.error or "")
    assert backend.keys == {}


def test_without_a_keychain_saving_a_key_says_to_use_the_environment(qtbot, worker) -> None:
    backend = FakeChatBackend(keychain_problem="no backend")
    vm = loaded(qtbot, backend, worker)
    assert vm.state.keychain_problem == "no backend"
    vm.set_key("openai", "sk-x")
    qtbot.waitUntil(lambda: vm.state.error is not None)
    assert "OPENAI_API_KEY" in (vm.state.error or "") and backend.keys == {}


def test_test_connection_reports_per_provider(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.test_connection("anthropic")
    vm.test_connection("openai")
    qtbot.waitUntil(lambda: len(vm.state.provider_status) == 2)
    assert vm.state.provider_status["anthropic"].startswith("✓")
    assert vm.state.provider_status["openai"] == "✗ No key for this provider."


def test_an_endpoint_needs_a_name_and_an_http_url(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.add_endpoint("", "http://localhost:11434/v1")
    assert vm.state.error == "Give the endpoint a name, e.g. Ollama."
    vm.add_endpoint("Ollama", "localhost:11434")
    assert "http://" in (vm.state.error or "")
    vm.add_endpoint("Ollama", "http://localhost:11434/v1")
    qtbot.waitUntil(lambda: any(p.provider.name == "Ollama" for p in vm.state.providers))


def test_a_base_url_must_be_http(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.set_base_url("openai", "ftp://x")
    assert "http://" in (vm.state.error or "")
    vm.set_base_url("openai", "https://proxy.example/v1")
    qtbot.waitUntil(lambda: vm.state.message == "Base URL saved.")
    assert backend.providers["openai"].base_url == "https://proxy.example/v1"


def test_a_context_window_is_validated_and_stored_as_the_users(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.set_window("openai", "gpt-4o", 500, None)
    assert "1,024" in (vm.state.error or "")
    vm.set_window("openai", "gpt-4o", 64_000, 64_000)
    assert "smaller than the context window" in (vm.state.error or "")
    vm.set_window("openai", "gpt-4o", 64_000, None)
    qtbot.waitUntil(lambda: any(m.id == "gpt-4o" and m.user_window for m in vm.state.models))


def test_compaction_settings_out_of_range_are_refused_naming_the_field(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.save_context_settings(replace(ContextSettings(), compact_threshold_ratio=0.99))
    qtbot.waitUntil(lambda: vm.state.error == "The compaction threshold must be between 30% and 98% of the window.")
    vm.save_context_settings(replace(ContextSettings(), protected_window_ratio=0.5, compact_threshold_ratio=0.45))
    qtbot.waitUntil(lambda: "smaller than the compaction threshold" in (vm.state.error or ""))
    assert backend.settings == ContextSettings()  # nothing invalid was stored
    vm.save_context_settings(replace(ContextSettings(), compact_threshold_ratio=0.7, pruning_enabled=False))
    qtbot.waitUntil(lambda: vm.state.message == "Compaction settings saved.")
    assert backend.settings.compact_threshold_ratio == 0.7 and not backend.settings.pruning_enabled


def test_agents_are_added_and_deleted(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.save_agent(replace(backend.agents[0], id="", name="  "))
    assert vm.state.error == "An agent needs a name."
    vm.save_agent(replace(backend.agents[0], id="", name="Coder", system_prompt="Write code."))
    qtbot.waitUntil(lambda: any(a.name == "Coder" for a in vm.state.agents))
    coder = next(a for a in vm.state.agents if a.name == "Coder")
    vm.delete_agent(coder.id)
    qtbot.waitUntil(lambda: all(a.name != "Coder" for a in vm.state.agents))


def test_memories_are_edited_and_deleted(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.update_memory("m1", "  ")
    assert "cannot be empty" in (vm.state.error or "")
    vm.update_memory("m1", "The user prefers imperial units.")
    qtbot.waitUntil(lambda: vm.state.memories[0].content == "The user prefers imperial units.")
    vm.delete_memory("m1")
    qtbot.waitUntil(lambda: vm.state.memories == ())


def test_changes_to_keys_models_and_agents_tell_the_header_to_reload(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    with qtbot.waitSignal(vm.catalog_changed, timeout=3000):
        vm.set_key("gemini", "g-key")
    idle(qtbot, vm)


def test_adding_an_endpoint_lists_its_models(qtbot, backend, worker) -> None:
    from domain.models import AiModel

    backend.models.append(AiModel("llama3.1:8b", None, "ollama", context_window_size=131_072))
    vm = loaded(qtbot, backend, worker)
    vm.add_endpoint("Ollama", "http://localhost:11434/v1")
    qtbot.waitUntil(lambda: any(m.id == "llama3.1:8b" for m in vm.state.models) and not vm.state.busy)
    assert vm.state.message == "1 model listed."


def test_a_model_can_be_added_by_id_with_its_window(qtbot, backend, worker) -> None:
    vm = loaded(qtbot, backend, worker)
    vm.set_window("openai", "my model", 8192, None)
    assert "exactly as the provider names it" in (vm.state.error or "")
    vm.set_window("openai", "gpt-4o", 32_768, None)
    qtbot.waitUntil(lambda: any(m.id == "gpt-4o" and m.context_window_size == 32_768 for m in vm.state.models))
