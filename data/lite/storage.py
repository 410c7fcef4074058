"""The lite store: the repositories of data.storage.Storage over sqlite3, opened only on a database already at this
version's head revision (then nothing is migrated; it is seeded as every open seeds it). What a lite repository
does not do itself goes to the full Storage, which `open_full` opens on first use (see data.lite.fallback)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from data.attachments.files import AttachmentFiles
from data.db.inspection import inspect_file
from data.db.schema_version import shipped_revisions
from data.db.search_backlog import SearchBacklog
from data.db.seed import seed
from data.lite.attached_resources import LiteAttachedResources
from data.lite.config import (
    LiteAgentRepository,
    LiteMcpServerRepository,
    LiteMemoryRepository,
    LiteProviderRepository,
    LiteSettingsRepository,
)
from data.lite.db import LiteDatabase
from data.lite.fallback import Delegating
from data.lite.messages import LiteMessageRepository
from data.lite.models import LiteModelRepository
from data.lite.sessions import LiteSessionRepository
from data.lite.turn_records import (
    LiteAttachmentCounts,
    LiteCalibrationStore,
    LiteCutEvidence,
    LiteDocuments,
    LiteServerProbes,
    LiteTurnLeases,
)
from data.paths import data_dir
from data.registry import Registry, load_registry

DB_NAME = "palimpsest.db"  # as data.storage names it
ATTACHMENTS_DIR = "attachments"


class LiteStorage:
    """The opened lite store: Storage's attributes, each repository over one sqlite3 connection (one thread)."""

    def __init__(self, path: Path, db: LiteDatabase, registry: Registry, open_full: Callable[[], Any]) -> None:
        self.path = path
        self.registry = registry
        self._db = db
        self._open_full = open_full
        self._full: Any = None
        self._opening = threading.Lock()
        self.unit_of_work = ThreadedUnitOfWork(db, lambda: self.full.unit_of_work)
        self.attachment_files = AttachmentFiles(path.parent / ATTACHMENTS_DIR)
        self.documents = LiteDocuments(db, lambda: self.full.documents)
        self.passage_vectors = Delegating(db, lambda: self.full.passage_vectors)
        self.search_backlog = SearchBacklog(db.read_sql, db.write_sql)  # messages the search index has yet to take
        self.sessions = LiteSessionRepository(db, lambda: self.full.sessions)
        self.messages = LiteMessageRepository(db, lambda: self.full.messages)
        self.providers = LiteProviderRepository(db, lambda: self.full.providers)
        self.models = LiteModelRepository(db, lambda: self.full.models, registry)
        self.agents = LiteAgentRepository(db, lambda: self.full.agents)
        self.memories = LiteMemoryRepository(db, lambda: self.full.memories)
        self.settings = LiteSettingsRepository(db, lambda: self.full.settings)
        self.calibration = LiteCalibrationStore(db, lambda: self.full.calibration)
        self.attachment_counts = LiteAttachmentCounts(db, lambda: self.full.attachment_counts)
        self.cut_evidence = LiteCutEvidence(db, lambda: self.full.cut_evidence)
        self.mcp_servers = LiteMcpServerRepository(db, lambda: self.full.mcp_servers)
        self.turn_leases = LiteTurnLeases(db, lambda: self.full.turn_leases)
        self.server_probes = LiteServerProbes(db, lambda: self.full.server_probes)
        self.attached_resources = LiteAttachedResources(db, lambda: self.full.attached_resources)

    @property
    def full(self) -> Any:
        """The full Storage on the same file, opened on first use."""
        with self._opening:  # an MCP server's thread may ask at the same time
            if self._full is None:
                self._full = self._open_full()
            return self._full

    @property
    def opened_full(self) -> bool:
        """Whether anything needed the full Storage."""
        return self._full is not None

    def release_unreferenced(self, digests: set[str]) -> None:
        """Deletes the attachment files among `digests` that no message refers to (see Storage)."""
        wanted = sorted(digests)
        held = {r[0] for r in self._db.rows(
            f"SELECT sha256 FROM message_attachments WHERE sha256 IN ({', '.join('?' * len(wanted))})", wanted)
        } if wanted else set()
        released = set(wanted) - held
        if released:
            self.attachment_files.delete(released)
            self.documents.forget_attachments(released)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_full", "_open_full", "_db"):
            raise AttributeError(name)
        return getattr(self.full, name)

    def close(self) -> None:
        """Closes the connections, the full Storage's too when it was opened."""
        try:
            if self._full is not None:
                self._full.close()
        finally:
            self._db.close()


class ThreadedUnitOfWork:
    """The lite database's transactions on its own thread; on any other, the full store's (whose repositories serve
    that thread's calls)."""

    def __init__(self, db: LiteDatabase, full: Callable[[], Any]) -> None:
        self._db = db
        self._full = full

    def atomic(self) -> AbstractContextManager[None]:
        """See UnitOfWork.atomic."""
        return self._db.atomic() if self._db.on_its_thread else self._full().atomic()

    def snapshot(self) -> AbstractContextManager[None]:
        """See UnitOfWork.snapshot."""
        return self._db.snapshot() if self._db.on_its_thread else self._full().snapshot()

    def __getattr__(self, name: str) -> Any:  # the lite database's reads (value, rows, records) for tests
        return getattr(self._db, name)


def open_lite(home: Path | None, open_full: Callable[[], Any]) -> LiteStorage | None:
    """The lite store of home/palimpsest.db, or None when the full Storage must open it (a new, older or newer
    database, or migration files that cannot be read without Alembic). Raises what Storage.open raises for a file
    that is not Palimpsest's or is a newer Palimpsest's."""
    path = (home if home is not None else data_dir()) / DB_NAME
    shipped = shipped_revisions()
    if shipped is None or not path.is_file() or inspect_file(path, shipped.known) != shipped.head:
        return None
    db = LiteDatabase(path)
    try:
        registry = load_registry()
        with db.atomic():  # the revision checked and the seed written in one transaction
            current = db.value("SELECT version_num FROM alembic_version") == shipped.head
            if current:  # else upgraded or replaced since inspected: the full Storage decides
                seed(db.connection, registry)
    except BaseException:
        db.close()
        raise
    if not current:
        db.close()
        return None
    return LiteStorage(path, db, registry, open_full)
