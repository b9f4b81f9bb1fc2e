"""A campaign file is read once and checked before its rows are made (services.document_reader):
what another program writes into the file once it was checked never goes in unchecked; a file
laid out as tracker export lays it out and the same document laid out otherwise read the same."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from service_helpers import World

from tracker.db import SessionFactory
from tracker.services import document_reader, exchange
from tracker.services.document_checks import MAX_PLACES
from tracker.services.errors import InvalidInput


@pytest.fixture
def exported(factory: SessionFactory, world: World, tmp_path: Path) -> Path:
    path = tmp_path / "campaign.json"
    document = exchange.export_campaign(factory, campaign_id=world.campaign_id)
    path.write_text(exchange.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", ["as exported", "on one line"])
def test_a_file_rewritten_once_it_was_checked_gives_the_rows_checked(
    exported: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    if layout == "on one line":
        exported.write_text(json.dumps(json.loads(exported.read_text(encoding="utf-8"))))
    checked = document_reader._Reading.finish
    text = exported.read_text(encoding="utf-8")

    def rewritten(reading: Any) -> None:
        checked(reading)
        # A ship's side swapped for one the file does not hold, as the check ends.
        swapped = text.replace('"side_id":1', '"side_id":99', 1)
        exported.write_text(swapped.replace('"side_id": 1', '"side_id": 99', 1), encoding="utf-8")

    monkeypatch.setattr(document_reader._Reading, "finish", rewritten)
    with exported.open("rb") as file:
        document = exchange.read_document(file)
    assert exported.read_text(encoding="utf-8") != text
    assert document == json.loads(text)


def test_the_lines_and_the_careful_reader_read_the_same_document(exported: Path) -> None:
    text = exported.read_text(encoding="utf-8")
    as_exported = exchange.read_document(text.encode())
    compact = exchange.read_document(json.dumps(json.loads(text)).encode())
    spread = exchange.read_document(json.dumps(json.loads(text), indent=3).encode())
    assert as_exported == compact == spread == json.loads(text)


@pytest.mark.parametrize("layout", ["as exported", "on one line"])
def test_the_same_problem_on_every_row_is_said_once_and_the_reading_stops_at_its_cap(
    exported: Path, layout: str
) -> None:
    """Past MAX_PLACES rows of one problem the reader stops: the file, cut short after them,
    is refused for its rows, never for its end."""
    document = json.loads(exported.read_text(encoding="utf-8"))
    rows = MAX_PLACES + 2
    document["tables"]["participation"] = [
        {"id": n + 1, "scenario_id": 1, "ship_id": "the first"} for n in range(rows)
    ]
    text = exchange.dumps(document) if layout == "as exported" else json.dumps(document)
    cut = text.encode()[: re.search(rf'\{{"id": ?{rows},', text).start()]  # type: ignore[union-attr]
    with pytest.raises(InvalidInput) as refused:
        exchange.read_document(cut)
    assert refused.value.errors == {
        "file": f"participation rows 0-{MAX_PLACES - 1} ({MAX_PLACES} rows), ship_id: must be a "
        "whole number"
    }
