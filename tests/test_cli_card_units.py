"""A War at Sea card's air-to-air dice, flagship rating, plane capacity and class through the
command line: `tracker library import` says which blank it took as a default, `tracker library
export` writes them in CSV and JSON and reads them back, and a campaign's units built from the
cards keep them through `tracker export` and `tracker import`."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from campaign_files import migrated_engine, run_main

from tracker.db import session_factory
from tracker.services import building, campaigns, library

# Written for this test, not copied from a real card.
CARDS = (
    "name,nation,unit_type,points,armor,vital_armor,speed,air_to_air,flagship,plane_capacity,"
    "class_name,attack_anti_air\n"
    "C.202 Folgore,Italia,fighter,9,3,,A,2,,,,6 - - -\n"
    "Akagi,Japan,carrier,40,4,8,2,,1,4,Akagi class,3 2 - -\n"
)
NEW = ("air_to_air", "flagship", "plane_capacity", "class_name")
# Each card's new values as the files write them: a blank for none.
WRITTEN = {"C.202 Folgore": ("2", "", "", ""), "Akagi": ("", "1", "4", "Akagi class")}


def test_the_library_files_carry_a_cards_new_values_and_a_blank_taken_as_default_is_said(
    db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = db_path
    migrated_engine(db).dispose()
    source = tmp_path / "cards.csv"
    source.write_text(CARDS, encoding="utf-8")
    done = run_main(capsys, ["--db", str(db), "library", "import", str(source)])
    assert done.status == 0
    assert f"{source}: warning: row 2, vital_armor: blank: taken as 1, the default" in done.out
    assert "hull_points: blank: taken as 1, the default" in done.out  # no such column
    written = tmp_path / "cards-out.csv"
    assert run_main(capsys, ["--db", str(db), "library", "export", str(written)]).status == 0
    rows = list(csv.DictReader(io.StringIO(written.read_text(encoding="utf-8"))))
    assert {row["name"]: tuple(row[key] for key in NEW) for row in rows} == WRITTEN
    whole = tmp_path / "library.json"
    assert run_main(capsys, ["--db", str(db), "library", "export", str(whole)]).status == 0
    cards = json.loads(whole.read_text(encoding="utf-8"))["cards"]
    assert {card["name"]: tuple("" if card[key] is None else str(card[key]) for key in NEW)
            for card in cards} == WRITTEN  # fmt: skip
    for again in (written, whole):
        read = run_main(capsys, ["--db", str(db), "library", "import", str(again)])
        assert read.status == 0 and "0 added, 0 changed, 2 unchanged" in read.out
        assert "warning" not in read.out  # every value written: no blank left to fill


def _units(path: Path, campaign: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT u.name, u.air_to_air, u.flagship, u.plane_capacity, u.class_name "
            "FROM wasunit u JOIN side s ON s.id = u.side_id JOIN campaign c ON c.id = "
            "s.campaign_id WHERE c.name = ? ORDER BY u.name", (campaign,)
        ).fetchall()  # fmt: skip
    finally:
        conn.close()


def test_units_built_from_cards_keep_their_new_values_through_a_campaigns_export_and_import(
    db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = db_path
    engine = migrated_engine(db)
    factory = session_factory(engine)
    library.import_library(factory, raw=CARDS.encode())
    campaign_id = campaigns.create_campaign(factory, name="Pacific 1942").id
    side_id = campaigns.create_side(factory, campaign_id=campaign_id, name="Axis").id
    building.add_units(factory, side_id=side_id,
                       picks=[(card.id, "") for card in library.cards(factory)])  # fmt: skip
    engine.dispose()
    built = _units(db, "Pacific 1942")
    assert built == [("Akagi", None, 1, 4, "Akagi class"), ("C.202 Folgore", 2, None, None, "")]
    target = tmp_path / "pacific.json"
    exported = run_main(capsys, ["--db", str(db), "export", "Pacific 1942", "--to", str(target)])
    assert exported.status == 0
    rows = json.loads(target.read_text(encoding="utf-8"))["tables"]["wasunit"]
    assert sorted((row["name"], *(row[key] for key in NEW)) for row in rows) == built
    imported = run_main(capsys, ["--db", str(db), "import", str(target), "--name", "Copy"])
    assert imported.status == 0
    assert _units(db, "Copy") == built
