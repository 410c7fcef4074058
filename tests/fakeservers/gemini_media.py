"""Gemini attachments as the API checks them: inline_data (base64, standard or URL-safe) that decodes to what its
mime type says, a 20 MB limit on the whole request, and the Files API (resumable upload, files kept until they
expire; file_data naming an unknown or expired file is refused with the real 403)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.fakeservers.media_rules import MediaPart, MediaRefused, checked_image, checked_pdf

INLINE_REQUEST_LIMIT = 20 * 1024 * 1024
# the image types Gemini reads (ai.google.dev image-understanding "supported formats"); any other is refused with
# 400 INVALID_ARGUMENT "Unsupported MIME type: image/gif"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
# the audio types Gemini reads (ai.google.dev audio understanding: WAV, MP3, AIFF, AAC, OGG Vorbis, FLAC)
AUDIO_TYPES = ("audio/wav", "audio/mp3", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac")
TROUBLESHOOTING = "https://developers.generativeai.google/guide/troubleshooting"


class GeminiMediaRefused(MediaRefused):
    """A refused part: the message with its HTTP code and status."""

    def __init__(self, message: str, code: int = 400, status: str = "INVALID_ARGUMENT") -> None:
        super().__init__(message)
        self.code, self.status = code, status


@dataclass
class StoredFile:
    """A file uploaded through the Files API."""

    name: str
    mime_type: str
    display_name: str
    data: bytes
    expires: datetime


@dataclass
class FilesApi:
    """The fake's Files API: resumable uploads under /upload/v1beta/files, files until `lifetime` has passed."""

    lifetime: timedelta = timedelta(hours=48)
    files: dict[str, StoredFile] = field(default_factory=dict)
    uploads: int = 0  # finished uploads
    _pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        """Opens an upload session; returns its id."""
        upload_id = uuid.uuid4().hex
        meta = body.get("file") or {}
        with self._lock:
            self._pending[upload_id] = {"mime": headers.get("x-goog-upload-header-content-type", meta.get("mimeType")),
                                        "size": int(headers.get("x-goog-upload-header-content-length", "0")),
                                        "display": meta.get("displayName", ""), "data": bytearray()}
        return upload_id

    def is_open(self, upload_id: str) -> bool:
        """Whether an upload session with this id is under way."""
        with self._lock:
            return upload_id in self._pending

    def chunk(self, upload_id: str, data: bytes, finalize: bool) -> StoredFile | None:
        """Adds a chunk; the stored file once finalized."""
        with self._lock:
            pending = self._pending[upload_id]
            pending["data"] += data
            if not finalize:
                return None
            del self._pending[upload_id]
            name = f"files/{uuid.uuid4().hex[:12]}"
            stored = StoredFile(name, str(pending["mime"]), str(pending["display"]), bytes(pending["data"]),
                                datetime.now(UTC) + self.lifetime)
            self.files[name] = stored
            self.uploads += 1
            return stored

    def expire_all(self) -> None:
        """Every file expires now (as 48 hours later)."""
        with self._lock:
            for stored in self.files.values():
                stored.expires = datetime.now(UTC) - timedelta(seconds=1)

    def resource(self, stored: StoredFile, root: str) -> dict[str, Any]:
        """The File resource JSON."""
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        return {"name": stored.name, "displayName": stored.display_name, "mimeType": stored.mime_type,
                "sizeBytes": str(len(stored.data)), "createTime": now, "updateTime": now,
                "expirationTime": stored.expires.isoformat().replace("+00:00", "Z"),
                "sha256Hash": base64.b64encode(hashlib.sha256(stored.data).hexdigest().encode()).decode(),
                "uri": f"{root}/v1beta/{stored.name}", "state": "ACTIVE", "source": "UPLOADED"}

    def lookup(self, uri: str) -> StoredFile:
        """The live file a file_data URI names; the real 403 when it is unknown or expired."""
        name = "files/" + uri.rsplit("/files/", 1)[-1]
        stored = self.files.get(name)
        if stored is None or stored.expires <= datetime.now(UTC):
            raise GeminiMediaRefused(f"You do not have permission to access the File {name.split('/')[-1]} or it "
                                     "may not exist.", 403, "PERMISSION_DENIED")
        return stored


def _bytes(data: str, where: str) -> bytes:
    text = data.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise GeminiMediaRefused(f"Invalid value at '{where}' (TYPE_BYTES), Base64 decoding failed") from None


def _field(value: dict[str, Any], camel: str) -> Any:
    """A field by its lowerCamelCase or its original snake_case name (protobuf JSON accepts both)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    return value.get(camel, value.get(snake))


def is_media(part: dict[str, Any]) -> bool:
    """Whether a part carries inline data or a file reference."""
    return any(_field(part, key) is not None for key in ("inlineData", "fileData"))


def media_part(part: dict[str, Any], where: str, files: FilesApi, *, audio: bool = True) -> MediaPart:
    """An inlineData or fileData part, decoded and checked; GeminiMediaRefused otherwise. `audio`: a sound clip
    is taken here (a user part: yes; a functionResponse's parts, which take images and documents: no)."""
    ref = _field(part, "fileData")
    if ref is not None:
        stored = files.lookup(str(_field(ref, "fileUri") or ""))
        mime, data = str(_field(ref, "mimeType") or stored.mime_type), stored.data
    else:
        inline = _field(part, "inlineData")
        mime = str(_field(inline, "mimeType") or "")
        data = _bytes(str(inline.get("data", "")), f"{where}.inline_data.data")
    if audio and mime in AUDIO_TYPES:
        return checked_audio(data, mime, where)
    if mime != "application/pdf" and mime not in IMAGE_TYPES:
        raise GeminiMediaRefused(f"Unsupported MIME type: {mime}")
    try:
        if mime == "application/pdf":
            return checked_pdf("gemini", data, where)
        return checked_image("gemini", data, mime, where, 10**9, 10**6)
    except MediaRefused:
        if mime == "application/pdf":
            raise GeminiMediaRefused("The document has no pages.") from None
        raise GeminiMediaRefused(f"Unable to process input image. Please retry or report in {TROUBLESHOOTING}") \
            from None


def checked_audio(data: bytes, mime: str, where: str) -> MediaPart:
    """A sound clip as received, priced at 32 tokens a second as Gemini counts audio (a WAV's length from its
    header; any other clip's as if it were 128 kbit/s)."""
    import io
    import wave

    seconds = len(data) / 16_000
    if mime == "audio/wav":
        try:
            with wave.open(io.BytesIO(data), "rb") as clip:
                seconds = clip.getnframes() / clip.getframerate()
        except (wave.Error, EOFError, ZeroDivisionError):
            pass  # (what the API answers for a broken clip is not modelled)
    return MediaPart("audio", mime, hashlib.sha256(data).hexdigest(), len(data), max(1, round(seconds * 32)))
