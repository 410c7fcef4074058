"""SessionsViewModel and AppViewModel against the fake backend."""

from __future__ import annotations

from domain.models import AiModel, Provider, ProviderType
from tests.ui.fake_backend import FakeChatBackend
from ui.backend import ProviderInfo, Selection
from ui.viewmodels.app import AppViewModel, build_choices
from ui.viewmodels.sessions import SessionsViewModel


def loaded(qtbot, vm: SessionsViewModel) -> SessionsViewModel:
    vm.refresh()
    qtbot.waitUntil(lambda: not vm.state.loading)
    return vm


def test_sessions_are_listed_newest_first(qtbot, backend, worker) -> None:
    backend.add_session("Old", minutes_ago=600)
    backend.add_session("New", minutes_ago=1)
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    assert [s.title for s in vm.state.sessions] == ["New", "Old"]


def test_search_shows_hits_and_an_empty_query_shows_every_session_again(qtbot, backend, worker) -> None:
    backend.add_session("Trip", ["Book a hotel in Lisbon", "Done"])
    backend.add_session("Code", ["Fix the parser", "Done"])
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    vm.search("lisbon")
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    assert [h.title for h in vm.state.hits or ()] == ["Trip"]
    vm.search("  ")
    assert vm.state.hits is None and vm.state.query == ""


def test_renaming_to_a_blank_title_is_refused_with_a_message(qtbot, backend, worker) -> None:
    s = backend.add_session("Trip")
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    vm.rename(s.id, "   ")
    assert vm.state.error == "A session title cannot be empty."
    assert backend.sessions[s.id].title == "Trip"


def test_renaming_updates_the_list(qtbot, backend, worker) -> None:
    s = backend.add_session("Trip")
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    vm.rename(s.id, "Lisbon in May")
    qtbot.waitUntil(lambda: vm.state.sessions[0].title == "Lisbon in May")


def test_deleting_offers_undo_and_undo_brings_the_session_back(qtbot, backend, worker) -> None:
    s = backend.add_session("Trip")
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    vm.delete(s.id)
    qtbot.waitUntil(lambda: vm.state.deleted is not None)
    assert vm.state.sessions == ()
    vm.undo_delete()
    qtbot.waitUntil(lambda: len(vm.state.sessions) == 1 and vm.state.deleted is None)
    assert backend.sessions[s.id].deleted_at is None


def test_deleting_the_open_session_opens_a_new_chat(qtbot, backend, worker) -> None:
    s = backend.add_session("Trip")
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    opened: list[object] = []
    vm.opened.connect(opened.append)
    vm.select(s.id)
    vm.delete(s.id)
    qtbot.waitUntil(lambda: vm.state.deleted is not None)
    assert opened == [s.id, None]


def test_a_changed_session_moves_to_the_top(qtbot, backend, worker) -> None:
    a = backend.add_session("A", minutes_ago=5)
    backend.add_session("B", minutes_ago=1)
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    vm.upsert(a)
    assert [s.title for s in vm.state.sessions] == ["A", "B"]


def test_first_run_is_shown_when_no_provider_has_a_key(qtbot, worker) -> None:
    vm = AppViewModel(FakeChatBackend(), worker)
    vm.load()
    qtbot.waitUntil(lambda: not vm.state.loading)
    assert vm.state.first_run
    vm.dismiss_first_run()
    assert not vm.state.first_run


def test_first_run_is_skipped_once_a_key_exists(qtbot, backend, worker) -> None:
    vm = AppViewModel(backend, worker)
    vm.load()
    qtbot.waitUntil(lambda: not vm.state.loading)
    assert not vm.state.first_run and vm.state.choices


def test_the_keychain_problem_reaches_the_first_run_state(qtbot, worker) -> None:
    vm = AppViewModel(FakeChatBackend(keychain_problem="keyring found no backend"), worker)
    vm.load()
    qtbot.waitUntil(lambda: not vm.state.loading)
    assert vm.state.startup is not None and vm.state.startup.keychain_problem == "keyring found no backend"


def test_a_local_openai_compatible_server_counts_as_configured(qtbot, worker) -> None:
    backend = FakeChatBackend()
    backend.providers["ollama"] = Provider("ollama", "Ollama", ProviderType.OPENAI_COMPATIBLE,
                                           "http://localhost:11434/v1")
    vm = AppViewModel(backend, worker)
    vm.load()
    qtbot.waitUntil(lambda: not vm.state.loading)
    assert not vm.state.first_run


def test_model_choices_put_providers_with_keys_and_default_models_first() -> None:
    providers = [ProviderInfo(Provider("openai", "OpenAI", ProviderType.OPENAI)),
                 ProviderInfo(Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC), "environment")]
    models = [AiModel("gpt-4o", None, "openai", True), AiModel("claude-b", "B", "anthropic"),
              AiModel("claude-a", "A", "anthropic", True)]
    choices = build_choices(providers, models)
    assert [c.selection for c in choices] == [Selection("anthropic", "claude-a"), Selection("anthropic", "claude-b"),
                                              Selection("openai", "gpt-4o")]
    assert choices[2].label == "gpt-4o" and choices[0].provider_name == "Anthropic"


def test_empty_sessions_are_listed_only_while_open_and_never_as_search_hits(qtbot, backend, worker) -> None:
    full = backend.add_session("New chat about trains", ["Trains to Porto?", "Every hour."], minutes_ago=3)
    empty = backend.add_session("New chat")
    vm = loaded(qtbot, SessionsViewModel(backend, worker))
    assert [s.id for s in vm.state.sessions] == [empty.id, full.id]  # what the backend lists
    assert [s.id for s in vm.state.listed] == [full.id]
    vm.select(empty.id)
    assert [s.id for s in vm.state.listed] == [empty.id, full.id]
    vm.new_chat()
    assert [s.id for s in vm.state.listed] == [full.id]
    vm.search("new chat")
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    assert {h.session_id for h in vm.state.hits or ()} == {full.id, empty.id}  # both titles match
    assert [h.session_id for h in vm.state.listed_hits or ()] == [full.id]
