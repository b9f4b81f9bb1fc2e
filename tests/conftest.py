"""Shared fixtures: a real, migrated SQLite campaign file per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tracker.db import SessionFactory, make_engine, migrate, session_factory

# Snapshots must render colour the same everywhere.
os.environ.pop("NO_COLOR", None)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[Engine]:
    engine = make_engine(str(db_path))
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def factory(engine: Engine) -> SessionFactory:
    return session_factory(engine)
