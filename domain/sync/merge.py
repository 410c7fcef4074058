"""The merge rules, pure: last writer wins per field, tombstones, one canonical message order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def wins(incoming: str, current: str | None) -> bool:
    """Whether a field stamped `incoming` replaces one stamped `current` (None: never synced: it does)."""
    return current is None or incoming > current


@dataclass(frozen=True)
class Node:
    """A message as the order needs it."""

    id: str
    parent_id: str | None
    created: int


def canonical_order(nodes: Sequence[Node]) -> list[str]:
    """The ids in the one order every device computes: parents before children, else by creation time then id.

    A message whose parent is missing counts as a root."""
    known = {n.id for n in nodes}
    children: dict[str | None, list[Node]] = {}
    for n in nodes:
        children.setdefault(n.parent_id if n.parent_id in known else None, []).append(n)
    import heapq

    ready = [(n.created, n.id, n) for n in children.get(None, [])]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, _, node = heapq.heappop(ready)
        order.append(node.id)
        for child in children.get(node.id, []):
            heapq.heappush(ready, (child.created, child.id, child))
    return order


def keeps_deleted(deleted_stamp: str, newest_message_stamp: str | None) -> bool:
    """Whether a conversation deleted at `deleted_stamp` is kept because a message was added after the delete."""
    return newest_message_stamp is not None and newest_message_stamp > deleted_stamp
