"""The optional parts of tracker, and what a player is told when one is missing.

`pip install naval-campaign-tracker` (and `make run`) installs the app alone; a browser
(`tracker serve`) and a club's PostgreSQL server each need a package that most players never use,
so each is an extra, installed by name.
"""

from __future__ import annotations

import importlib.util

DISTRIBUTION = "naval-campaign-tracker"

# extra: (the module it brings, what needs it)
EXTRAS = {
    "serve": ("textual_serve", "tracker serve (the app in a browser)"),
    "club": ("psycopg", "a PostgreSQL database"),
}


def missing(extra: str) -> str | None:
    """Why the extra is needed and how to add it, when its module is not installed; else None."""
    module, what = EXTRAS[extra]
    if importlib.util.find_spec(module) is not None:
        return None
    wanted = f"'{DISTRIBUTION}[{extra}]'"
    return (
        f"{what} needs tracker's {extra!r} extra, which is not installed: add it with "
        f"`pipx install --force {wanted}` (or `pip install {wanted}`; in a checkout, "
        f"`.venv/bin/pip install -e '.[{extra}]'`)"
    )


def extra_for_url(url: str) -> str | None:
    """The extra a database URL needs: "club" for PostgreSQL, None for SQLite."""
    scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
    return "club" if scheme in ("postgresql", "postgres") else None
