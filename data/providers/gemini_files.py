"""Gemini's Files API for attachments over the inline limit: each file uploaded once per provider, its name, URI and
expiry remembered (in memory and in the attachments folder), uploaded again once it has expired."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from data.attachments.media import MediaSource
from data.providers.media_forms import ACCEPTED
from data.providers.rules import GEMINI, LIMITS
from domain.attachment import Attachment, AttachmentKind
from domain.errors import ProviderError
from domain.models import Message

log = logging.getLogger(__name__)
UPLOADS_FILE = "gemini_uploads.json"
EXPIRY_MARGIN = timedelta(hours=1)  # a file this close to its expiry is uploaded again rather than risked
ACTIVE_POLLS = 30


class UploadGone(ProviderError):
    """Gemini no longer has a file uploaded earlier (its time ran out, or it was deleted): the uploads remembered are
    forgotten and the request is sent once more, uploading the file again."""

    kind = "upload_gone"
    transient = True
    retry_limit = 1

    def __init__(self, provider_name: str) -> None:
        super().__init__(f"{provider_name} no longer has an attachment uploaded earlier (uploads are kept for 48 "
                         "hours). Send again to upload it anew.")


INLINE_BUDGET = 14 * 1024 * 1024  # inline bytes a request may carry (20 MB in all, base64 adds a third)


def sent_natively(attachment: Attachment) -> bool:
    """Whether a request carries the attachment's bytes (not its placeholder line or its text)."""
    return not (attachment.omitted or attachment.as_text or attachment.card or attachment.kind is AttachmentKind.TEXT)


def upload_plan(attachments: Sequence[Attachment], budget: int = INLINE_BUDGET) -> set[str]:
    """The digests to send through the Files API: every file over the inline limit, then the largest others until
    what stays inline fits the request's budget."""
    native = {a.sha256: a for a in attachments if sent_natively(a)}
    chosen = {sha for sha, a in native.items() if a.size > LIMITS[GEMINI].inline_max_bytes}
    inline = sorted((a for sha, a in native.items() if sha not in chosen), key=lambda a: a.size, reverse=True)
    total = sum(a.size for a in inline)
    for attachment in inline:
        if total <= budget:
            break
        chosen.add(attachment.sha256)
        total -= attachment.size
    return chosen


def _refused_type(entry: dict[str, str]) -> bool:
    """Whether a remembered upload is an image of a type Gemini refuses (a GIF uploaded before it was converted)."""
    mime_type = entry.get("mime_type", "")
    return mime_type.startswith("image/") and mime_type not in ACCEPTED[GEMINI]


class GeminiUploads:
    """Uploads and remembers Files API files for one Gemini provider (key)."""

    def __init__(self, client: Any, provider_id: str, media: MediaSource | None,
                 now: Any = lambda: datetime.now(UTC)) -> None:
        self._client = client
        self._provider_id = provider_id
        self._media = media
        self._now = now
        self.uploads = 0  # files uploaded by this object (tests and the benchmark read it)

    async def uris(self, messages: Sequence[Message]) -> dict[str, tuple[str, str]]:
        """sha256 -> (file URI, mime type) of every attachment of `messages` that goes through the Files API."""
        every = [a for m in messages for a in m.attachments]
        chosen = upload_plan(every)
        wanted = {a.sha256: a for a in every if a.sha256 in chosen}
        if not wanted or self._media is None:
            return {}
        media = self._media
        wanted = {sha: a for sha, a in wanted.items() if media.present(a)}  # a deleted file goes as its placeholder
        known = self._load()
        out: dict[str, tuple[str, str]] = {}
        for sha, attachment in wanted.items():
            key = f"{self._provider_id}/{sha}"
            entry = known.get(key)
            if entry is None or self._expired(entry) or _refused_type(entry):
                entry = await self._upload(attachment)
                known[key] = entry
                self._save(known)
            out[sha] = (entry["uri"], entry["mime_type"])
        return out

    def forget(self) -> None:
        """Forgets every upload of this provider (the next request uploads its files again)."""
        if self._media is None:
            return
        prefix = f"{self._provider_id}/"
        self._save({k: v for k, v in self._load().items() if not k.startswith(prefix)})

    def _expired(self, entry: dict[str, str]) -> bool:
        try:
            expires = datetime.fromisoformat(entry["expires"])
        except (KeyError, ValueError):
            return True
        return expires - EXPIRY_MARGIN <= self._now()

    async def _upload(self, attachment: Attachment) -> dict[str, str]:
        assert self._media is not None
        data, mime_type = self._media.data(attachment), attachment.media_type
        if attachment.kind is AttachmentKind.IMAGE and self._media.conversion(attachment, GEMINI) is not None:
            data, mime_type = self._media.image(attachment, LIMITS[GEMINI])  # a GIF, BMP or TIFF goes as PNG
        file = await self._client.aio.files.upload(
            file=io.BytesIO(data), config={"mime_type": mime_type, "display_name": attachment.name})
        for _ in range(ACTIVE_POLLS):  # a PDF is processed before it can be used
            state = str(getattr(getattr(file, "state", None), "value", getattr(file, "state", "")) or "")
            if state != "PROCESSING":
                break
            await asyncio.sleep(1.0)
            file = await self._client.aio.files.get(name=file.name)
        self.uploads += 1
        expires = file.expiration_time or (self._now() + timedelta(hours=47))
        return {"name": str(file.name), "uri": str(file.uri), "mime_type": str(file.mime_type or mime_type),
                "expires": expires.isoformat()}

    def _load(self) -> dict[str, dict[str, str]]:
        assert self._media is not None
        try:
            value = json.loads((self._media.files.folder / UPLOADS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def _save(self, known: dict[str, dict[str, str]]) -> None:
        assert self._media is not None
        now = self._now().isoformat()
        fresh = {k: v for k, v in known.items() if v.get("expires", "") > now}  # expired files are gone anyway
        try:
            self._media.files.write_meta(UPLOADS_FILE, json.dumps(fresh, indent=1).encode("utf-8"))
        except OSError as exc:  # only the memory of the upload is lost: the file is uploaded again next time
            log.warning("could not remember the Gemini uploads: %s", exc)
