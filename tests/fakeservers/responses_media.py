"""Responses API content parts with attachments, checked as the API does: input_image with a base64 data URL in
`image_url` and input_file with `filename` and base64 `file_data` (a PDF data URL), in user messages only; the real
400 bodies' messages, params and codes (the shapes: openai/types/responses/response_input_image_param.py and
response_input_file_param.py)."""

from __future__ import annotations

from typing import Any

from tests.fakeservers.media_rules import MediaPart, MediaRefused, b64, checked_image, checked_pdf
from tests.fakeservers.openai_media import DATA_URL, IMAGE_FORMATS, OpenAIMediaRefused, still_image

MEDIA_TYPES = ("input_image", "input_file")
DETAILS = ("low", "high", "auto")
IMAGE_MAX_BYTES, IMAGE_MAX_EDGE = 20 * 1024 * 1024, 10**6  # as the Chat Completions fake (openai_media)
FILE_DATA_MAX_CHARS = 50 * 1024 * 1024  # the longest `file_data` string the API takes (its 50 MB file limit)


def media_part(part: dict[str, Any], role: str, where: str) -> MediaPart:
    """An input_image or input_file part of an input message (`where`: "input[i].content[j]"), decoded, checked and
    priced; Refusal with the API's message otherwise."""
    kind = str(part.get("type"))
    if role == "assistant":  # an assistant message's content is output text only
        raise _refused(f"Invalid value: '{kind}'. Supported values are: 'output_text' and 'refusal'.", f"{where}.type",
                       "invalid_value")
    if kind == "input_image":
        return _image(part, where)
    return _file(part, where)


def _image(part: dict[str, Any], where: str) -> MediaPart:
    detail = part.get("detail", "auto")
    if detail not in DETAILS:
        raise _refused(f"Invalid value: '{detail}'. Supported values are: 'low', 'high', and 'auto'.",
                      f"{where}.detail", "invalid_value")
    found = DATA_URL.match(str(part.get("image_url") or ""))
    if found is None:
        raise _refused(f"Invalid '{where}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. "
                      "'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.",
                      f"{where}.image_url", "invalid_value")
    try:
        return checked_image("openai", still_image(b64(found.group(2), where), where), found.group(1), where,
                             IMAGE_MAX_BYTES, IMAGE_MAX_EDGE)
    except MediaRefused:
        raise _refused(IMAGE_FORMATS, where, "invalid_image_format") from None


def _file(part: dict[str, Any], where: str) -> MediaPart:
    data = str(part.get("file_data") or "")
    if not data:
        raise _refused(f"Missing required parameter: '{where}.file_data'.", f"{where}.file_data",
                      "missing_required_parameter")
    if not part.get("filename"):
        raise _refused(f"Missing required parameter: '{where}.filename'.", f"{where}.filename",
                      "missing_required_parameter")
    if len(data) > FILE_DATA_MAX_CHARS:
        raise _refused(f"Invalid '{where}.file_data': string too long. Expected a string with maximum length "
                      f"{FILE_DATA_MAX_CHARS}, but got a string with length {len(data)} instead.",
                      f"{where}.file_data", "string_above_max_length")
    found = DATA_URL.match(data)
    if found is None or found.group(1) != "application/pdf":
        got = f"unsupported MIME type '{found.group(1)}'" if found else "a value without the 'data:' prefix"
        raise _refused(f"Invalid file data: '{where}.file_data'. Expected a base64-encoded data URL with an "
                      "application/pdf MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got "
                      f"{got}.", f"{where}.file_data", "invalid_value")
    try:
        return checked_pdf("openai", b64(found.group(2), where), where, str(part["filename"]))
    except MediaRefused:
        raise _refused(f"The file '{part['filename']}' is not a valid PDF.", f"{where}.file_data",
                      "invalid_value") from None


def _refused(message: str, param: str, code: str) -> OpenAIMediaRefused:
    return OpenAIMediaRefused(message, code, param)
