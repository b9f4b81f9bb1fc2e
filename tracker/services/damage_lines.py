"""The damage lines a player recorded, per campaign, for Up and Down in damage entry.

They are kept in the player's settings folder, keyed by the campaign file (its absolute path, or
its URL without the password) and the campaign's id, not in the campaign file: a campaign file
travels to the opponent and the umpire (export, exchange, a shared file), and a line typed at
one side of the table is that player's own; the settings folder stays with the player, as the
last campaign opened does. Only lines the tracker recorded are kept, never one it refused, and
the umpire's read-only view neither reads nor writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracker import safe_output, settings
from tracker.db import SessionFactory
from tracker.services.backups import database_key

FILE_NAME = "damage-lines.json"
KEEP = 100  # lines per campaign: a long evening's hits, and a small file
MAX_LINE = 500


def lines_path() -> Path:
    """The file holding every campaign's lines (it need not exist yet)."""
    return settings.config_dir() / FILE_NAME


def _key(factory: SessionFactory, campaign_id: int) -> str:
    return f"{database_key(factory)}#{campaign_id}"


def _read_all() -> dict[str, Any]:
    # A file that cannot be read, or was edited by hand into something else, is no history:
    # Up and Down then recall nothing, which is never worse than a crash at the table.
    try:
        data = json.loads(lines_path().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall_lines(factory: SessionFactory, *, campaign_id: int) -> list[str]:
    """The campaign's recorded lines, oldest first."""
    lines = _read_all().get(_key(factory, campaign_id), [])
    if not isinstance(lines, list):
        return []
    return [line for line in lines if isinstance(line, str) and 0 < len(line) <= MAX_LINE]


def keep_line(factory: SessionFactory, *, campaign_id: int, line: str) -> str | None:
    """Add a recorded line to the campaign's history; a warning to show if it cannot be
    written (the hit itself is recorded: only Up forgets it)."""
    line = line.strip()
    if not line or len(line) > MAX_LINE:
        return None
    data = _read_all()
    key = _key(factory, campaign_id)
    kept = [old for old in recall_lines(factory, campaign_id=campaign_id) if old != line]
    data[key] = [*kept, line][-KEEP:]
    try:
        lines_path().parent.mkdir(parents=True, exist_ok=True)
        safe_output.write_text(lines_path(), json.dumps(data, indent=1, ensure_ascii=False),
                               campaign=None, replace=True)  # fmt: skip
    except (OSError, safe_output.OutputRefused) as exc:
        return f"Could not keep the line for Up ({exc}); the hit is recorded."
    return None
