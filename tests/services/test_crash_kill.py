"""Killed at any moment, the campaign file keeps every change it acknowledged.

A forked child drives the real service layer on a campaign file: hits, undos, fire markers,
scenario starts and closes (each close also writes a backup), submarine markers moving, and
whole-campaign imports. After each change commits it tells the parent (one line on a pipe).
The parent kills it with SIGKILL at a random moment, then checks the file:
`PRAGMA integrity_check` and `foreign_key_check` pass, every acknowledged journal entry and
imported campaign is there, an import is all there or not at all, and replaying the journal
gives the ships as they are stored.

TRACKER_CRASH_KILLS sets the number of kills (200 at depth 1, see tests/depth.py; `make soak`
runs 5,000).
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from campaign_files import campaign_rows
from depth import examples
from service_helpers import replayed_states, ship_states

from tracker.db import SessionFactory, make_engine, migrate, session_factory
from tracker.services import campaigns, damage, exchange, fleet, history, markers, roster, scenarios
from tracker.services.damage import HitRequest
from tracker.services.errors import InvalidInput
from tracker.services.fleet import ShipFields

KILLS = int(os.environ.get("TRACKER_CRASH_KILLS", examples(200)))
SEED = int(os.environ.get("TRACKER_CRASH_SEED", "1940"))
SECTORS = ("A1", "A2", "B1", "B2", "C3")

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child to kill it")


@dataclass(frozen=True)
class Setup:
    campaign_id: int
    ship_ids: tuple[int, ...]
    marker_ids: tuple[int, ...]
    document: str  # a small campaign to import again and again


def _build(path: Path) -> Setup:
    engine = make_engine(str(path))
    migrate(engine)
    factory = session_factory(engine)
    try:
        small = campaigns.create_campaign(factory, name="Convoy PQ 17")
        side = campaigns.create_side(factory, campaign_id=small.id, name="Escort")
        escort = fleet.create_squadron(factory, side_id=side.id, name="Close escort")
        for name in ("Keppel", "Leamington", "Wilton"):
            fleet.create_ship(factory, squadron_id=escort,
                              fields=ShipFields(name=name, structure_max=6))  # fmt: skip
        document = exchange.dumps(exchange.export_campaign(factory, campaign_id=small.id))

        campaign = campaigns.create_campaign(factory, name="Arctic 1942")
        blue = campaigns.create_side(factory, campaign_id=campaign.id, name="Home Fleet")
        red = campaigns.create_side(factory, campaign_id=campaign.id, name="Kriegsmarine")
        squadron = fleet.create_squadron(factory, side_id=blue.id, name="Force Q")
        ships = tuple(
            fleet.create_ship(
                factory,
                squadron_id=squadron,
                fields=ShipFields(name=f"Ship {n}", structure_max=999, flotation_max=999),
            )
            for n in range(6)
        )
        boats = roster.save_unit(factory, side_id=red.id, fields=roster.UnitFields(
            name="U-88", unit_type="submarine", points=10))  # fmt: skip
        placed = markers.assign_markers(factory, unit_id=boats, real=1, sectors=["A1", "A2"])
        marker_ids = tuple(marker.id for marker in roster.roster(factory, side_id=red.id).markers)
        assert len(marker_ids) == len(placed.codes)
        return Setup(campaign.id, ships, marker_ids, document)
    finally:
        engine.dispose()


def _toggle_scenario(factory: SessionFactory, setup: Setup, rng: random.Random) -> None:
    """Close the scenario in play, or add one, give it ships and start it."""
    overview = campaigns.get_overview(factory, campaign_id=setup.campaign_id)
    playing = [s for s in overview.scenarios if s.status == "in_play"]
    if playing:
        scenarios.close_scenario(factory, scenario_id=playing[0].id, outcome="broken off")
        return
    added = campaigns.add_scenario(factory, campaign_id=setup.campaign_id,
                                   title=f"Sortie {rng.randrange(10**6)}")  # fmt: skip
    scenarios.set_participants(factory, scenario_id=added.id, ship_ids=setup.ship_ids[:3])
    scenarios.start_scenario(factory, scenario_id=added.id)


def _one_change(factory: SessionFactory, setup: Setup, rng: random.Random, n: int) -> str:
    """Make one change; return what to acknowledge: `entry ID` or `campaign ID`."""
    kind = rng.choices(("hit", "undo", "fire", "move", "scenario", "import"),
                       weights=(40, 15, 15, 15, 10, 5))[0]  # fmt: skip
    if kind == "import":
        document = json.loads(setup.document)
        new = exchange.import_campaign(factory, document=document, name=f"Copy {os.getpid()}-{n}")
        return f"campaign {new}"
    if kind == "hit":
        ship = rng.choice(setup.ship_ids)
        result = damage.record_hit(factory, request=HitRequest(ship_id=ship, structure=1))
        return f"entry {result.entry_id}"
    if kind == "undo":
        return f"entry {history.undo_last(factory, campaign_id=setup.campaign_id).entry_id}"
    if kind == "fire":
        ship = rng.choice(setup.ship_ids)
        fleet.add_fire_markers(factory, ship_id=ship, delta=rng.choice((-1, 1)))
    elif kind == "move":
        marker = rng.choice(setup.marker_ids)
        markers.move_marker(factory, marker_id=marker, sector=rng.choice(SECTORS))
    else:
        _toggle_scenario(factory, setup, rng)
    return f"entry {history.change_mark(factory)[0]}"


def _work_until_killed(path: Path, setup: Setup, write_end: int, seed: int) -> None:
    """The child: change the file as fast as it can, saying what committed."""
    rng = random.Random(seed)
    factory = session_factory(make_engine(str(path)))
    for n in range(100_000):
        try:
            acknowledged = _one_change(factory, setup, rng, n)
        except InvalidInput:  # nothing to undo, a marker already there: the game goes on
            continue
        os.write(write_end, f"{acknowledged}\n".encode())


def _kill_one(path: Path, setup: Setup, rng: random.Random) -> list[str]:
    """Fork a worker, let it acknowledge a random number of changes (none to three) and run a
    random moment more, SIGKILL it; what it acknowledged. Waiting for acknowledgements rather
    than for time puts the kills among the changes on a loaded machine as on an idle one."""
    wanted = rng.randrange(4)
    extra = rng.uniform(0.0, 0.03)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        os.close(read_end)
        try:
            _work_until_killed(path, setup, write_end, rng.randrange(2**32))
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    while data.count(b"\n") < wanted:
        # A bound only against a child that hangs; a slow machine just waits longer.
        ready, _, _ = select.select([read_end], [], [], 120)
        chunk = os.read(read_end, 65536) if ready else b""
        if not chunk:
            break
        data += chunk
    time.sleep(extra)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        text = (data + pipe.read()).decode()
    # A line cut short by the kill was never acknowledged.
    return text.splitlines() if text.endswith("\n") else text.splitlines()[:-1]


def _check_file(path: Path, acknowledged: list[str], setup: Setup, whole: set[int]) -> None:
    """Check the file after a kill; `whole` holds the copies already found complete (an import
    is never changed afterwards, so each is counted once)."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        entries = {row[0] for row in conn.execute("SELECT id FROM journalentry")}
        imported = {row[0] for row in conn.execute("SELECT id FROM campaign")}
    finally:
        conn.close()
    for line in acknowledged:
        kind, number = line.split()
        assert int(number) in (entries if kind == "entry" else imported), line
    engine = make_engine(str(path))
    try:
        factory = session_factory(engine)
        # An import is whole or absent: each copy has exactly the rows of the document.
        document = json.loads(setup.document)["tables"]
        expected = {name: len(rows) for name, rows in document.items()}
        for campaign in campaigns.list_campaigns(factory):
            if campaign.name.startswith("Copy ") and campaign.id not in whole:
                rows = campaign_rows(factory, campaign.id)
                assert {name: len(ids) for name, ids in rows.items() if name in expected} == {
                    name: count for name, count in expected.items()
                }, campaign.name
                whole.add(campaign.id)
        # The journal and the ships agree.
        ships, criticals = ship_states(factory)
        assert replayed_states(factory) == (ships, criticals)
    finally:
        engine.dispose()


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "campaign.db"
    setup = _build(path)
    rng = random.Random(SEED)
    total = 0
    whole: set[int] = set()
    started = time.monotonic()
    for kill in range(KILLS):
        acknowledged = _kill_one(path, setup, rng)
        total += len(acknowledged)
        try:
            _check_file(path, acknowledged, setup, whole)
        except AssertionError as exc:
            raise AssertionError(f"after kill {kill + 1} (seed {SEED}): {exc}") from exc
    elapsed = time.monotonic() - started
    print(f"{KILLS} kills, {total} acknowledged changes kept, {len(whole)} imports whole, "
          f"{elapsed:.1f} s")  # fmt: skip
