"""Alembic migrations shipped in the package, applied programmatically (users never run alembic)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection

MIGRATIONS_DIR = Path(__file__).resolve().parent

EngineOrUrl = Engine | str


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def migration_engine(url: str) -> Engine:
    """An engine for migrating: foreign keys OFF (batch table copies must not cascade), one locked transaction."""
    engine = create_engine(url, connect_args={"timeout": 30})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: object, _record: object) -> None:
        dbapi_connection.isolation_level = None  # type: ignore[attr-defined]
        cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
        cursor.execute("PRAGMA foreign_keys=OFF")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # a second instance waits, then finds the work done

    return engine


def _run(target: EngineOrUrl, action: str, revision: str) -> None:
    engine = migration_engine(target) if isinstance(target, str) else target
    try:
        with engine.begin() as connection:
            config = _config(connection)
            if action == "upgrade":
                command.upgrade(config, revision)
            else:
                command.downgrade(config, revision)
    finally:
        if isinstance(target, str):
            engine.dispose()


def upgrade(target: EngineOrUrl, revision: str = "head") -> None:
    """Upgrades the database to `revision` (head by default), in one transaction."""
    _run(target, "upgrade", revision)


def downgrade(target: EngineOrUrl, revision: str) -> None:
    """Downgrades the database to `revision`, in one transaction."""
    _run(target, "downgrade", revision)


def script_directory() -> ScriptDirectory:
    """The shipped revisions."""
    return ScriptDirectory.from_config(_config())


def head_revision() -> str:
    """The newest revision this version of Palimpsest knows."""
    head = script_directory().get_current_head()
    assert head is not None, "the migrations folder has no revisions"
    return head


def known_revisions() -> frozenset[str]:
    """Every revision id this version knows."""
    return frozenset(script.revision for script in script_directory().walk_revisions())


def current_revision(target: EngineOrUrl) -> str | None:
    """The revision the database is stamped with, or None for a blank database."""
    engine = create_engine(target) if isinstance(target, str) else target
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        if isinstance(target, str):
            engine.dispose()
