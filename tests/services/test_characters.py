"""Characters no name holds: every control character (C0, a TAB and line breaks among them,
and C1), bidirectional controls and other invisible format characters are refused in every
name, on every path a name arrives by (the forms' services, a CSV file, a library file, a
campaign file); free text (notes) refuses the C1 controls and the bidirectional overrides, and
keeps lines, TABs, joiners and direction marks."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import example as case
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.services import (
    campaigns,
    command,
    csv_import,
    exchange,
    fleet,
    library,
    markers,
    mines,
    roster,
)
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

# The character classes, written out here rather than read from tracker.
C0 = st.one_of(st.integers(0x00, 0x1F).map(chr), st.just("\x7f"))
LINE = st.sampled_from("\t\n\r")  # C0 too, but free text keeps them: a name does not
C1 = st.integers(0x80, 0x9F).map(chr)
OVERRIDES = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # embeddings, isolates
MARKS = "\u200e\u200f\u061c"  # left-to-right, right-to-left and Arabic letter marks
BIDI = st.sampled_from(OVERRIDES + MARKS)
OTHER_FORMAT = st.characters(categories=["Cf"], exclude_characters=OVERRIDES + MARKS)
CONTROL = "a control character"
WHAT = {"c0": CONTROL, "line": CONTROL, "c1": CONTROL, "bidi": "a bidirectional control",
        "format": "an invisible formatting character"}  # fmt: skip
CLASSES = {"c0": C0, "line": LINE, "c1": C1, "bidi": BIDI, "format": OTHER_FORMAT}
# What is around the character: a name a player might type, markup and escapes too.
AROUND = st.text(st.sampled_from("Exeter Ajax 123[]/\\@=b'\"-"), max_size=12)

SETTINGS = settings(
    max_examples=examples(25), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


@st.composite
def bad_names(draw: st.DrawFn, classes: tuple[str, ...] = tuple(CLASSES)) -> tuple[str, str, str]:
    """(name holding one refused character, the character, the class it is of)."""
    kind = draw(st.sampled_from(classes))
    char = draw(CLASSES[kind])
    # Inside the name: a TAB or a line break at either end is blank space, stripped as such.
    name = (draw(AROUND) + "X").strip() + char + "Y" + draw(AROUND)
    return name, char, kind


def message(char: str, kind: str) -> str:
    return f"holds {WHAT[kind]} (U+{ord(char):04X}): retype it without it"


def refused(call: Callable[[], object]) -> dict[str, str]:
    with pytest.raises(InvalidInput) as caught:
        call()
    return caught.value.errors


def name_setters(factory: SessionFactory, world: World) -> dict[str, Callable[[str], object]]:
    """Each service that takes a name, by the field its error names."""
    unit = roster.save_unit(factory, side_id=world.blue_id, fields=roster.UnitFields(
        name="U-47", unit_type="submarine", points=10))  # fmt: skip
    return {
        "campaign": lambda name: campaigns.create_campaign(factory, name=name),
        "scenario": lambda name: campaigns.add_scenario(
            factory, campaign_id=world.campaign_id, title=name),
        "side": lambda name: campaigns.create_side(
            factory, campaign_id=world.campaign_id, name=name, nation=""),
        "squadron": lambda name: fleet.create_squadron(factory, side_id=world.blue_id, name=name),
        "ship": lambda name: fleet.create_ship(factory, squadron_id=world.alpha_id,
            fields=ShipFields(name=name, structure_max=9, flotation_max=9)),
        "commander": lambda name: command.set_commander(factory, squadron_id=world.alpha_id,
            name=name, training=4, acquisition="bought"),
        "unit": lambda name: roster.save_unit(factory, side_id=world.blue_id,
            fields=roster.UnitFields(name=name, unit_type="submarine", points=10)),
        "marker sector": lambda name: markers.assign_markers(
            factory, unit_id=unit, real=1, sectors=[name[:12], "B1"]),
        "minefield layer": lambda name: mines.sow_minefield(factory, side_id=world.blue_id,
            laid_by="surface", sector="A1", layer_name=name),
        "minefield sector": lambda name: mines.sow_minefield(factory, side_id=world.blue_id,
            laid_by="surface", sector=name[:12]),
        "sea area": lambda name: mines.add_boundary(factory, campaign_id=world.campaign_id,
            area_a=name, area_b="B"),
        "aircraft": lambda name: mines.aerial_drop(factory, side_id=world.blue_id,
            aircraft=name, naval_attack=2, land_attack=2, circled=False, rolls=[6]),
        "command rule": lambda name: command.restore_command(factory, squadron_id=world.alpha_id,
            rule=name),
        "unit card": lambda name: _library_entry(factory, "cards", {
            "name": name, "unit_type": "cruiser", "points": 5}),
        "ship class": lambda name: _library_entry(factory, "classes", {
            "name": name, "structure": 9, "flotation": 8}),
    }  # fmt: skip


def _library_entry(factory: SessionFactory, kind: str, entry: dict[str, Any]) -> object:
    """A library file holding one entry, imported; its problem as the refusal of a name."""
    document = {"format": "tracker-library", "version": 1, kind: [entry]}
    report = library.import_library(factory, raw=json.dumps(document).encode(), json_file=True)
    for line in report.problems:
        where, _, message = line.partition(": ")
        raise InvalidInput({where.rpartition(", ")[2]: message})
    return report


FIELD = {"scenario": "title", "marker sector": "sector_1", "minefield layer": "layer_name",
         "minefield sector": "sector", "sea area": "area_a", "aircraft": "aircraft",
         "command rule": "rule"}  # fmt: skip


def test_every_name_refuses_c1_bidi_and_format_characters(
    factory: SessionFactory, world: World
) -> None:
    setters = name_setters(factory, world)

    @SETTINGS
    @given(bad=bad_names(), where=st.sampled_from(sorted(setters)))
    @case(bad=("X\tY", "\t", "line"), where="ship")
    @case(bad=("X\nY", "\n", "line"), where="unit card")
    def example(bad: tuple[str, str, str], where: str) -> None:
        name, char, kind = bad
        if where in ("marker sector", "minefield sector"):
            name = "A" + char + "1"
        errors = refused(lambda: setters[where](name))
        assert errors[FIELD.get(where, "name")] == message(char, kind)

    example()


NOTES_REFUSE = st.one_of(C1, st.sampled_from(OVERRIDES))
NOTES_KEEP = st.one_of(st.sampled_from(MARKS), st.sampled_from("\u200d\u200c\u00ad"))


def test_notes_refuse_c1_and_overrides_and_keep_joiners_and_marks(
    factory: SessionFactory, world: World
) -> None:
    @SETTINGS
    @given(char=NOTES_REFUSE, before=AROUND)
    def refuse(char: str, before: str) -> None:
        notes = before + char + "\nline two"
        errors = refused(
            lambda: fleet.create_squadron(factory, side_id=world.red_id, name="N", notes=notes)
        )
        kind = "c1" if unicodedata.category(char) == "Cc" else "bidi"
        assert errors["notes"] == message(char, kind)

    refuse()
    notes = "Family 👨\u200d👩\u200d👧 \u200fמשה\u200f, soft\u00adhyphen\nline two"
    squadron = fleet.create_squadron(factory, side_id=world.red_id, name="Kept", notes=notes)
    rows = exchange.export_campaign(factory, campaign_id=world.campaign_id)["tables"]["squadron"]
    assert [row["notes"] for row in rows if row["id"] == squadron] == [notes]


def test_a_csv_file_refuses_them_by_row_and_column(factory: SessionFactory, world: World) -> None:
    # A NUL byte in a CSV file is the whole file's refusal (UTF-16 without its mark), not a cell's.
    @SETTINGS
    @given(bad=bad_names().filter(lambda bad: bad[1] != "\x00"))
    def example(bad: tuple[str, str, str]) -> None:
        name, char, kind = bad
        cell = '"' + name.replace('"', '""') + '"'
        raw = f"name,structure_max,flotation_max\n{cell},9,9\n".encode()
        report = csv_import.import_csv(factory, kind="ships", raw=raw, target_id=world.alpha_id)
        assert report.written == 0
        assert report.problems == (f"row 2, name: {message(char, kind)}",)

    example()


@pytest.fixture
def document(factory: SessionFactory, world: World) -> dict[str, Any]:
    fields = ShipFields(name="Exeter", structure_max=9, flotation_max=9)
    fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields)
    return exchange.export_campaign(factory, campaign_id=world.campaign_id)


NAMED = [("ship", "name"), ("side", "name"), ("squadron", "name"), ("campaign", "name"),
         ("scenario", "title")]  # fmt: skip


def test_a_campaign_file_refuses_them_in_names(document: dict[str, Any]) -> None:
    @SETTINGS
    @given(bad=bad_names(), where=st.sampled_from(NAMED))
    def example(bad: tuple[str, str, str], where: tuple[str, str]) -> None:
        name, char, kind = bad
        table, column = where
        row = document["tables"][table][0]
        kept, row[column] = row[column], name
        try:
            with pytest.raises(InvalidInput) as caught:
                exchange.read_document(exchange.dumps(document).encode())
        finally:
            row[column] = kept
        said = caught.value.errors["file"]
        what = f"holds {WHAT[kind]} (U+{ord(char):04X})"
        assert f"{table} row 0, {column}: {what}: edit the file without it" in said

    example()


def test_a_campaign_file_refuses_c1_and_overrides_in_notes_and_keeps_marks(
    document: dict[str, Any],
) -> None:
    row = document["tables"]["campaign"][0]
    row["notes"] = "a\u009bb"
    with pytest.raises(InvalidInput) as caught:
        exchange.read_document(exchange.dumps(document).encode())
    said = caught.value.errors["file"]
    assert "campaign row 0, notes: holds a control character (U+009B)" in said
    row["notes"] = "a\u202eb"
    with pytest.raises(InvalidInput) as caught:
        exchange.read_document(exchange.dumps(document).encode())
    said = caught.value.errors["file"]
    assert "campaign row 0, notes: holds a bidirectional control (U+202E)" in said
    row["notes"] = "joined 👨\u200d👩 \u200fמשה"
    exchange.read_document(exchange.dumps(document).encode())
