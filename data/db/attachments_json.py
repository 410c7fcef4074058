"""A message's attachment metadata as compact JSON, both ways (per-request fields are never stored)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain.attachment import Attachment, AttachmentKind

_OPTIONAL = ("width", "height", "pages", "text_chars", "duration_ms")


def attachments_to_json(attachments: Sequence[Attachment]) -> str | None:
    """The attachments' stored fields as JSON (None when there are none)."""
    if not attachments:
        return None
    return json.dumps(
        [{"sha256": a.sha256, "name": a.name, "media_type": a.media_type, "kind": a.kind.value, "size": a.size,
          **{f: getattr(a, f) for f in _OPTIONAL if getattr(a, f) is not None}} for a in attachments],
        ensure_ascii=False, separators=(",", ":"),
    )


def attachments_from_json(text: str | None) -> tuple[Attachment, ...]:
    """The attachments back; an entry of a kind this version does not know, or unreadable JSON, is skipped."""
    if not text:
        return ()
    try:
        items = json.loads(text)
    except ValueError:
        return ()
    out = []
    for item in items if isinstance(items, list) else []:
        try:
            numbers = {f: int(item[f]) if item.get(f) is not None else None for f in _OPTIONAL}
            out.append(Attachment(
                sha256=str(item["sha256"]), name=str(item["name"]), media_type=str(item["media_type"]),
                kind=AttachmentKind(item["kind"]), size=int(item["size"]), width=numbers["width"],
                height=numbers["height"], pages=numbers["pages"], text_chars=numbers["text_chars"],
                duration_ms=numbers["duration_ms"],
            ))
        except (KeyError, TypeError, ValueError):
            continue
    return tuple(out)
