"""Campaign files at the benchmark's shapes (tracker.services.exchange): campaigns made by the
benchmark's seeded generator (bench/generate.py), at sizes and seeds hypothesis picks, go through
export -> import -> export unchanged on SQLite and PostgreSQL; a row the database refuses in the
import's executemany is named, and nothing is written."""

from __future__ import annotations

import itertools
import json
import sqlite3
import sys
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from campaign_files import as_second_copy
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Refused

from tracker.db import SessionFactory, make_engine, session_factory
from tracker.models import Ship
from tracker.models.fields import rule_of
from tracker.services import campaigns, exchange
from tracker.services.errors import bad_character

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the generator lives beside the package, in bench/
    sys.path.insert(0, str(ROOT))
from bench.generate import Sizes, generate  # noqa: E402

# Derandomized, no database, no deadline: the "tracker" profile of tests/conftest.py.
SLOW = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
SETTINGS = settings(max_examples=examples(4), suppress_health_check=SLOW)
NUMBERS = itertools.count()


@st.composite
def sizes(draw: st.DrawFn) -> Sizes:
    ships = draw(st.integers(2, 8))
    return Sizes(
        ships=ships, squadrons=draw(st.integers(2, ships)), scenarios=draw(st.integers(1, 3)),
        journal=draw(st.integers(0, 80)), markers=draw(st.integers(0, 3)),
        minefields=draw(st.integers(0, 2)), boundaries=draw(st.integers(1, 2)),
    )  # fmt: skip


# Notes as a player may type them: any character a text may hold (quotes, backslashes, accents,
# emoji, line breaks), so the writer's escaping is tried on more than the generator's words.
NOTES = st.text(max_size=40).filter(lambda text: bad_character(text) is None)


def _generated(folder: Path, size: Sizes, seed: int, notes: str) -> str:
    """A campaign made by the generator, a ship's notes set to `notes`; its export."""
    path = folder / f"generated-{next(NUMBERS)}.db"
    built = generate(path, size, seed=seed, name=f"Generated {seed}")
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE ship SET notes = ? WHERE id = ?", (notes, built.probe_ship_id))
    conn.close()
    engine = make_engine(str(path))
    try:
        document = exchange.export_campaign(session_factory(engine), campaign_id=built.campaign_id)
    finally:
        engine.dispose()
    return exchange.dumps(document)


def _named(text: str, name: str, second_of: str | None = None) -> str:
    """The document as it reads once imported under another name (and, as a second copy in the
    file, with the ids of its campaign and sides that copy got: services.identities)."""
    document: dict[str, Any] = json.loads(text)
    if second_of is not None:
        document = as_second_copy(document, json.loads(second_of))
    document["tables"]["campaign"][0]["name"] = name
    return exchange.dumps(document)


@SETTINGS
@given(size=sizes(), seed=st.integers(0, 10_000), notes=NOTES)
def test_export_import_export_of_a_generated_campaign_gives_the_same_document(
    factory: SessionFactory, tmp_path: Path, size: Sizes, seed: int, notes: str
) -> None:
    text = _generated(tmp_path, size, seed, notes)
    # Twice into the same database: the second copy's ids all differ from the file's.
    for copy in ("first", "second"):
        name = f"Copy {next(NUMBERS)} {copy}"
        campaign_id = exchange.import_campaign(
            factory, document=exchange.read_document(text.encode()), name=name
        )
        again = exchange.dumps(exchange.export_campaign(factory, campaign_id=campaign_id))
        # The first keeps its ids (the file does not hold them); the second, beside the first,
        # is a campaign of its own, with ids of its own.
        assert again == _named(text, name, again if copy == "second" else None)
    assert any(row["notes"] == notes for row in json.loads(again)["tables"]["ship"])


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One generated campaign's document, with ships enough on one side to break a rule."""
    size = Sizes(ships=8, squadrons=2, scenarios=2, journal=30, markers=2, minefields=1,
                 boundaries=1)  # fmt: skip
    document: dict[str, Any] = json.loads(
        _generated(tmp_path_factory.mktemp("generated"), size, seed=3, notes="")
    )
    return document


def _same_side_pairs(document: dict[str, Any]) -> list[tuple[int, int]]:
    ships = document["tables"]["ship"]
    return [(i, j) for i, j in itertools.combinations(range(len(ships)), 2)
            if ships[i]["side_id"] == ships[j]["side_id"]]  # fmt: skip


@SETTINGS
@given(data=st.data())
def test_a_row_the_database_refuses_is_named_and_nothing_is_written(
    factory: SessionFactory, refused: Refused, generated: dict[str, Any], data: st.DataObject
) -> None:
    """Two ships of one side under one name pass every check of the file, and the database's
    unique rule refuses the second, in the middle of the ships' executemany."""
    document = json.loads(json.dumps(generated))
    first, second = data.draw(st.sampled_from(_same_side_pairs(document)))
    ships = document["tables"]["ship"]
    ships[second]["name"] = ships[first]["name"]
    checked = exchange.read_document(exchange.dumps(document).encode())
    before = campaigns.list_campaigns(factory)
    outcome = refused(lambda: exchange.import_campaign(factory, document=checked), "file")
    message = outcome.errors["file"]
    assert message.startswith(f"ship[{second}] breaks a rule of the campaign file"), message
    assert campaigns.list_campaigns(factory) == before


@SETTINGS
@given(data=st.data())
def test_a_value_out_of_its_family_bounds_is_refused_naming_the_row(
    generated: dict[str, Any], data: st.DataObject
) -> None:
    """The bounds are the model family's (ShipBase): any row, any value outside them."""
    document = json.loads(json.dumps(generated))
    ships = document["tables"]["ship"]
    index = data.draw(st.integers(0, len(ships) - 1))
    key = data.draw(st.sampled_from(["speed_kn", "size_modifier", "flotation_max"]))
    rule = rule_of(key, Ship.model_fields[key])
    assert rule.low is not None and rule.high is not None
    value = data.draw(
        st.one_of(st.integers(-1000, rule.low - 1), st.integers(rule.high + 1, 10**6))
    )
    ships[index][key] = value
    with pytest.raises(exchange.InvalidInput) as refused:
        exchange.read_document(exchange.dumps(document).encode())
    message = refused.value.errors["file"]
    assert f"ship row {index}, {key}: must be {rule.low}..{rule.high}, got {value}" in message


def test_the_file_holds_a_row_to_a_line(generated: dict[str, Any]) -> None:
    """A line of the file (and of a diff of two) is one row, whole."""
    lines = exchange.dumps(generated).splitlines()
    rows = [json.loads(line.strip().rstrip(",")) for line in lines if line.startswith("   {")]
    assert rows == [row for name in sorted(generated["tables"])
                    for row in generated["tables"][name]]  # fmt: skip


@SETTINGS
@given(data=st.data())
def test_a_file_cut_short_after_any_row_is_not_json(
    generated: dict[str, Any], data: st.DataObject
) -> None:
    text = exchange.dumps(generated)
    ends = [n for n, char in enumerate(text) if char == "\n" and text[n - 2 : n] == "},"]
    end = data.draw(st.sampled_from(ends)) + data.draw(st.integers(0, 4))
    with pytest.raises(exchange.InvalidInput) as refused:
        exchange.read_document(text[:end].encode())
    assert "is not JSON" in refused.value.errors["file"]
    assert "a file cut short ends like this" in refused.value.errors["file"]


def _outcome(read: Any) -> Any:
    """What read_document gave: the document, or the problem it named."""
    try:
        return read()
    except exchange.InvalidInput as exc:
        return exc.errors


def _from_file(folder: Path, data: bytes) -> Any:
    path = folder / f"campaign-{next(NUMBERS)}.json"
    path.write_bytes(data)
    with path.open("rb") as file:
        return _outcome(lambda: exchange.read_document(file))


def test_a_file_is_read_from_disk_as_from_its_bytes(
    generated: dict[str, Any], tmp_path: Path
) -> None:
    """tracker import reads the file as it checks it (not its bytes whole first); the same
    document laid out otherwise (indented, read by the careful reader) reads the same."""
    data = exchange.dumps(generated).encode()
    document = exchange.read_document(data)
    assert _from_file(tmp_path, data) == document
    assert exchange.read_document(json.dumps(generated, indent=2).encode()) == document
    assert document["tables"] == generated["tables"]


# Any value a hand-edited file may hold in a field: of the column's type or not, in the
# bounds or not, a time or a time-like text, text with any character.
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.integers(-3, 120),
    st.floats(allow_nan=False), st.text(max_size=12), st.sampled_from(["", "Exeter", "x" * 81]),
    st.sampled_from(["a\x00b", "\x9b", "\u202e", "Z\u200dZ"]),  # a control, a bidi, a joiner
    st.datetimes().map(lambda when: when.isoformat()),
    st.datetimes(timezones=st.just(UTC)).map(lambda when: when.isoformat()),
    st.sampled_from(["2026-02-30T10:00:00+00:00", "2026-05-01T10:00:00", "open", "sunk"]),
)  # fmt: skip


@settings(max_examples=examples(100), suppress_health_check=SLOW)
@given(data=st.data(), value=VALUES)
def test_a_row_line_read_from_the_file_is_checked_as_the_careful_reader_checks_it(
    generated: dict[str, Any], tmp_path: Path, data: st.DataObject, value: Any
) -> None:
    """The file as tracker export lays it out is read a line at a time and each table checked
    column by column; any field of any row set to any value reads as the careful reader reads
    the same document laid out otherwise: the same document, or the same problems named."""
    document = json.loads(json.dumps(generated))
    name = data.draw(st.sampled_from(sorted(n for n, rows in document["tables"].items() if rows)))
    rows = document["tables"][name]
    row = rows[data.draw(st.integers(0, len(rows) - 1))]
    row[data.draw(st.sampled_from(sorted(row)))] = value
    careful = _outcome(lambda: exchange.read_document(json.dumps(document, indent=2).encode()))
    assert _from_file(tmp_path, exchange.dumps(document).encode()) == careful
