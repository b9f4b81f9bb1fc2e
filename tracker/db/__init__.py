"""The database: engines and pragmas (engine), what a driver's error means (errors), session
scopes (sessions), the schema's revision and upgrade (migration), backups and restore (backups).

Callers import from here (`from tracker.db import session_scope`); the rooms are the package's
own business. campaign_file's look at a file before any database library loads is here too.
"""

from __future__ import annotations

from tracker.campaign_file import (
    MIGRATIONS_DIR,
    DatabaseProblem,
    head_revision,
    inspect_file,
    known_revisions,
    left_by_tracker,
    remember_left,
    revision_chain,
)
from tracker.db.backups import (
    BACKUP_REASON,
    Backup,
    backup_file,
    list_backups,
    prune_backups,
    restore_backup,
)
from tracker.db.engine import make_engine, shown_url, sqlite_path, to_url
from tracker.db.errors import database_error
from tracker.db.migration import (
    _alembic_config,
    check_schema,
    migrate,
    schema_revision,
    scratch_database,
    upgrade_scratch,
)
from tracker.db.sessions import (
    SessionFactory,
    WriteInReadScope,
    checkpoint,
    read_scope,
    scratch_scope,
    session_factory,
    session_scope,
)

__all__ = [
    "BACKUP_REASON", "MIGRATIONS_DIR", "Backup", "DatabaseProblem", "SessionFactory",
    "WriteInReadScope", "_alembic_config", "backup_file", "check_schema",
    "checkpoint", "database_error", "head_revision", "inspect_file", "known_revisions",
    "left_by_tracker", "list_backups", "make_engine", "migrate", "prune_backups", "read_scope",
    "remember_left", "restore_backup", "revision_chain", "schema_revision", "scratch_database",
    "scratch_scope", "session_factory", "session_scope", "shown_url", "sqlite_path", "to_url",
    "upgrade_scratch",
]  # fmt: skip
