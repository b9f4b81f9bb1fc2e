"""The player's own settings (theme, model scale, last campaign, backups kept), per user.

They live in a JSON file in the platform's config folder (platformdirs), not in a campaign file: a
campaign file travels between players, these stay with the player. A file that cannot be read
gives the defaults and a warning, never a crash. Imports nothing of the project but the pure
rules, so every layer may use it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tracker.rules import checks, smr

APP_NAME = "tracker"
FILE_NAME = "settings.json"
# Overrides the platform's folder (tests, or a player who keeps settings beside the saves).
DIR_ENV_VAR = "TRACKER_CONFIG_DIR"
THEMES = ("dark", "light")
DEFAULT_KEEP_BACKUPS = 20
MAX_KEEP_BACKUPS = 10_000


@dataclass(frozen=True)
class LastCampaign:
    """The campaign opened last, and the database it is in (a resolved path or a URL)."""

    database: str
    campaign_id: int


@dataclass(frozen=True)
class Settings:
    # "dark" or "light", or the name of another Textual theme chosen from the palette.
    theme: str = "dark"
    model_scale: str = "1/2400"
    last_campaign: LastCampaign | None = None
    keep_backups: int = DEFAULT_KEEP_BACKUPS
    # Keys this version does not know, kept so a newer tracker's settings survive a save.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Loaded:
    """Settings as read, with what was wrong with the file (empty when nothing was)."""

    settings: Settings
    warnings: tuple[str, ...] = ()


def config_dir() -> Path:
    """$TRACKER_CONFIG_DIR, else the platform's per-user config folder for tracker."""
    override = os.environ.get(DIR_ENV_VAR)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


def _theme(value: Any) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 100 else None


def _scale(value: Any) -> str | None:
    return value if value in smr.SCALES else None


def _keep(value: Any) -> int | None:
    return value if checks.is_int(value) and 1 <= value <= MAX_KEEP_BACKUPS else None


def _last(value: Any) -> LastCampaign | None:
    if not isinstance(value, dict) or not isinstance(value.get("database"), str):
        return None
    campaign_id = value.get("campaign_id")
    return LastCampaign(value["database"], campaign_id) if checks.is_int(campaign_id) else None


_FIELDS = {
    "theme": (_theme, "dark, light or a theme name"),
    "model_scale": (_scale, f"one of {', '.join(smr.SCALES)}"),
    "last_campaign": (_last, '{"database": ..., "campaign_id": ...}'),
    "keep_backups": (_keep, f"a whole number 1..{MAX_KEEP_BACKUPS}"),
}


def parse(data: Any, source: str = "settings") -> Loaded:
    """Settings from decoded JSON; each bad value falls back to its default with a warning."""
    if not isinstance(data, dict):
        return Loaded(Settings(), (f"{source} is not a JSON object: using the defaults",))
    values: dict[str, Any] = {}
    warnings = []
    for key, (check, expected) in _FIELDS.items():
        if key not in data or (key == "last_campaign" and data[key] is None):
            continue
        value = check(data[key])
        if value is None:
            warnings.append(f"{source}: {key} must be {expected}, got {data[key]!r}: using default")
        else:
            values[key] = value
    extra = {key: value for key, value in data.items() if key not in _FIELDS}
    return Loaded(Settings(**values, extra=extra), tuple(warnings))


def read() -> Loaded:
    """The settings in the file, or the defaults (with a warning when the file is unusable)."""
    path = settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Loaded(Settings())
    except (OSError, UnicodeDecodeError) as exc:
        return Loaded(Settings(), (f"cannot read {path} ({exc}): using the defaults",))
    try:
        data = json.loads(text)
    except ValueError as exc:
        return Loaded(Settings(), (f"{path} is not valid JSON ({exc}): using the defaults",))
    return parse(data, str(path))


def load() -> Settings:
    """The settings, ignoring what was wrong with the file (read() says what it was)."""
    return read().settings


def to_json(settings: Settings) -> dict[str, Any]:
    data = dict(settings.extra)
    data.update(asdict(settings))
    del data["extra"]
    return data


def save(settings: Settings) -> Path:
    """Write the settings atomically: a half-written file never replaces a good one."""
    text = json.dumps(to_json(settings), indent=2, sort_keys=True) + "\n"
    return write_whole(settings_path(), text)


def write_whole(path: Path, text: str) -> Path:
    """Write text to path whole or not at all (a temporary file beside it, fsynced, renamed
    over it), making its folder if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def update(**changes: Any) -> Settings:
    """Read the file again, change some settings, save; returns the settings saved.

    Reading first keeps what another running tracker saved meanwhile. A value that does not
    validate raises ValueError, so a bug never writes a setting the next run would reject.
    """
    updated = replace(read().settings, **changes)
    loaded = parse(to_json(updated))
    if loaded.warnings:
        raise ValueError("; ".join(loaded.warnings))
    save(updated)
    return updated


def remember(**changes: Any) -> str | None:
    """update() for the app: a file that cannot be written gives a warning to show, not an error."""
    try:
        update(**changes)
    except OSError as exc:
        return f"Could not save your settings ({exc}); the campaign file is not affected."
    return None
