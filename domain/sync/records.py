"""Change records and the files that carry them: what a device says changed, each stamped by its clock."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FORMAT = 1
DELETED = "*deleted*"  # the field of a tombstone record
WHOLE = "*"  # the field of a record whose value is the whole row
# kinds in the order they are applied (a row's references first)
KINDS = ("provider", "agent", "session", "message", "tool_output", "compaction", "memory", "model", "mcp_server")


@dataclass(frozen=True)
class Change:
    """One change: the value of one field of one row (or the whole row, or its tombstone), stamped."""

    kind: str
    key: str
    field: str
    value: Any
    stamp: str

    @property
    def is_tombstone(self) -> bool:
        return self.field == DELETED


@dataclass(frozen=True)
class ChangeFile:
    """The changes one device wrote in one sync (or a snapshot of a whole state), in the device's order.

    `covers` (snapshots only): how many change files of each device the state includes."""

    device: str
    seq: int
    changes: tuple[Change, ...]
    snapshot: bool = False
    covers: dict[str, int] = field(default_factory=dict)
    blobs: tuple[str, ...] = ()
    nonce: str = ""  # random per push of this device's installation: tells its files from a copy's


def encode(file: ChangeFile) -> bytes:
    """The file as UTF-8 JSON (one change per line inside a list, so a diff of two stays readable)."""
    head = {"format": FORMAT, "device": file.device, "seq": file.seq, "snapshot": file.snapshot,
            "covers": file.covers, "blobs": list(file.blobs), "nonce": file.nonce}
    lines = [json.dumps([c.kind, c.key, c.field, c.value, c.stamp], ensure_ascii=False, separators=(",", ":"))
             for c in file.changes]
    return (json.dumps(head, separators=(",", ":")) + "\n" + "\n".join(lines) + "\n").encode("utf-8")


class CorruptFile(ValueError):
    """A remote file that is not a change file of a format this version reads."""


def decode(data: bytes) -> ChangeFile:
    """Reads `encode`'s bytes; CorruptFile for anything else (a torn or foreign file)."""
    try:
        text = data.decode("utf-8")
        head_line, _, rest = text.partition("\n")
        head = json.loads(head_line)
        if head.get("format") != FORMAT or not text.endswith("\n"):
            raise CorruptFile("not a change file of format 1")
        changes = tuple(Change(*json.loads(line)) for line in rest.splitlines() if line)
        return ChangeFile(str(head["device"]), int(head["seq"]), changes, bool(head["snapshot"]),
                          {str(k): int(v) for k, v in head["covers"].items()}, tuple(head.get("blobs", ())),
                          str(head.get("nonce", "")))
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CorruptFile):
            raise
        raise CorruptFile(str(exc)) from exc
