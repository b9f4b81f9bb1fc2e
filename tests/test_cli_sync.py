"""`tracker sync pack|merge|held|decide`, run through main() on two copies of a campaign file:
what a keeper types, what each command says, and a refused packet leaving the file as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from campaign_files import migrated_engine, run_main
from sqlmodel import select

from tracker.db import make_engine, read_scope, session_factory
from tracker.models import Ship
from tracker.models.kinds import JournalKind
from tracker.services import demo, documents, fleet


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of the sample campaign, each with Exeter's speed edited its own way."""
    first = tmp_path / "keeper.db"
    engine = migrated_engine(first)
    demo.create_sample_campaign(session_factory(engine))
    engine.dispose()
    second = tmp_path / "laptop.db"
    shutil.copyfile(first, second)
    for path, speed in ((first, 30), (second, 28)):
        engine = make_engine(str(path))
        factory = session_factory(engine)
        with read_scope(factory) as session:
            exeter = session.exec(select(Ship).where(Ship.name == "Exeter")).one()
        fleet.update_ship(factory, ship_id=exeter.id or 0, fields={"speed_kn": speed})
        engine.dispose()
    return first, second


def test_a_keeper_packs_merges_and_decides(
    copies: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keeper, laptop = copies
    packet = tmp_path / "tonight.json"
    packed = run_main(capsys, ["--db", str(laptop), "sync", "pack", "River Plate", "--to",
                               str(packet)])  # fmt: skip
    assert packed.status == 0, packed.err
    assert packed.out == f"tracker: wrote {packet}\n"

    merged = run_main(capsys, ["--db", str(keeper), "sync", "merge", str(packet)])
    assert merged.status == 0, merged.err
    assert "1 new journal entries" in merged.out and "1 held" in merged.out
    assert (
        "held: #" in merged.out
        and "Edited Exeter: this copy changed ship Exeter speed_kn too" in merged.out
    )
    assert "backup taken first" in merged.out

    held = run_main(capsys, ["--db", str(keeper), "sync", "held", "River Plate"])
    assert "ship Exeter speed_kn: was 32, this copy 30, the other 28" in held.out
    number = held.out.split()[0].removeprefix("#")

    decided = run_main(capsys, ["--db", str(keeper), "sync", "decide", number, "--keep",
                                "theirs"])  # fmt: skip
    assert decided.status == 0, decided.err
    assert "speed_kn 28 (the other copy's)" in decided.out
    again = run_main(capsys, ["--db", str(keeper), "sync", "decide", number, "--keep", "ours"])
    assert again.status == 2
    assert f"#{number}: this entry is not held for a decision; nothing was decided" in again.err
    assert run_main(capsys, ["--db", str(keeper), "sync", "held", "River Plate"]).out == (
        "tracker: no merged entry is held\n"
    )

    # The keeper's decision goes back; then both copies export the very same file.
    back = tmp_path / "back.json"
    assert run_main(capsys, ["--db", str(keeper), "sync", "pack", "River Plate", "--to",
                             str(back)]).status == 0  # fmt: skip
    assert run_main(capsys, ["--db", str(laptop), "sync", "merge", str(back)]).status == 0
    exports = []
    for copy in (keeper, laptop):
        to = tmp_path / f"{copy.stem}-export.json"
        outcome = run_main(capsys, ["--db", str(copy), "export", "River Plate", "--to", str(to)])
        assert outcome.status == 0, outcome.err
        exports.append(to.read_bytes())
    assert exports[0] == exports[1]
    # The file as read for a quick export (sqlite3 alone) knows a merged copy by its kind.
    assert documents.MERGED == JournalKind.SYNC


def test_a_refused_packet_leaves_the_file_as_it_was(
    copies: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keeper, _ = copies
    before = keeper.read_bytes()
    not_json = tmp_path / "notes.json"
    not_json.write_text("{ nothing of a packet")
    outcome = run_main(capsys, ["--db", str(keeper), "sync", "merge", str(not_json)])
    assert (outcome.status, outcome.out) == (2, "")
    assert "this is not a tracker packet (not JSON); nothing was merged" in outcome.err
    assert keeper.read_bytes() == before
    # A packet is never written over the campaign file.
    outcome = run_main(capsys, ["--db", str(keeper), "sync", "pack", "River Plate", "--to",
                                str(keeper)])  # fmt: skip
    assert outcome.status == 2 and "never overwritten" in outcome.err
    assert keeper.read_bytes() == before
