"""Chat Completions content parts with attachments, checked as the API does: image_url data URLs and file parts
with base64 file_data (PDF), in user messages only; the real error messages."""

from __future__ import annotations

import hashlib
import io
import re
import wave
from typing import Any

from tests.fakeservers.media_rules import MediaPart, MediaRefused, b64, checked_image, checked_pdf, is_animated

DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+);base64,(.*)$", re.S)
IMAGE_FORMATS = "You uploaded an unsupported image. Please make sure your image has of one the following formats: " \
                "['png', 'jpeg', 'gif', 'webp']."


def still_image(data: bytes, where: str) -> bytes:
    """The bytes of an image part unless they are an animated GIF, which OpenAI does not take (it reads PNG, JPEG,
    WEBP and non-animated GIF): refused (the caller answers with its unsupported-image error, IMAGE_FORMATS)."""
    if data.startswith((b"GIF87a", b"GIF89a")) and is_animated(data):
        raise MediaRefused(f"{where}: animated GIF")
    return data


# Ollama's /v1/chat/completions (openai/openai.go fromChatRequest): a content part other than text, image_url or
# input_audio is "invalid message format"; an image_url data URL other than image/jpeg, jpg, png or webp is "invalid
# image input"; both a 400 {"error": {"message", "type": "invalid_request_error", "param": null, "code": null}}
OLLAMA_PART_TYPES = ("text", "image_url", "input_audio")
OLLAMA_IMAGE_PREFIXES = tuple(f"data:image/{t};base64," for t in ("jpeg", "jpg", "png", "webp"))


def ollama_refusal(body: dict[str, Any]) -> str | None:
    """What Ollama answers a Chat Completions body whose content parts it does not take, or None."""
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict) or part.get("type") not in OLLAMA_PART_TYPES:
                return "invalid message format"
            if part["type"] == "image_url":
                url = str((part.get("image_url") or {}).get("url", ""))
                if not url.startswith(("data:;base64,", *OLLAMA_IMAGE_PREFIXES)):
                    return "invalid image input"
    return None


class OpenAIMediaRefused(MediaRefused):
    """A refused part: the message, the error code and the param the API names."""

    def __init__(self, message: str, code: str, param: str) -> None:
        super().__init__(message)
        self.code, self.param = code, param


def media_part(part: dict[str, Any], role: str, where: str) -> MediaPart:
    """An image_url or file part of a message, decoded and checked; OpenAIMediaRefused otherwise."""
    if part["type"] == "image_url":
        if role != "user":
            raise OpenAIMediaRefused(f"Image URLs are only allowed for messages with role 'user', but this message "
                                     f"with role '{role}' contains an image URL.", "invalid_value", where)
        url = str((part.get("image_url") or {}).get("url", ""))
        found = DATA_URL.match(url)
        if found is None:
            raise OpenAIMediaRefused(
                f"Invalid image URL: '{where}.image_url.url'. Expected a base64-encoded data URL with an image MIME "
                "type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' "
                "prefix.", "invalid_value", f"{where}.image_url.url")
        try:
            data = still_image(b64(found.group(2), where), where)
            return checked_image("openai", data, found.group(1), where, 20 * 1024 * 1024, 10**6)
        except MediaRefused:
            raise OpenAIMediaRefused(IMAGE_FORMATS, "invalid_image_format", where) from None
    file = part.get("file") or {}
    if role != "user":
        raise OpenAIMediaRefused(f"Files are only allowed for messages with role 'user', but this message with "
                                 f"role '{role}' contains a file.", "invalid_value", where)
    if not file.get("filename"):
        raise OpenAIMediaRefused(f"Missing required parameter: '{where}.file.filename'.", "missing_required_parameter",
                                 f"{where}.file.filename")
    found = DATA_URL.match(str(file.get("file_data", "")))
    if found is None or found.group(1) != "application/pdf":
        got = f"unsupported MIME type '{found.group(1)}'" if found else "a value without the 'data:' prefix"
        raise OpenAIMediaRefused(
            f"Invalid file data: '{where}.file.file_data'. Expected a base64-encoded data URL with an application/pdf "
            f"MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got {got}.", "invalid_value",
            f"{where}.file.file_data")
    try:
        return checked_pdf("openai", b64(found.group(2), where), where, str(file["filename"]))
    except MediaRefused:
        raise OpenAIMediaRefused(f"The file '{file['filename']}' is not a valid PDF.", "invalid_value",
                                 f"{where}.file.file_data") from None


# Chat Completions audio input (developers.openai.com audio guide; the SDK's InputAudio: format "wav" | "mp3"):
# only the audio models take an input_audio part; another model answers 400 unsupported_format ("This model does
# not support the format you provided.", param "messages"); an audio model given no audio at all, and no audio
# output asked for, answers "This model requires that either input content or output modality contain audio."
AUDIO_MODEL_PREFIXES = ("gpt-4o-audio", "gpt-4o-mini-audio", "gpt-audio")
AUDIO_FORMATS = ("wav", "mp3")
AUDIO_TOKENS_PER_SECOND = 10  # about one audio token per 100 ms of speech


def takes_audio(model: str) -> bool:
    """Whether the model is one of OpenAI's audio models (the only ones taking input_audio parts)."""
    return model.startswith(AUDIO_MODEL_PREFIXES)


def audio_refusal(body: dict[str, Any]) -> OpenAIMediaRefused | None:
    """An audio model's refusal of a request with no audio in or out, or None."""
    model = str(body.get("model", ""))
    if not takes_audio(model) or "audio" in (body.get("modalities") or []):
        return None
    for message in body.get("messages", []):
        content = message.get("content")
        parts = content if isinstance(content, list) else []
        if any(isinstance(p, dict) and p.get("type") == "input_audio" for p in parts):
            return None
    return OpenAIMediaRefused("This model requires that either input content or output modality contain audio.",
                              "invalid_value", "model")


def audio_part(part: dict[str, Any], role: str, where: str, model: str) -> MediaPart:
    """An input_audio part of a message, decoded and checked; OpenAIMediaRefused otherwise."""
    if role != "user":
        allowed = "'text'" if role == "tool" else "'text' and 'refusal'"
        raise OpenAIMediaRefused(f"Invalid value: 'input_audio'. Supported values are: {allowed}.", "invalid_value",
                                 f"{where}.type")
    audio = part.get("input_audio") or {}
    form = audio.get("format")
    if form not in AUDIO_FORMATS:
        raise OpenAIMediaRefused(f"Invalid value: '{form}'. Supported values are: 'wav' and 'mp3'.", "invalid_value",
                                 f"{where}.input_audio.format")
    if not takes_audio(model):
        raise OpenAIMediaRefused("This model does not support the format you provided.", "unsupported_format",
                                 "messages")
    try:
        data = b64(str(audio.get("data", "")), where)
    except MediaRefused:
        data = b""
    seconds = _seconds(data, str(form))
    if seconds is None:
        raise OpenAIMediaRefused("The audio file could not be decoded or its format is not supported.",
                                 "invalid_value", f"{where}.input_audio.data")
    return MediaPart("audio", f"audio/{'mpeg' if form == 'mp3' else 'wav'}", hashlib.sha256(data).hexdigest(),
                     len(data), max(1, round(seconds * AUDIO_TOKENS_PER_SECOND)), data=data)


def _seconds(data: bytes, form: str) -> float | None:
    """The clip's length when its bytes are of the declared format (an MP3's as if 128 kbit/s), else None."""
    if form == "mp3":
        frame = len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0
        return len(data) / 16_000 if data.startswith(b"ID3") or frame else None
    try:
        with wave.open(io.BytesIO(data), "rb") as clip:
            return clip.getnframes() / clip.getframerate()
    except (wave.Error, EOFError, ZeroDivisionError):
        return None
