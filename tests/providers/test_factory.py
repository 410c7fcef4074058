"""The factory picks the adapter by provider type, the base URL from the row or the environment, and needs keys."""

from __future__ import annotations

import pytest

from data.providers.anthropic_adapter import AnthropicAdapter
from data.providers.factory import SdkAdapterFactory
from data.providers.gemini_adapter import GeminiAdapter
from data.providers.openai_adapter import OpenAIAdapter
from domain.errors import AuthenticationFailed, InvalidInput
from domain.events import TextDelta
from domain.models import Provider, ProviderType
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain
from tests.providers.helpers import KEY, History, collect, stream

CASES = [
    (ProviderType.ANTHROPIC, FakeAnthropicServer, "ANTHROPIC_BASE_URL", AnthropicAdapter),
    (ProviderType.OPENAI, FakeOpenAIServer, "OPENAI_BASE_URL", OpenAIAdapter),
    (ProviderType.GEMINI, FakeGeminiServer, "GOOGLE_GEMINI_BASE_URL", GeminiAdapter),
]


@pytest.mark.parametrize(("kind", "server_class", "variable", "adapter_class"), CASES, ids=lambda v: str(v))
async def test_without_a_row_base_url_the_environment_variable_is_used(kind, server_class, variable, adapter_class):
    with server_class(ScriptedBrain(["from env"])) as fake:
        factory = SdkAdapterFactory(max_retries=0, env={variable: fake.base_url})
        adapter = factory.create(Provider(id="p", name="P", type=kind), KEY)
        events = await collect(stream(adapter, History().user("hi")))
    assert isinstance(adapter, adapter_class)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "from env"


async def test_the_row_base_url_wins_over_the_environment():
    with FakeOpenAIServer(ScriptedBrain(["row"])) as fake:
        factory = SdkAdapterFactory(max_retries=0, env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
        adapter = factory.create(Provider(id="p", name="P", type=ProviderType.OPENAI, base_url=fake.base_url), KEY)
        await collect(stream(adapter, History().user("hi")))
    assert len(fake.requests) == 1


def test_the_process_environment_is_read_when_no_mapping_is_given(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1234")
    provider = Provider(id="p", name="P", type=ProviderType.ANTHROPIC)
    assert SdkAdapterFactory().base_url(provider) == "http://127.0.0.1:1234"


@pytest.mark.parametrize("kind", [ProviderType.ANTHROPIC, ProviderType.OPENAI, ProviderType.GEMINI])
def test_a_hosted_provider_without_a_key_is_an_authentication_error_saying_no_key_is_set(kind):
    with pytest.raises(AuthenticationFailed, match="No API key is set for P") as caught:
        SdkAdapterFactory(env={}).create(Provider(id="p", name="P", type=kind), "  ")
    assert caught.value.missing and "rejected" not in caught.value.message


def test_an_openai_compatible_provider_needs_a_base_url():
    with pytest.raises(InvalidInput, match="base URL"):
        SdkAdapterFactory(env={}).create(Provider(id="o", name="Ollama", type=ProviderType.OPENAI_COMPATIBLE), None)


def test_each_openai_compatible_provider_gets_its_own_base_url():
    factory = SdkAdapterFactory(env={})
    compatible = ProviderType.OPENAI_COMPATIBLE
    a = factory.create(Provider(id="a", name="A", type=compatible, base_url="http://127.0.0.1:1/v1"), None)
    b = factory.create(Provider(id="b", name="B", type=compatible, base_url="http://127.0.0.1:2/v1"), "k")
    assert isinstance(a, OpenAIAdapter) and isinstance(b, OpenAIAdapter)
    assert str(a._client.base_url) != str(b._client.base_url)
