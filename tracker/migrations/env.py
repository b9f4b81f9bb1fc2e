"""Alembic environment: one explicit transaction per upgrade, foreign keys checked at the end."""

from typing import Any

from alembic import context
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

import tracker.models  # noqa: F401  (registers every table on the metadata)

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url") or ""
    engine = config.attributes.get("engine") or create_engine(url)
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        raw: Any = connection.connection.driver_connection
        if sqlite:
            # Batch migrations copy and drop tables: with foreign keys on, dropping a parent
            # (campaign) would cascade into every child table. SQLite ignores this pragma inside
            # a transaction, and SQLAlchemy would open one first, so it goes straight to the
            # driver's connection, which is in autocommit mode (see db.engine._set_sqlite_pragmas).
            raw.execute("PRAGMA foreign_keys=OFF")
            if raw.execute("PRAGMA foreign_keys").fetchone()[0] != 0:
                raise RuntimeError("foreign keys could not be turned off for the migration")
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            transactional_ddl=True,
        )
        with connection.begin():
            context.run_migrations()
            if sqlite:
                problems = connection.execute(text("PRAGMA foreign_key_check")).fetchall()
                if problems:
                    raise RuntimeError(f"migration left broken foreign keys: {problems[:5]}")
        if sqlite:
            raw.execute("PRAGMA foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
