"""Chat Completions content parts with attachments, checked as the API does: image_url data URLs and file parts
with base64 file_data (PDF), in user messages only; the real error messages."""

from __future__ import annotations

import re
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
