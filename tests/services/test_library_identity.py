"""A library entry is one entry whatever the case of its name and nation (models.library
entry_key): the database holds it too, with a unique index on both in lower case (migration
0015), and an upgrade makes one of the entries an older file kept apart, saying which."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from make_revision_files import FOLDER, file_name
from sqlalchemy import Engine, insert
from sqlalchemy.exc import IntegrityError

from tracker.cli import upgrade_said
from tracker.db import make_engine, migrate
from tracker.models import ShipClass, UnitCard
from tracker.models.library import entry_key

# Names and nations as players type them: letters of any case, digits, spaces, dashes.
WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123 -."),
               min_size=1, max_size=20).filter(str.strip)  # fmt: skip


def _flip(text: str, pattern: list[bool]) -> str:
    """The text with the case of the letters the pattern picks swapped."""
    return "".join(
        c.swapcase() if flip else c for c, flip in zip(text, pattern * len(text), strict=False)
    )


@pytest.mark.parametrize("table", [ShipClass, UnitCard], ids=["classes", "cards"])
@settings(max_examples=examples(25), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=WORD, nation=WORD, pattern=st.lists(st.booleans(), min_size=1, max_size=5))
def test_the_database_refuses_an_entry_the_key_finds_already_there(
    engine: Engine, table: type, name: str, nation: str, pattern: list[bool]
) -> None:
    """Whatever writes to the library (an import, a campaign file's entries, a program beside
    the tracker), a second entry of the same name and nation in another case is refused."""
    variant = (_flip(name, pattern), _flip(nation, pattern[::-1]))
    assert entry_key(*variant) == entry_key(name, nation)
    values = {"name": name, "nation": nation, "structure": 5, "flotation": 5}
    rows = table.__table__  # type: ignore[attr-defined]
    allowed = {k: v for k, v in values.items() if k in rows.c}
    with engine.begin() as conn:
        conn.execute(rows.delete())
        conn.execute(insert(rows).values(**(_defaults(rows) | allowed)))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        named = {"name": variant[0], "nation": variant[1]}
        conn.execute(insert(rows).values(**(_defaults(rows) | allowed | named)))
    with engine.begin() as conn:
        assert len(conn.execute(rows.select()).all()) == 1
        conn.execute(rows.delete())


def _defaults(table: object) -> dict[str, object]:
    """A value for every column that has no default of its own: the text ones empty."""
    found: dict[str, object] = {}
    for column in table.c:  # type: ignore[attr-defined]
        if column.primary_key or column.default is not None or column.server_default is not None:
            continue
        found[column.name] = 0 if column.type.python_type is int else ""
    return found


@pytest.mark.sqlite_only("a kept campaign file of revision 0014")
def test_an_upgrade_keeps_the_newest_of_entries_alike_but_for_case_and_says_which(
    tmp_path: Path, backend: str
) -> None:
    path = tmp_path / "campaign.db"
    shutil.copyfile(FOLDER / file_name("0014"), path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM unitcard")
        for name, nation in (("Bismarck", "Germany"), ("BISMARCK", "germany"),
                             ("Bismarck", "Deutschland"), ("Tirpitz", "Germany")):  # fmt: skip
            conn.execute(
                "INSERT INTO unitcard (name, nation, unit_type, points, armor, vital_armor,"
                " hull_points, speed, class_name, alliance, set_name, set_number, rarity,"
                " back_text, notes, attacks, abilities, version) VALUES"
                " (?, ?, 'battleship', 70, 6, 12, 6, '2', '', '', '', '', '', '', '',"
                " '{}', '[]', 1)",
                (name, nation),
            )
    conn.close()
    engine = make_engine(str(path))
    notes: list[str] = []
    backup = migrate(engine, notes)
    engine.dispose()
    conn = sqlite3.connect(path)
    kept = conn.execute("SELECT name, nation FROM unitcard ORDER BY id").fetchall()
    conn.close()
    assert kept == [("BISMARCK", "germany"), ("Bismarck", "Deutschland"), ("Tirpitz", "Germany")]
    assert notes == [
        "the library's card Bismarck (Germany) was the same as BISMARCK (germany) in another "
        "case: the newer is kept"
    ]
    said = upgrade_said(backup, notes)
    assert said is not None and str(backup) in said and notes[0] in said
    assert backup is not None
    old = sqlite3.connect(backup)
    assert len(old.execute("SELECT id FROM unitcard").fetchall()) == 4  # the backup keeps all
    old.close()


def test_nothing_upgraded_says_nothing() -> None:
    assert upgrade_said(None, []) is None
