"""ProbeStore over SQLite: what OpenAI-compatible servers answered to window probes, remembered for a day so that a
new process (each CLI turn) asks a server nothing it asked the day before."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.dialects.sqlite import insert

from data.db.engine import Database
from data.db.rows import ServerProbeRow
from data.providers.probe_store import PROBES_KEPT as PROBES_KEPT  # re-exported
from data.providers.probe_store import Recalled


class SqlServerProbes:
    """Servers' answers to probes by server URL and request, forgotten after PROBES_KEPT."""

    def __init__(self, db: Database, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._db = db
        self._now = now

    def recall(self, server: str, request: str) -> Recalled | None:
        with self._db.read() as s:
            row = s.get(ServerProbeRow, (server, request))
            if row is None or self._now() - row.probed_at > PROBES_KEPT:
                return None
            return Recalled(None if row.answer is None else json.loads(row.answer))

    def remember(self, server: str, request: str, answer: Any) -> None:
        values = {"server": server, "request": request, "probed_at": self._now(),
                  "answer": None if answer is None else json.dumps(answer, separators=(",", ":"))}
        statement = insert(ServerProbeRow).values(**values)
        statement = statement.on_conflict_do_update(
            index_elements=["server", "request"], set_={"answer": statement.excluded.answer,
                                                        "probed_at": statement.excluded.probed_at})
        with self._db.write() as s:
            s.execute(statement)
