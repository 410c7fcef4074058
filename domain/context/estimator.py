"""Content-aware token estimation with per-message caching and per-model calibration."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.attachment import Attachment, AttachmentKind
from domain.context.running_sums import RunningSums
from domain.context.text_tokens import TextEstimates, weighted_tokens
from domain.documents import CARD_MAX_CHARS
from domain.models import Message, ModelId, ProviderType, ToolDefinition
from domain.ports import CalibrationStore
from domain.provider_rules import ProviderRules
from domain.web import sources_text

AUDIO_TOKENS_PER_SECOND = 32  # Gemini's audio rate (ai.google.dev audio understanding); OpenAI's is lower
MESSAGE_OVERHEAD = 4
KEPT_OBJECTS = 4_096  # message objects kept with their estimate by identity (all dropped past this: bounds memory)
CARD_TOKENS = math.ceil(CARD_MAX_CHARS / 3)  # a document card (domain.documents) at its longest, 3 chars a token
TOOL_OVERHEAD = 8
REQUEST_OVERHEAD = 3
CALIBRATION_SMOOTHING = 0.3
# Learned ratios stay within these bounds: the estimate runs a little high on purpose, so a ratio somewhat under 1
# is normal, but a much lower one would make overflows likely. Reports outside the plausible range (a usage
# figure that left out cached tokens, say) are ignored, as are tiny requests dominated by provider overhead.
CALIBRATION_MIN, CALIBRATION_MAX = 0.7, 2.5
PLAUSIBLE_MIN, PLAUSIBLE_MAX = 0.25, 4.0
CALIBRATION_MIN_TOKENS = 500
ATTACHMENT_CALIBRATION_SHARE = 0.5  # attachment estimates are learned only from requests they make at least half of
# Attachments: a text file (or a PDF sent as its text) by its characters, with its heading; without a provider's
# rule (a stored attachment measured outside any request) a generous image and page figure
TEXT_FILE_CHARS_PER_TOKEN = 3.5
ATTACHMENT_HEADING_TOKENS = 16
UNPRICED_IMAGE_TOKENS = 1_600
UNPRICED_PDF_PAGE_TOKENS = 2_000
PDF_PAGE_PT = (612.0, 792.0)  # a PDF whose page size was not read: US Letter


SAFE_CHARS_PER_TOKEN = 3  # the other way round: characters that surely fit in a number of tokens (dense text)


def chars_within(tokens: int) -> int:
    """Characters of any text that surely fit in `tokens` tokens (sizing a transcript chunk before it exists)."""
    return max(0, tokens) * SAFE_CHARS_PER_TOKEN


def calibration_key(provider_id: str, model_id: str) -> str:
    """The key under which a model's calibration ratio is stored."""
    return f"{provider_id}/{model_id}"


def attachment_calibration_key(model_key: str) -> str:
    """The key of a model's separate calibration of rule-priced attachments (images and PDF pages)."""
    return f"{model_key}#attachments"


@dataclass(frozen=True)
class RequestSize:
    """A request's raw estimate and the parts of it that attachments take: those the provider counted itself
    (`exact`, never scaled) and those priced by its published rule (`ruled`, scaled by their own calibration)."""

    raw: int
    exact: int = 0
    ruled: int = 0

    @property
    def text(self) -> int:
        """Everything but native attachments: text, tool calls and results, placeholders, reasoning sent back."""
        return self.raw - self.exact - self.ruled

    def plus(self, tokens: int) -> RequestSize:
        """The same request with `tokens` more of text."""
        return RequestSize(self.raw + tokens, self.exact, self.ruled)


def request_size(raw: int, messages: Sequence[Message]) -> RequestSize:
    """The size of a request whose raw estimate is `raw`, with its native attachments' share taken apart."""
    exact = ruled = 0
    for message in messages:
        for attachment in message.attachments:
            if attachment.omitted or attachment.as_text or attachment.card or attachment.kind is AttachmentKind.TEXT:
                continue
            if attachment.exact:
                exact += attachment.tokens
            else:
                ruled += attachment.tokens
    return RequestSize(raw, exact, ruled)


def chars_over_four(text: str) -> int:
    """The seeds' baseline: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


def _weigh(text: str) -> int:
    return max(chars_over_four(text), weighted_tokens(text))


def message_floor(content: int, tool_input: int, tool_name: int, tool_output: int) -> int:
    """A message's tokens from the lengths of its parts alone (characters/4 each, rounded up, and its framing): the
    least `TokenEstimator.estimate_message` gives it, attachments aside."""
    return (MESSAGE_OVERHEAD + (content + 3) // 4 + (tool_input + 3) // 4 + ((tool_name + 3) // 4 if tool_input else 0)
            + (tool_output + 3) // 4)


class TokenEstimator:
    """Estimates tokens from text shape (prose, code, JSON, CJK, base64), never below characters/4."""

    def __init__(self, calibration: CalibrationStore | None = None, rules: ProviderRules | None = None) -> None:
        self._calibration = calibration
        self.rules = rules
        self._cache: dict[tuple[str, int, int, int, int, int], int] = {}
        self._by_object: dict[int, tuple[Message, int]] = {}  # id(message): the message (kept: ids stay unique), tokens
        self._tools: dict[tuple[str, str], tuple[Mapping[str, Any], int]] = {}  # per definition: its schema, tokens
        self._ratios: dict[str, float] = {}
        self._learned: dict[str, float | None] = {}  # the stored ratio per model as last read or written
        self._sums = RunningSums()  # a request's messages summed, for the gauge and the next request to add to
        self._texts = TextEstimates()  # longer texts by value: a turn estimates its system prompt several times

    def estimate_text(self, text: str) -> int:
        """Tokens of a piece of text; 0 for the empty string, else at least characters/4."""
        return self._texts.tokens(text, _weigh) if text else 0

    def estimate_opaque(self, data: str) -> int:
        """Tokens of opaque data sent back as it came (base64 of encrypted reasoning): the bytes it decodes to
        (three quarters of its characters), at four a token."""
        return len(data) * 3 // 16

    def estimate_message(self, message: Message) -> int:
        """Tokens of one message as sent (content, tool call input or tool output), cached per id and sizes.

        A pruned copy of a message (same id, shorter output) gets its own entry, so the original stays cached. The
        same message object (frozen) is answered by identity first: a turn estimates each message of its request
        several times (plan, prune, the gauge)."""
        seen = self._by_object.get(id(message))
        if seen is not None and seen[0] is message:
            return seen[1]
        tokens = self._estimate_message(message)
        if len(self._by_object) >= KEPT_OBJECTS:
            self._by_object.clear()
        self._by_object[id(message)] = (message, tokens)
        return tokens

    def _estimate_message(self, message: Message) -> int:
        key = (message.id, len(message.content), len(message.tool_input or ""), len(message.tool_output or ""),
               sum(a.tokens or self.attachment_tokens(a) for a in message.attachments) if message.attachments else 0,
               len(message.web.blocks or "") if message.web is not None else -1)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        tokens = MESSAGE_OVERHEAD + self.estimate_text(message.content) + key[4]
        if message.tool_input:
            tokens += self.estimate_text(message.tool_input) + self.estimate_text(message.tool_name or "")
        if message.tool_output:
            tokens += self.estimate_text(message.tool_output)
        if message.web is not None:
            tokens += self.web_tokens(message)
        self._cache[key] = tokens
        return tokens

    def web_tokens(self, message: Message) -> int:
        """Tokens a searched reply adds to its text: the provider's search blocks (opaque page content counted as
        opaque data), or, pruned, the sources listed after the text. Estimated with the sources listed whatever the
        provider: another one gets them as text, its own the blocks (which are larger)."""
        web = message.web
        if web is None:
            return 0
        if web.blocks is None:
            return self.estimate_text(sources_text(web))
        return self.estimate_opaque(web.blocks)

    def estimate_chars(self, chars: int) -> int:
        """Tokens of a text known only by its length (an attachment's, kept in the file store)."""
        return math.ceil(max(0, chars) / TEXT_FILE_CHARS_PER_TOKEN)

    def attachment_tokens(
        self, attachment: Attachment, provider_type: ProviderType | None = None, model_id: ModelId | None = None,
        counts: Mapping[tuple[str, str], int] | None = None,
    ) -> int:
        """Input tokens of an attachment sent to this provider and model in the form it is set for (native, or as
        its text): the provider's stored count when one exists (see `counted`), else its published rule."""
        if attachment.kind is AttachmentKind.TEXT or attachment.as_text:
            return self.estimate_chars(attachment.text_chars or 0) + ATTACHMENT_HEADING_TOKENS
        found = self.counted(attachment, provider_type, model_id, counts)
        if found is not None:
            return found
        if attachment.kind is AttachmentKind.AUDIO:  # Gemini: 32 tokens a second (unknown length: 128 kbit/s)
            seconds = attachment.duration_ms / 1000 if attachment.duration_ms is not None else attachment.size / 16_000
            return max(1, math.ceil(seconds * AUDIO_TOKENS_PER_SECOND))
        rules = self.rules if provider_type is not None else None
        if attachment.kind is AttachmentKind.PDF:
            pages = max(1, attachment.pages or 1)
            if rules is None or provider_type is None:
                return UNPRICED_PDF_PAGE_TOKENS * pages
            width, height = (attachment.width, attachment.height) if attachment.width and attachment.height \
                else PDF_PAGE_PT
            tokens = rules.pdf_page_tokens(provider_type, width, height) * pages
            if rules.pdf_counts_text(provider_type):
                tokens += self.estimate_chars(attachment.text_chars or 0)
            return tokens
        if rules is None or provider_type is None:
            return UNPRICED_IMAGE_TOKENS
        return rules.image_tokens(provider_type, attachment.width or 1024, attachment.height or 1024)

    def counted(
        self, attachment: Attachment, provider_type: ProviderType | None, model_id: ModelId | None,
        counts: Mapping[tuple[str, str], int] | None,
    ) -> int | None:
        """The provider's own count of the attachment for this model's family, when one is stored."""
        if not counts or self.rules is None or provider_type is None or model_id is None:
            return None
        return counts.get((attachment.sha256, self.rules.count_key(provider_type, model_id)))

    def estimate_messages(self, messages: Sequence[Message]) -> int:
        """Sum of the messages' estimates (a long list that starts with one summed before adds its new ones only)."""
        return sum(self._sums.split(messages, self.estimate_message) or ())

    def estimate_split(self, messages: Sequence[Message], limit: int | None = None) -> tuple[int, int] | None:
        """(tool results, every other message) in tokens; see RunningSums.split for `limit`."""
        return self._sums.split(messages, self.estimate_message, limit)

    def estimate_tools(self, tools: Sequence[ToolDefinition]) -> int:
        """Tokens of the tool definitions as a provider serializes them."""
        total = 0
        for tool in tools:
            kept = self._tools.get((tool.name, tool.description))
            if kept is not None and kept[0] is tool.parameters:  # the same definition: its schema is not re-read
                total += kept[1]
                continue
            schema = json.dumps(dict(tool.parameters), separators=(",", ":"), sort_keys=True, default=str)
            tokens = TOOL_OVERHEAD + self.estimate_text(tool.name) + self.estimate_text(tool.description)
            tokens += self.estimate_text(schema)
            self._tools[(tool.name, tool.description)] = (tool.parameters, tokens)
            total += tokens
        return total

    def estimate_request(
        self,
        system_prompt: str | None,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        model_key: str | None = None,
    ) -> int:
        """Tokens of a whole request, scaled by the model's learned calibration when one exists."""
        raw = REQUEST_OVERHEAD + self.estimate_text(system_prompt or "")
        raw += self.estimate_messages(messages) + self.estimate_tools(tools)
        return self.apply_calibration(raw, model_key)

    def ratio(self, model_key: str | None) -> float:
        """The calibration ratio (reported / estimated) for a model; 1.0 when unknown."""
        if model_key is None:
            return 1.0
        if model_key not in self._ratios:
            stored = self._stored(model_key)
            self._ratios[model_key] = stored if stored is not None else 1.0
        return self._ratios[model_key]

    def _stored(self, model_key: str) -> float | None:
        """The learned ratio, read from the store once per model (this estimator writes every later change)."""
        if model_key not in self._learned:
            self._learned[model_key] = self._calibration.get(model_key) if self._calibration is not None else None
        return self._learned[model_key]

    def apply_calibration(self, raw: int, model_key: str | None) -> int:
        """Scales a raw estimate (model_key=None) by the model's learned ratio."""
        ratio = self.ratio(model_key)
        return int(raw * ratio + 0.999) if ratio != 1.0 else raw

    def calibrated(self, size: RequestSize, model_key: str | None) -> int:
        """A request's estimate: its text scaled by the model's learned ratio, attachments the provider counted as
        they are, rule-priced ones by their own learned ratio (a picture of the request that never mixes the two)."""
        if model_key is None:
            return size.raw
        ruled = size.ruled
        if ruled:
            ruled = self.apply_calibration(ruled, attachment_calibration_key(model_key))
        return self.apply_calibration(size.text, model_key) + size.exact + ruled

    def learn(self, model_key: str, reported_input_tokens: int, size: RequestSize) -> None:
        """Learns from a provider's reported input tokens for a request of this size: the text ratio from requests
        whose attachments were all counted by the provider (their count taken off), the attachments' ratio from
        requests mostly made of rule-priced attachments (the calibrated text taken off); never both from one."""
        if reported_input_tokens <= 0:
            return
        if not size.ruled:
            self.calibrate(model_key, reported_input_tokens - size.exact, size.text)
        elif size.ruled >= ATTACHMENT_CALIBRATION_SHARE * size.raw:
            text = self.apply_calibration(size.text, model_key)
            self.calibrate(attachment_calibration_key(model_key), reported_input_tokens - size.exact - text,
                           size.ruled)

    def calibrate(self, model_key: str, reported_input_tokens: int, estimated_tokens: int) -> None:
        """Learns reported/estimated (smoothed, persisted); pass the RAW estimate, i.e. estimate_request(..., None)."""
        if reported_input_tokens <= 0 or estimated_tokens < CALIBRATION_MIN_TOKENS:
            return
        observed = reported_input_tokens / estimated_tokens
        if not PLAUSIBLE_MIN <= observed <= PLAUSIBLE_MAX:
            return
        observed = min(CALIBRATION_MAX, max(CALIBRATION_MIN, observed))
        previous = self._stored(model_key)
        ratio = observed if previous is None else previous + CALIBRATION_SMOOTHING * (observed - previous)
        self._ratios[model_key] = self._learned[model_key] = ratio
        if self._calibration is not None:
            self._calibration.put(model_key, ratio)
