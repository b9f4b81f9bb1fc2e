"""A crash's traceback, kept in a file the player can send, and the one line that says where.

The terminal gets only that line: Textual's own report of a crash fills the screen with the
program's variables, a passphrase among them, on what may be the umpire's public screen.
"""

from __future__ import annotations

import os
import platform
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

from tracker import __version__, settings
from tracker.redaction import scrub

FOLDER_NAME = "crashes"
KEEP = 10  # the newest logs kept; older ones are removed when a new one is written


def folder() -> Path:
    """crashes/ in tracker's config folder (settings.config_dir)."""
    return settings.config_dir() / FOLDER_NAME


def report(error: BaseException) -> str:
    """The log's text: what ran, when, and the traceback (no variables' values), scrubbed of
    the database's secrets (a driver's message can quote its address)."""
    lines = [
        f"tracker {__version__} crashed at {datetime.now(UTC).isoformat(timespec='seconds')}",
        f"Python {platform.python_version()} on {platform.platform()}",
        "",
        *traceback.format_exception(error),
    ]
    return scrub("\n".join(line.rstrip("\n") for line in lines) + "\n")


def write(error: BaseException) -> Path | None:
    """Write the crash's log in crashes/ (else the system's temporary folder); its path, or
    None when neither can be written."""
    text = report(error)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for place in (folder, lambda: Path(tempfile.gettempdir())):
        try:
            where = place()
            where.mkdir(parents=True, exist_ok=True)
            path = where / f"tracker-crash-{stamp}-{os.getpid()}.log"
            path.write_text(text, encoding="utf-8")
        except OSError:
            continue
        _prune(where)
        return path
    return None


def _prune(where: Path) -> None:
    """Keep the KEEP newest logs: a crash at every start must not fill the disk."""
    logs = sorted(where.glob("tracker-crash-*.log"), key=lambda path: path.name)
    for old in logs[:-KEEP]:
        old.unlink(missing_ok=True)


def say(error: BaseException, path: Path | None) -> str:
    """The one line the command line prints on stderr after a crash."""
    what = scrub(type(error).__name__)
    if path is None:
        return f"tracker: crashed ({what}) and could not write its log: {report(error)}"
    return f"tracker: crashed ({what}); what happened is written in {path}: send it with a report"
