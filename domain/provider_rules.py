"""The providers' own numbers, through ports: the table of provider rules (data/providers/rules.py: what each provider
takes as attachments and how it counts them, so that no provider's figures live in the domain), the counts their
count endpoints gave, and the evidence of a server's silent cut."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.attachment import Attachment, AttachmentKind, human_size
from domain.models import ModelId, ProviderType


@dataclass(frozen=True)
class MediaLimits:
    """One provider's attachment limits (bytes of the file as sent, before base64)."""

    family: str
    image_max_bytes: int  # larger images are downscaled (and re-encoded) until they fit
    image_max_edge: int  # longer images are downscaled to this edge before sending (the provider would anyway)
    pdf_max_bytes: int
    pdf_max_pages: int
    inline_max_bytes: int  # larger files go through the provider's file upload, where it has one


class ProviderRules(Protocol):
    """How a provider takes and counts attachments: its limits, its published token rules, and which stored exact
    counts apply to a model (a count is kept per content hash and count key)."""

    def media_limits(self, provider_type: ProviderType) -> MediaLimits:
        """The provider's size and page limits."""
        ...

    def count_key(self, provider_type: ProviderType, model_id: ModelId) -> str:
        """The key under which a provider's count of an attachment for this model is kept: models of one family
        count attachments alike, so one count serves them all."""
        ...

    def image_tokens(self, provider_type: ProviderType, width: int, height: int) -> int:
        """Input tokens of one image of this size by the provider's published rule (after its own resizing)."""
        ...

    def pdf_page_tokens(self, provider_type: ProviderType, width_pt: float, height_pt: float) -> int:
        """Input tokens of one PDF page's image by the provider's published rule (a page of this size in points)."""
        ...

    def pdf_counts_text(self, provider_type: ProviderType) -> bool:
        """Whether the provider counts a PDF page's extracted text on top of its image (else the page rule is all)."""
        ...

    def context_length_hint(self, trained: int | None) -> str:
        """How to raise the context a local server loads a model with, in each server's own terms (up to the
        length it was trained for, when known)."""
        ...

    def summary_families(self) -> Sequence[tuple[str, str]]:
        """(a model family's id pattern, what its cheaper sibling's id contains): who may write a summary instead
        of the session's own model (regular expressions, case-insensitive)."""
        ...


class AttachmentPresence(Protocol):
    """Whether an attachment's file is in the data folder (a person may have deleted it)."""

    def exists(self, sha256: str) -> bool:
        """Whether the file with this digest is stored."""
        ...


class AttachmentCounts(Protocol):
    """The input tokens providers counted for attachments, by (sha256, count key); a count never changes."""

    def for_attachments(self, digests: Collection[str]) -> Mapping[tuple[str, str], int]:
        """Every stored count of these attachments, whatever the count key."""
        ...

    def put(self, digest: str, count_key: str, tokens: int) -> None:
        """Keeps one count (a later one for the same key replaces it)."""
        ...


@dataclass(frozen=True)
class CutSign:
    """A response whose reported prompt tokens were far below the estimate: what was reported and estimated."""

    reported: int
    estimate: int


class CutEvidence(Protocol):
    """The last sign of a silent cut per model (calibration key), kept across processes: a window is guessed
    only when a second request confirms the first."""

    def last(self, model_key: str) -> CutSign | None: ...
    def put(self, model_key: str, sign: CutSign | None) -> None:
        """Keeps the sign (None forgets it: the next request was read whole)."""
        ...


def limit_problem(attachment: Attachment, limits: MediaLimits, provider_name: str) -> str | None:
    """Why the provider cannot take this attachment at all (a PDF too large or too long), or None."""
    if attachment.kind is not AttachmentKind.PDF or attachment.as_text:
        return None
    if attachment.size > limits.pdf_max_bytes:
        return (f"{attachment.name} is {human_size(attachment.size)}; {provider_name} takes PDFs up to "
                f"{human_size(limits.pdf_max_bytes)}. Split it, or choose another provider.")
    if attachment.pages and attachment.pages > limits.pdf_max_pages:
        return (f"{attachment.name} has {attachment.pages} pages; {provider_name} takes PDFs of up to "
                f"{limits.pdf_max_pages} pages. Split it, or choose another provider.")
    return None
