"""A campaign file's fields that hold one of a few words are checked against the words their
model declares (its enum or its one_of), every table's: a hand-edited file gets no further than
the forms would, and a word added to a model's enum is taken at once."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from campaign_files import full_sample_campaign, migrated_engine
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import SQLModel

from tracker.db import session_factory
from tracker.models.fields import words_of
from tracker.services import exchange
from tracker.services.errors import InvalidInput

# Every table's field that declares its words, found from the tables themselves.
DECLARED = sorted(
    (mapper.class_.__tablename__, key, words)
    for mapper in SQLModel._sa_registry.mappers
    for key, info in mapper.class_.model_fields.items()
    if (words := words_of(info)) is not None
)


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The River Plate sample with rows in every table, exported."""
    engine = migrated_engine(tmp_path_factory.mktemp("words") / "campaign.db")
    try:
        factory = session_factory(engine)
        return exchange.export_campaign(
            factory, campaign_id=full_sample_campaign(factory).campaign_id
        )
    finally:
        engine.dispose()


def test_every_field_that_declares_its_words_is_checked_with_them() -> None:
    assert {(table, key): words for table, key, words in DECLARED} == exchange.CHOICES
    # The fields of a few words a model declares beyond the campaign's options.
    assert {("minefield", "laid_by"), ("battery", "mount"), ("wasunit", "unit_type")} <= set(
        exchange.CHOICES
    )


def test_the_words_are_the_players_words() -> None:
    for (table, key), words in exchange.CHOICES.items():
        assert all(type(word) is str for word in words), f"{table}.{key}: {words!r}"


@pytest.mark.parametrize(("table", "key", "words"), DECLARED, ids=lambda x: str(x)[:20])
@settings(
    max_examples=examples(8), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
# As short as a column of words is narrow: a longer one is refused for its length first.
@given(word=st.text(st.sampled_from("abcdefgh _-/1"), max_size=4))
def test_a_word_its_model_does_not_declare_is_refused_naming_the_field_and_its_words(
    document: dict[str, Any], table: str, key: str, words: tuple[str, ...], word: str
) -> None:
    if word in words:
        return
    edited = copy.deepcopy(document)
    rows = edited["tables"][table]
    assert rows, f"the sample has no {table} row"
    rows[0][key] = word
    with pytest.raises(InvalidInput) as refused:
        exchange.read_document(exchange.dumps(edited).encode())
    said = str(refused.value)
    assert f"{table} row 0, {key}: must be one of {', '.join(map(repr, words))}" in said


@pytest.mark.parametrize(("table", "key", "words"), DECLARED, ids=lambda x: str(x)[:20])
def test_every_declared_word_is_taken(
    document: dict[str, Any], table: str, key: str, words: tuple[str, ...]
) -> None:
    for word in words:
        edited = copy.deepcopy(document)
        edited["tables"][table][0][key] = word
        try:
            exchange.read_document(exchange.dumps(edited).encode())
        except InvalidInput as refused:
            assert not re.search(rf"\b{table} rows? 0\b[^;:]*, {key}: ", str(refused)), refused
