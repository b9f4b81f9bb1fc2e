"""Where the campaign file, the styles and the backups are found: the one place that knows."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DB_NAME = "campaign.db"
DB_ENV_VAR = "TRACKER_DB"
# A libpq connection string starts with one of its keywords and `=` (host=db dbname=norway).
_CONNINFO = re.compile(
    r"\s*(?:host|hostaddr|port|dbname|user|password|passfile|service|sslmode)\s*=", re.I
)


def styles_dir() -> Path:
    """The .tcss folder: inside the installed wheel, else the checkout's top-level styles/."""
    bundled = PACKAGE_DIR / "styles"
    if bundled.is_dir():
        return bundled
    return PACKAGE_DIR.parent / "styles"


def default_saves_dir() -> Path:
    """saves/ of the checkout when run from one, else the current working directory's saves/."""
    checkout = PACKAGE_DIR.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "saves").is_dir():
        return checkout / "saves"
    return Path.cwd() / "saves"


def default_db() -> str:
    """saves/campaign.db, where a player who names no file keeps the campaign."""
    return str(default_saves_dir() / DEFAULT_DB_NAME)


def resolve_db(cli_value: str | None) -> str:
    """The database chosen by --db, then TRACKER_DB, then saves/campaign.db; a path or a URL."""
    return cli_value or os.environ.get(DB_ENV_VAR) or default_db()


def is_url(value: str) -> bool:
    """True for a SQLAlchemy URL (sqlite:///x.db, postgresql+psycopg://...), False for a path."""
    return "://" in value


def is_conninfo(value: str) -> bool:
    """True for what reads as a libpq connection string (host=db password=...), which the
    tracker does not take: it would be a file's name, password and all."""
    return not is_url(value) and _CONNINFO.match(value) is not None


def backups_dir(db_path: Path) -> Path:
    """Backups live in backups/ beside the campaign file, so they travel with it."""
    return db_path.parent / "backups"


def name_problem(target: str) -> str | None:
    """Why the system cannot take the path `target` as a file's name at all (a name or a
    folder's name too long for it), or None: a file that exists, or one that may be made."""
    try:
        os.stat(Path(target).expanduser())
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return f"cannot use {target} as the campaign file: {exc.strerror}"
    return None
