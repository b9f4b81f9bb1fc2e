"""Exports of every schema revision keep importing (tracker.services.exchange): each kept export
(tests/revision_exports, made by tests/make_revision_files.py from the kept campaign files)
imports and gives the same campaign as its kept campaign file upgraded by the migrations; an
export of a schema this tracker does not know is refused, nothing written."""

from __future__ import annotations

import copy
import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from make_revision_files import (
    EXPORTS,
    FOLDER,
    KNOWN,
    export_name,
    export_of,
    file_name,
    playable_copy,
)

from tracker.db import SessionFactory, head_revision, known_revisions, make_engine, migrate
from tracker.db import session_factory as factory_of
from tracker.services import campaigns, exchange, identities
from tracker.services.errors import InvalidInput

GENERATOR = ".venv/bin/python tests/make_revision_files.py"
NAME = KNOWN["campaign.name"][0]  # campaign 1 of every kept file, the one its export holds
REVISIONS = sorted(known_revisions())


def _kept_export(revision: str) -> bytes:
    return (EXPORTS / export_name(revision)).read_bytes()


def _campaign_id(factory: SessionFactory, name: str) -> int:
    return next(c.id for c in campaigns.list_campaigns(factory) if c.name == name)


def _as_written(document: dict[str, Any]) -> Any:
    return json.loads(exchange.dumps(document))


def _kept_file_upgraded(revision: str) -> Any:
    """Campaign 1 of the kept campaign file of this revision (made playable as its export
    was), upgraded by the migrations and exported by today's tracker: a copy of what was made
    once per test process (the upgrade costs about a second of CPU, and the same file upgrades
    to the same campaign for the SQLite and the PostgreSQL run of a revision)."""
    return copy.deepcopy(_upgraded_once(revision))


@functools.cache
def _upgraded_once(revision: str) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = playable_copy(FOLDER / file_name(revision), Path(folder) / "kept.db")
        engine = make_engine(str(path))
        try:
            migrate(engine)
            factory = factory_of(engine)
            return _as_written(
                exchange.export_campaign(factory, campaign_id=_campaign_id(factory, NAME))
            )
        finally:
            engine.dispose()


@functools.cache
def _read_once(revision: str) -> dict[str, Any]:
    """The kept export of this revision as read_document reads it (upgraded to head through a
    scratch database): read once per test process, as the bytes are the same whichever
    database the test then imports it into."""
    document = exchange.read_document(_kept_export(revision))
    assert document["schema"] == head_revision()
    return document


def test_a_kept_export_for_every_revision() -> None:
    missing = [r for r in REVISIONS if not (EXPORTS / export_name(r)).exists()]
    assert not missing, (
        f"no kept export for schema revision {', '.join(missing)}: run `{GENERATOR}` and commit "
        "the new files in tests/revision_files/ and tests/revision_exports/"
    )
    kept = {json.loads(path.read_bytes())["schema"] for path in EXPORTS.glob("*.json")}
    assert kept == set(REVISIONS), "a kept export of a revision no migration makes"


def test_a_kept_export_is_what_tracker_export_writes(tmp_path: Path) -> None:
    """At today's revision the generator's export and tracker's own agree to the value, so the
    kept exports of earlier revisions are what tracker export wrote then."""
    head = head_revision()
    kept = json.loads(_kept_export(head))
    assert kept == _kept_file_upgraded(head)
    copy = playable_copy(FOLDER / file_name(head), tmp_path / "again.db")
    assert export_of(copy) == kept  # the kept file is made the same way every time


def _uids_apart(document: dict[str, Any]) -> dict[str, set[str]]:
    """The ids of the document's rows (models.identity), taken out of its rows, by table."""
    return {name: {row.pop("uid") for row in document["tables"][name]}
            for name in identities.IDENTIFIED}  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS)
def test_a_kept_export_imports_as_its_kept_file_upgraded(
    revision: str, factory: SessionFactory
) -> None:
    """The same campaign, value for value; one written before its rows had ids of their own
    (schema 0016) is a campaign of its own: every row has a new id, none its kept file's."""
    document = copy.deepcopy(_read_once(revision))
    campaign_id = exchange.import_campaign(factory, document=document)
    imported = _as_written(exchange.export_campaign(factory, campaign_id=campaign_id))
    upgraded = _kept_file_upgraded(revision)
    if revision >= identities.ROW_IDS:
        assert imported == upgraded
        return
    fresh, kept = _uids_apart(imported), _uids_apart(upgraded)
    assert imported == upgraded
    for name in identities.IDENTIFIED:
        rows = len(imported["tables"][name])
        assert len(fresh[name]) == rows and all(len(uid) == 36 for uid in fresh[name]), name
        assert not fresh[name] & kept[name], name


SETTINGS = settings(
    max_examples=examples(10), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
# A revision no migration of this tracker makes: a newer tracker's, whatever its name.
UNKNOWN = st.text(st.sampled_from("0123456789abcdef_"), min_size=1, max_size=12).filter(
    lambda name: name not in known_revisions()
)


@SETTINGS
@given(schema=UNKNOWN, revision=st.sampled_from(REVISIONS))
def test_an_export_of_a_newer_schema_is_refused(
    factory: SessionFactory, schema: str, revision: str
) -> None:
    document = json.loads(_kept_export(revision))
    document["schema"] = schema
    before = campaigns.list_campaigns(factory)
    with pytest.raises(InvalidInput) as refused:
        exchange.read_document(exchange.dumps(document).encode())
    message = refused.value.errors["file"]
    assert f"was written by a newer tracker (schema {schema};" in message
    assert f"up to {head_revision()}" in message and "update tracker" in message
    assert campaigns.list_campaigns(factory) == before


@pytest.mark.parametrize("revision", REVISIONS[:-1])
def test_a_field_of_a_later_schema_in_an_older_export_is_named(revision: str) -> None:
    """An earlier revision's rows are read against that revision's tables, not today's."""
    later = json.loads(_kept_export(head_revision()))["tables"]["campaign"][0]
    document = json.loads(_kept_export(revision))
    row = document["tables"]["campaign"][0]
    extra = sorted(later.keys() - row.keys())
    if not extra:
        pytest.skip(f"the campaign table is the same at {revision} as today")
    row[extra[0]] = later[extra[0]]
    with pytest.raises(InvalidInput, match=f"campaign row 0: has an unknown field '{extra[0]}'"):
        exchange.read_document(exchange.dumps(document).encode())
