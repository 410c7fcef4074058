"""What a model accepts besides text: its thinking form and effort levels, images, PDFs, tools, and the source of
each value."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ThinkingForm(StrEnum):
    """How a model takes reasoning on the wire: not at all, as a token budget, as an effort it may act on (and can
    be turned off), or always (only the effort can be set)."""

    NONE = "none"
    BUDGET = "budget"  # Anthropic thinking.type "enabled" + budget_tokens; Gemini 2.5 thinking_budget
    ADAPTIVE = "adaptive"  # Anthropic thinking.type "adaptive" + output_config.effort; can be turned off
    ALWAYS_ON = "always_on"  # reasons on every request; the effort is the only control


class CapabilitySource(StrEnum):
    """Where one capability value of a model comes from."""

    PROVIDER_API = "provider_api"  # the provider's model list / model info
    REGISTRY = "registry"  # the shipped registry's entry for this model id
    FAMILY = "family"  # the registry's family pattern matching an unknown id
    USER = "user"


REASONING_EFFORTS = ("low", "medium", "high", "max")  # the effort levels of the reasoning setting, in order


@dataclass(frozen=True)
class ModelCapabilities:
    """What a model accepts besides text (thinking form, effort levels, images, PDFs, tools, web search) and where
    each known value came from (`sources`: field name -> source). None: not known."""

    thinking: ThinkingForm = ThinkingForm.NONE
    efforts: tuple[str, ...] = ()  # effort levels the provider accepts for the model (may include e.g. "xhigh")
    default_effort: str | None = None
    hides_thinking: bool = False  # thinking text is omitted unless asked for (Anthropic thinking.display)
    thinks_by_default: bool = False  # reasons when the request says nothing about it (always true when always on)
    vision: bool | None = None
    pdf_input: bool | None = None
    audio_input: bool | None = None  # takes audio parts (Gemini inline_data, Chat Completions input_audio)
    tool_use: bool | None = None
    web_search: bool | None = None  # takes the provider's web search server tool (Anthropic: not every model)
    web_fetch: bool | None = None  # takes Anthropic's web fetch server tool
    sources: tuple[tuple[str, CapabilitySource], ...] = ()

    def source(self, name: str) -> CapabilitySource | None:
        """Where the value of field `name` came from (max_output_tokens / context_window included), if known."""
        return next((source for field_name, source in self.sources if field_name == name), None)

    def reasoning_levels(self) -> tuple[str, ...]:
        """The reasoning settings (domain.settings.REASONING_LEVELS) that mean something for this model, in order."""
        if self.thinking is ThinkingForm.NONE:
            return ("off",)
        if self.thinking is ThinkingForm.BUDGET or not self.efforts:
            levels: tuple[str, ...] = REASONING_EFFORTS
        else:
            levels = tuple(level for level in REASONING_EFFORTS if level in self.efforts)
        # a model that always reasons offers "off" only when it takes an effort of none (GPT-6.1 Terra, GPT-6 Luna)
        stops = self.thinking is not ThinkingForm.ALWAYS_ON or "none" in self.efforts
        head = ("off", "auto") if stops else ("auto",)
        return head + levels

    @property
    def thinks_unasked(self) -> bool:
        """Whether the model reasons on a request that does not ask for it (the provider's default)."""
        return self.thinking is ThinkingForm.ALWAYS_ON or (self.thinking is not ThinkingForm.NONE
                                                           and self.thinks_by_default)


def reads_pdfs(caps: ModelCapabilities | None) -> bool:
    """Whether a model is known to read PDFs: unknown (no capabilities, or pdf_input not known) counts as no, so an
    OpenAI-compatible server's unlisted model is sent a PDF's extracted text rather than a file part it may refuse."""
    return caps is not None and caps.pdf_input is True
