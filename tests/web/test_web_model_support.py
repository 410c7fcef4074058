"""Which Anthropic models take the web search tool: the registry marks Claude 3 (and older) as not taking it, the
Models API's capabilities.server_tools.web_search wins, the picker's globe is off for such a model, the tool is not
sent for it and the turn says why, and the fake answers the tool for such a model with the API's refusal."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from data.registry import load_registry
from data.registry.capabilities import anthropic_capabilities
from domain.models import AiModel, ModelCapabilities, Provider, ProviderType
from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info, refusal
from ui.backend import ProviderInfo
from ui.viewmodels.app import build_choices
from ui.widgets.header import web_tip

KEY = "sk-web-model-key-1"
OLD = "claude-3-haiku-20240307"


def test_the_registry_marks_claude_3_and_older_as_without_web_search_and_later_models_with_it() -> None:
    registry = load_registry()
    for model_id in (OLD, "claude-3-opus-20240229", "claude-2.1"):
        caps = registry.capabilities(model_id)
        assert caps is not None and caps.web_search is False, model_id
    for model_id in ("claude-3-5-haiku-20241022", "claude-3-7-sonnet-20250219", "claude-sonnet-4-6", "claude-next-9"):
        caps = registry.capabilities(model_id)
        assert caps is not None and caps.web_search is True, model_id


def test_the_models_api_report_of_the_web_search_tool_is_read() -> None:
    no, yes = SimpleNamespace(supported=False), SimpleNamespace(supported=True)
    info = SimpleNamespace(capabilities=SimpleNamespace(
        thinking=SimpleNamespace(supported=False, types=None), effort=None, image_input=yes, pdf_input=yes,
        server_tools=SimpleNamespace(supported=False, code_execution=no, web_search=no)))
    caps = anthropic_capabilities(info)
    assert caps is not None and caps.web_search is False and caps.source("web_search") is not None


def test_the_picker_offers_the_globe_only_for_a_model_that_takes_web_search() -> None:
    provider = ProviderInfo(Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC), "keychain")
    models = [AiModel(OLD, "Claude Haiku 3", "anthropic", context_window_size=200_000,
                      capabilities=ModelCapabilities(web_search=False)),
              AiModel("claude-sonnet-4-6", "Claude Sonnet 4.6", "anthropic", context_window_size=200_000,
                      capabilities=ModelCapabilities(web_search=True)),
              AiModel("claude-unknown", "Claude Unknown", "anthropic", context_window_size=200_000)]
    choices = {c.selection.model_id: c for c in build_choices([provider], models)}
    assert {k: c.web_search for k, c in choices.items()} == {OLD: False, "claude-sonnet-4-6": True,
                                                             "claude-unknown": True}
    old = choices[OLD]
    assert web_tip(old.provider_name, old.web_search, False, old.label if old.web_search_refused else None) == (
        "Web search: Claude Haiku 3 does not take Anthropic's web search (pick a model that does).")


def test_the_fake_refuses_the_search_tool_for_a_model_without_it_as_the_api_does() -> None:
    body = {"model": OLD, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "web_search_20250305", "name": "web_search"}]}
    # the API's wording for a tool type a model does not take (UKGovernmentBEIS/inspect_ai#3179 quotes a real body)
    assert refusal(body, [model_info(OLD, thinking="none", web_search=False)]) == (
        f"'{OLD}' does not support tool types: web_search_20250305.")
    assert refusal(body, [model_info(OLD, thinking="none")]) is None


def test_chat_web_search_with_a_model_without_it_sends_no_search_tool_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": ""}
    models = [model_info(OLD, thinking="none", web_search=False, display_name="Claude Haiku 3")]
    with FakeAnthropicServer(ScriptedBrain([Reply.of_text("Hello.")]), api_key=KEY, models=models) as server:
        env["ANTHROPIC_BASE_URL"] = server.base_url
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)
        done = cli.run("chat", "-p", "anthropic", "-m", OLD, "--web-search", "Weather?", subprocess_run=False)
        turns = [r.raw for r in server.requests if "http_request" in r.tool_names]
    assert done.code == 0, done.err
    assert turns and not [t for t in turns[-1].get("tools", []) if str(t.get("type", "")).startswith("web_search")]
    assert "does not take Anthropic's web search" in done.err
    assert done.out.startswith("Hello.")
