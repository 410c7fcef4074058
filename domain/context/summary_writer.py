"""Writes a checkpoint summary through the Summarizer port: chunked when long, retried once, overflow-aware."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.context.estimator import chars_within
from domain.context.prompts import SUMMARIZER_SYSTEM, checkpoint_prompt, prompt_overhead_chars, update_prompt
from domain.context.transcript import chunk_blocks
from domain.errors import ContextOverflow, PalimpsestError
from domain.models import ModelId, ProviderId
from domain.provider_ports import Summarizer

MIN_CHUNK_CHARS = 2_000
MAX_OVERFLOW_SPLITS = 4


class SummaryFailed(Exception):
    """The summarizer failed or answered blank twice; the session must stay unchanged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SummaryTarget:
    """The model that writes the summary and how much it can read."""

    provider_id: ProviderId
    model_id: ModelId
    window_tokens: int
    max_output_tokens: int


def chunk_chars_for(target: SummaryTarget, previous: str | None, instructions: str | None) -> int:
    """How many transcript characters one summarizer call may carry (half the window, minus prompt and output)."""
    usable_tokens = target.window_tokens // 2 - target.max_output_tokens
    chars = chars_within(usable_tokens) - prompt_overhead_chars(previous, instructions)
    return max(MIN_CHUNK_CHARS, chars)


class SummaryWriter:
    """Folds transcript blocks into a summary: one call when they fit, else chunk by chunk (each an UPDATE)."""

    def __init__(self, summarizer: Summarizer) -> None:
        self._summarizer = summarizer
        self.calls = 0

    async def write(
        self,
        target: SummaryTarget,
        blocks: Sequence[str],
        previous: str | None,
        instructions: str | None = None,
    ) -> str:
        """The new summary; raises SummaryFailed when a call fails (or is blank) twice in a row."""
        summary = previous.strip() if previous and previous.strip() else None
        pending = list(blocks)
        splits = 0
        cap: int | None = None
        while pending:
            limit = chunk_chars_for(target, summary, instructions)
            if cap is not None:
                limit = min(limit, cap)
            chunk = chunk_blocks(pending, limit)[0]
            try:
                summary = await self._one(target, summary, chunk, instructions)
            except ContextOverflow:
                if splits >= MAX_OVERFLOW_SPLITS:
                    raise SummaryFailed("summarizer_overflow") from None
                splits += 1
                cap = max(MIN_CHUNK_CHARS // 2, len(chunk) // 2)
                continue
            pending = _remaining_after(pending, chunk)
        if summary is None:
            raise SummaryFailed("nothing_to_summarize")
        return summary

    async def _one(self, target: SummaryTarget, previous: str | None, chunk: str, instructions: str | None) -> str:
        prompt = update_prompt(previous, chunk, instructions) if previous else checkpoint_prompt(chunk, instructions)
        last_reason = "summarizer_blank"
        for _attempt in range(2):
            self.calls += 1
            try:
                text = await self._summarizer.summarize(
                    provider_id=target.provider_id,
                    model_id=target.model_id,
                    system=SUMMARIZER_SYSTEM,
                    prompt=prompt,
                    max_tokens=target.max_output_tokens,
                )
            except ContextOverflow:
                raise
            except (PalimpsestError, TimeoutError) as err:
                last_reason = f"summarizer_failed: {err}"
                continue
            if text and text.strip():
                return text.strip()
            last_reason = "summarizer_blank"
        raise SummaryFailed(last_reason)


def _remaining_after(blocks: list[str], chunk: str) -> list[str]:
    """The blocks (or the rest of a split block) that the chunk did not cover."""
    consumed = len(chunk)
    rest: list[str] = []
    pos = 0
    for i, block in enumerate(blocks):
        if pos >= consumed:
            rest = blocks[i:]
            break
        end = pos + len(block)
        if end > consumed:
            rest = [block[consumed - pos :], *blocks[i + 1 :]]
            break
        pos = end + 2  # the separator chunk_blocks joins with
    return rest if rest != blocks else blocks[1:]
