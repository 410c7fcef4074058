"""Opens Palimpsest's SQLite store: checks the file, backs up and migrates it, seeds it, builds the repositories."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from data.attachments.files import AttachmentFiles
from data.db.agents import SqlAgentRepository
from data.db.ai_models import SqlModelRepository
from data.db.attached_resources import SqlAttachedResources
from data.db.attachment_refs import unreferenced
from data.db.engine import Database, create_sqlite_engine
from data.db.file_lock import LockFileError, LockTimeout, exclusive_lock
from data.db.inspection import inspect_file
from data.db.mcp_servers import SqlMcpServerRepository
from data.db.memories import SqlMemoryRepository
from data.db.messages import SqlMessageRepository
from data.db.provider_counts import SqlAttachmentCounts, SqlCutEvidence
from data.db.providers import SqlProviderRepository
from data.db.schema_version import shipped_revisions
from data.db.search_backlog import SearchBacklog
from data.db.seed import seed_file
from data.db.server_probes import SqlServerProbes
from data.db.sessions import SqlSessionRepository
from data.db.settings import SqlCalibrationStore, SqlSettingsRepository
from data.db.turn_leases import SqlTurnLeases
from data.documents.store import SqlDocumentStore
from data.documents.vectors import SqlPassageVectors
from data.paths import data_dir
from data.registry import Registry, load_registry
from domain.errors import DatabaseUnreadable, StorageError

DB_NAME = "palimpsest.db"
ATTACHMENTS_DIR = "attachments"  # content-addressed attachment files (write-once; see data/attachments/files.py)
BACKUPS_KEPT = 3
LOCK_SUFFIX = ".lock"
START_LOCK_SECONDS = 120.0


class Storage:
    """The opened store: one repository per port, usable from any thread (a short session per operation)."""

    def __init__(self, path: Path, db: Database, registry: Registry) -> None:
        self.path = path
        self.registry = registry
        self._db = db
        self.unit_of_work = db  # Database.atomic(): the UnitOfWork port
        self.attachment_files = AttachmentFiles(path.parent / ATTACHMENTS_DIR)
        self.documents = SqlDocumentStore(db)  # large attachments and knowledge folders, read on demand
        self.passage_vectors = SqlPassageVectors(db)  # their embeddings, where semantic search is on
        self.search_backlog = SearchBacklog(db.read_sql, db.write_sql)  # messages the search index has yet to take
        self.sessions = SqlSessionRepository(db, on_released=self._released, backlog=self.search_backlog)
        self.messages = SqlMessageRepository(db)
        self.providers = SqlProviderRepository(db)
        self.models = SqlModelRepository(db, registry)
        self.agents = SqlAgentRepository(db)
        self.memories = SqlMemoryRepository(db)
        self.settings = SqlSettingsRepository(db)
        self.calibration = SqlCalibrationStore(db)
        self.attachment_counts = SqlAttachmentCounts(db)
        self.cut_evidence = SqlCutEvidence(db)
        self.mcp_servers = SqlMcpServerRepository(db)
        self.turn_leases = SqlTurnLeases(db)  # one turn at a time per conversation, across processes
        self.server_probes = SqlServerProbes(db)  # what OpenAI-compatible servers answered to window probes
        self.attached_resources = SqlAttachedResources(db)  # MCP resources attached in conversations, with hashes

    @classmethod
    def open(cls, home: Path | None = None) -> Storage:
        """Opens (creating, backing up and upgrading as needed) home/palimpsest.db; home defaults to data_dir().

        Safe when several processes start at once on a new folder: creation, migration and seeding happen under
        an exclusive lock (palimpsest.db.lock), one process after the other; the others then find the work done.
        A file that is refused is refused before the lock file is created beside it."""
        folder = home if home is not None else data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / DB_NAME
        known, head = _revisions()
        inspect_file(path, known)
        registry = load_registry()
        with _start_lock(path):
            _migrate(path, inspect_file(path, known), head)
            db = Database(create_sqlite_engine(path))
            try:
                db.engine.connect().close()  # the engine's first connection puts the file in WAL mode
                seed_file(path, registry)
            except BaseException:
                db.close()
                raise
        return cls(path, db, registry)

    def release_unreferenced(self, digests: set[str]) -> None:
        """Deletes the attachment files among `digests` that no message refers to (taken in for a message that was
        then refused before it was stored)."""
        self._released(unreferenced(self._db, digests))

    def _released(self, digests: set[str]) -> None:
        """Deletes the files no message refers to any more, and their documents' index."""
        self.attachment_files.delete(digests)
        self.documents.forget_attachments(digests)

    def sweep_unreferenced(self, min_age_s: float = 86_400.0) -> None:
        """Deletes attachment files no message refers to that were stored over `min_age_s` ago: files attached in
        the desktop app to a message never sent (the app closed first). Younger ones may be in a composer now."""
        self.release_unreferenced(set(self.attachment_files.stored_before(time.time() - min_age_s)))

    def close(self) -> None:
        """Releases every connection (the WAL is checkpointed by SQLite as the last one closes)."""
        self._db.close()


@contextmanager
def _start_lock(path: Path) -> Iterator[None]:
    lock = path.with_name(path.name + LOCK_SUFFIX)
    try:
        with exclusive_lock(lock, START_LOCK_SECONDS):
            yield
    except LockTimeout:
        raise StorageError(
            f"Another Palimpsest has been creating or upgrading the database {path} for over "
            f"{START_LOCK_SECONDS:.0f} s. Close the other Palimpsest windows and commands, then try again."
        ) from None
    except LockFileError as exc:
        raise StorageError(
            f"Palimpsest cannot create its lock file {lock} ({exc.reason}). Make the folder writable, or set "
            "PALIMPSEST_HOME to another folder."
        ) from exc


def _revisions() -> tuple[frozenset[str], str]:
    """The shipped revision ids and the head, read without Alembic when possible (it is imported only to migrate)."""
    shipped = shipped_revisions()
    if shipped is not None:
        return shipped.known, shipped.head
    import migrations

    return migrations.known_revisions(), migrations.head_revision()


def _migrate(path: Path, revision: str | None, head: str) -> None:
    if revision == head:
        return
    import migrations  # Alembic: only when there is something to upgrade

    if revision is not None:
        backup_database(path, revision)
    try:
        migrations.upgrade(f"sqlite:///{path}")
    except sqlite3.DatabaseError as exc:  # pragma: no cover - a file that passed inspection then broke
        raise DatabaseUnreadable(str(path), f"upgrading it failed: {exc}") from exc


def backup_database(path: Path, revision: str) -> Path:
    """Copies the database (consistently, WAL included) beside itself, then keeps only the newest BACKUPS_KEPT."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.{stamp}.r{revision}.bak")
    with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    for old in sorted(path.parent.glob(f"{path.name}.*.bak"))[:-BACKUPS_KEPT]:
        old.unlink()
    return target
