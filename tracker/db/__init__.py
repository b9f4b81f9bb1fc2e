"""The database: engines and pragmas (engine), what a driver's error means (errors), session
scopes (sessions), the schema's revision and upgrade (migration), backups and restore (backups).

Callers import from here (`from tracker.db import session_scope`); the rooms are the package's
own business. campaign_file's look at a file on disk, before any database library loads, is
re-exported too.
"""

from __future__ import annotations

from tracker.campaign_file import (
    MIGRATIONS_DIR,
    SQLITE_HEADER,
    DatabaseProblem,
    head_revision,
    inspect_file,
    known_revisions,
    left_by_tracker,
    not_a_readable_file,
    remember_left,
    remove_stale_restores,
    revision_chain,
)
from tracker.db.backups import (
    BACKUP_REASON,
    Backup,
    Restored,
    backup_file,
    backup_name,
    check_restorable,
    list_backups,
    prune_backups,
    restore_backup,
)
from tracker.db.engine import make_engine, shown_url, sqlite_path, to_url
from tracker.db.errors import database_error, translated_errors
from tracker.db.migration import (
    _alembic_config,
    check_schema,
    inspect_server,
    migrate,
    schema_revision,
    scratch_database,
    upgrade_scratch,
)
from tracker.db.sessions import (
    CHECKPOINT_TRIES,
    CHECKPOINT_WAIT_MS,
    SessionFactory,
    WriteInReadScope,
    checkpoint,
    read_scope,
    scratch_scope,
    session_factory,
    session_scope,
)

__all__ = [
    "BACKUP_REASON", "CHECKPOINT_TRIES", "CHECKPOINT_WAIT_MS", "MIGRATIONS_DIR", "SQLITE_HEADER",
    "Backup", "DatabaseProblem", "Restored", "SessionFactory", "WriteInReadScope",
    "_alembic_config", "backup_file", "backup_name", "check_restorable", "check_schema",
    "checkpoint", "database_error", "head_revision", "inspect_file", "inspect_server",
    "known_revisions", "left_by_tracker", "list_backups", "make_engine", "migrate",
    "not_a_readable_file", "prune_backups", "read_scope", "remember_left", "remove_stale_restores",
    "restore_backup", "revision_chain", "schema_revision", "scratch_database", "scratch_scope",
    "session_factory", "session_scope", "shown_url", "sqlite_path", "to_url", "translated_errors",
    "upgrade_scratch",
]  # fmt: skip
