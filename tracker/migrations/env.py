"""Alembic environment: one explicit transaction per upgrade, foreign keys checked at the end."""

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
        if sqlite:
            # Must be set outside a transaction: batch migrations copy and drop tables.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
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
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
