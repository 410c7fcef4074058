"""The replay brain's thinking: whether a request runs with reasoning (per provider, as the real APIs decide it), how
much the model thinks at the level asked for, and the thought text streamed before the answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bench.replay_brain import BrainLog, ReplayBrain, last_user_turn
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply
from tests.fakeservers.gemini_rules import thinking_config, thinks
from tests.fakeservers.responses_rules import reasons

# thought words per effort (o200k: about 1.3 tokens a word); a round's thinking, not a whole hard problem's
THOUGHT_WORDS = {"minimal": 20, "low": 80, "medium": 200, "high": 420, "max": 700}
THOUGHT_CHUNK = 96  # characters per streamed thinking delta
_BUDGET_STEPS = ((0, "minimal"), (1_024, "low"), (4_096, "medium"), (16_384, "high"), (24_576, "max"))


def _level_of_budget(budget: int) -> str:
    level = "minimal"
    for floor, name in _BUDGET_STEPS:
        if budget >= floor:
            level = name
    return level


def _anthropic_effort(raw: Mapping[str, Any], request: NormalizedRequest) -> str | None:
    thinking = raw.get("thinking") or {}
    kind = thinking.get("type")
    if kind not in ("enabled", "adaptive"):
        return None
    _, results = last_user_turn(request)
    last = request.messages[-1] if request.messages else None
    continues_loop = last is not None and last.role == "user" and not last.text and bool(results)
    interleaved = "interleaved-thinking" in str(request.headers.get("anthropic-beta", ""))
    if continues_loop and kind == "enabled" and not interleaved:
        return None  # a budget model thinks once per assistant turn (no interleaved thinking without the beta)
    if kind == "enabled":
        return _level_of_budget(int(thinking.get("budget_tokens") or 0))
    return str((raw.get("output_config") or {}).get("effort") or "high")


def _gemini_effort(raw: Mapping[str, Any], model: str) -> str | None:
    if not thinks(model, raw):
        return None
    config = thinking_config(raw)
    if "thinkingLevel" in config:
        return str(config["thinkingLevel"]).lower()
    budget = config.get("thinkingBudget")
    return "medium" if budget is None or budget < 0 else _level_of_budget(int(budget))  # None/-1: dynamic


def _openai_effort(raw: Mapping[str, Any], model: str) -> str | None:
    if not reasons(model):
        return None
    return str((raw.get("reasoning") or {}).get("effort") or "medium")  # the API's default effort


def reasoning_effort(request: NormalizedRequest) -> str | None:
    """The effort a request makes its model think at (minimal / low / medium / high / max), or None when the model
    does not think for it: Anthropic when `thinking` is enabled or adaptive (a budget model not again inside its
    tool loop), Gemini whenever the model thinks (2.5 unless its budget is 0, 3 always), OpenAI's reasoning models
    always (their default effort is medium)."""
    raw = request.raw
    if request.flavour == "anthropic":
        return _anthropic_effort(raw, request)
    if request.flavour == "gemini":
        return _gemini_effort(raw, request.model)
    return _openai_effort(raw, request.model)


def thought(request: NormalizedRequest, answer: Reply, effort: str) -> tuple[str, ...]:
    """The thinking of one reply, in streamed pieces: a plan naming what the answer does, as long as the effort."""
    user_text, results = last_user_turn(request)
    topic = " ".join(user_text.split()[:12])
    if answer.tool_calls:
        step = f"I will call {answer.tool_calls[0].name} to get what the request needs."
    elif results:
        step = f"The tool returned {sum(len(r.text) for r in results)} characters; I will answer from them."
    else:
        step = "I can answer from the conversation so far."
    sentences = [f"The user wrote: {topic}.", step,
                 "Check the facts stated earlier, keep the answer short, and keep every value exactly as given."]
    words = THOUGHT_WORDS.get(effort, THOUGHT_WORDS["high"])
    text, n = "", 0
    while len(text.split()) < words:
        text += f" Step {n + 1}: {sentences[n % len(sentences)]}"
        n += 1
    text = text.strip()
    return tuple(text[i : i + THOUGHT_CHUNK] for i in range(0, len(text), THOUGHT_CHUNK))


class ThinkingBrain:
    """The replay brain with reasoning: every reply to a request that runs with reasoning streams thinking first
    (the fake servers then sign it, report reasoning tokens in their usage, and hold the app to the echo rules)."""

    def __init__(self, inner: ReplayBrain) -> None:
        self.inner = inner
        self.thought_replies = 0

    @property
    def log(self) -> BrainLog:
        """The inner brain's counters."""
        return self.inner.log

    def respond(self, request: NormalizedRequest) -> Answer:
        """The inner brain's answer, with thinking when the request runs with reasoning."""
        answer = self.inner.respond(request)
        effort = reasoning_effort(request)
        if not isinstance(answer, Reply) or effort is None:
            return answer
        self.thought_replies += 1
        return replace(answer, thinking=thought(request, answer, effort))
