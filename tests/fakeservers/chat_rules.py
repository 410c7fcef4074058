"""The reasoning rules OpenAI's Chat Completions endpoint enforces, with its real 400 bodies' messages.

From GPT-5.2 on, OpenAI's reasoning models refuse function tools with a reasoning effort other than none on
/v1/chat/completions (the message names the model; quoted in openai/openai-openapi#541 for gpt-5.4, in issues of
webmcp-tools, atlas-ui-3 and goose for gpt-5.6-terra, -luna and -sol, and in sub2api and 9router for gpt-6-astra).
The effort a request does not set is the model's default: none for GPT-5.2 to 5.5, medium from GPT-5.6 on (atlas-ui-3:
"These models default to medium effort, so the incompatibility is triggered by the default"). The "-chat" models
do not reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tests.fakeservers.responses_rules import Refusal, efforts_of, reasons

_TOOLS_WITHOUT_EFFORT = re.compile(r"^gpt-(?:5\.(?:[2-9]|\d{2,})|(?:[6-9]|\d{2,}))(?:[.-]|$)")
_DEFAULT_MEDIUM = re.compile(r"^gpt-(?:5\.(?:[6-9]|\d{2,})|(?:[6-9]|\d{2,}))(?:[.-]|$)")


def default_effort(model: str) -> str:
    """The effort a request that sets none gets."""
    return "medium" if _DEFAULT_MEDIUM.match(model.lower()) else "none"


def check(body: Mapping[str, Any]) -> None:
    """Raises Refusal for a reasoning_effort the model does not take, and for function tools with an effort other
    than none on a model that refuses them."""
    model = str(body.get("model") or "")
    name = model.lower()
    effort = body.get("reasoning_effort")
    if effort is not None and reasons(model):
        efforts = efforts_of(model)
        if effort not in efforts:
            listed = ", ".join(f"'{e}'" for e in efforts[:-1]) + f", and '{efforts[-1]}'"
            raise Refusal(f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model. "
                          f"Supported values are: {listed}.", "reasoning_effort", "unsupported_value")
    tools = [t for t in body.get("tools") or [] if t.get("type") == "function"]
    if not tools or "-chat" in name or not _TOOLS_WITHOUT_EFFORT.match(name):
        return
    if (effort if effort is not None else default_effort(name)) != "none":
        raise Refusal(f"Function tools with reasoning_effort are not supported for {model} in /v1/chat/completions. "
                      "To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
                      "reasoning_effort", None)
