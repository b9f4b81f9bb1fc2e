"""Optimistic concurrency: a version per row that several players may change at once."""

from typing import Any

from sqlalchemy.orm import declared_attr
from sqlmodel import Field
from sqlmodel.main import SQLModelConfig

from tracker.models.base import Input, Model


class Versioned(Model):
    """A row with a version that every UPDATE checks and raises by one.

    Two players (two programs on one file, or two laptops on one PostgreSQL database) who
    change the same row at once cannot overwrite each other: the second UPDATE finds a newer
    version, matches no row, and SQLAlchemy raises StaleDataError, which the player sees as
    "changed elsewhere". A form also names the version it showed (expected_version), so an
    edit of a row someone else changed meanwhile is refused rather than applied over it.
    """

    version: int = Field(default=1, ge=1, sa_column_kwargs={"server_default": "1"})

    @declared_attr  # type: ignore[arg-type]
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.version}  # type: ignore[attr-defined]


class Edit(Input):
    """What the player typed for a change of a row (put first among an input model's bases),
    with the version the player's form was opened with: a newer row refuses it."""

    version: int | None = None


class Shown(Model):
    """A row as a screen shows it (put first among a read model's bases), read as stored
    (models.fields.read), with the row version read: an edit form sends it back."""

    model_config = SQLModelConfig(frozen=True)
    version: int = 1


class ShownRow(Shown):
    """A row of a table as a screen shows it, with its row number."""

    id: int
