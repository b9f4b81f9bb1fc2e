"""A whole campaign as a JSON document (tracker.services.exchange): export, import, export again.

The campaign has rows in every table (campaign_files.fill_every_table). Besides the round trip of
the document, the imported rows are compared with the source rows straight from the two files,
with the ids matched by their order, so a column the export left out or a reference the import
got wrong shows even when both exports agree.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from campaign_files import (
    PASSPHRASE,
    SHARED,
    Filled,
    as_second_copy,
    campaign_rows,
    fill_every_table,
    full_sample_campaign,
)
from service_helpers import Refused, get_row, pg_copy, seal_verified
from sqlalchemy import Engine
from sqlmodel import SQLModel

from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.models import Ship
from tracker.services import (
    campaigns,
    damage,
    documents,
    exchange,
    fleet,
    history,
    identities,
    mines,
    roster,
    scenarios,
)
from tracker.services.demo import SAMPLE_NAME
from tracker.services.documents import every_change
from tracker.services.errors import InvalidInput

TABLES = sorted({table.name for table in SQLModel.metadata.sorted_tables} - {"alembic_version"})
# Columns that hold another row's id without a foreign key, listed here apart from exchange's own
# list; a new one must be added (test_every_id_column_is_a_known_reference).
LOOSE_REFS = {
    ("critical", "scenario_id"): "scenario",
    ("journalentry", "scenario_id"): "scenario",
    ("journalentry", "side_id"): "side",
    ("journalentry", "ship_id"): "ship",
    ("ship", "transferred_scenario_id"): "scenario",
    ("squadron", "commander_ship_id"): "ship",
    ("submarker", "search_scenario_id"): "scenario",
}


@dataclass(frozen=True)
class Source:
    """A file holding the full sample campaign, and its export (the file is never written)."""

    path: Path
    filled: Filled
    document: dict[str, Any]
    text: str


@contextmanager
def _copy_of(template: Path, folder: Path) -> Iterator[tuple[Path, SessionFactory]]:
    """A copy of template as folder/campaign.db, open for the block (its engine disposed after)."""
    path = folder / "campaign.db"
    shutil.copyfile(template, path)
    engine = make_engine(str(path))
    try:
        yield path, session_factory(engine)
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Source:
    with _copy_of(migrated_template, tmp_path_factory.mktemp("source")) as (path, factory):
        filled = full_sample_campaign(factory)
        document = exchange.export_campaign(factory, campaign_id=filled.campaign_id)
    return Source(path, filled, document, exchange.dumps(document))


def _add_other_campaign(factory: SessionFactory) -> None:
    """Another campaign with rows in every table, so every id an import gives differs from the
    source's."""
    other = campaigns.create_campaign(factory, name="Other")
    side = campaigns.create_side(factory, campaign_id=other.id, name="Kriegsmarine")
    squadron = fleet.create_squadron(factory, side_id=side.id, name="Raiders")
    ship = fleet.create_ship(
        factory, squadron_id=squadron, fields=fleet.ShipFields(name="Hipper", structure_max=12)
    )
    campaigns.add_scenario(factory, campaign_id=other.id, title="Operation Juno")
    fill_every_table(factory, campaign_id=other.id, ship_id=ship, passphrase="other-pass")


@pytest.fixture(scope="module")
def target_template(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Path:
    """A file that already holds another campaign."""
    with _copy_of(migrated_template, tmp_path_factory.mktemp("target")) as (path, factory):
        _add_other_campaign(factory)
    assert not path.with_name("campaign.db-wal").exists()
    return path


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, backend: str, db_path: Path, target_template: Path
) -> Iterator[Engine]:
    """This test's database holding the other campaign: a copy of the target template, or the
    emptied PostgreSQL database (the `factory` and `refused` fixtures work on it)."""
    if backend == "postgresql":
        pg: Engine = request.getfixturevalue("pg_engine")
        pg_copy(pg, "other_campaign", _add_other_campaign)
        yield pg
        return
    shutil.copyfile(target_template, db_path)
    engine = make_engine(str(db_path))
    assert migrate(engine) is None
    yield engine
    engine.dispose()


def _other_id(factory: SessionFactory) -> int:
    return next(c.id for c in campaigns.list_campaigns(factory) if c.name == "Other")


def _raw_rows(engine: Engine, table: str, ids: list[int]) -> list[dict[str, Any]]:
    """Rows as stored, read with SQLAlchemy's table (no tracker code), in id order; without
    the row version, which counts the changes a row has seen (an imported row starts at 1)."""
    rows = SQLModel.metadata.tables[table]
    with engine.connect() as conn:
        found = conn.execute(rows.select().where(rows.c.id.in_(ids)).order_by(rows.c.id))
        return [{k: v for k, v in row._mapping.items() if k != "version"} for row in found]


def _references(table: str) -> dict[str, str]:
    refs = {
        fk.parent.name: fk.column.table.name for fk in SQLModel.metadata.tables[table].foreign_keys
    }
    refs.update({column: target for (name, column), target in LOOSE_REFS.items() if name == table})
    return refs


Ids = dict[str, dict[int, int]]


def _translate(table: str, row: dict[str, Any], ids: Ids) -> dict[str, Any]:
    """A source row as it must read in the target: ids and references (in columns and in the
    journal's and snapshots' JSON) renumbered by `ids`."""
    out = dict(row)
    out["id"] = ids[table][row["id"]]
    for column, target in _references(table).items():
        if row[column] is not None:
            out[column] = ids[target][row[column]]
    if table == "journalentry":
        detail = json.loads(row["detail"])
        # The entry's own before/after: a field named like a reference names that table's row.
        names = {key: target for name in TABLES for key, target in _references(name).items()}
        for state in (detail.get("before"), detail.get("after")):
            for key, value in (state or {}).items():
                if key in names and isinstance(value, int) and not isinstance(value, bool):
                    state[key] = ids[names[key]].get(value)
        for change in every_change(detail):
            refs = _references(change["table"])
            change["id"] = ids[change["table"]][change["id"]]
            for state in (change["before"], change["after"]):
                for key, value in (state or {}).items():
                    if key in refs and value is not None:
                        state[key] = ids[refs[key]][value]
        out["detail"] = detail
    if table == "submarker" and row["secret"].startswith("plain:"):
        note = json.loads(row["secret"].removeprefix("plain:"))
        out["secret"] = {**note, "unit": ids["wasunit"][note["unit"]]}
    if table == "shipsnapshot":
        out["criticals"] = [
            {**item, "id": ids["critical"][item["id"]]} for item in json.loads(row["criticals"])
        ]
    return out


def _as_stored(table: str, row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    if table == "journalentry":
        out["detail"] = json.loads(row["detail"])
    if table == "submarker" and row["secret"].startswith("plain:"):
        out["secret"] = json.loads(row["secret"].removeprefix("plain:"))
    if table == "shipsnapshot":
        out["criticals"] = json.loads(row["criticals"])
    return out


def _imported_ids(source_rows: dict[str, list[int]], target_rows: dict[str, list[int]]) -> Ids:
    """Source id -> imported id, table by table: the import keeps the rows' order."""
    assert {k: len(v) for k, v in target_rows.items()} == {
        k: len(v) for k, v in source_rows.items()
    }
    return {
        name: dict(zip(source_rows[name], target_rows[name], strict=True)) for name in source_rows
    }


def test_every_id_column_is_a_known_reference() -> None:
    """A new column naming another row must be added to LOOSE_REFS (and to documents' list)."""
    for table in SQLModel.metadata.sorted_tables:
        for column in table.columns:
            if column.name.endswith("_id") and not column.foreign_keys:
                assert (table.name, column.name) in LOOSE_REFS, f"{table.name}.{column.name}"
    loose = {(name, column) for name, refs in documents.EXTRA_REFS.items() for column in refs}
    assert loose == set(LOOSE_REFS)


def test_the_document_has_rows_in_every_table(source: Source) -> None:
    tables = source.document["tables"]
    assert sorted(tables) == TABLES
    assert [name for name in TABLES if not tables[name]] == []
    assert (source.document["format"], source.document["version"]) == ("tracker-campaign", 1)
    # Secret notes travel as stored: encrypted where the side has a passphrase, else plain.
    notes = {m["unit_id"]: m["secret"].split(":")[0] for m in tables["submarker"]}
    units = {unit["id"]: unit["name"] for unit in tables["wasunit"]}
    assert sorted((units[unit], kind) for unit, kind in notes.items()) == [
        ("U-32", "plain"),
        ("U-47", "fernet"),
    ]
    secret = [field for field in tables["minefield"] if field["secret"]]
    assert len(secret) == 1 and secret[0]["sealed"].startswith("fernet:")
    assert "off Lobos" not in source.text and "Teviot Bank" not in source.text


def test_export_import_export_gives_the_same_document(
    source: Source, factory: SessionFactory, engine: Engine
) -> None:
    other_id = _other_id(factory)
    other_before = exchange.dumps(exchange.export_campaign(factory, campaign_id=other_id))

    imported = exchange.import_campaign(factory, document=json.loads(source.text))

    again = exchange.export_campaign(factory, campaign_id=imported)
    assert exchange.dumps(again) == source.text
    # The campaign already in the file is untouched.
    assert exchange.dumps(exchange.export_campaign(factory, campaign_id=other_id)) == other_before
    # Row for row, the target file holds what the source file holds, ids renumbered.
    source_engine = make_engine(str(source.path))
    source_rows = campaign_rows(session_factory(source_engine), source.filled.campaign_id)
    target_rows = campaign_rows(factory, imported)
    other_rows = campaign_rows(factory, other_id)
    ids = _imported_ids(source_rows, target_rows)
    try:
        for name in TABLES:
            # The library is shared: the entries the file had are the imported campaign's too.
            assert name in SHARED or not set(target_rows[name]) & set(other_rows[name]), name
            expected = [_translate(name, row, ids)
                        for row in _raw_rows(source_engine, name, source_rows[name])]  # fmt: skip
            stored = [_as_stored(name, row) for row in _raw_rows(engine, name, target_rows[name])]
            assert stored == expected, name
    finally:
        source_engine.dispose()


@pytest.fixture
def imported(source: Source, factory: SessionFactory) -> int:
    """The source campaign imported into this test's file; its id."""
    return exchange.import_campaign(factory, document=json.loads(source.text))


def _ship(factory: SessionFactory, campaign_id: int, name: str) -> Ship:
    ids = campaign_rows(factory, campaign_id)["ship"]
    found = [get_row(factory, Ship, ship_id) for ship_id in ids]
    [ship] = [ship for ship in found if ship.name == name]
    return ship


def _side_id(factory: SessionFactory, campaign_id: int) -> int:
    return campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].id


def test_the_owner_opens_the_imported_secrets_with_the_passphrase(
    factory: SessionFactory, imported: int
) -> None:
    side_id = _side_id(factory, imported)
    view = mines.ledger(factory, campaign_id=imported, owner_side_id=side_id, passphrase=PASSPHRASE)
    [secret] = [field for field in view.minefields if field.secret]
    assert (secret.notes, secret.layer, secret.where) == ("off Lobos", "Teviot Bank", "A | B")
    # Its boundary is the imported campaign's own, not the other campaign's A | B.
    assert secret.boundary_id in campaign_rows(factory, imported)["seaboundary"]
    public = mines.ledger(factory, campaign_id=imported)
    assert [(f.hidden, f.notes) for f in public.minefields if f.secret] == [(True, "")]
    with pytest.raises(InvalidInput):
        mines.ledger(factory, campaign_id=imported, owner_side_id=side_id, passphrase="wrong")
    # The submarines' markers: which one is real opens too, and their seals still hold.
    sides = campaigns.get_overview(factory, campaign_id=imported).sides
    for side, passphrase, real in ((sides[0], PASSPHRASE, "A1"), (sides[1], None, "B2")):
        owner = roster.roster(factory, side_id=side.id, owner=True, passphrase=passphrase)
        [unit] = owner.units
        assert unit.id in campaign_rows(factory, imported)["wasunit"]
        placed = sorted((m.sector, m.real, m.unit_id) for m in owner.markers)
        assert placed == [(sector, sector == real, unit.id) for sector in sorted(
            {m.sector for m in owner.markers})] and len(placed) == 2  # fmt: skip
        for marker in owner.markers:  # each marker's own seal
            assert seal_verified(factory, marker.seal, side.id, passphrase)


def test_the_journal_of_the_imported_campaign_points_at_its_rows(
    factory: SessionFactory, imported: int, engine: Engine
) -> None:
    rows = campaign_rows(factory, imported)
    targets = {"reverts_id": "journalentry", "reverted_by_id": "journalentry",
               "scenario_id": "scenario", "side_id": "side", "ship_id": "ship"}  # fmt: skip
    changed = 0
    for entry in _raw_rows(engine, "journalentry", rows["journalentry"]):
        for change in json.loads(entry["detail"])["changes"]:
            assert change["id"] in rows[change["table"]], (entry["summary"], change)
            changed += 1
        for column, target in targets.items():
            assert entry[column] is None or entry[column] in rows[target], (column, entry)
    assert changed > 10


def test_the_journal_entries_own_before_and_after_point_at_its_rows(
    factory: SessionFactory, imported: int, engine: Engine
) -> None:
    rows = campaign_rows(factory, imported)
    targets = {"side_id": "side", "squadron_id": "squadron", "original_squadron_id": "squadron"}
    for entry in _raw_rows(engine, "journalentry", rows["journalentry"]):
        detail = json.loads(entry["detail"])
        for state in (detail["before"], detail["after"]):
            for key, target in targets.items():
                if state and state.get(key) is not None:
                    assert state[key] in rows[target], (entry["summary"], key, state[key])


def test_undo_of_the_newest_entry_reverts_the_imported_row(
    factory: SessionFactory, imported: int
) -> None:
    other_id = _other_id(factory)
    hipper = _ship(factory, other_id, "Hipper")
    ajax = _ship(factory, imported, "Ajax")
    # The source's newest entries: Ajax used 1 fuel, undone, redone (2 full, 1 empty).
    assert (ajax.fuel_full, ajax.fuel_empty) == (2, 1)
    newest = max(campaign_rows(factory, imported)["journalentry"])

    result = history.undo_last(factory, campaign_id=imported)

    assert result.reverted_id == newest
    assert result.ship_ids == (ajax.id,)
    after = get_row(factory, Ship, ajax.id or 0)
    assert (after.fuel_full, after.fuel_empty) == (3, 0)
    assert get_row(factory, Ship, hipper.id or 0) == hipper
    # Redo works on the imported chain of undo and redo too.
    history.redo_last(factory, campaign_id=imported)
    again = get_row(factory, Ship, ajax.id or 0)
    assert (again.fuel_full, again.fuel_empty) == (2, 1)


def test_a_second_copy_under_another_name_is_independent(
    source: Source, factory: SessionFactory, imported: int
) -> None:
    second = exchange.import_campaign(
        factory, document=json.loads(source.text), name="  River Plate II "
    )
    assert [c.name for c in campaigns.list_campaigns(factory)] == [
        "Other",
        "River Plate II",
        SAMPLE_NAME,
    ]
    first_rows, second_rows = campaign_rows(factory, imported), campaign_rows(factory, second)
    for name in TABLES:
        assert name in SHARED or not set(first_rows[name]) & set(second_rows[name]), name
    second_document = exchange.export_campaign(factory, campaign_id=second)
    second_text = exchange.dumps(second_document)
    # A second copy beside the first is a campaign of its own: its campaign and sides have
    # ids of their own (services.identities), and nothing else differs.
    copy = as_second_copy(json.loads(source.text), second_document)
    copy["tables"]["campaign"][0]["name"] = "River Plate II"
    assert second_text == exchange.dumps(copy)

    first_ajax = _ship(factory, imported, "Ajax")
    second_ajax = _ship(factory, second, "Ajax")
    battle = campaigns.add_scenario(factory, campaign_id=imported, title="Return match")
    scenarios.set_participants(factory, scenario_id=battle.id, ship_ids=[first_ajax.id or 0])
    scenarios.start_scenario(factory, scenario_id=battle.id)
    first_ajax = get_row(factory, Ship, first_ajax.id or 0)
    damage.record_hit(
        factory,
        request=damage.HitRequest(
            ship_id=first_ajax.id or 0, structure=2, criticals=(damage.CriticalRequest(roll=4),)
        ),
    )

    hit = get_row(factory, Ship, first_ajax.id or 0)
    assert hit.structure_now == first_ajax.structure_now - 2
    assert get_row(factory, Ship, second_ajax.id or 0) == second_ajax
    assert len(damage.list_criticals(factory, ship_id=first_ajax.id or 0)) == 2
    assert len(damage.list_criticals(factory, ship_id=second_ajax.id or 0)) == 1
    assert exchange.dumps(exchange.export_campaign(factory, campaign_id=second)) == second_text
    # Undo in the hit copy reverts the hit there, and nothing in the other copy.
    history.undo_last(factory, campaign_id=imported)
    assert get_row(factory, Ship, first_ajax.id or 0).structure_now == first_ajax.structure_now
    assert exchange.dumps(exchange.export_campaign(factory, campaign_id=second)) == second_text


@pytest.mark.parametrize("name", [None, SAMPLE_NAME.lower(), f" {SAMPLE_NAME.upper()} "])
def test_an_import_under_a_name_already_in_the_file_is_refused(
    source: Source, factory: SessionFactory, imported: int, refused: Refused, name: str | None
) -> None:
    outcome = refused(
        lambda: exchange.import_campaign(factory, document=json.loads(source.text), name=name),
        "name",
    )
    assert SAMPLE_NAME in outcome.errors["name"]


@pytest.mark.parametrize(
    ("held", "name"), [("Émile", "ÉMILE"), ("Ærø", "ærØ"), ("Straße", "STRASSE")]
)
def test_an_import_under_a_name_the_file_holds_in_any_case_is_refused(
    source: Source, factory: SessionFactory, refused: Refused, held: str, name: str
) -> None:
    """A campaign's name is one name in any case, as a campaign created beside it is told:
    beyond ASCII too, which SQLite's lower() does not fold."""
    campaigns.create_campaign(factory, name=held)
    refused(lambda: campaigns.create_campaign(factory, name=name), "name")
    outcome = refused(
        lambda: exchange.import_campaign(factory, document=json.loads(source.text), name=name),
        "name",
    )
    assert held in outcome.errors["name"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, "bell\x07"])
def test_an_import_under_a_bad_name_is_refused(
    source: Source, factory: SessionFactory, refused: Refused, name: str
) -> None:
    refused(
        lambda: exchange.import_campaign(factory, document=json.loads(source.text), name=name),
        "name",
    )


def test_an_import_keeps_every_rows_id_unless_the_file_holds_the_campaign(
    source: Source, factory: SessionFactory
) -> None:
    """A campaign exported, deleted and imported again is the same campaign, every row of it,
    the journal's too (its backups are found by its ids); a copy beside one still in the file
    is a campaign of its own, every row with a new id."""

    def uids(campaign_id: int) -> dict[str, list[str]]:
        tables = exchange.export_campaign(factory, campaign_id=campaign_id)["tables"]
        return {name: [row["uid"] for row in tables[name]] for name in identities.IDENTIFIED}

    exported = {name: [row["uid"] for row in source.document["tables"][name]]
                for name in identities.IDENTIFIED}  # fmt: skip
    assert all(exported.values()), "the source has rows in every identified table"
    assert not identities.held(factory, document=source.document)
    first = exchange.import_campaign(factory, document=json.loads(source.text))
    assert uids(first) == exported
    again = exchange.export_campaign(factory, campaign_id=first)
    campaigns.delete_campaign(factory, campaign_id=first)
    back = exchange.import_campaign(factory, document=json.loads(exchange.dumps(again)))
    assert uids(back) == exported
    assert identities.held(factory, document=source.document)
    second = exchange.import_campaign(factory, document=json.loads(source.text), name="Copy")
    fresh, others = uids(second), uids(_other_id(factory))
    for name in identities.IDENTIFIED:
        assert len(set(fresh[name])) == len(exported[name])
        assert not set(fresh[name]) & (set(exported[name]) | set(others[name])), name
    # Its journal names its rows by their new ids (a row's before and after, which an undo puts
    # back), a row deleted before the export included: never a row of the first copy.
    journal = exchange.export_campaign(factory, campaign_id=second)["tables"]["journalentry"]
    named = set(re.findall(r'"uid":\s*"([0-9a-f-]{36})"', " ".join(e["detail"] for e in journal)))
    assert named & set(fresh["ship"]), "the copy's journal names its ships by their ids"
    assert not named & {uid for uids in exported.values() for uid in uids}
