"""The providers' own numbers in SQLite: attachment counts from their count endpoints, and the last sign of a
server's silent cut per model (the domain's AttachmentCounts and CutEvidence)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.dialects.sqlite import insert

from data.db.engine import Database
from data.db.rows import AttachmentCountRow, CutEvidenceRow
from domain.provider_rules import CutSign

_CHUNK = 500  # digests per IN list (SQLite's variable limit is far above; keeps statements small)


class SqlAttachmentCounts:
    """Attachment counts by (sha256, count key)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def for_attachments(self, digests: Collection[str]) -> Mapping[tuple[str, str], int]:
        wanted = sorted(set(digests))
        found: dict[tuple[str, str], int] = {}
        if not wanted:
            return found
        with self._db.read() as s:
            for start in range(0, len(wanted), _CHUNK):
                rows = s.execute(select(AttachmentCountRow.sha256, AttachmentCountRow.count_key,
                                        AttachmentCountRow.tokens)
                                 .where(AttachmentCountRow.sha256.in_(wanted[start:start + _CHUNK])))
                found.update({(digest, key): tokens for digest, key, tokens in rows})
        return found

    def put(self, digest: str, count_key: str, tokens: int) -> None:
        if tokens <= 0:
            return
        values = {"sha256": digest, "count_key": count_key, "tokens": tokens, "counted_at": datetime.now(UTC)}
        statement = insert(AttachmentCountRow).values(**values)
        with self._db.write() as s:
            s.execute(statement.on_conflict_do_update(index_elements=["sha256", "count_key"],
                                                      set_={"tokens": tokens, "counted_at": values["counted_at"]}))


class SqlCutEvidence:
    """The last sign of a silent cut, per model."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def last(self, model_key: str) -> CutSign | None:
        with self._db.read() as s:
            row = s.get(CutEvidenceRow, model_key)
            return CutSign(row.reported, row.estimate) if row is not None else None

    def put(self, model_key: str, sign: CutSign | None) -> None:
        with self._db.write() as s:
            if sign is None:
                s.execute(delete(CutEvidenceRow).where(CutEvidenceRow.model_key == model_key))
                return
            row = s.get(CutEvidenceRow, model_key)
            if row is None:
                s.add(CutEvidenceRow(model_key=model_key, reported=sign.reported, estimate=sign.estimate,
                                     seen_at=datetime.now(UTC)))
            else:
                row.reported, row.estimate, row.seen_at = sign.reported, sign.estimate, datetime.now(UTC)
