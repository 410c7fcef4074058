"""Opens Palimpsest's SQLite store: checks the file, backs up and migrates it, seeds it, builds the repositories."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import migrations
from data.db.agents import SqlAgentRepository
from data.db.ai_models import SqlModelRepository
from data.db.engine import Database, create_sqlite_engine, inspect_file
from data.db.memories import SqlMemoryRepository
from data.db.messages import SqlMessageRepository
from data.db.providers import SqlProviderRepository
from data.db.seed import seed
from data.db.sessions import SqlSessionRepository
from data.db.settings import SqlCalibrationStore, SqlSettingsRepository
from data.paths import data_dir
from data.registry import Registry, load_registry
from domain.errors import DatabaseUnreadable

DB_NAME = "palimpsest.db"
BACKUPS_KEPT = 3


class Storage:
    """The opened store: one repository per port, usable from any thread (a short session per operation)."""

    def __init__(self, path: Path, db: Database, registry: Registry) -> None:
        self.path = path
        self.registry = registry
        self._db = db
        self.unit_of_work = db  # Database.atomic(): the UnitOfWork port
        self.sessions = SqlSessionRepository(db)
        self.messages = SqlMessageRepository(db)
        self.providers = SqlProviderRepository(db)
        self.models = SqlModelRepository(db, registry)
        self.agents = SqlAgentRepository(db)
        self.memories = SqlMemoryRepository(db)
        self.settings = SqlSettingsRepository(db)
        self.calibration = SqlCalibrationStore(db)

    @classmethod
    def open(cls, home: Path | None = None) -> Storage:
        """Opens (creating, backing up and upgrading as needed) home/palimpsest.db; home defaults to data_dir()."""
        folder = home if home is not None else data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / DB_NAME
        revision = inspect_file(path, migrations.known_revisions())
        head = migrations.head_revision()
        if revision is not None and revision != head:
            backup_database(path, revision)
        if revision != head:
            try:
                migrations.upgrade(f"sqlite:///{path}")
            except sqlite3.DatabaseError as exc:  # pragma: no cover - a file that passed inspection then broke
                raise DatabaseUnreadable(str(path), f"upgrading it failed: {exc}") from exc
        registry = load_registry()
        db = Database(create_sqlite_engine(path))
        seed(db, registry)
        return cls(path, db, registry)

    def close(self) -> None:
        """Releases every connection (the WAL is checkpointed by SQLite as the last one closes)."""
        self._db.engine.dispose()


def backup_database(path: Path, revision: str) -> Path:
    """Copies the database (consistently, WAL included) beside itself, then keeps only the newest BACKUPS_KEPT."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.{stamp}.r{revision}.bak")
    with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    for old in sorted(path.parent.glob(f"{path.name}.*.bak"))[:-BACKUPS_KEPT]:
        old.unlink()
    return target
