"""How a request carries each attachment: natively while it is in the protected recent window, as a one-line
placeholder once it is older (cache-friendly steps), as extracted text for a model not known to read PDFs, and never
to a model that cannot take it; each priced in tokens for the provider it goes to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from domain.attachment import Attachment, AttachmentKind, placeholder
from domain.capabilities import reads_pdfs
from domain.context.estimator import CARD_TOKENS, MESSAGE_OVERHEAD, TokenEstimator
from domain.documents import goes_as_card, is_document
from domain.models import Message, MessageType, ModelCapabilities, ModelId, ProviderType
from domain.provider_rules import limit_problem

# The providers whose adapters send audio parts: Gemini inline_data, Chat Completions input_audio (the Responses API
# takes no audio input: "Invalid value: 'input_audio'" for input[i].content[j].type).
AUDIO_PROVIDERS = frozenset({ProviderType.GEMINI, ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE})
# Chat Completions' input_audio formats ("wav" | "mp3"): any other clip goes as its description (nothing transcoded).
CHAT_AUDIO_TYPES = frozenset({"audio/wav", "audio/mpeg"})
# The line before which attachments are replaced moves in steps of this share of the protected window, so the
# request prefix (and the provider's prompt cache) changes once per step rather than at every turn.
STEPS_PER_WINDOW = 2


@dataclass(frozen=True)
class AttachmentTarget:
    """Where a request's attachments go: the provider's type, the model and what it takes, and the provider's own
    counts of attachments known so far ((sha256, count key) -> tokens)."""

    provider_type: ProviderType
    model_id: ModelId | None = None
    capabilities: ModelCapabilities | None = None
    counts: Mapping[tuple[str, str], int] = field(default_factory=dict)
    capacity: int | None = None  # the model's input capacity: a document priced above its share goes as its card
    responses_api: bool = False  # an OpenAI provider speaking the Responses API (no audio input there)

    @property
    def model_name(self) -> str:
        """The model's name for the user, or "this model"."""
        return self.model_id or "this model"


def plan_attachments(
    messages: Sequence[Message],
    *,
    target: AttachmentTarget,
    protected_tokens: int | None,
    estimator: TokenEstimator,
) -> list[Message]:
    """The messages with their attachments set for one request (priced, gated, old ones replaced by placeholders).

    The attachments of the newest user message always go natively (they are what the user is asking about); an
    older one goes natively only while the messages after it fit in `protected_tokens` (None: no limit). Positions are
    measured with every attachment at its native price, so replacing one never moves the line back; the line is
    rounded up to a step, so an attachment may be replaced a little early but is never sent from beyond it."""
    out = [_gated(m, target, estimator) if m.attachments else m for m in messages]
    if protected_tokens is None or not any(m.attachments for m in out):
        return out
    newest_user = max((i for i, m in enumerate(out) if m.type is MessageType.USER), default=-1)
    ends, position = [], 0
    for message in out:
        position += estimator.estimate_message(message)
        ends.append(position)
    if position <= protected_tokens:
        return out
    step = max(1, protected_tokens // STEPS_PER_WINDOW)
    line = -(-(position - protected_tokens) // step) * step  # rounded up: nothing native lies deeper than allowed
    old = [i for i, m in enumerate(out) if m.attachments and i != newest_user and ends[i] < line]
    for index in old:
        out[index] = replace(out[index], attachments=tuple(_omitted(a, estimator) for a in out[index].attachments))
    return out


def _gated(message: Message, target: AttachmentTarget, estimator: TokenEstimator) -> Message:
    capabilities, model_name = target.capabilities, target.model_name
    attachments = []
    for attachment in message.attachments:
        if attachment.omitted:  # its file is gone: the placeholder is what goes, and what is priced
            attachments.append(_omitted(attachment, estimator))
            continue
        if attachment.kind is AttachmentKind.IMAGE and capabilities is not None and capabilities.vision is False:
            attachments.append(_omitted(replace(attachment, note=f"not sent: {model_name} takes no images"),
                                        estimator))
            continue
        if attachment.kind is AttachmentKind.AUDIO and (audio_note := _audio_refusal(target, attachment)) is not None:
            attachments.append(_omitted(replace(attachment, note=audio_note), estimator))
            continue
        if attachment.kind is AttachmentKind.PDF and not reads_pdfs(capabilities):
            if not attachment.text_chars:
                note = f"not sent: {model_name} is not known to read PDFs and no text could be extracted from it"
                attachments.append(_omitted(replace(attachment, note=note), estimator))
                continue
            attachment = as_sent(attachment, capabilities)
        attachments.append(carded(priced(attachment, target, estimator), target.capacity,
                                  over_limits(attachment, target, estimator)))
    return replace(message, attachments=tuple(attachments))


def _audio_refusal(target: AttachmentTarget, attachment: Attachment) -> str | None:
    """Why a sound clip is not sent to the target (None: it is)."""
    if target.capabilities is None or target.capabilities.audio_input is not True:
        return f"not sent: {target.model_name} takes no audio"
    if target.provider_type not in AUDIO_PROVIDERS:
        return "not sent: Palimpsest sends audio only to Gemini and OpenAI Chat Completions"
    if target.provider_type is ProviderType.GEMINI:
        return None
    if target.responses_api:
        return "not sent: the Responses API takes no audio input"
    if attachment.media_type not in CHAT_AUDIO_TYPES:
        return "not sent: Chat Completions takes only WAV and MP3 audio"
    return None


def as_sent(attachment: Attachment, capabilities: ModelCapabilities | None) -> Attachment:
    """The attachment marked to go as its extracted text when it is a PDF with text and the model is not known to
    read PDFs (what a request and the size check before storing it price)."""
    if attachment.kind is AttachmentKind.PDF and attachment.text_chars and not reads_pdfs(capabilities):
        return replace(attachment, as_text=True)
    return attachment


def priced(attachment: Attachment, target: AttachmentTarget, estimator: TokenEstimator) -> Attachment:
    """The attachment with its tokens for the target: the provider's stored count (exact), else its rule."""
    native = not (attachment.as_text or attachment.kind is AttachmentKind.TEXT)
    counted = estimator.counted(attachment, target.provider_type, target.model_id, target.counts) if native else None
    if counted is not None:
        return replace(attachment, tokens=counted, exact=True)
    return replace(attachment, tokens=estimator.attachment_tokens(attachment, target.provider_type, target.model_id),
                   exact=False)


def over_limits(attachment: Attachment, target: AttachmentTarget, estimator: TokenEstimator) -> bool:
    """Whether the provider takes no PDF this large or this long (its media limits)."""
    rules = estimator.rules
    return rules is not None and limit_problem(attachment, rules.media_limits(target.provider_type), "") is not None


def carded(attachment: Attachment, capacity: int | None, over_limit: bool = False) -> Attachment:
    """The priced attachment as its card when it is a document too large for its share of the capacity, or one the
    provider takes no file of that size or length (`over_limit`)."""
    if not (goes_as_card(attachment, attachment.tokens, capacity) or (over_limit and is_document(attachment))):
        return attachment
    return replace(attachment, card=True, as_text=False, exact=False, tokens=CARD_TOKENS + MESSAGE_OVERHEAD)


def _omitted(attachment: Attachment, estimator: TokenEstimator) -> Attachment:
    if attachment.omitted and attachment.tokens:
        return attachment
    marked = replace(attachment, omitted=True, as_text=False, exact=False, card=False)
    return replace(marked, tokens=estimator.estimate_text(placeholder(marked)) + MESSAGE_OVERHEAD)


def placeholders_only(messages: Sequence[Message], estimator: TokenEstimator) -> list[Message]:
    """The messages with every attachment as its one-line placeholder (what the memory flush sends: it saves
    facts from the conversation, and resending a document for that would cost its whole price again)."""
    return [replace(m, attachments=tuple(_omitted(a, estimator) for a in m.attachments)) if m.attachments else m
            for m in messages]


def attachment_share(messages: Sequence[Message]) -> int:
    """Tokens the messages' attachments take in a planned request (their gauge row)."""
    return sum(a.tokens for m in messages for a in m.attachments)
