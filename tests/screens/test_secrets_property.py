"""No secret shows until it is revealed (docs/RULES.md §Secrets), for generated secrets: notes,
places, minelayers, a submarine's mine damage and the dice that decided them, put in through the
services, then looked for in the opponent's or the umpire's view of every screen (roster, ledger
with its counters, record sheet, journal with its dice column, scenario), the printed sheets, the
export for the opponent, the campaign file, its log and every backup. After the reveal, the
same scan finds what is now public."""

from __future__ import annotations

import string
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from campaign_files import migrated_engine
from depth import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from tracker.app import TrackerApp
from tracker.db import SessionFactory, make_engine, session_factory
from tracker.publish import sheet_pages
from tracker.screens.journal import JournalScreen
from tracker.screens.ledger import LedgerScreen
from tracker.screens.ledger_rows import COUNTER_COLUMNS
from tracker.screens.record_sheet import RecordSheetScreen
from tracker.screens.roster import RosterScreen
from tracker.screens.scenario import ScenarioScreen
from tracker.services import (
    backups,
    campaigns,
    exchange,
    fleet,
    hunt,
    markers,
    mines,
    roster,
    scenarios,
    sealing,
)
from tracker.services.fleet import ShipFields
from tracker.services.roster import UnitFields
from tracker.services.visibility import HIDDEN, Viewer

# The ledger's counter columns, by the label a player reads (their order may change).
COUNTER_LABELS = [label for label, _ in COUNTER_COLUMNS]

PASS = "Schepke1941"


# Words no screen writes of itself, each with its own prefix so no two can be taken for one:
# "zq" and a letter before lowercase consonants, "QX" and a letter before capitals and digits
# (a sector) that hold neither Q nor X.
def _word(prefix: str) -> st.SearchStrategy[str]:
    return st.text(alphabet="bcdfghjkmnpstvwx", min_size=4, max_size=8).map(lambda w: prefix + w)


def _sector(prefix: str) -> st.SearchStrategy[str]:
    alphabet = "ABCDEFGHIJKLMNOPRSTUVWYZ" + string.digits
    return st.text(alphabet=alphabet, min_size=3, max_size=6).map(lambda w: prefix + w)


@dataclass(frozen=True)
class Secrets:
    note: str
    layer: str
    laid_in: str
    drifted_to: str
    sub_field_in: str
    sub_note: str
    mine_d6: int
    drift_d6: int
    viewer: Viewer


SECRETS = st.builds(
    Secrets, note=_word("zqn"), layer=_word("zql"), laid_in=_sector("QXA"),
    drifted_to=_sector("QXB"), sub_field_in=_sector("QXC"), sub_note=_word("zqs"),
    mine_d6=st.sampled_from([1, 2]), drift_d6=st.integers(1, 6),
    viewer=st.sampled_from([Viewer.OPPONENT, Viewer.UMPIRE]),
)  # fmt: skip


@dataclass
class Campaign:
    factory: SessionFactory
    path: Path
    campaign_id: int
    scenario_id: int
    red_id: int
    raider_id: int
    field_id: int
    unit_id: int


def _build(folder: Path, s: Secrets) -> Campaign:
    path = folder / "campaign.db"
    factory = session_factory(migrated_engine(path))
    campaign = campaigns.create_campaign(factory, name="North Atlantic")
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title="Convoy HX 79")
    campaigns.create_side(factory, campaign_id=campaign.id, name="Allies")
    red = campaigns.create_side(factory, campaign_id=campaign.id, name="Axis").id
    raider = fleet.create_squadron(factory, side_id=red, name="Raider")
    layer = fleet.create_ship(factory, squadron_id=raider, fields=ShipFields(
        name="U-116", type_abbrev="SS", structure_max=2, flotation_max=2))  # fmt: skip
    mines.save_counter(factory, ship_id=layer, counter_size="small", speed_rating=1,
                       torpedo_factors=4, mines_loaded=2)  # fmt: skip
    unit = roster.save_unit(factory, side_id=red, fields=UnitFields(
        name="U-47", unit_type="submarine", points=10, hull_points=3))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["C4", "C5"])
    field = mines.sow_minefield(factory, side_id=red, laid_by="surface", sector=s.laid_in,
                                layer_name=s.layer, complete=True, drifting=True, secret=True,
                                notes=s.note)  # fmt: skip
    # The sub strays into its own side's secret minefield (a roll needs one in the sector).
    hunt.mine_roll(factory, unit_id=unit, roll=s.mine_d6, sector=s.laid_in)
    mines.drift(factory, minefield_id=field, to_sector=s.drifted_to, d6=s.drift_d6, turn=1)
    mines.sow_minefield(factory, side_id=red, laid_by="submarine", sector=s.sub_field_in,
                        layer_ship_id=layer, secret=True, notes=s.sub_note)  # fmt: skip
    backups.back_up(factory, reason="closed-scenario-1")  # taken while the notes were plain
    sealed = sealing.set_passphrase(factory, side_id=red, passphrase=PASS)
    assert sealed.plain_backups == () and sealed.checkpointed
    return Campaign(factory, path, campaign.id, scenario.id, red, raider, field, unit)


def _stored(path: Path) -> str:
    """The campaign file, its sidecars and every backup, byte for byte (as Latin-1 text)."""
    files = [*path.parent.glob(path.name + "*"), *(path.parent / "backups").glob("*")]
    return "\n".join(file.read_bytes().decode("latin-1") for file in files)


def _files_for_the_viewer(c: Campaign, viewer: Viewer) -> str:
    export = exchange.dumps(exchange.export_campaign(c.factory, campaign_id=c.campaign_id,
                                                     viewer=viewer))  # fmt: skip
    html = sheet_pages.squadron_page(c.factory, squadron_id=c.raider_id, viewer=viewer)
    markdown = sheet_pages.squadron_page(
        c.factory, squadron_id=c.raider_id, fmt="markdown", viewer=viewer
    )
    assert "mines aboard" not in html + markdown and "torpedo factors ?" in markdown
    return "\n".join((export, html, markdown))


def _screen_text(screen: Screen[object]) -> tuple[str, list[list[str]]]:
    """Everything a screen shows (every cell of its tables, not only the rows in view)."""
    parts = [str(screen.title), str(screen.sub_title)]
    rows: list[list[str]] = []
    for widget in screen.query("*"):
        if isinstance(widget, DataTable):
            for index in range(widget.row_count):
                row = [str(cell) for cell in widget.get_row_at(index)]
                rows.append(row)
                parts.extend(row)
        elif isinstance(widget, (Static, Label)):
            parts.append(str(widget.render()))
    return "\n".join(parts), rows


async def _views(app: TrackerApp, pilot: object, c: Campaign) -> tuple[str, list[list[str]]]:
    text, rows = [], []
    for screen in (RosterScreen(c.red_id), LedgerScreen(c.campaign_id),
                   RecordSheetScreen(c.raider_id), JournalScreen(c.campaign_id),
                   ScenarioScreen(c.scenario_id)):  # fmt: skip
        await app.push_screen(screen)
        await pilot.pause()  # type: ignore[attr-defined]
        shown, table = _screen_text(screen)
        text.append(shown)
        rows.extend(table)
        app.pop_screen()
        await pilot.pause()  # type: ignore[attr-defined]
    return "\n".join(text), rows


@pytest.mark.slow
# One app run per example; no shrinking (each step is an app run): a failure prints its secrets.
@settings(
    max_examples=examples(6),
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(s=SECRETS)
async def test_no_secret_shows_in_any_view_until_revealed_and_then_what_is_public_shows(
    s: Secrets,
) -> None:
    hidden = (s.note, s.layer, s.laid_in, s.drifted_to, s.sub_field_in, s.sub_note)
    with tempfile.TemporaryDirectory() as folder:
        c = _build(Path(folder), s)
        stored = _stored(c.path)
        assert [word for word in hidden if word in stored] == []
        assert "plain:" not in stored
        files = _files_for_the_viewer(c, s.viewer)
        assert [word for word in hidden if word in files] == []
        engine = make_engine(str(c.path), read_only=s.viewer is Viewer.UMPIRE)
        app = TrackerApp(session_factory(engine), open_campaign_id=c.campaign_id,
                         read_only=s.viewer is Viewer.UMPIRE)  # fmt: skip
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                text, rows = await _views(app, pilot, c)
                assert [word for word in hidden if word in text] == []
                u47 = next(row for row in rows if row[0] == "U-47")
                assert u47[5] == HIDDEN  # its mine damage: the Dmg column
                u116 = next(row for row in rows if row[0] == "U-116" and len(row) > 6)
                torp, mines_left = (COUNTER_LABELS.index(label) for label in ("Torp", "Mines"))
                assert (u116[torp], u116[mines_left]) == (f"{HIDDEN}/4", HIDDEN)
                assert "sowing" not in " ".join(u116)
                mine_line = next(row for row in rows if "rolled for a minefield" in " ".join(row))
                assert mine_line[-1] == HIDDEN and f"roll {s.mine_d6}" not in " ".join(mine_line)

                # The owner reveals the drifted minefield and the hunt finds the real sub.
                mines.reveal(c.factory, minefield_id=c.field_id, passphrase=PASS)
                owned = roster.roster(c.factory, side_id=c.red_id, owner=True, passphrase=PASS)
                real = next(marker for marker in owned.markers if marker.real)
                scenarios.start_scenario(c.factory, scenario_id=c.scenario_id)
                hunt.record_search(c.factory, marker_id=real.id,
                                     party=hunt.SearchParty("aircraft"), roll=6)  # fmt: skip
                hunt.attack_marker(c.factory, marker_id=real.id, success=True,
                                     passphrase=PASS)  # fmt: skip
                text, rows = await _views(app, pilot, c)
        finally:
            engine.dispose()
        public = (s.note, s.layer, s.drifted_to)
        assert [word for word in public if word not in text] == []
        still = (s.sub_field_in, s.sub_note)
        assert [word for word in still if word in text] == []
        u47 = next(row for row in rows if row[0] == "U-47")
        damage = 1 if s.mine_d6 == 1 else 2
        assert u47[5].startswith(str(damage))
        files = _files_for_the_viewer(c, s.viewer)
        assert s.note in files and s.layer in files
        assert [word for word in still if word in files + _stored(c.path)] == []
