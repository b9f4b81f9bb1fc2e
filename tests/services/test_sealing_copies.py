"""Every copy of a side's secrets is sealed by its passphrase (docs/RULES.md §Secrets): whatever
happens to the campaign and its sides between the steps (renamed, their names swapped, their row
numbers moved by an export, a delete and an import, a backup restored), once the side has a
passphrase no byte of the campaign file, its -wal or any backup holds its plain secrets.

The side's copy in each backup is found by the campaign's and the side's ids (services.sealing,
services.identities), never by a name or a row number."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from campaign_files import migrated_engine
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import select

from tracker import paths
from tracker.db import SessionFactory, list_backups, restore_backup, session_factory, session_scope
from tracker.models import Side, WasUnit
from tracker.services import backups, campaigns, exchange, markers, mines, roster, sealing
from tracker.services.roster import UnitFields

pytestmark = pytest.mark.sqlite_only("backups and the write-ahead log are SQLite files")

# Red's secrets, none ever revealed: not one of these may be left in clear once it is sealed.
HIDDEN = (b"plain:", b"under the Dogger Bank", b"Wolfsburg", b"Sector Q9")
PASSPHRASES = ("first-passphrase", "second-passphrase", "third-passphrase")


@dataclass
class Play:
    """A campaign file and what has happened to it so far. Red is found by its submarine
    (the test knows no id of the tracker's): its name and row number change as it goes."""

    path: Path
    factory: SessionFactory
    passphrase: str | None = None
    names: list[str] = field(default_factory=list)

    def ids(self) -> tuple[int, int, int]:
        """The campaign's, Red's and Blue's row numbers in the file now."""
        with session_scope(self.factory) as session:
            red = session.exec(select(Side).join(WasUnit).where(WasUnit.name == "U-32")).one()
            blue = session.exec(select(Side).where(
                Side.campaign_id == red.campaign_id, Side.id != red.id)).one()  # fmt: skip
            return red.campaign_id, red.id or 0, blue.id or 0

    def new_name(self, stem: str) -> str:
        self.names.append(f"{stem} {len(self.names)}")
        return self.names[-1]


def _start(path: Path, engine: Engine) -> Play:
    factory = session_factory(engine)
    campaign = campaigns.create_campaign(factory, name="North Sea 1940")
    campaigns.create_side(factory, campaign_id=campaign.id, name="Blue", nation="Britain")
    red = campaigns.create_side(factory, campaign_id=campaign.id, name="Red", nation="Germany")
    unit = roster.save_unit(factory, side_id=red.id, fields=UnitFields(
        name="U-32", unit_type="submarine", points=10, hull_points=2))  # fmt: skip
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["Open sea", "Open sea 2"])
    mines.sow_minefield(
        factory, side_id=red.id, laid_by="surface", sector="Sector Q9", layer_name="Wolfsburg",
        secret=True, notes="under the Dogger Bank",
    )  # fmt: skip
    return Play(path, factory)


def _back_up(play: Play, _: int) -> None:
    backups.back_up(play.factory, reason=play.new_name("closed-scenario").replace(" ", "-"))


def _rename_red(play: Play, _: int) -> None:
    _, red, _ = play.ids()
    campaigns.update_side(play.factory, side_id=red, name=play.new_name("Red"), nation="")


def _swap_names(play: Play, _: int) -> None:
    """Blue takes Red's name, and Red another: a name names the other side now."""
    _, red, blue = play.ids()
    name = roster.roster(play.factory, side_id=red, owner=False).side_name
    campaigns.update_side(play.factory, side_id=red, name=play.new_name("Red"), nation="")
    campaigns.update_side(play.factory, side_id=blue, name=name, nation="")


def _rename_campaign(play: Play, _: int) -> None:
    campaign, _, _ = play.ids()
    campaigns.update_campaign(
        play.factory, campaign_id=campaign, name=play.new_name("Campaign"), notes="",
        model_scale="1/2400", crew_roll_adds_commander=False,
    )  # fmt: skip


def _move_rows(play: Play, _: int) -> None:
    """Exported, deleted and imported again behind another campaign: new row numbers, the
    same campaign (its ids kept)."""
    campaign, _, _ = play.ids()
    document = exchange.export_campaign(play.factory, campaign_id=campaign)
    name = document["tables"]["campaign"][0]["name"]
    campaigns.delete_campaign(play.factory, campaign_id=campaign)
    other = campaigns.create_campaign(play.factory, name=play.new_name("Other"))
    for side in ("Red", "Blue"):  # the first rows of a new file's sides: the numbers Red had
        campaigns.create_side(play.factory, campaign_id=other.id, name=side)
    text = exchange.dumps(document).encode()
    exchange.import_campaign(play.factory, document=exchange.read_document(text), name=name)


def _restore(play: Play, pick: int) -> None:
    found = list_backups(play.path)
    if found:
        restore_backup(found[pick % len(found)].path, play.path)


def _set_passphrase(play: Play, _: int) -> None:
    _, red, _ = play.ids()
    new = PASSPHRASES[(PASSPHRASES.index(play.passphrase) + 1) if play.passphrase else 0]
    result = sealing.set_passphrase(play.factory, side_id=red, passphrase=new,
                                   old_passphrase=play.passphrase)  # fmt: skip
    assert result.plain_backups == () and result.checkpointed
    play.passphrase = new
    _no_plain_copy(play)


STEPS: dict[str, Callable[[Play, int], None]] = {
    "back up": _back_up,
    "rename Red": _rename_red,
    "swap names": _swap_names,
    "rename the campaign": _rename_campaign,
    "move the rows": _move_rows,
    "restore": _restore,
    "set the passphrase": _set_passphrase,
}


def _no_plain_copy(play: Play) -> None:
    """No byte of the file, its -wal or any file of the backups folder holds a plain secret."""
    copies = [play.path, play.path.with_name(play.path.name + "-wal")]
    folder = paths.backups_dir(play.path)
    copies += sorted(item for item in folder.rglob("*") if item.is_file())
    for copy in copies:
        if copy.exists():
            data = copy.read_bytes()
            left = [word for word in HIDDEN if word in data]
            assert not left, f"{copy.name} holds {left}"


@settings(
    max_examples=examples(12),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(st.tuples(st.sampled_from(sorted(STEPS)), st.integers(0, 9)), max_size=9),
    # At least one backup before the passphrase, and the passphrase set somewhere among them.
    first=st.lists(st.sampled_from(sorted(set(STEPS) - {"set the passphrase"})), max_size=3),
)
def test_no_plain_copy_of_a_sealed_side_is_left_anywhere(
    steps: list[tuple[str, int]], first: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "campaign.db"
        engine = migrated_engine(path)
        try:
            _play(_start(path, engine), steps, first)
        finally:
            engine.dispose()


def _play(play: Play, steps: list[tuple[str, int]], first: list[str]) -> None:
    """Two backups with Red's secrets in clear (and what `first` does between them), then the
    steps, the passphrase set among them if they do not set it; then nothing is left plain."""
    for name in ["back up", *first, "back up"]:
        STEPS[name](play, 0)
    planned = [*steps]
    if all(name != "set the passphrase" for name, _ in planned):
        planned.insert(len(planned) // 2, ("set the passphrase", 0))
    for name, pick in planned:
        STEPS[name](play, pick)
    _no_plain_copy(play)
    # Whatever was restored, Red's notes open with the passphrase set last.
    _, red, _ = play.ids()
    view = roster.roster(play.factory, side_id=red, owner=True, passphrase=play.passphrase)
    assert [marker.real for marker in view.markers if marker.real] == [True]
