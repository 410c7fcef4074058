"""Fakes of the providers' numbers: attachment counts and the evidence of a silent cut, kept in dicts."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from domain.provider_rules import CutSign


class FakeAttachmentCounts:
    """Counts by (sha256, count key), with every put recorded."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], int] = {}
        self.puts: list[tuple[str, str, int]] = []

    def for_attachments(self, digests: Collection[str]) -> Mapping[tuple[str, str], int]:
        wanted = set(digests)
        return {k: v for k, v in self.counts.items() if k[0] in wanted}

    def put(self, digest: str, count_key: str, tokens: int) -> None:
        if tokens > 0:
            self.counts[(digest, count_key)] = tokens
            self.puts.append((digest, count_key, tokens))


class FakeCutEvidence:
    """The last cut sign per model key."""

    def __init__(self) -> None:
        self.signs: dict[str, CutSign] = {}

    def last(self, model_key: str) -> CutSign | None:
        return self.signs.get(model_key)

    def put(self, model_key: str, sign: CutSign | None) -> None:
        if sign is None:
            self.signs.pop(model_key, None)
        else:
            self.signs[model_key] = sign
