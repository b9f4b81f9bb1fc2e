"""The schema: its revision in a database, the checked upgrade to head, the check of its tables."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, MetaData
from sqlalchemy.exc import DBAPIError

from tracker.campaign_file import (
    MIGRATIONS_DIR,
    SCRATCH_PREFIX,
    DatabaseProblem,
    _read_only,
    head_revision,
    inspect_file,
    refuse_newer,
    scratch_folder,
)
from tracker.db.backups import backup_file
from tracker.db.engine import (
    READ_ONLY_OPTION,
    SCHEMA_OPTION,
    make_engine,
    shown_url,
    sqlite_path,
    to_url,
)
from tracker.db.errors import database_error, first_line


def _alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # The migrations run on the engine itself; the URL is only said, without its password, and
    # with each % doubled: Alembic's settings read "%" as the start of a reference to another
    # setting (a file named "100%.db" or a password with a percent-encoded character).
    shown = engine.url.render_as_string(hide_password=True)
    config.set_main_option("sqlalchemy.url", shown.replace("%", "%%"))
    config.attributes["engine"] = engine
    return config


def _look(engine: Engine) -> Connection:
    """A connection for a look at the schema that takes no write lock: a start looks while
    another player's change, or another start's upgrade, is under way."""
    return engine.connect().execution_options(**{READ_ONLY_OPTION: True})


def inspect_server(engine: Engine) -> str | None:
    """A server's database's schema revision (None if empty), read without changing it; else
    DatabaseProblem saying what is wrong."""
    from sqlalchemy import inspect, text

    where = shown_url(engine)
    try:
        with _look(engine) as conn:
            tables = set(inspect(conn).get_table_names())
            revision = None
            if "alembic_version" in tables:
                row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
                revision = row[0] if row else None
    except DBAPIError as exc:
        raise DatabaseProblem(
            f"cannot open {where} ({first_line(exc.orig, 'no answer')}): check the host, port, "
            "database name, user and password in the URL, and that the server is running"
        ) from exc
    if tables and "alembic_version" not in tables:
        raise DatabaseProblem(
            f"{where} holds tables of another program (no tracker schema): "
            "give tracker a database of its own"
        )
    refuse_newer(where, revision, "open it; the database was left unchanged.")
    return revision


def check_schema(engine: Engine, metadata: MetaData) -> None:
    """DatabaseProblem when a table or column of tracker's schema (metadata) is missing from the
    database, which would stop the app at its first query: the database was changed by another
    program, or damaged where the integrity check cannot see (a name in the schema's text)."""
    from sqlalchemy import inspect

    path = sqlite_path(str(engine.url))
    if path is not None:  # read apart from the engine: no pragma, no -wal for a look
        with _read_only(path) as raw:
            query = "SELECT name FROM sqlite_master WHERE type = 'table'"
            columns = {
                table: {row[1] for row in raw.execute(f'PRAGMA table_info("{table}")')}
                for (table,) in raw.execute(query).fetchall()
            }
    else:
        with _look(engine) as conn:
            found = inspect(conn).get_multi_columns()
        columns = {table: {column["name"] for column in info} for (_, table), info in found.items()}
    for table in metadata.sorted_tables:
        names = columns.get(table.name)
        missing = [column.name for column in table.columns if column.name not in (names or ())]
        if missing:
            lacks = f"the table {table.name}" if names is None else f"{table.name}.{missing[0]}"
            raise DatabaseProblem(
                f"{path or shown_url(engine)} lacks {lacks} of "
                f"tracker's schema: it was changed by another program or is damaged; "
                f"{restore_advice(engine)}."
            )


def restore_advice(engine: Engine) -> str:
    """What the player can do about a damaged schema, for the database in use: a campaign
    file has the tracker's own backups; a server's database has its keeper's tools."""
    if engine.dialect.name == "sqlite":
        return "restore a backup (tracker backups) or choose another file with --db"
    return (
        "ask the club's keeper of the server to restore the database from its last dump "
        "(pg_restore), or give tracker a new empty database in --db"
    )


def schema_revision(target: str, engine: Engine) -> str | None:
    """The schema revision of the database at target (engine open on it), read without writing."""
    path = sqlite_path(to_url(target))
    if path is not None:
        return inspect_file(path)
    return inspect_server(engine)


def migrate(engine: Engine, notes: list[str] | None = None) -> Path | None:
    """Bring the schema to head, an existing file backed up first (the backup, if any); what an
    upgrade changed beside the schema (two library entries made one) goes in `notes`. Many
    trackers may start at once on one PostgreSQL database: the upgrade is one transaction that
    holds its write lock (engine._begin_postgresql); the others then find the schema at head."""
    backup: Path | None = None
    path = sqlite_path(str(engine.url))
    if path is not None:
        revision = inspect_file(path)
        _check_writable(path)
        if revision == head_revision():
            return None
        if revision is not None:
            backup = backup_file(path, f"before-{head_revision()}")
    elif engine.dialect.name != "sqlite" and inspect_server(engine) == head_revision():
        return None
    from alembic import command  # only for an upgrade: 11 MiB the app rarely needs

    # It waits for the write lock as long as another start's upgrade takes (engine.SCHEMA_OPTION).
    upgrading = engine.execution_options(**{SCHEMA_OPTION: True})
    config = _alembic_config(upgrading)
    config.attributes["notes"] = notes
    try:
        command.upgrade(config, "head")
    except DBAPIError as exc:
        # The upgrade is one transaction: it was rolled back, the database is as it was.
        problem = database_error(exc)
        if problem is not None:
            reason = "; ".join(problem.errors.values())
        else:  # a schema the migrations do not expect: damaged, or changed by another program
            reason = (
                f"{first_line(exc.orig, 'error')}: nothing was written; it may be damaged or "
                f"changed by another program: {restore_advice(engine)}"
            )
        kept = f" (a copy is kept as {backup})" if backup else ""
        where = path or shown_url(engine)
        raise DatabaseProblem(f"could not upgrade {where}{kept}: {reason}") from exc
    return backup


def _check_writable(path: Path) -> None:
    """DatabaseProblem unless SQLite can write the file and, beside it, its -wal, -shm and
    backups/ (a read-only file would open and then refuse the player's first change)."""
    if path.exists() and not os.access(path, os.W_OK):
        raise DatabaseProblem(
            f"{path} is read-only: make it writable (chmod u+w) to play, "
            "or look at it with --umpire."
        )
    if not os.access(path.parent, os.W_OK):
        raise DatabaseProblem(
            f"the folder {path.parent} is read-only, and tracker writes beside the campaign "
            "file (its journal and backups/): make the folder writable, or move the file."
        )


@contextmanager
def scratch_database(revision: str) -> Iterator[Engine]:
    """An empty SQLite database at exactly `revision`, made by the migrations in a temporary
    folder that goes when the block ends (an export of that revision is upgraded in it)."""
    from alembic import command

    # Named with this process's id: what a killed import leaves goes at the next start.
    with scratch_folder(Path(tempfile.gettempdir()), SCRATCH_PREFIX) as folder:
        engine = make_engine(str(folder / "scratch.db"))
        try:
            command.upgrade(_alembic_config(engine), revision)
            yield engine
        finally:
            engine.dispose()


def upgrade_scratch(engine: Engine) -> None:
    """Bring a scratch database to head: no backup, it is no player's file."""
    from alembic import command

    command.upgrade(_alembic_config(engine), "head")
