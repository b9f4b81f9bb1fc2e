"""Several players on one database: row versions, the umpire's read-only engine, the change
mark that screens poll, and two processes recording hits on one ship at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from service_helpers import Refused, World, get_row
from sqlmodel import Session, col, select

from tracker.db import make_engine, session_factory, session_scope
from tracker.models import JournalEntry, Ship
from tracker.services import campaigns, damage, fleet, history, mines
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
    from tracker.services import damage, fleet, mines
    from tracker.services.damage import HitRequest
    from tracker.services.errors import DatabaseUnavailable

    url, ship_id, act, times = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    go = Path(sys.argv[5])
    factory = session_factory(make_engine(url))
    ACTS = {
        "hit": lambda: damage.record_hit(
            factory, request=HitRequest(ship_id=ship_id, structure=1)).entry_id,
        "repair": lambda: damage.record_hit(
            factory, request=HitRequest(ship_id=ship_id, repair_structure=1)).entry_id,
        "fire": lambda: fleet.add_fire_markers(factory, ship_id=ship_id, delta=1),
        "fuel": lambda: mines.use_fuel(factory, ship_id=ship_id, factors=1),
    }
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    refused = 0
    for _ in range(times):
        try:
            entry = ACTS[act]()
        except DatabaseUnavailable as exc:  # the player would be told, and type it again
            refused += 1
            print("said", exc, file=sys.stderr, flush=True)
            continue
        print("ack", entry if isinstance(entry, int) else 0, flush=True)
    print("refused", refused, flush=True)
    """
)
# Each player's act, relative to the ship as it is when the act is made: Renown starts with
# 100 Structure lost (room for every repair) and 99 full fuel factors.
ACTS = ("hit", "hit", "repair", "fire", "fuel")
TIMES = 30


def _at_once(db_url: str, ship_id: int, go: Path) -> list[tuple[str, str]]:
    """Each of ACTS made TIMES times by a process of its own, all starting at one moment;
    what each process printed."""
    players = [
        subprocess.Popen(
            [sys.executable, "-c", PLAYER, db_url, str(ship_id), act, str(TIMES), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for act in ACTS
    ]
    try:
        for player in players:
            assert player.stdout is not None
            assert player.stdout.readline().strip() == "ready"
        go.touch()  # every player starts at the same moment
        outputs = [player.communicate(timeout=300) for player in players]
    finally:
        for player in players:
            player.kill()
    for player, (_, err) in zip(players, outputs, strict=True):
        assert player.returncode == 0, err
    return outputs


def test_relative_changes_from_several_processes_at_once_wait_their_turn_and_lose_none(
    world: World, add_ship: Callable[..., int], db_url: str, tmp_path: Path,
    factory: Callable[[], Session],
) -> None:  # fmt: skip
    """Hits, repairs, fire markers and fuel used on one ship by five processes at once: each is
    made from the ship as the others left it (on PostgreSQL as on SQLite, changes take turns),
    so none is refused as changed by another player (its process would end with the error), and
    every one acknowledged is on the ship and in the journal once. A change that waited past
    the database's wait is refused as held, for the player to type again: how many, if any,
    depends on the machine's load, so they are counted as not made, never asserted away."""
    ship_id = add_ship(world.alpha_id, "Renown", structure_max=500, flotation_max=10)
    damage.record_hit(factory, request=HitRequest(ship_id=ship_id, structure=100))
    mines.save_counter(factory, ship_id=ship_id, counter_size="long", speed_rating=3,
                       fuel_full=99)  # fmt: skip
    outputs = _at_once(db_url, ship_id, tmp_path / "go")
    acknowledged: dict[str, list[int]] = {act: [] for act in ACTS}
    held: Counter[str] = Counter()
    for act, (out, _) in zip(ACTS, outputs, strict=True):
        for line in out.splitlines():
            word, number = line.split()
            if word == "ack":
                acknowledged[act].append(int(number))
            else:
                held[act] += int(number)
    made = {act: len(acks) for act, acks in acknowledged.items()}
    assert {act: made[act] + held[act] for act in made} == {
        "hit": 2 * TIMES, "repair": TIMES, "fire": TIMES, "fuel": TIMES}  # fmt: skip
    ship = get_row(factory, Ship, ship_id)
    assert (ship.structure_now, ship.fire_markers, ship.fuel_full, ship.fuel_empty) == (
        500 - 100 - made["hit"] + made["repair"], made["fire"], 99 - made["fuel"],
        made["fuel"])  # fmt: skip
    with session_scope(factory) as session:
        kinds = session.exec(
            select(JournalEntry.kind, JournalEntry.id)
            .where(JournalEntry.ship_id == ship_id).order_by(col(JournalEntry.id))
        ).all()  # fmt: skip
    hits = sorted(acknowledged["hit"] + acknowledged["repair"])
    assert hits == [entry for kind, entry in kinds if kind in ("damage", "repair")][1:]
    # Besides the ship's entry, the first hit and the counter: one entry for each act made.
    journaled = {"damage": made["hit"], "repair": made["repair"], "fire": made["fire"],
                 "fuel": made["fuel"]}  # fmt: skip
    assert Counter(kind for kind, _ in kinds) == Counter(journaled) + Counter(
        ship=1, counter=1, damage=1
    )
