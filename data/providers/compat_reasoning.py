"""The reasoning setting on Chat Completions servers: which server this is (from its base URL), the knob it takes for
a level (DeepSeek's reasoning_effort and thinking, OpenRouter's reasoning.effort, gpt-oss's reasoning_effort), and the
field its assistant turns carry the model's reasoning back in."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit


class Server(StrEnum):
    """The kind of Chat Completions server an adapter talks to, as far as reasoning goes."""

    OPENAI = "openai"  # OpenAI's own endpoint: unchanged here (its reasoning is the Responses API's)
    DEEPSEEK = "deepseek"  # api.deepseek.com: thinking on by default, reasoning_content required on tool-call turns
    OPENROUTER = "openrouter"  # openrouter.ai: `reasoning` in deltas and messages, reasoning.effort in requests
    COMPATIBLE = "compatible"  # vLLM, llama.cpp, Ollama, LM Studio, Qwen...: reasoning_content, knobs per model


_TOOLS_WITHOUT_EFFORT = re.compile(r"^gpt-(?:5\.(?:[2-9]|\d{2,})|(?:[6-9]|\d{2,}))(?:[.-]|$)")


def server_for(base_url: str | None, *, compatible: bool) -> Server:
    """The server kind of a base URL (an OpenAI provider pointed at OpenRouter or DeepSeek counts as those)."""
    host = (urlsplit(base_url or "").hostname or "").lower()
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return Server.OPENROUTER
    if host == "deepseek.com" or host.endswith(".deepseek.com"):
        return Server.DEEPSEEK
    return Server.COMPATIBLE if compatible else Server.OPENAI


def echo_field(server: Server) -> str | None:
    """The assistant message field a server reads the model's own earlier reasoning from (None: never sent)."""
    if server is Server.OPENAI:
        return None
    return "reasoning" if server is Server.OPENROUTER else "reasoning_content"


def tools_need_no_effort(model_id: str) -> bool:
    """Whether OpenAI's Chat Completions refuses function tools for this model unless its reasoning effort is none
    (GPT-5.2 on: "Function tools with reasoning_effort are not supported for <model> in /v1/chat/completions");
    from GPT-5.6 on the models reason by default, so a request that sets no effort is refused too."""
    name = model_id.lower()
    return "-chat" not in name and _TOOLS_WITHOUT_EFFORT.match(name) is not None


def reasoning_params(server: Server, model_id: str, level: str, efforts: Sequence[str] = (), *,
                     tools: bool = False) -> dict[str, Any]:
    """The request keywords for `level` (domain.settings.REASONING_LEVELS) on this server and model: `auto` and
    servers or models whose knob is not known get nothing (so nothing a server could refuse is sent).

    On OpenAI's own Chat Completions (`efforts`: the model's, empty when not known) `off` is effort none where the
    model takes it, and a request with function tools (`tools`) to a model that takes them only without reasoning
    there is sent with effort none whatever the level: the one request that endpoint accepts (the Responses API,
    the default for api.openai.com, keeps the reasoning). A model that takes no none is sent nothing: refused."""
    if server is Server.OPENAI:
        takes_none = "none" in efforts or not efforts
        if (tools and tools_need_no_effort(model_id) and takes_none) or (level == "off" and "none" in efforts):
            return {"reasoning_effort": "none"}
        return {}
    if level == "auto":
        return {}
    if server is Server.DEEPSEEK:
        if level == "off":
            return {"extra_body": {"thinking": {"type": "disabled"}}}
        # DeepSeek takes low / medium / high / max (medium counts as high) with thinking enabled
        return {"reasoning_effort": level, "extra_body": {"thinking": {"type": "enabled"}}}
    if server is Server.OPENROUTER:
        effort = {"off": "none", "max": "xhigh"}.get(level, level)
        return {"extra_body": {"reasoning": {"effort": effort}}}
    if "gpt-oss" in model_id.lower():  # vLLM, Ollama, llama.cpp and LM Studio take low / medium / high for gpt-oss
        return {"reasoning_effort": {"off": "low", "max": "high"}.get(level, level)}
    return {}
