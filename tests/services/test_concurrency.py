"""Several players on one database: row versions, the umpire's read-only engine, the change
mark that screens poll, and two processes recording hits on one ship at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from service_helpers import Refused, World, get_row
from sqlmodel import Session, col, select

from tracker.db import make_engine, session_factory, session_scope
from tracker.models import JournalEntry, Ship
from tracker.services import campaigns, damage, fleet, history
from tracker.services.damage import HitRequest
from tracker.services.errors import ChangedElsewhere, ReadOnlyDatabase
from tracker.services.fleet import ShipCreate


def _fields(ship: Ship, **changes: object) -> dict[str, object]:
    values = {key: getattr(ship, key) for key in ShipCreate.model_fields}
    values.update(changes)
    return values


def test_every_change_raises_the_version(factory: Callable[[], Session], ajax: int) -> None:
    first = get_row(factory, Ship, ajax).version
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=2))
    fleet.add_fire_markers(factory, ship_id=ajax, delta=1)
    assert get_row(factory, Ship, ajax).version == first + 2


def test_an_edit_on_a_form_older_than_the_ship_is_refused(
    factory: Callable[[], Session], ajax: int, refused: Refused
) -> None:
    shown = get_row(factory, Ship, ajax)  # what the first player's form shows
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=3))  # the other player
    error = refused(
        lambda: fleet.update_ship(
            factory, ship_id=ajax, fields=_fields(shown, notes="x"), expected_version=shown.version
        ),
        "database",
    )
    assert isinstance(error, ChangedElsewhere)
    assert "Ajax was changed by another player" in error.errors["database"]
    # With the fresh version the same edit goes through, and keeps the other player's hit.
    fresh = get_row(factory, Ship, ajax)
    fleet.update_ship(factory, ship_id=ajax, fields=_fields(fresh, notes="x"),
                      expected_version=fresh.version)  # fmt: skip
    after = get_row(factory, Ship, ajax)
    assert (after.notes, after.structure_now) == ("x", 6)


def test_two_sessions_writing_one_row_cannot_overwrite_each_other(
    factory: Callable[[], Session], ajax: int
) -> None:
    """The second UPDATE names the version it read; it matches no row and nothing is written."""
    with session_scope(factory) as session:
        mine = session.exec(select(Ship).where(Ship.id == ajax)).one()  # a screen's old copy
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=4))
    with pytest.raises(ChangedElsewhere), session_scope(factory) as session:
        session.add(mine)
        mine.notes = "written over the hit?"
    ship = get_row(factory, Ship, ajax)
    assert (ship.structure_now, ship.notes) == (5, "")


def test_the_umpires_engine_refuses_every_write(
    world: World, ajax: int, db_url: str, db_state: Callable[[], object]
) -> None:
    before = db_state()
    engine = make_engine(db_url, read_only=True)
    try:
        umpire = session_factory(engine)
        assert get_row(umpire, Ship, ajax).name == "Ajax"  # reading works
        writes = [
            lambda: damage.record_hit(umpire, request=HitRequest(ship_id=ajax, structure=1)),
            lambda: campaigns.create_campaign(umpire, name="Sneaky"),
            lambda: fleet.create_squadron(umpire, side_id=world.blue_id, name="Ghosts"),
        ]
        for write in writes:
            with pytest.raises(ReadOnlyDatabase, match="read-only view"):
                write()
    finally:
        engine.dispose()
    assert db_state() == before


def test_the_change_mark_moves_with_every_change(
    factory: Callable[[], Session], world: World, ajax: int
) -> None:
    start = history.change_mark(factory)
    assert history.change_mark(factory) == start  # reading moves nothing
    damage.record_hit(factory, request=HitRequest(ship_id=ajax, structure=1))
    after_hit = history.change_mark(factory)
    assert after_hit != start
    campaigns.create_campaign(factory, name="Second")  # a campaign has no journal entry
    after_new = history.change_mark(factory)
    assert after_new != after_hit
    history.undo_last(factory, campaign_id=world.campaign_id)
    assert history.change_mark(factory) != after_new


PLAYER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tracker.db import make_engine, session_factory
    from tracker.services import damage
    from tracker.services.damage import HitRequest
    from tracker.services.errors import DatabaseUnavailable

    url, ship_id, hits, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    factory = session_factory(make_engine(url))
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    retries = 0
    for _ in range(hits):
        while True:
            try:
                result = damage.record_hit(
                    factory, request=HitRequest(ship_id=ship_id, structure=1))
            except DatabaseUnavailable:  # told "changed elsewhere": the player enters it again
                retries += 1
                continue
            print("ack", result.entry_id, flush=True)
            break
    print("retries", retries, flush=True)
    """
)


def test_two_processes_recording_hits_on_one_ship_lose_none(
    world: World, add_ship: Callable[..., int], db_url: str, tmp_path: Path,
    factory: Callable[[], Session],
) -> None:  # fmt: skip
    hits = 60
    ship_id = add_ship(world.alpha_id, "Renown", structure_max=500, flotation_max=10)
    go = tmp_path / "go"
    players = [
        subprocess.Popen(
            [sys.executable, "-c", PLAYER, db_url, str(ship_id), str(hits), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        for player in players:
            assert player.stdout is not None
            assert player.stdout.readline().strip() == "ready"
        go.touch()  # both start hitting at the same moment
        outputs = [player.communicate(timeout=120) for player in players]
    finally:
        for player in players:
            player.kill()
    acknowledged: list[int] = []
    retries = 0
    for player, (out, err) in zip(players, outputs, strict=True):
        assert player.returncode == 0, err
        for line in out.splitlines():
            word, number = line.split()
            if word == "ack":
                acknowledged.append(int(number))
            else:
                retries += int(number)
    assert len(acknowledged) == 2 * hits
    ship = get_row(factory, Ship, ship_id)
    assert ship.structure_now == 500 - 2 * hits  # every acknowledged hit is on the ship
    with session_scope(factory) as session:
        hits_on_ship = (JournalEntry.ship_id == ship_id, JournalEntry.kind == "damage")
        entries = session.exec(
            select(JournalEntry.id).where(*hits_on_ship).order_by(col(JournalEntry.id))
        ).all()
    assert sorted(acknowledged) == list(entries)  # and in the journal, once each
    print(f"{2 * hits} hits from two processes, {retries} retried after a conflict")
