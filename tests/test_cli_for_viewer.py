"""`tracker export --for opponent` and `tracker print --for opponent`: the files meant for another
player leave every secret not yet revealed out (docs/RULES.md §Secrets); the owner's are whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from campaign_files import migrated_engine, run_main

from tracker.db import session_factory
from tracker.services import campaigns, fleet, mines
from tracker.services.fleet import ShipFields

NOTE = "zqnotes off the Faroes"


@pytest.fixture
def campaign_file(tmp_path: Path) -> Path:
    """A campaign whose Axis submarine loaded two minefields and sows a secret one."""
    path = tmp_path / "campaign.db"
    engine = migrated_engine(path)
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name="North Atlantic")
    side = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    squadron = fleet.create_squadron(factory, side_id=side, name="Raider")
    sub = fleet.create_ship(
        factory, squadron_id=squadron, fields=ShipFields(name="U-116", type_abbrev="SS")
    )
    mines.save_counter(factory, ship_id=sub, counter_size="small", speed_rating=1,
                       torpedo_factors=4, mines_loaded=2)  # fmt: skip
    mines.sow_minefield(factory, side_id=side, laid_by="submarine", sector="G7",
                        layer_ship_id=sub, secret=True, notes=NOTE)  # fmt: skip
    engine.dispose()
    return path


@pytest.mark.parametrize("viewer", ["opponent", "umpire"])
def test_an_export_for_another_player_leaves_the_secrets_out_and_is_not_imported(
    campaign_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], viewer: str
) -> None:
    out = tmp_path / "view.json"
    db = ["--db", str(campaign_file)]
    assert run_main(capsys, [*db, "export", "north", "--to", str(out), "--for", viewer]).status == 0
    text = out.read_text()
    assert NOTE not in text and "G7" not in text and "plain:" not in text
    (field,) = json.loads(text)["tables"]["minefield"]
    assert (field["layer_ship_id"], field["laid_by"]) == (None, "?")
    refused = run_main(capsys, [*db, "import", str(out)])
    assert refused.status == 2 and f"is the {viewer}'s view of a campaign" in refused.err
    own = tmp_path / "own.json"
    assert run_main(capsys, [*db, "export", "north", "--to", str(own)]).status == 0
    assert NOTE in own.read_text()  # the owner's export keeps it (sealed plain: no passphrase)


def test_a_sheet_printed_for_the_opponent_hides_the_minelayers_mines(
    campaign_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", str(campaign_file)]
    sheet, own = tmp_path / "opponent.md", tmp_path / "own.md"
    assert run_main(capsys, [*db, "print", "raider", "--markdown", str(sheet), "--for",
                             "opponent"]).status == 0  # fmt: skip
    assert run_main(capsys, [*db, "print", "raider", "--markdown", str(own)]).status == 0
    assert "torpedo factors ? of 4" in sheet.read_text() and "mines" not in sheet.read_text()
    assert "torpedo factors 2 · mines aboard 1 of 2" in own.read_text()
