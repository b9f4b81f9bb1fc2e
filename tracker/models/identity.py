"""The identity of a campaign and of every row a player refers to: one id that stays with it
in every copy of the campaign (docs/FILES.md "A campaign's identity").

A row's number in a file can change (a campaign exported, deleted and imported again; a side
of another campaign taking its number), and so can its name; its identity does not. Every copy
of a side's secrets (the campaign file, each backup) is found by these ids (services.sealing,
docs/RULES.md §Secrets); two copies of a campaign know each other's rows by them.
"""

import uuid
from datetime import UTC, datetime

from sqlmodel import Field

from tracker.models.base import Model

# The namespace of the ids derived for rows made before the ids were kept (migration 0013).
_FIRST_IDS = uuid.UUID("5f1c2d7e-3b0a-4e59-9f44-2a8c1d6b7e90")


def new_uid() -> str:
    """The id of a row made now: random (a version 4 UUID, as text)."""
    return str(uuid.uuid4())


class Identified(Model):
    """A row known by its id in every copy of its campaign (put after the model's own bases).
    The id is the model's own default, so every way a row is written gets one: a model built
    and added, a core INSERT of the table (SQLAlchemy calls the default for each row)."""

    uid: str = Field(default_factory=new_uid, max_length=36, index=True, unique=True)


# What a row has of its own, which a copy made of it (a sister ship, a crew that serves on)
# never takes: its number, its version and its identity.
OWN = {"id", "version", "uid"}


def _moment(created_at: str | datetime) -> str:
    when = created_at if isinstance(created_at, datetime) else datetime.fromisoformat(created_at)
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(sep=" ", timespec="microseconds")


def first_uid(created_at: str | datetime, campaign_id: int, side_id: int | None = None) -> str:
    """The id migration 0013 gave a campaign (side_id None) or a side made before it, derived
    from the campaign's creation time and the row numbers of that file: a backup taken before
    the upgrade names the same campaign and side by the same id, so it is found too. Never
    change it: the files upgraded hold what it gave. ValueError for a time that is no time."""
    name = f"campaign {_moment(created_at)} {campaign_id}"
    if side_id is not None:
        name += f" side {side_id}"
    return str(uuid.uuid5(_FIRST_IDS, name))
