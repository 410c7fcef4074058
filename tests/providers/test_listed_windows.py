"""Reading a window from each server's model list entry, and what a probe store keeps of a server and its answers."""

from __future__ import annotations

from data.providers.listed_windows import entries, listed_window, litellm_model_window, litellm_window
from data.providers.probe_store import pruned, server_key
from domain.models import ServerWindow, WindowSource
from tests.fakeservers.local_servers import listing_of

LISTED = WindowSource.PROVIDER_API


def test_each_providers_list_states_the_window_in_its_own_field():
    for form in ("vllm", "openrouter", "together", "fireworks", "groq", "mistral"):
        (entry,) = entries(listing_of(form, "m", 32_768))
        found = listed_window(entry)
        assert found is not None and (found.loaded, found.source) == (32_768, LISTED), form


def test_openrouter_plans_at_the_smaller_of_the_models_and_its_top_providers_context():
    entry = {"id": "m", "context_length": 200_000, "top_provider": {"context_length": 64_000, "is_moderated": False}}
    assert listed_window(entry) == ServerWindow("OpenRouter", 64_000, None, LISTED)
    entry = {"id": "m", "context_length": 200_000, "top_provider": {"context_length": None, "is_moderated": False}}
    assert listed_window(entry) == ServerWindow("OpenRouter", 200_000, None, LISTED)


def test_litellm_max_input_tokens_is_the_input_limit_and_legacy_max_tokens_only_counts_without_an_output_limit():
    assert litellm_window({"max_input_tokens": 128_000, "max_output_tokens": 16_384, "max_tokens": 16_384}) == \
        ServerWindow("LiteLLM", 128_000, None, LISTED, input_limit=128_000)
    assert litellm_window({"max_tokens": 16_384, "max_output_tokens": 16_384}) is None  # max_tokens is the output
    assert litellm_window({"max_tokens": 32_000}) == ServerWindow("LiteLLM", 32_000, None, LISTED, input_limit=32_000)


def test_a_litellm_model_group_takes_the_smallest_window_of_its_deployments():
    answer = {"data": [{"model_name": "team", "model_info": {"max_input_tokens": 128_000}},
                       {"model_name": "team", "model_info": {"max_input_tokens": 32_000}},
                       {"model_name": "other", "model_info": {"max_input_tokens": 8_000}}]}
    found = litellm_model_window(answer, "team")
    assert found is not None and found.loaded == 32_000
    assert litellm_model_window(answer, "missing") is None and litellm_model_window(None, "team") is None


def test_a_list_that_names_no_window_gives_none():
    assert listed_window({"id": "gpt-test-1", "object": "model", "owned_by": "openai"}) is None


def test_a_servers_key_never_holds_credentials_or_a_query():
    assert server_key("https://user:sk-secret@proxy.example:8443/v1/?api-key=sk-2#x") == "https://proxy.example:8443/v1"
    assert server_key("http://[::1]:11434/v1") == "http://[::1]:11434/v1"


def test_an_answer_is_kept_with_only_the_fields_windows_are_read_from():
    show = {"license": "x" * 10_000, "modelfile": "FROM llama", "parameters": "num_ctx 8192",
            "model_info": {"llama.context_length": 131_072, "general.parameter_count": 8_030_261_248}}
    assert pruned(show) == {"parameters": "num_ctx 8192", "model_info": {"llama.context_length": 131_072}}
