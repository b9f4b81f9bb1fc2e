"""Small helpers every service module shares."""

from __future__ import annotations

from typing import TypeVar

from sqlmodel import Session

from tracker.db import SessionFactory
from tracker.services.errors import NotFound

__all__ = ["SessionFactory", "get_row"]

T = TypeVar("T")


def get_row(session: Session, model: type[T], row_id: int) -> T:
    """The row with that id, or NotFound naming what is missing."""
    row = session.get(model, row_id)
    if row is None:
        raise NotFound(f"{model.__name__.lower()} {row_id} no longer exists")
    return row
