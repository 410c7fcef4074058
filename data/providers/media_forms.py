"""The image types each provider family takes, and the form an image is sent in where its own is not taken: a GIF,
BMP or TIFF as PNG for Gemini, the first frame of an animated GIF for OpenAI, a BMP or TIFF as PNG for everyone. The
stored original is never changed; MediaSource makes the converted bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from data.providers.rules import ANTHROPIC, GEMINI, OPENAI
from domain.attachment import Attachment, AttachmentKind
from domain.models import ProviderType

if TYPE_CHECKING:
    from data.attachments.media import MediaSource

PNG = "image/png"
COMPATIBLE = "openai_compatible"  # OpenAI's forms, on a server that decodes fewer image types

# Anthropic Messages: image/jpeg, image/png, image/gif, image/webp (a GIF is read as its first frame).
# OpenAI (Chat Completions, Responses; compatible servers take the same forms): PNG, JPEG, WEBP and non-animated GIF.
# Gemini: image/png, image/jpeg, image/webp, image/heic, image/heif; anything else is "Unsupported MIME type".
# OpenAI-compatible servers: Ollama decodes data URLs of image/jpeg, jpg, png and webp only ("invalid image input"
# otherwise); llama.cpp, LM Studio and vLLM read those too.
ACCEPTED: dict[str, frozenset[str]] = {
    ANTHROPIC: frozenset({"image/jpeg", PNG, "image/gif", "image/webp"}),
    OPENAI: frozenset({PNG, "image/jpeg", "image/webp", "image/gif"}),
    GEMINI: frozenset({PNG, "image/jpeg", "image/webp", "image/heic", "image/heif"}),
    COMPATIBLE: frozenset({PNG, "image/jpeg", "image/webp"}),
}
STILL_ONLY: dict[str, frozenset[str]] = {OPENAI: frozenset({"image/gif"})}  # taken only when not animated
KIND_NAMES = {"image/gif": "GIF", "image/bmp": "BMP", "image/tiff": "TIFF", "image/webp": "WebP"}


@dataclass(frozen=True)
class Conversion:
    """How an image goes to a family that does not take it as stored: as `media_type`, its first frame only when
    `first_frame`; `type_refused`: the family takes no image of the stored type at all (else only not animated)."""

    media_type: str
    first_frame: bool
    type_refused: bool = True


def forms_family(provider_type: ProviderType) -> str:
    """The key of ACCEPTED for a provider type."""
    return {ProviderType.ANTHROPIC: ANTHROPIC, ProviderType.GEMINI: GEMINI,
            ProviderType.OPENAI_COMPATIBLE: COMPATIBLE}.get(provider_type, OPENAI)


def conversion(media_type: str, family_name: str, animated: bool) -> Conversion | None:
    """The form an image of `media_type` is sent in to `family_name`, or None when it goes as it is."""
    taken = media_type in ACCEPTED[family_name]
    if taken and not (animated and media_type in STILL_ONLY.get(family_name, frozenset())):
        return None
    return Conversion(PNG, first_frame=animated, type_refused=not taken)


def conversion_notice(attachment: Attachment, provider_name: str, converted: Conversion) -> str:
    """The sentence that tells the user once that an attachment goes in another form."""
    kind = KIND_NAMES.get(attachment.media_type, attachment.media_type)
    if converted.first_frame:
        refused = kind if converted.type_refused else f"animated {kind}"
        return (f"{provider_name} does not take {refused} images: only the first frame of {attachment.name} is "
                "sent, as a PNG (the file you attached is kept as it is).")
    return (f"{provider_name} does not take {kind} images: {attachment.name} is sent converted to PNG (the file "
            "you attached is kept as it is).")


class AttachmentForms:
    """The domain's AttachmentForms port: which of a message's images go to a provider converted, as notices."""

    def __init__(self, media: MediaSource) -> None:
        self._media = media

    def missing(self, attachments: Sequence[Attachment]) -> list[str]:
        """One sentence per attachment whose file is gone, the first time this process meets it."""
        return [text for a in attachments if (text := self._media.missing_notice(a)) is not None]

    def notices(self, attachments: Sequence[Attachment], provider_type: ProviderType, provider_name: str) -> list[str]:
        """One sentence per image the provider is sent in another form than the stored one."""
        family_name = forms_family(provider_type)
        out = []
        for attachment in attachments:
            if attachment.kind is not AttachmentKind.IMAGE or attachment.omitted:
                continue
            converted = self._media.conversion(attachment, family_name)
            if converted is not None:
                out.append(conversion_notice(attachment, provider_name, converted))
        return out
