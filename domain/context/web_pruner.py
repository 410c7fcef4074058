"""Per-request pruning of older replies' web search blocks: past the newest few searched replies they go as their
text with the sources listed (the form every provider accepts), a batch at a time so the cache prefix holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain.models import Message
from domain.settings import ContextSettings


def pruned_searches(messages: Sequence[Message], s: ContextSettings) -> list[Message]:
    """The messages with the provider's search blocks dropped from all but the newest `keep_last_web_searches`
    searched replies, in whole batches of `web_prune_batch` (stored messages are never changed). Derived from the
    messages alone, so every process computes the same request, and the prefix changes once per batch."""
    searched = [i for i, m in enumerate(messages) if m.web is not None and m.web.blocks is not None]
    due = len(searched) - max(0, s.keep_last_web_searches)
    batch = max(1, s.web_prune_batch)
    cut = (due // batch) * batch if due > 0 else 0
    if cut <= 0:
        return list(messages)
    out = list(messages)
    for i in searched[:cut]:
        web = out[i].web
        assert web is not None
        out[i] = replace(out[i], web=web.pruned())
    return out
