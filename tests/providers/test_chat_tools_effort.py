"""OpenAI's Chat Completions with function tools and a reasoning effort: from GPT-5.6 on the models reason by
default and refuse tools unless the effort is none. The app sends reasoning "off" as effort none where the model
takes it (so the turn goes through), and the refusal, where it still comes, tells the user what to change. The fake
server refuses as the real API does, with its 400 bodies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from data.registry import load_registry
from domain.errors import InvalidResponse
from domain.events import StreamDone, TextDelta
from domain.models import ModelCapabilities, ProviderType
from tests.fakeservers import FakeOpenAIServer, Reply, ScriptedBrain
from tests.providers.helpers import History, adapter_for, collect, post_json
from tests.providers.reasoning_helpers import send

REGISTRY = load_registry()
TOOLS_REFUSED = ("Function tools with reasoning_effort are not supported for {model} in /v1/chat/completions. To use "
                 "function tools, use /v1/responses or set reasoning_effort to 'none'.")


def caps(model: str) -> ModelCapabilities:
    found = REGISTRY.capabilities(model, "openai")
    assert found is not None
    return found


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return post_json(url + "/chat/completions", body, {"authorization": "Bearer k"})


TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize(("model", "effort", "refused"), [
    ("gpt-6.1-terra", None, True),  # the default effort (medium) counts
    ("gpt-6.1-terra", "high", True),
    ("gpt-6.1-terra", "none", False),
    ("gpt-5.6-luna", None, True),
    ("gpt-5.4", "low", True),
    ("gpt-5.4", None, False),  # GPT-5.2 to 5.5 default to none
    ("gpt-5", "high", False),  # before GPT-5.2 tools and reasoning go together
    ("gpt-5.2-chat-latest", None, False),
])
def test_the_fake_refuses_function_tools_with_an_effort_as_the_api_does(model: str, effort: str | None,
                                                                         refused: bool) -> None:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "hi"}], "tools": [TOOL]}
    if effort is not None:
        body["reasoning_effort"] = effort
    with FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("x"))) as fake:
        status, answer = post(fake.base_url, body)
        status_without_tools, _ = post(fake.base_url, {k: v for k, v in body.items() if k != "tools"})
    assert status_without_tools == 200
    if not refused:
        assert status == 200
        return
    assert status == 400
    assert answer["error"] == {"message": TOOLS_REFUSED.format(model=model), "type": "invalid_request_error",
                               "param": "reasoning_effort", "code": None}


def test_the_fake_refuses_an_effort_the_model_does_not_take() -> None:
    with FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("x"))) as fake:
        status, answer = post(fake.base_url, {"model": "gpt-6.1-sol", "reasoning_effort": "none",
                                              "messages": [{"role": "user", "content": "hi"}]})
    assert status == 400 and answer["error"]["code"] == "unsupported_value"
    assert answer["error"]["message"] == ("Unsupported value: 'reasoning_effort' does not support 'none' with this "
                                          "model. Supported values are: 'low', 'medium', 'high', 'xhigh', and 'max'.")


@pytest.mark.parametrize("level", ["auto", "off", "high", "max"])
async def test_a_tool_turn_goes_as_effort_none_whatever_the_level_so_the_endpoint_takes_it(level: str) -> None:
    with FakeOpenAIServer(ScriptedBrain(["Sunny."])) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url)
        events = await send(adapter, History().user("Weather?"), "gpt-6.1-terra", level,
                            capabilities=caps("gpt-6.1-terra"))
    assert fake.requests[-1].raw["reasoning_effort"] == "none" and fake.requests[-1].raw["tools"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Sunny."
    assert events[-1] == StreamDone("end_turn")


@pytest.mark.parametrize("model", ["gpt-5.6-luna", "gpt-5.4"])  # not in the registry: no efforts known
async def test_a_model_the_registry_does_not_know_is_sent_none_with_tools_too(model: str) -> None:
    with FakeOpenAIServer(ScriptedBrain(["Sunny."])) as fake:
        events = await send(adapter_for(ProviderType.OPENAI, fake.base_url), History().user("Weather?"), model)
    assert fake.requests[-1].raw["reasoning_effort"] == "none" and events[-1] == StreamDone("end_turn")


@pytest.mark.parametrize("level", ["auto", "off", "high"])
async def test_a_model_that_takes_no_none_is_refused_and_the_error_says_what_to_change(level: str) -> None:
    with FakeOpenAIServer(ScriptedBrain(["Sunny."])) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url)
        with pytest.raises(InvalidResponse) as caught:
            await send(adapter, History().user("Weather?"), "gpt-6.1-sol", level, capabilities=caps("gpt-6.1-sol"))
    assert "reasoning_effort" not in fake.log[-1].json()  # none would be refused as well (its efforts lack it)
    message = caught.value.message
    assert message.startswith("Openai refused the request: Function tools with reasoning_effort are not supported "
                              "for gpt-6.1-sol")
    assert "`palimpsest providers set Openai --api responses`" in message and "reasoning to Off" in message


async def test_without_tools_only_off_is_sent_as_effort_none() -> None:
    with FakeOpenAIServer(ScriptedBrain(["A.", "B.", "C."])) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url)
        for level in ("off", "high", "auto"):
            await send(adapter, History().user("hi"), "gpt-6-luna", level, tools=(), capabilities=caps("gpt-6-luna"))
    assert [r.raw.get("reasoning_effort") for r in fake.requests] == ["none", None, None]


async def test_the_responses_api_keeps_the_reasoning_with_tools() -> None:
    """The default for api.openai.com: tools and the asked effort go together there."""
    from tests.fakeservers.responses_server import FakeResponsesServer
    from tests.providers.test_responses import responses_adapter
    from tests.providers.test_responses import send as send_responses

    with FakeResponsesServer(ScriptedBrain([Reply(thinking=("Hm.",), text_chunks=("Sunny.",))])) as fake:
        await collect(send_responses(responses_adapter(fake.base_url), History().user("Weather?").messages,
                                     model="gpt-6.1-terra", caps=caps("gpt-6.1-terra"), reasoning="high"))
    assert fake.refusals == [] and fake.requests[-1].raw["reasoning"]["effort"] == "high"
    assert fake.requests[-1].raw["tools"]


async def test_a_whole_turn_of_the_openai_default_model_on_chat_completions_goes_through(tmp_path: Path) -> None:
    """The container's turn (its built-in tools, the OpenAI default model) with OpenAI pointed at another base URL,
    which speaks Chat Completions: sent with effort none and answered."""
    from app.container import Container
    from data.providers.factory import SdkAdapterFactory
    from data.providers.retry import RetryPolicy
    from domain.events import ChatError
    from tests.fakes_config import FakeApiKeyStorage
    from tests.fakeservers import fake_provider_servers
    from tests.providers.helpers import KEY, RecordingSleep

    with fake_provider_servers(ScriptedBrain(["Fine, thanks."])) as servers:
        factory = SdkAdapterFactory(env=servers.env(KEY), retry=RetryPolicy(max_retries=0, sleep=RecordingSleep()))
        c = Container.build(tmp_path / "home", adapter_factory=factory, keys=FakeApiKeyStorage({"openai": KEY}))
        try:
            session = c.create_session(provider_id="openai")
            events = [e async for e in c.send_message(session.id, "How are you?", provider_id="openai")]
            sent = [r.raw for r in servers.openai.requests]
        finally:
            c.close()
    assert not [e for e in events if isinstance(e, ChatError)]
    turn = [r for r in sent if r.get("tools")]
    assert len(turn) == 1 and turn[0]["model"] == "gpt-6.1-terra" and turn[0]["reasoning_effort"] == "none"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Fine, thanks."
