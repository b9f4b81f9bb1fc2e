"""A field one model copies from another (models.fields.same_as) is that field: its bounds, its
default, its form's options and the column it is stored in, for every field a table declares."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from tracker.models import TABLES
from tracker.models.base import Model
from tracker.models.fields import rule_of, same_as

FIELDS = [
    pytest.param(table, key, id=f"{table.__name__}.{key}")
    for table in TABLES
    for key, info in table.model_fields.items()
    if info.default_factory is None
]


def _column_type(info: FieldInfo) -> Any:
    """The column type a field declares, None when it leaves it to SQLModel."""
    declared = next((m.sa_type for m in info.metadata if hasattr(m, "sa_type")), None)
    return None if declared is PydanticUndefined else declared


@pytest.mark.parametrize(("table", "key"), FIELDS)
def test_a_field_copied_with_same_as_is_bounded_offered_and_stored_as_its_source(
    table: type[Model], key: str
) -> None:
    source = table.model_fields[key]
    copy = type("Copy", (Model,), {"__annotations__": {key: source.annotation},
                                   key: same_as(table, key)})  # fmt: skip
    copied = copy.model_fields[key]
    assert rule_of(key, copied) == rule_of(key, source)
    assert _column_type(copied) == _column_type(source)
