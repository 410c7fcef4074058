"""Alembic environment: runs on the connection handed over in config.attributes (or a URL for the CLI)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from data.db.rows import Base

config = context.config
target_metadata = Base.metadata


def _run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("Palimpsest migrations need a connection or sqlalchemy.url")
    engine = create_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


_run()
